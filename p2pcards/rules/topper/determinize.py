"""Filling in the cards a seat cannot see, consistently with the voids other seats have shown.

A search bot imagines the hidden hands: every unseen card goes to some
hidden slot, but never to a seat that has shown it holds none of that card's
suit (in play, under the named trump). This is a transportation problem of
suits to seats; Gale's theorem says an assignment exists exactly when, for
every set of suits, the cards of those suits fit into the seats allowed to
hold at least one of them. Cards are placed one at a time, each to a seat
chosen with odds proportional to its free room among those that keep the
rest solvable: unconstrained, this is a uniformly random deal. A search
draws hundreds of deals of one view, so :class:`HiddenDeal` works out once
what they share; :func:`assign_hidden` is one such draw.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Generic, TypeVar

from p2pcards.cards import Card, Suit
from p2pcards.errors import P2PCardsError
from p2pcards.rules.topper.order import effective_suit

T = TypeVar("T")

_ALL_SUITS = (1 << len(Suit)) - 1
_SETS = range(1, _ALL_SUITS + 1)
#: By set of suits: the non-empty sets sharing a suit with it.
_OVERLAPPING = [tuple(m for m in _SETS if m & suits) for suits in range(_ALL_SUITS + 1)]
#: By suit: the sets holding it.
_HOLDING = [tuple(m for m in _SETS if m >> g & 1) for g in range(len(Suit))]
#: By the suits a seat may hold and the suit of a card it is given: the sets whose slack
#: that lowers (those it may hold that lack the card's suit; see :func:`_place`).
_LOWERED = [[tuple(m for m in _OVERLAPPING[suits] if not m >> g & 1) for g in range(len(Suit))]
            for suits in range(_ALL_SUITS + 1)]


class InconsistentView(P2PCardsError, ValueError):
    """No assignment of the unseen cards fits the hidden slots and the shown voids."""


def _slack(allowed: Mapping[int, int], room: Mapping[int, int], counts: Sequence[int]) -> list[int]:
    """Gale's condition as numbers: for every non-empty set of suits (a bit mask), the free
    room of the seats allowed at least one of those suits less the cards left of them.
    The cards fit exactly when no slack is negative (see :func:`_place`)."""
    slack = [0] * (_ALL_SUITS + 1)
    for seat, suits in allowed.items():
        for mask in _OVERLAPPING[suits]:
            slack[mask] += room[seat]
    for g, cards in enumerate(counts):
        for mask in _HOLDING[g]:
            slack[mask] -= cards
    return slack


def _place(slack: list[int], allowed: int, suit: int) -> bool:
    """Give a seat allowed the suits ``allowed`` one card of ``suit`` if the cards left
    still fit, updating ``slack``; whether it did.

    The card lowers both sides of every set holding its suit, so only the sets without
    it that the seat may hold lose one: those are the only ones to look at (a few
    counters instead of summing all fifteen sets afresh for each card, which was the
    dear part of a determinisation).
    """
    masks = _LOWERED[allowed][suit]
    for m in masks:
        if slack[m] <= 0:
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
    deal = HiddenDeal({s: len(v) for s, v in hidden_slots.items()}, unseen,
                      lambda card: effective_suit(card, trump), voids)
    per_seat = deal.draw(rng)
    result: dict[int, Card] = {}
    for seat, slots in hidden_slots.items():
        for slot, card in zip(slots, per_seat[seat], strict=False):
            result[slot] = card
    return result


class HiddenDeal(Generic[T]):
    """:func:`assign_hidden` by seat, prepared once for many draws of one view.

    ``room[s]`` of the ``unseen`` cards go to each seat ``s``, in the order of its
    slots, with the same draws as :func:`assign_hidden`. The cards may be anything
    ``suit_of`` gives the effective suit of: a search passes deck indices and draws
    hundreds of deals of one view, so what does not change between them (suits,
    voids, the start of Gale's condition) is worked out here once.
    """

    def __init__(self, room: Mapping[int, int], unseen: Sequence[T], suit_of: Callable[[T], int],
                 voids: Mapping[int, Collection[Suit]]) -> None:
        total = sum(room.values())
        if total != len(unseen):
            raise InconsistentView(f"{len(unseen)} unseen cards for {total} hidden slots")
        self._room = dict(room)
        self._cards = list(unseen)
        self._constrained = any(voids.get(s) for s, k in room.items() if k)
        if not self._constrained:
            return
        self._free = {s: k for s, k in room.items() if k}
        self._allowed = {s: _ALL_SUITS & ~sum(1 << suit for suit in voids.get(s, ())) for s in self._free}
        #: By suit, the seats (in order) that may be given it.
        self._takers = [[s for s in sorted(self._free) if self._allowed[s] >> g & 1] for g in range(len(Suit))]
        self._pairs = [(card, suit_of(card)) for card in unseen]
        counts = [0] * len(Suit)
        for _, g in self._pairs:
            counts[g] += 1
        self._slack = _slack(self._allowed, self._free, counts)
        self._feasible = min(self._slack) >= 0

    def draw(self, rng: random.Random) -> dict[int, list[T]]:
        """One deal: each seat's cards. Every unconstrained deal is equally likely."""
        if not self._constrained:
            cards = list(self._cards)
            rng.shuffle(cards)
            per_seat: dict[int, list[T]] = {}
            i = 0
            for seat in sorted(self._room):
                per_seat[seat] = cards[i:i + self._room[seat]]
                i += self._room[seat]
            return per_seat
        pairs = list(self._pairs)
        rng.shuffle(pairs)  # the same permutation as of the cards alone: it depends on the length only
        if not self._feasible:
            raise InconsistentView("the shown voids leave no place for some unseen cards")
        per_seat = {s: [] for s in self._room}
        free, allowed, takers, slack = dict(self._free), self._allowed, self._takers, list(self._slack)
        for card, g in pairs:
            candidates = [s for s in takers[g] if free[s]]
            while candidates:
                seat = rng.choices(candidates, weights=[free[s] for s in candidates])[0]
                if _place(slack, allowed[seat], g):
                    free[seat] -= 1
                    per_seat[seat].append(card)
                    break
                candidates.remove(seat)
            else:  # pragma: no cover - impossible once the start was feasible
                raise InconsistentView("assignment failed")
        return per_seat
