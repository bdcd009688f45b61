"""Bluff bots: a uniformly random player and a counting, cautious one.

Both are given a seat's view only (``BluffState.view``) and decide from
``view.options()`` and the public record; neither ever sees another seat's
hidden cards. Each is deterministic given the ``random.Random`` it is built
with.
"""

from __future__ import annotations

import random
from math import comb

from p2pcards.cards import Card, Rank
from p2pcards.errors import P2PCardsError
from p2pcards.rules.bluff import (
    Action,
    BluffOptions,
    BluffState,
    Challenge,
    Claim,
    Discard,
    Pass,
    Reveal,
)
from p2pcards.rules.errors import FacesUnknown


class NothingToChoose(P2PCardsError, LookupError):
    """A bot was handed a view with nothing to decide: nobody is to act (a deal is
    awaited, or the match ended), or no discard is on the table to answer."""


def _options(view: BluffState) -> BluffOptions:
    opts = view.options()
    if opts is None:
        raise NothingToChoose(f"nobody is to act ({view.phase.value})")
    return opts


def own_card(view: BluffState, slot: int) -> Card:
    """A card of the viewer's own: a seat's view always knows those."""
    card = view.face(slot)
    if card is None:
        raise FacesUnknown(view.viewer, f"card in slot {slot}")
    return card


def claim_to_answer(view: BluffState) -> Claim:
    """The discard on the table, which the seat to act answers (or calls)."""
    claim = view.last_claim
    if claim is None:
        raise NothingToChoose(f"no discard on the table to answer ({view.phase.value})")
    return claim


def pass_price(view: BluffState) -> int:
    """What a pass costs at this table (a config resolves it to the table price if unset)."""
    config = view.config
    price: int = config.pass_price or config.table_price
    return price


def named_rank_slots(opts: BluffOptions, by_rank: dict[Rank, list[int]]) -> list[int]:
    """Our slots of the rank this round claims (none while leading: the leader names it)."""
    return by_rank.get(opts.rank, []) if opts.rank is not None else []


def reveal(view: BluffState, opts: BluffOptions) -> Reveal:
    """The only legal answer to a challenge: show the discard as it was."""
    return Reveal(opts.seat, tuple(own_card(view, slot) for slot in opts.reveal_slots))


class RandomBluffBot:
    """A kind of action uniformly among those available, then its details uniformly."""

    name = "random"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: BluffState) -> Action:
        opts = _options(view)
        if opts.must_reveal:
            return reveal(view, opts)
        kinds = [kind for kind, ok in (("pass", opts.can_pass), ("challenge", opts.can_challenge),
                                       ("discard", opts.can_discard)) if ok]
        kind = self.rng.choice(kinds)
        if kind == "pass":
            return Pass(opts.seat)
        if kind == "challenge":
            return Challenge(opts.seat)
        count = self.rng.randint(1, min(opts.max_discard, len(opts.hand)))
        slots = tuple(self.rng.sample(opts.hand, count))
        rank = self.rng.choice(list(Rank)) if opts.must_lead else opts.rank
        return Discard(opts.seat, slots, self.rng.randint(opts.min_stake, opts.max_stake), rank)


def chance_honest(view: BluffState, claim: Claim, judge: int) -> float:
    """How likely ``claim`` is true, from what seat ``judge`` knows (``view`` is its view).

    Cards never change hands in Bluff, so the discarded slots' faces are
    either known (dealt to us, or revealed earlier) or among the cards we
    have not seen. A known face of another rank proves a bluff; more cards
    of the rank than remain unseen make the claim impossible. Otherwise the
    estimate is the chance that the discarder's unseen cards held that
    many of the rank (hypergeometric), with earlier unchallenged claims of
    the rank by other seats believed in half.
    """
    rank = claim.rank
    known_faces = [view.face(slot) for slot in claim.slots]
    if any(face is not None and face.rank != rank for face in known_faces):
        return 0.0
    needed = sum(1 for face in known_faces if face is None)
    if needed == 0:
        return 1.0
    seen_of_rank = 0
    unseen = 0
    for slot in range(52):
        face = view.face(slot)
        if face is None:
            unseen += 1
        elif face.rank == rank:
            seen_of_rank += 1
    left = 4 - seen_of_rank
    if needed > left:
        return 0.0
    believed = sum(c.count for c in view.claims[:-1]
                   if c.rank == rank and not c.revealed and c.seat != judge)
    left = max(needed, left - believed // 2)
    # Unseen cards that were in the discarder's hand before this discard.
    held = needed + sum(1 for _, face in view.hand(claim.seat) if face is None)
    return _at_least(needed, unseen, left, held)


def belief(could: float, count: int, habit: float) -> float:
    """Chance a claim of ``count`` cards is true: Bayes between a player who could be honest
    (chance ``could``) and one who could not and bluffed anyway (``habit``), mostly with few cards."""
    if could >= 1.0:
        return 1.0
    lie = (1 - could) * min(1.0, habit) * 0.5 ** (count - 1)
    return could / (could + lie) if could + lie > 0 else 0.0


def _at_least(k: int, population: int, successes: int, draws: int) -> float:
    """P(X >= k) for X hypergeometric: ``draws`` from ``population`` holding ``successes``."""
    total = comb(population, draws)
    if total == 0:
        return 0.0
    hits = sum(comb(successes, i) * comb(population - successes, draws - i)
               for i in range(k, min(successes, draws) + 1))
    return hits / total


class HeuristicBluffBot:
    """Counts what it can know, calls unlikely claims, tells the truth when it can.

    It leads the rank it holds most of, with all of them; discards true
    cards when it holds the round's rank; bluffs one card only while the
    stake is small and the rank not much claimed yet; challenges a claim
    that is impossible or improbable (sooner when the discarder is about to
    empty his hand) when the expected gain of the call beats the stake it
    risks on a true claim; otherwise takes the cheaper in expectation of passing
    and challenging. It always stakes the minimum: an honest discard risks
    nothing, and a small stake keeps its own later bluffs cheap.
    """

    name = "heuristic"

    #: Challenge below this chance that the claim is honest.
    doubt = 0.3
    #: Challenge an about-to-win discarder below this chance.
    last_card_doubt = 0.9
    #: Do not bluff a rank once this many cards of it were claimed this deal.
    believable_claims = 3
    #: How often a player who lacks the cards he would claim discards anyway.
    bluff_habit = 0.2

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: BluffState) -> Action:
        opts = _options(view)
        if opts.must_reveal:
            return reveal(view, opts)
        by_rank = self._hand_by_rank(view, opts)
        if opts.must_lead:
            return self._lead(opts, by_rank)
        return self._respond(view, opts, by_rank)

    @staticmethod
    def _hand_by_rank(view: BluffState, opts: BluffOptions) -> dict[Rank, list[int]]:
        by_rank: dict[Rank, list[int]] = {}
        for slot in opts.hand:
            by_rank.setdefault(own_card(view, slot).rank, []).append(slot)
        return by_rank

    def _lead(self, opts: BluffOptions, by_rank: dict[Rank, list[int]]) -> Action:
        most = max(len(slots) for slots in by_rank.values())
        rank = self.rng.choice(sorted(r for r, slots in by_rank.items() if len(slots) == most))
        slots = tuple(by_rank[rank][:opts.max_discard])
        return Discard(opts.seat, slots, opts.min_stake, rank)

    def _respond(self, view: BluffState, opts: BluffOptions,
                 by_rank: dict[Rank, list[int]]) -> Action:
        claim = claim_to_answer(view)
        seat = opts.seat
        about_to_win = view.hand_sizes[claim.seat] == 0
        honest = self._honest(view, claim, seat) if opts.can_challenge else 1.0
        believed = belief(honest, claim.count, self.bluff_habit)
        doubted = honest < (self.last_card_doubt if about_to_win else self.doubt)
        if opts.can_challenge and self._worth_calling(view, claim, believed, about_to_win) and doubted:
            return Challenge(seat)
        if about_to_win:
            # Whatever we do the discarder wins unless someone calls him; a
            # discard at least costs nothing, a pass feeds his safe box.
            return self._discard_true_or_any(opts, by_rank) or Pass(seat)
        true_cards = named_rank_slots(opts, by_rank)
        if true_cards and opts.can_discard:
            return Discard(seat, tuple(true_cards[:opts.max_discard]), opts.min_stake, opts.rank)
        bluff = self._small_bluff(view, opts, by_rank)
        if bluff is not None:
            return bluff
        if opts.can_challenge and honest * claim.stake < pass_price(view):
            return Challenge(seat)
        return Pass(seat)

    def _honest(self, view: BluffState, claim: Claim, seat: int) -> float:
        """The chance ``claim`` is true as this bot counts (the counter counts more)."""
        return chance_honest(view, claim, seat)

    @staticmethod
    def _worth_calling(view: BluffState, claim: Claim, believed: float, about_to_win: bool) -> bool:
        """Whether a call's expected gain beats the stake it loses on a true claim.

        ``believed`` is the chance the claim is true once we allow that
        players mostly tell the truth (the card count alone makes every
        long claim look false). A caught bluff sends the discarder's stake
        to the safe box (half of it a gain to us, roughly) and gives his
        cards back (each worth about a pass); against an empty hand it also
        saves the safe box. A true claim costs us the whole stake.
        """
        gain = claim.stake / 2 + pass_price(view) * claim.count
        if about_to_win:
            gain += view.safe_box
        return (1 - believed) * gain > believed * claim.stake

    @staticmethod
    def _discard_true_or_any(opts: BluffOptions,
                             by_rank: dict[Rank, list[int]]) -> Action | None:
        if not opts.can_discard:
            return None
        slots = named_rank_slots(opts, by_rank)[:opts.max_discard] or [opts.hand[0]]
        return Discard(opts.seat, tuple(slots), opts.min_stake, opts.rank)

    def _small_bluff(self, view: BluffState, opts: BluffOptions,
                     by_rank: dict[Rank, list[int]]) -> Action | None:
        """One card of our thinnest rank, only while the stake is close to the pass price
        and the rank is not so claimed already that one more would be called."""
        if not opts.can_discard:
            return None
        if sum(c.count for c in view.claims if c.rank == opts.rank) >= self.believable_claims:
            return None
        if opts.min_stake > 2 * pass_price(view):
            return None
        if opts.min_stake * 10 > opts.max_stake:
            return None
        fewest = min(len(slots) for slots in by_rank.values())
        rank = self.rng.choice(sorted(r for r, slots in by_rank.items() if len(slots) == fewest))
        return Discard(opts.seat, (by_rank[rank][0],), opts.min_stake, opts.rank)


__all__ = ["RandomBluffBot", "HeuristicBluffBot", "NothingToChoose", "belief", "chance_honest", "reveal"]
