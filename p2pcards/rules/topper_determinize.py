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
from p2pcards.rules.topper_order import effective_suit

_ALL_SUITS = (1 << len(Suit)) - 1


class InconsistentView(ValueError):
    """No assignment of the unseen cards fits the hidden slots and the shown voids."""


def _feasible(counts: Sequence[int], room: Mapping[int, int], allowed: Mapping[int, int]) -> bool:
    for mask in range(1, _ALL_SUITS + 1):
        supply = sum(counts[g] for g in range(len(counts)) if mask >> g & 1)
        if supply == 0:
            continue
        capacity = sum(room[s] for s in room if allowed[s] & mask)
        if supply > capacity:
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
        if not _feasible(counts, room, allowed):
            raise InconsistentView("the shown voids leave no place for some unseen cards")
        for card in cards:
            g = effective_suit(card, trump)
            counts[g] -= 1
            candidates = [s for s in sorted(room) if room[s] > 0 and allowed[s] >> g & 1]
            while candidates:
                weights = [room[s] for s in candidates]
                seat = rng.choices(candidates, weights=weights)[0]
                room[seat] -= 1
                if _feasible(counts, room, allowed):
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
