"""A killed player resumes with a new listening port: the host hands out its new
address (``peers``) and the other players link to it directly again."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from tests.support.typed import present

from .harness import Home, ProcessTable
from .scenarios import KillPoint, after_events, run_with_kill, standard_plan

VICTIM = 2


def _paths(lines: list[str]) -> list[dict[str, str]]:
    return [json.loads(line)["paths"] for line in lines if '"Paths"' in line]


def _linked_after_moves(started: list[ProcessTable]) -> KillPoint:
    """After three moves, and once the victim and player 1 both trace their direct link
    as up: the link whose loss and return the test watches (under load it can form
    after the third move; killing before it did left nothing to lose)."""
    moves = after_events("ActionApplied", 3)

    def reached(lines: list[str]) -> bool:
        mine = _paths(lines)
        ones = _paths(started[0].processes[1].lines) if started else []
        return (moves(lines) and bool(mine) and mine[-1].get("1") == "direct"
                and bool(ones) and ones[-1].get(str(VICTIM)) == "direct")
    reached.__doc__ = "after 3 ActionApplied events, linked directly to player 1"
    return reached


@pytest.mark.slow
def test_a_resumed_player_is_linked_directly_again(
    fresh_homes: Callable[[str], list[Home]],
) -> None:
    started: list[ProcessTable] = []
    run = run_with_kill(standard_plan("topper"), fresh_homes("relink"), VICTIM,
                        _linked_after_moves(started), after_start=started.append)
    assert run.killed and run.restart_note == "resumed"
    table = started[0]
    first = next(p for p in table.history[1:] if p.home is table.homes[VICTIM])
    resumed = table.processes[VICTIM]
    assert resumed is not first
    assert present([seat.summary for seat in run.record.seats][0]).startswith("Match over:")
    # The resumed process links directly again (to the other joiners; under load a
    # short match can end before the second pair is back, so one link is required).
    again = _paths(resumed.lines)
    assert any(p.get("1") == "direct" or p.get("3") == "direct" for p in again), again
    # A joiner that lost the link to it sees it come back.
    other = _paths(table.processes[1].lines)
    lost = next(i for i, p in enumerate(other) if p.get(str(VICTIM)) == "via host"
                and any(q.get(str(VICTIM)) == "direct" for q in other[:i]))
    assert any(p.get(str(VICTIM)) == "direct" for p in other[lost:]), other
