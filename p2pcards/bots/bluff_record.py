"""What the public record of a Bluff deal says beyond its claims: rounds, passes, raised stakes.

The view keeps every claim of the deal but not every turn: who passed, and
where a round began, are read back from the claims (within a round the turn
never returns to a discarder; a caught bluff gives the lead to its caller;
a round all passed goes back to its last discarder). Every seat can read
the same, so :func:`table_record` works it out once for all the beliefs
(:mod:`p2pcards.bots.bluff_belief`) of one view.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from p2pcards.cards import Rank
from p2pcards.rules.bluff import SEATS, BluffState, Phase


@dataclass(frozen=True)
class TableRecord:
    """What the public record of a deal says beyond the claims themselves: which claims led
    a round, who passed on which rank, which stakes were raised. The same for every seat's
    belief of one view, so it may be worked out once (:func:`table_record`)."""

    leads: frozenset[int]
    passes: tuple[tuple[float, int, Rank], ...]
    raised: tuple[bool, ...]


def table_record(view: BluffState) -> TableRecord:
    starts = round_starts(view)
    return TableRecord(frozenset(starts), tuple(passes(view, starts)),
                       tuple(raised_stakes(view, starts)))


def round_starts(view: BluffState) -> list[int]:
    """Indices in ``view.claims`` of the claims that led a round (the rest answered).

    A new round starts after a caught bluff, and when the same seat discards
    twice in a row (everybody passed, or a failed call came back round to
    him): within a round the turn never returns to a discarder.
    """
    claims = view.claims
    current = len(claims) - len(view.round_claims)
    starts = [0] if claims else []
    for i in range(1, len(claims)):
        before = claims[i - 1]
        if before.honest is False or claims[i].seat == before.seat or i == current:
            starts.append(i)
    return starts


def raised_stakes(view: BluffState, leads: Collection[int]) -> list[bool]:
    """Per claim of the deal, whether it staked more than the least it could (the table's
    least stake for a lead, the round's stake so far for an answer)."""
    least = view.config.min_stake or view.config.table_price
    floor, out = 0, []
    for index, claim in enumerate(view.claims):
        floor = least if index in leads else max(floor, least)
        out.append(claim.stake > floor)
        floor = max(floor, claim.stake)
    return out


def _between(after: int, before: int, out: Sequence[bool]) -> list[int]:
    """Seats in play strictly after ``after`` and before ``before``, clockwise."""
    seats: list[int] = []
    for step in range(1, SEATS):
        seat = (after + step) % SEATS
        if seat == before:
            break
        if not out[seat]:
            seats.append(seat)
    return seats


def passes(view: BluffState, starts: Sequence[int] | None = None) -> list[tuple[float, int, Rank]]:
    """Who passed on which rank, as far as the record tells: ``(order, seat, rank)`` with
    ``order`` just after the claim the seat let stand.

    Between two claims of a round, every seat in play between their makers
    passed (unless a call showed the first true: who called is not kept).
    After a round's last claim, everybody passed if its maker leads next; a
    bluff caught there was called by the next leader, and the seats before
    him passed. On the claim on the table, the seats between its maker and
    the seat to act (or the caller) passed.
    """
    claims, out = view.claims, view.out
    begins = set(round_starts(view) if starts is None else starts)
    found: list[tuple[float, int, Rank]] = []
    for i, claim in enumerate(claims):
        order = i + 0.5
        last = i + 1 == len(claims)
        nxt = None if last else claims[i + 1]
        if nxt is not None and i + 1 not in begins:
            if not claim.revealed:
                found.extend((order, s, claim.rank) for s in _between(claim.seat, nxt.seat, out))
            continue
        if last and view.phase in (Phase.RESPOND, Phase.REVEAL) and view.discarder == claim.seat:
            upto = view.challenger if view.phase is Phase.REVEAL else view.to_act
            if upto is not None and not claim.revealed:
                found.extend((order, s, claim.rank) for s in _between(claim.seat, upto, out))
            continue
        leader = nxt.seat if nxt is not None else (view.leader if view.phase is Phase.LEAD else None)
        if leader is None:
            continue
        if not claim.revealed and leader == claim.seat:
            found.extend((order, s, claim.rank) for s in _between(claim.seat, claim.seat, out))
        elif claim.honest is False:
            found.extend((order, s, claim.rank) for s in _between(claim.seat, leader, out))
    return found


__all__ = ["TableRecord", "passes", "raised_stakes", "round_starts", "table_record"]
