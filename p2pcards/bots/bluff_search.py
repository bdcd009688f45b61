"""A Bluff bot that weighs every option in chips over the table's count, and learns its opponents.

It sees only its seat's view. Each choice compares the expected chips of its
options, with a card shed worth ``card_value`` chips (emptying the hand
first is what wins the safe box):

- **Beliefs.** Whether a claim is true is the count of the table as
  :class:`~p2pcards.bots.bluff_belief.TableBelief` weighs it (every claim
  of the deal, every card a call showed, its own hand and discards, the
  stakes and the passes), the very belief the counter and the coach read.
- **Opponent model** (``learn``). Per opponent, learned from what the match
  shows: how often his claims that a call showed were bluffs, against what
  the belief predicted, for each kind of claim (a lead, one card answering,
  more cards answering), which scales his bluffing habits; and how often he
  calls this bot's claims, against what it predicted.
- **Calls.** It calls when the expected gain (the discarder's stake lost,
  his cards back in his hand, the lead, and the safe box when he is about
  to go out) beats the expected cost (the stake it pays when the claim is
  true), and passing or discarding is not worth more.
- **Claims.** It weighs its true cards alone or padded with one or two of
  its loosest cards (or those alone, a bluff), at the least stake or at a
  raised one, by the cards shed against the chance of being called: the
  next player calls when that beats a pass for him (he rather sheds true
  cards when he holds the rank), less the higher the stake and the likelier
  the claim looks to a player who cannot see our hand. A true claim that
  looks unlikely is worth raising: a caller pays the stake.

At ``easy`` it believes every opponent an average player and pads a true
claim with one card at most (``pad``); at ``normal`` and ``hard`` it
learns them and weighs padding with two cards. Its decisions are
closed-form: no rollouts. All randomness comes from the ``random.Random``
it is given.
"""

from __future__ import annotations

import random

from p2pcards.bots.bluff import _options, claim_to_answer, own_card, pass_price, reveal
from p2pcards.bots.bluff_belief import Habits, TableBelief
from p2pcards.bots.bluff_model import OpponentModel
from p2pcards.bots.bluff_record import table_record
from p2pcards.bots.bluff_reply import Plan, Values, answerers, caught, lead_worth
from p2pcards.cards import Rank
from p2pcards.rules.bluff import (
    Action,
    BluffOptions,
    BluffState,
    Challenge,
    Discard,
    Pass,
)


class SearchBluffBot:
    """Expected chips over the table's count and a learned opponent model (module docstring)."""

    name = "search"
    #: The bot keeps its opponent model between decisions (``BotAgent`` keeps one bot per seat).
    remembers = True

    #: Chips a card shed is worth (the deal goes to the first empty hand).
    card_value = 20.0
    #: Chips the lead of a new round is worth (a free, honest discard of one's best rank).
    lead_value = 10.0
    #: Share of a caught bluff's stake that counts as ours (the safe box is shared in the end).
    stake_share = 0.5
    #: How many of the ranks it holds most of it weighs leading.
    lead_ranks = 3
    #: How many of the claims best at the least stake it weighs raising.
    raised_plans = 2
    #: Share of its stack a raised claim stakes.
    raise_share = 0.1
    #: What it believes the players answering its claims weigh.
    values = Values()
    #: How it believes an average player acts.
    habits = Habits()

    def __init__(self, rng: random.Random, learn: bool = True, pad: int = 2) -> None:
        self.rng = rng
        #: Whether to learn each opponent (else every one is believed an average player).
        self.learn = learn
        #: Most cards of other ranks it weighs adding to a claim.
        self.pad = pad
        self.model = OpponentModel()

    def choose(self, view: BluffState) -> Action:
        opts = _options(view)
        me = opts.seat
        record = table_record(view)
        if self.learn:
            self.model.observe(view, me, self.habits, record)
        if opts.must_reveal:
            return reveal(view, opts)
        by_rank: dict[Rank, list[int]] = {}
        for slot in opts.hand:
            by_rank.setdefault(own_card(view, slot).rank, []).append(slot)
        habits = self.model.habits(self.habits) if self.learn else self.habits
        belief = TableBelief(view, me, habits, record=record)
        choices: list[tuple[float, int, Action]] = []
        if opts.can_pass:
            choices.append((-float(pass_price(view)), 2, Pass(me)))
        if opts.can_challenge:
            choices.append((self._call_value(view, belief, by_rank), 1, Challenge(me)))
        calls: dict[Discard, tuple[int, float]] = {}
        if opts.can_discard:
            for value, discard, first in self._discards(view, opts, by_rank, belief):
                choices.append((value, 0, discard))
                if first is not None:
                    calls[discard] = first
        action = max(choices, key=lambda c: (c[0], c[1]))[2]
        if self.learn and isinstance(action, Discard) and action in calls:
            self.model.predict_call(view, *calls[action])
        return action

    # --- calls -------------------------------------------------------------------------

    def _call_value(self, view: BluffState, belief: TableBelief,
                    by_rank: dict[Rank, list[int]]) -> float:
        """Expected chips of calling the claim on the table (see the module docstring)."""
        claim = claim_to_answer(view)
        p = belief.chance_true(claim)
        stake = claim.stake
        best = max((len(slots) for slots in by_rank.values()), default=0)
        gain = (self.stake_share * stake + claim.count * self.card_value / 2
                + lead_worth(self.lead_value, self.card_value, best))
        if view.hand_sizes[claim.seat] == 0:
            # Unless called, he has won the deal: the safe box is his.
            gain += view.safe_box + stake
        return (1 - p) * gain - p * stake

    # --- own claims ---------------------------------------------------------------------

    def _discards(self, view: BluffState, opts: BluffOptions, by_rank: dict[Rank, list[int]],
                  belief: TableBelief) -> list[tuple[float, Discard, tuple[int, float] | None]]:
        me = opts.seat
        hand = len(opts.hand)
        finish = 0.6 * (view.safe_box + pass_price(view) * 6)
        public = TableBelief(view, None, self.habits, record=belief.record)
        # Leading, the ranks we hold most of; answering, the round's rank.
        if opts.must_lead or opts.rank is None:
            ranks = sorted(by_rank, key=lambda r: (-len(by_rank[r]), self.rng.random()))[:self.lead_ranks]
        else:
            ranks = [opts.rank]
        # A card a call showed is known to all: never hidden among claimed cards.
        shown = {slot for slot, _ in view.revealed}
        loose = sorted((s for s in opts.hand if s not in shown),
                       key=lambda s: (len(by_rank[own_card(view, s).rank]), self.rng.random()))
        high = max(opts.min_stake, min(opts.max_stake, int(opts.max_stake * self.raise_share)))
        scale = self.model.call_scale if self.learn else None
        who = answerers(view, me)
        out: list[tuple[float, Discard, tuple[int, float] | None]] = []

        def weigh(rank: Rank, slots: tuple[int, ...], honest: bool, shed: float, stake: int) -> None:
            plan = Plan(me, rank, len(slots), sum(1 for slot in slots if slot not in shown),
                        opts.must_lead, stake > opts.min_stake, stake)
            called, first = caught(who, belief, public, plan, self.values, scale)
            if honest:
                value = shed + called * stake * self.stake_share
            else:
                value = (1 - called) * shed - called * (stake + self.lead_value)
            out.append((value, Discard(me, slots, stake, rank), first))

        for rank in ranks:
            true = by_rank.get(rank, [])[:opts.max_discard]
            others = [s for s in loose if s not in true]
            pads = set(range(0, self.pad + 1))
            if len(true) < hand <= opts.max_discard:
                pads.add(hand - len(true))  # every card at once: out if believed
            for extra in sorted(pads):
                count = len(true) + extra
                if count == 0 or count > opts.max_discard or extra > len(others):
                    continue
                slots = tuple(true) + tuple(others[:extra])
                weigh(rank, slots, extra == 0,
                      count * self.card_value + (finish if count == hand else 0.0), opts.min_stake)
        if high > opts.min_stake:
            # A raised stake, weighed for the claims that are best at the least stake.
            for _, discard, _ in sorted(out, key=lambda o: -o[0])[:self.raised_plans]:
                named = discard.rank
                assert named is not None  # every claim weighed names its rank
                count = len(discard.slots)
                honest = all(own_card(view, slot).rank == named for slot in discard.slots)
                weigh(named, discard.slots, honest,
                      count * self.card_value + (finish if count == hand else 0.0), high)
        return out


__all__ = ["SearchBluffBot"]
