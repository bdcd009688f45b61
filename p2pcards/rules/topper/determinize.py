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


class InconsistentView(P2PCardsError, ValueError):
    """No assignment of the unseen cards fits the hidden slots and the shown voids."""


class _Fit:
    """Gale's condition for one view: which seats may hold some suit of each set of suits.

    Built once per determinisation (the voids do not change while its cards are
    placed), so each check only adds up counts and free room."""

    __slots__ = ("seats_of",)

    def __init__(self, allowed: Mapping[int, int]) -> None:
        #: For each non-empty set of suits (a bit mask), the seats allowed at least one of them.
        self.seats_of = [tuple(s for s in sorted(allowed) if allowed[s] & mask)
                         for mask in range(_ALL_SUITS + 1)]

    def feasible(self, counts: Sequence[int], room: Mapping[int, int]) -> bool:
        """Whether the cards left (``counts`` by suit) fit the free ``room`` of the seats."""
        supply = [0] * (_ALL_SUITS + 1)
        seats_of = self.seats_of
        for mask in range(1, _ALL_SUITS + 1):
            low = mask & -mask
            need = supply[mask] = supply[mask ^ low] + counts[low.bit_length() - 1]
            if need and need > sum(room[s] for s in seats_of[mask]):
                return False
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
        counts = [0] * len(Suit)
        for c in cards:
            counts[effective_suit(c, trump)] += 1
        fit = _Fit(allowed)
        if not fit.feasible(counts, room):
            raise InconsistentView("the shown voids leave no place for some unseen cards")
        for card in cards:
            g = effective_suit(card, trump)
            counts[g] -= 1
            candidates = [s for s in sorted(room) if room[s] > 0 and allowed[s] >> g & 1]
            while candidates:
                weights = [room[s] for s in candidates]
                seat = rng.choices(candidates, weights=weights)[0]
                room[seat] -= 1
                if fit.feasible(counts, room):
                    per_seat[seat].append(card)
                    break
                room[seat] += 1
                candidates.remove(seat)
            else:  # pragma: no cover - impossible once the start was feasible
                raise InconsistentView("assignment failed")
    result: dict[int, Card] = {}
    for seat, slots in hidden_slots.items():
        for slot, card in zip(slots, per_seat[seat], strict=False):
            result[slot] = card
    return result
