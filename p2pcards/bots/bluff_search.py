"""A Bluff bot that reasons about hidden cards and learns its opponents during the match.

It sees only its seat's view. Each choice compares the expected chips of its
options, with a card shed worth ``card_value`` chips (emptying the hand
first is what wins the safe box):

- **Beliefs.** Whether a claim is true, by Bayes: either the discarder
  held that many of the rank (the chance from the cards it can know: its
  own hand and every card a challenge revealed; a leader chose his rank,
  so his is weighed against the average rank's), or he lacked them and
  bluffed anyway (a habit, mostly with few cards). A known face of another
  rank proves a bluff.
- **Opponent model** (``learn``). Per opponent, learned from what the match
  shows: how often his challenged claims were bluffs (which scales his
  habit), and how often he calls this bot's claims (which scales the
  chance a bluff of its own is caught).
- **Calls.** It calls when the expected gain (the discarder's stake lost,
  his cards back in his hand, the lead, and the safe box when he is about
  to go out) beats the expected cost (the stake it pays when the claim is
  true), and passing or discarding is not worth more.
- **Claims.** It weighs its true cards alone or padded with one or two of
  its loosest cards (or those alone, a bluff) by the cards shed against
  the chance of being called: the next player calls when that beats a
  pass for him (at the minimum stake, nearly always unless he can answer
  with true cards), less the higher the stake and the likelier the count.
  It stakes high on true claims (a caller pays that stake) and the
  minimum on bluffs.

At ``easy`` it believes every opponent an average player and pads a true
claim with one card at most (``pad``); at ``normal`` and ``hard`` it
learns them and weighs padding with two cards. Its decisions are
closed-form: no rollouts.

All randomness comes from the ``random.Random`` it is given.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from math import comb

from p2pcards.bots.bluff import (
    _at_least,
    _options,
    belief,
    claim_to_answer,
    own_card,
    pass_price,
    reveal,
)
from p2pcards.cards import FULL_DECK, Rank
from p2pcards.rules.bluff import (
    SEATS,
    Action,
    BluffOptions,
    BluffState,
    Challenge,
    Claim,
    Discard,
    Pass,
)


@dataclass
class _Record:
    """Observed and predicted counts for one opponent: how far he departs from our beliefs."""

    bluffs: float = 0.0
    bluffs_expected: float = 0.0
    calls: float = 0.0
    calls_expected: float = 0.0


@dataclass
class OpponentModel:
    """Per opponent, how his bluffs and calls compare with what the bot predicted.

    The bot records its prediction when it calls a claim (the chance it is
    a bluff) and when it bluffs (the chance the next player calls it):
    both are choices of its own, so the answers are not selected by anyone
    else's suspicion.
    Once the match shows the answer (a challenge reveals the claim; its own
    claim is called or accepted) the observed and the predicted counts are
    added up; their ratio scales the next predictions about that player.
    Comparing with predictions, not raw rates, keeps the model from
    mistaking credible claims for a lenient player.
    """

    records: dict[int, _Record] = field(default_factory=lambda: {s: _Record() for s in range(SEATS)})
    #: (deal, claim index) -> (seat, predicted chance), waiting for the match to answer.
    _bluff_bets: dict[tuple[int, int], tuple[int, float]] = field(default_factory=dict)
    _call_bets: dict[tuple[int, int], tuple[int, float]] = field(default_factory=dict)

    #: Pseudo-counts that keep a scale near 1 until the match has shown enough.
    PRIOR = 2.0

    def predict_bluff(self, view: BluffState, seat: int, chance: float) -> None:
        """We judged the last claim (by ``seat``) a bluff with ``chance``."""
        self._bluff_bets.setdefault((view.deal_number, len(view.claims) - 1), (seat, chance))

    def predict_call(self, view: BluffState, seat: int, chance: float) -> None:
        """The claim we are making now will be called by ``seat`` with ``chance``."""
        self._call_bets[(view.deal_number, len(view.claims))] = (seat, chance)

    def observe(self, view: BluffState) -> None:
        """Settle every prediction the view answers (a claim of an earlier deal that was
        never revealed: a bluff bet is dropped, a call bet counts as not called)."""
        deal, claims = view.deal_number, view.claims
        for key, (seat, chance) in list(self._bluff_bets.items()):
            if key[0] != deal:
                del self._bluff_bets[key]
            elif key[1] < len(claims) and claims[key[1]].revealed:
                record = self.records[seat]
                record.bluffs += not claims[key[1]].honest
                record.bluffs_expected += chance
                del self._bluff_bets[key]
        for key, (seat, chance) in list(self._call_bets.items()):
            claim = claims[key[1]] if key[0] == deal and key[1] < len(claims) else None
            if key[0] == deal and claim is None:
                continue  # not made yet (we were asked again before it)
            if claim is not None and claim.revealed:
                del self._call_bets[key]  # called, and settled when we were asked to reveal
                continue
            if claim is not None and key[1] == len(claims) - 1:
                if view.challenger is None:
                    continue  # still on the table
                self.records[seat].calls += view.challenger == seat
            self.records[seat].calls_expected += chance
            del self._call_bets[key]

    def bluff_scale(self, seat: int) -> float:
        """How much more (or less) than predicted ``seat`` bluffs."""
        r = self.records[seat]
        return (r.bluffs + self.PRIOR) / (r.bluffs_expected + self.PRIOR)

    def call_scale(self, seat: int) -> float:
        """How much more (or less) than predicted ``seat`` calls our claims."""
        r = self.records[seat]
        return (r.calls + self.PRIOR) / (r.calls_expected + self.PRIOR)


def _next_in_play(view: BluffState, after: int) -> int | None:
    for step in range(1, SEATS):
        seat = (after + step) % SEATS
        if not view.out[seat] and view.hand_sizes[seat] > 0:
            return seat
    return None


def could_hold(view: BluffState, rank: Rank, count: int, maker: int, lead: bool,
               hide: tuple[int, ...]) -> float:
    """Chance ``maker`` held ``count`` of ``rank`` before his discard, from the faces the view
    knows (less those of ``hide``: to judge as the other seats do, who cannot see our hand).

    A responder's rank was named for him: the chance is hypergeometric. A
    leader chose the rank, most likely one he held many of: the chance is
    that of this rank against the average rank's.
    """
    hidden = set(hide)
    unseen = 0
    seen: dict[Rank, int] = {}
    for slot in range(52):
        face = view.face(slot)
        if face is None or slot in hidden:
            unseen += 1
        else:
            seen[face.rank] = seen.get(face.rank, 0) + 1
    held = count + sum(1 for slot, face in view.hand(maker) if face is None or slot in hidden)
    held = min(held, unseen)

    def chance(r: Rank) -> float:
        left = 4 - seen.get(r, 0)
        if r == rank and not lead:
            believed = sum(c.count for c in view.claims[:-1]
                           if c.rank == rank and not c.revealed and c.seat != maker)
            left = max(min(count, left), left - believed // 2)
        return 0.0 if count > left else _at_least(count, unseen, left, held)

    mine = chance(rank)
    if not lead or mine == 0.0:
        return mine
    mean = sum(chance(r) for r in Rank) / len(Rank)
    return min(1.0, mine / mean) if mean > 0 else 0.0


def _logistic(x: float) -> float:
    return 1 / (1 + math.exp(-max(-30.0, min(30.0, x))))


def shown_truth(view: BluffState, claim: Claim) -> float | None:
    """1 or 0 when the shown cards already settle ``claim`` (all shown, or one shown
    of another rank); None while some card of it is still face down."""
    known = [view.face(slot) for slot in claim.slots]
    if any(face is not None and face.rank != claim.rank for face in known):
        return 0.0
    if all(face is not None for face in known):
        return 1.0
    return None


def claim_could(view: BluffState, claim: Claim) -> float:
    """The chance, by the card count alone, that its maker could have made ``claim`` honestly."""
    lead = bool(view.round_claims) and view.round_claims[0] == claim
    return could_hold(view, claim.rank, claim.count, claim.seat, lead, hide=())


def claim_belief(view: BluffState, claim: Claim, habit: float) -> float:
    """Belief that ``claim`` is true, its maker bluffing with ``habit`` (Bayes)."""
    settled = shown_truth(view, claim)
    return settled if settled is not None else belief(claim_could(view, claim), claim.count, habit)


class SearchBluffBot:
    """Expected chips over beliefs and a learned opponent model; see the module docstring."""

    name = "search"
    #: The bot keeps its opponent model between decisions (``BotAgent`` keeps one bot per seat).
    remembers = True

    #: Chips a card shed is worth (the deal goes to the first empty hand).
    card_value = 20.0
    #: Chips the lead of a new round is worth (a free, honest discard of one's best rank).
    lead_value = 10.0
    #: How likely a player who lacks the cards he would claim discards anyway (a bluff).
    bluff_habit = 0.08
    #: Share of its stack a true claim stakes.
    honest_share = 0.1

    def __init__(self, rng: random.Random, learn: bool = True, pad: int = 2) -> None:
        self.rng = rng
        #: Whether to learn each opponent (else every one is believed an average player).
        self.learn = learn
        #: Most cards of other ranks it weighs adding to a claim.
        self.pad = pad
        self.model = OpponentModel()
        #: This decision's scratch: the next player's predicted call of each discard weighed,
        #: and the predicted bluff chance of the claim judged (for the model, once chosen).
        self._first_calls: dict[Discard, tuple[int, float]] = {}
        self._prior_bluff: float | None = None

    def choose(self, view: BluffState) -> Action:
        opts = _options(view)
        me = opts.seat
        self._first_calls = {}
        self._prior_bluff = None
        if self.learn:
            self.model.observe(view)
        if opts.must_reveal:
            return reveal(view, opts)
        by_rank: dict[Rank, list[int]] = {}
        for slot in opts.hand:
            by_rank.setdefault(own_card(view, slot).rank, []).append(slot)
        choices: list[tuple[float, int, Action]] = []
        if opts.can_pass:
            choices.append((-float(pass_price(view)), 2, Pass(me)))
        if opts.can_challenge:
            choices.append((self._call_value(view), 1, Challenge(me)))
        if opts.can_discard:
            for value, action in self._discards(view, opts, by_rank):
                choices.append((value, 0, action))
        action = max(choices, key=lambda c: (c[0], c[1]))[2]
        if self.learn and isinstance(action, Discard) and action in self._first_calls and any(
                own_card(view, slot).rank != action.rank for slot in action.slots):
            # Bluffs only: how readily a player calls a true claim at a high stake says
            # little about how he meets a bluff.
            self.model.predict_call(view, *self._first_calls[action])
        if self.learn and isinstance(action, Challenge) and self._prior_bluff is not None:
            self.model.predict_bluff(view, claim_to_answer(view).seat, self._prior_bluff)
        return action

    # --- beliefs ---------------------------------------------------------------------

    def _honest(self, view: BluffState, claim: Claim) -> float:
        """Belief that ``claim`` is true, by Bayes: he could be honest (the card count),
        or could not and discarded anyway (his bluffing habit, learned when ``learn``)."""
        if not self.learn:
            return claim_belief(view, claim, self.bluff_habit)
        settled = shown_truth(view, claim)
        if settled is not None:
            return settled
        could = claim_could(view, claim)
        self._prior_bluff = 1 - belief(could, claim.count, self.bluff_habit)
        return belief(could, claim.count, self.bluff_habit * self.model.bluff_scale(claim.seat))

    def _call_value(self, view: BluffState) -> float:
        """Expected chips of calling the claim on the table (see the module docstring)."""
        claim = claim_to_answer(view)
        p = self._honest(view, claim)
        stake = claim.stake
        gain = stake / 3 + claim.count * self.card_value / 3 + self.lead_value
        if view.hand_sizes[claim.seat] == 0:
            # Unless called, he has won the deal: the safe box is his.
            gain += 0.6 * (view.safe_box + stake)
        return (1 - p) * gain - p * stake

    # --- own claims ---------------------------------------------------------------------

    def _public_honest(self, view: BluffState, rank: Rank, count: int, me: int,
                       lead: bool) -> float:
        """How likely the others find a claim of ``count`` × ``rank`` by us, not seeing our hand."""
        # Most players judge by the count alone (the heuristic does).
        return could_hold(view, rank, count, me, False, hide=tuple(h.slot for h in view.hand(me)))

    def _caught(self, view: BluffState, rank: Rank, count: int, me: int, lead: bool,
                stake: int) -> tuple[float, tuple[int, float] | None]:
        """Chance our claim of ``count`` × ``rank`` at ``stake`` is called, and the next
        player's own chance of calling it as predicted before learning (for the model).

        The next player who holds the rank would rather discard true cards
        (which accepts our claim) unless the claim looks unlikely; one who
        lacks it calls when calling beats passing for him: nearly always at
        the minimum stake (a failed call costs what a pass does), less the
        higher the stake and the likelier the count. If he passes, the
        player after him judges likewise. With ``learn``, each player's
        readiness is scaled by how his calls compared with our predictions.
        """
        doubt = 1 - self._public_honest(view, rank, count, me, lead)
        price = pass_price(view)
        edge = doubt * (stake + price * count) - (1 - doubt) * stake
        # Against a free discard of true cards, or against paying a pass.
        ready_holding, ready_lacking = _logistic(2 * edge / price), _logistic(2 * edge / price + 2)
        caught, reach = 0.0, 1.0
        seat = me
        first: tuple[int, float] | None = None
        for _ in range(2):
            following = _next_in_play(view, seat)
            if following is None or following == me:
                break
            seat = following
            holds = self._holds_rank(view, rank, seat)
            if first is None:
                first = (seat, holds * ready_holding + (1 - holds) * ready_lacking)
            scale = self.model.call_scale(seat) if self.learn else 1.0
            call_h, call_l = min(0.97, ready_holding * scale), min(0.97, ready_lacking * scale)
            caught += reach * (holds * call_h + (1 - holds) * call_l)
            # Only a pass lets the next player judge: a holder not calling discards.
            reach *= (1 - holds) * (1 - call_l)
        return caught, first

    @staticmethod
    def _holds_rank(view: BluffState, rank: Rank, seat: int) -> float:
        """Chance ``seat`` holds the rank (it would then rather discard true cards than call)."""
        known = {view.face(s) for s in range(52) if view.face(s) is not None}
        unseen = [c for c in FULL_DECK if c not in known]
        of_rank = sum(1 for c in unseen if c.rank == rank)
        hidden = sum(1 for _, face in view.hand(seat) if face is None)
        if not unseen or not of_rank or not hidden:
            return 0.0
        return 1 - comb(len(unseen) - of_rank, hidden) / comb(len(unseen), hidden)

    def _discards(self, view: BluffState, opts: BluffOptions,
                  by_rank: dict[Rank, list[int]]) -> list[tuple[float, Action]]:
        me = opts.seat
        hand = len(opts.hand)
        finish = 0.6 * (view.safe_box + pass_price(view) * 6)
        # Leading, any rank we hold; answering, the round's rank.
        ranks = list(by_rank) if opts.must_lead or opts.rank is None else [opts.rank]
        loose = sorted(opts.hand, key=lambda s: (len(by_rank[own_card(view, s).rank]),
                                                   self.rng.random()))
        out: list[tuple[float, Action]] = []
        for rank in ranks:
            true = by_rank.get(rank, [])[:opts.max_discard]
            others = [s for s in loose if s not in true]
            for extra in range(0, self.pad + 1):
                count = len(true) + extra
                if count == 0 or count > opts.max_discard or extra > len(others):
                    continue
                slots = tuple(true) + tuple(others[:extra])
                honest = extra == 0
                stake = self._stake(opts, honest)
                caught, first = self._caught(view, rank, count, me, opts.must_lead, stake)
                shed = count * self.card_value + (finish if count == hand else 0.0)
                if honest:
                    value = shed + caught * stake / 3
                else:
                    value = (1 - caught) * shed - caught * (stake + self.lead_value)
                action = Discard(me, slots, stake, rank)
                out.append((value, action))
                if first is not None:
                    self._first_calls[action] = first
        return out

    def _stake(self, opts: BluffOptions, honest: bool) -> int:
        """High on the truth (a caller pays it), the minimum on a bluff."""
        if not honest:
            return opts.min_stake
        high = int(opts.max_stake * self.honest_share)
        return max(opts.min_stake, min(opts.max_stake, high))


__all__ = ["SearchBluffBot", "OpponentModel"]
