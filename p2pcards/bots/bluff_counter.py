"""A Bluff card counter: every decision from the full count of the table, without search or learning.

It reads its seat's view through :class:`~p2pcards.bots.bluff_belief.TableBelief`
(its hand and discards, every claim of the deal, every card a call showed,
the stakes and the passes) and weighs each option in chips, with a card shed
worth :attr:`CounterBluffBot.card_value` (the first empty hand takes the safe
box):

- **Answering a claim** it calls when the chance the claim is a lie, times
  what a caught bluff gives (the discarder's cards back, his stake, the
  lead; the safe box when he is about to go out), beats the stake a true
  claim costs, and beats the alternatives: its own true cards of the rank,
  shed for free; passing; or a one-card bluff at the least stake, weighed
  by the chance the next player calls it (he calls when he holds none of
  the rank and the table believes the claim little).
- **Leading** it names the rank it holds most of and discards all of it
  (four at most); with four cards or fewer left and a claim the table would
  believe, it may pad to go out at once.

Its stakes are the least it may stake, truth or bluff alike, so they tell
nothing. Only the seat's view is read; it is deterministic given its
``random.Random``.
"""

from __future__ import annotations

import random

from p2pcards.bots.bluff import _options, claim_to_answer, own_card, pass_price, reveal
from p2pcards.bots.bluff_belief import Habits, TableBelief
from p2pcards.bots.bluff_model import OpponentModel
from p2pcards.bots.bluff_record import table_record
from p2pcards.bots.bluff_reply import Plan, Values, answerers, caught, lead_worth
from p2pcards.cards import Rank
from p2pcards.rules.bluff import Action, BluffOptions, BluffState, Challenge, Discard, Pass


class CounterBluffBot:
    """Chips-weighed choices over a full count of the table (see the module docstring)."""

    name = "counter"

    #: Chips a card shed is worth.
    card_value = 20.0
    #: Chips leading the next round is worth.
    lead_value = 10.0
    #: Share of a caught bluff's stake that counts as ours (the safe box is shared in the end).
    stake_share = 0.5
    #: What it believes the players answering its claims weigh.
    values = Values()
    #: How it believes players act (see :class:`~p2pcards.bots.bluff_belief.Habits`).
    habits = Habits()

    #: It keeps its count of each opponent's bluffs between decisions (``BotAgent`` keeps
    #: one bot per seat).
    remembers = True
    #: Whether it counts each opponent's bluffs that calls showed (else all are average).
    learn = True

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.model = OpponentModel()

    def choose(self, view: BluffState) -> Action:
        opts = _options(view)
        if opts.must_reveal:
            return reveal(view, opts)
        by_rank: dict[Rank, list[int]] = {}
        for slot in opts.hand:
            by_rank.setdefault(own_card(view, slot).rank, []).append(slot)
        record = table_record(view)
        if self.learn:
            self.model.observe(view, opts.seat, self.habits, record)
        if opts.must_lead:
            return self._lead(view, opts, by_rank)
        habits = self.model.habits(self.habits) if self.learn else self.habits
        belief = TableBelief(view, opts.seat, habits, record=record)
        return self._respond(view, opts, by_rank, belief)

    def _lead(self, view: BluffState, opts: BluffOptions, by_rank: dict[Rank, list[int]]) -> Action:
        most = max(len(slots) for slots in by_rank.values())
        rank = self.rng.choice(sorted(r for r, slots in by_rank.items() if len(slots) == most))
        slots = tuple(by_rank[rank][:opts.max_discard])
        return Discard(opts.seat, slots, opts.min_stake, rank)

    def _respond(self, view: BluffState, opts: BluffOptions, by_rank: dict[Rank, list[int]],
                 belief: TableBelief) -> Action:
        me = opts.seat
        claim = claim_to_answer(view)
        rank = claim.rank
        true_slots = by_rank.get(rank, [])[:opts.max_discard]
        choices: list[tuple[float, Action]] = []
        about_to_win = view.hand_sizes[claim.seat] == 0
        if opts.can_challenge:
            p = belief.chance_true(claim)
            best = max(len(slots) for slots in by_rank.values())
            gain = (self.stake_share * claim.stake + claim.count * self.card_value / 2
                    + lead_worth(self.lead_value, self.card_value, best))
            if about_to_win:
                gain += view.safe_box + claim.stake
            choices.append(((1 - p) * gain - p * claim.stake, Challenge(me)))
        if about_to_win:
            # A discard accepts his last cards (he wins at once), a pass pays for it as well.
            if opts.can_discard:
                slots = tuple(true_slots) or (opts.hand[0],)
                choices.append((-0.5, Discard(me, slots, opts.min_stake, rank)))
            if opts.can_pass:
                choices.append((-float(pass_price(view)), Pass(me)))
            return max(choices, key=lambda c: c[0])[1]
        if opts.can_pass:
            choices.append((-float(pass_price(view)), Pass(me)))
        if opts.can_discard and true_slots:
            choices.append((len(true_slots) * self.card_value, Discard(
                me, tuple(true_slots), opts.min_stake, rank)))
        elif opts.can_discard and (bluff := self._bluff(view, opts, by_rank, rank)) is not None:
            caught = self._caught(view, belief, bluff)
            value = (1 - caught) * self.card_value - caught * (opts.min_stake + self.lead_value)
            choices.append((value, bluff))
        return max(choices, key=lambda c: c[0])[1]

    def _bluff(self, view: BluffState, opts: BluffOptions, by_rank: dict[Rank, list[int]],
               rank: Rank) -> Discard | None:
        """One card of our thinnest rank, claimed as ``rank`` at the least stake (never a card
        a call showed: everybody knows it)."""
        shown = {slot for slot, _ in view.revealed}
        hidden = {r: [s for s in slots if s not in shown] for r, slots in by_rank.items()}
        hidden = {r: slots for r, slots in hidden.items() if slots}
        if not hidden:
            return None
        fewest = min(len(by_rank[r]) for r in hidden)
        loose = self.rng.choice(sorted(r for r in hidden if len(by_rank[r]) == fewest))
        return Discard(opts.seat, (hidden[loose][0],), opts.min_stake, rank)

    def _caught(self, view: BluffState, belief: TableBelief, bluff: Discard) -> float:
        """Chance ``bluff`` is called: each player after us judges it from what he can
        count (the table's record and his own cards, as far as our count foresees them)."""
        assert bluff.rank is not None
        plan = Plan(bluff.seat, bluff.rank, len(bluff.slots), len(bluff.slots), False, False,
                    bluff.stake)
        public = TableBelief(view, None, self.habits, record=belief.record)
        return caught(answerers(view, bluff.seat), belief, public, plan, self.values)[0]


__all__ = ["CounterBluffBot"]
