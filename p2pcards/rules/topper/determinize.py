"""Filling in the cards a seat cannot see, consistently with the voids other seats have shown.

A search bot imagines the hidden hands: every unseen card goes to some
hidden slot, but never to a seat that has shown it holds none of that card's
suit (in play, under the named trump). This is a transportation problem of
suits to seats; Gale's theorem says an assignment exists exactly when, for
every set of suits, the cards of those suits fit into the seats allowed to
hold at least one of them. Cards are placed one at a time, each to a seat
chosen with odds proportional to its free room among those that keep the
rest solvable: unconstrained, this is a uniformly random deal.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from p2pcards.cards import Card, Suit
from p2pcards.errors import P2PCardsError
from p2pcards.rules.topper.order import effective_suit

_ALL_SUITS = (1 << len(Suit)) - 1
_SETS = range(1, _ALL_SUITS + 1)
#: By set of suits: the non-empty sets sharing a suit with it.
_OVERLAPPING = [tuple(m for m in _SETS if m & suits) for suits in range(_ALL_SUITS + 1)]
#: By suit: the sets holding it.
_HOLDING = [tuple(m for m in _SETS if m >> g & 1) for g in range(len(Suit))]
#: By the suits a seat may hold and the suit of a card it is given: the sets whose slack
#: that lowers (those it may hold that lack the card's suit; see :class:`_Slack`).
_LOWERED = [[tuple(m for m in _OVERLAPPING[suits] if not m >> g & 1) for g in range(len(Suit))]
            for suits in range(_ALL_SUITS + 1)]


class InconsistentView(P2PCardsError, ValueError):
    """No assignment of the unseen cards fits the hidden slots and the shown voids."""


class _Slack:
    """Gale's condition for one view, kept up to date while its cards are placed.

    For every non-empty set of suits (a bit mask) it holds the *slack*: the free
    room of the seats allowed at least one of those suits, less the cards left of
    them. The rest fits exactly when no slack is negative. Placing a card of suit
    ``g`` with a seat allowed it lowers both sides of every set holding ``g``, so
    only the sets without ``g`` that the seat may hold lose one: those are the only
    ones to look at (a few counters instead of summing all fifteen sets afresh for
    each card: the dear part of a determinisation).
    """

    __slots__ = ("slack", "_allowed")

    def __init__(self, allowed: Mapping[int, int], room: Mapping[int, int], counts: Sequence[int]) -> None:
        self._allowed = allowed
        slack = self.slack = [0] * (_ALL_SUITS + 1)
        for seat, suits in allowed.items():
            for mask in _OVERLAPPING[suits]:
                slack[mask] += room[seat]
        for g, cards in enumerate(counts):
            for mask in _HOLDING[g]:
                slack[mask] -= cards

    def feasible(self) -> bool:
        return min(self.slack) >= 0

    def place(self, seat: int, suit: int) -> bool:
        """Give ``seat`` one card of ``suit`` if the cards left still fit; whether it did."""
        masks = _LOWERED[self._allowed[seat]][suit]
        slack = self.slack
        if not all(slack[m] > 0 for m in masks):
            return False
        for m in masks:
            slack[m] -= 1
        return True


def assign_hidden(
    hidden_slots: Mapping[int, Sequence[int]],
    unseen: Sequence[Card],
    voids: Mapping[int, frozenset[Suit] | set[Suit]],
    trump: Suit | None,
    rng: random.Random,
) -> dict[int, Card]:
    """Map every hidden slot (grouped by seat) to an unseen card, respecting shown voids.

    Raises :class:`InconsistentView` when the counts differ or no assignment exists.
    """
    slots_total = sum(len(v) for v in hidden_slots.values())
    if slots_total != len(unseen):
        raise InconsistentView(f"{len(unseen)} unseen cards for {slots_total} hidden slots")
    cards = list(unseen)
    rng.shuffle(cards)
    constrained = any(voids.get(s) for s in hidden_slots if hidden_slots[s])
    per_seat: dict[int, list[Card]] = {s: [] for s in hidden_slots}
    if not constrained:
        i = 0
        for seat in sorted(hidden_slots):
            n = len(hidden_slots[seat])
            per_seat[seat] = cards[i:i + n]
            i += n
    else:
        room = {s: len(v) for s, v in hidden_slots.items() if v}
        allowed = {
            s: _ALL_SUITS & ~sum(1 << suit for suit in voids.get(s, ()))
            for s in room
        }
        suits = [int(effective_suit(c, trump)) for c in cards]
        counts = [0] * len(Suit)
        for g in suits:
            counts[g] += 1
        fit = _Slack(allowed, room, counts)
        if not fit.feasible():
            raise InconsistentView("the shown voids leave no place for some unseen cards")
        seats = sorted(room)
        for card, g in zip(cards, suits, strict=True):
            candidates = [s for s in seats if room[s] > 0 and allowed[s] >> g & 1]
            while candidates:
                weights = [room[s] for s in candidates]
                seat = rng.choices(candidates, weights=weights)[0]
                if fit.place(seat, g):
                    room[seat] -= 1
                    per_seat[seat].append(card)
                    break
                candidates.remove(seat)
            else:  # pragma: no cover - impossible once the start was feasible
                raise InconsistentView("assignment failed")
    result: dict[int, Card] = {}
    for seat, slots in hidden_slots.items():
        for slot, card in zip(slots, per_seat[seat], strict=False):
            result[slot] = card
    return result
