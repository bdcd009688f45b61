"""One cheat shared by the attack tests and the hostile host process: a
``shares`` message whose share for one other seat's card is another card's.

Pure list surgery on the message body (no p2pcards imports), so that
``tests/system/hostile_host.py`` can use it in its own process.
"""

from __future__ import annotations

from typing import TypeVar

SEATS = 4
T = TypeVar("T")


def swap_share_for_next_seat(shares: list[T], sharer_seat: int) -> tuple[list[T], int]:
    """``shares`` (one per card not held by ``sharer_seat``, in deck order) with the
    first share for the next seat's card replaced by a share of another seat's
    card; and that victim seat. Only the victim checks it at once."""
    deal_size = len(shares) * SEATS // (SEATS - 1)
    slots = [p for p in range(deal_size) if p % SEATS != sharer_seat]
    victim_seat = (sharer_seat + 1) % SEATS
    i = next(k for k, p in enumerate(slots) if p % SEATS == victim_seat)
    j = next(k for k, p in enumerate(slots) if p % SEATS != victim_seat)
    forged = list(shares)
    forged[i] = forged[j]
    return forged, victim_seat
