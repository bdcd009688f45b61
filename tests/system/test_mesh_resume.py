"""A killed player resumes with a new listening port: the host hands out its new
address (``peers``) and the other players link to it directly again."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from tests.support.typed import present

from .harness import Home, ProcessTable, TablePlan
from .scenarios import KillPoint, after_events, run_with_kill

VICTIM = 2


def _paths(lines: list[str], since: float = 0.0) -> list[dict[str, str]]:
    """Each ``Paths`` event's paths (player -> how it is reached), those traced at or after ``since``."""
    events = (json.loads(line) for line in lines if '"Paths"' in line)
    return [event["paths"] for event in events if event["t"] >= since]


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
    # Topper to 15: long enough after the resume for a link to come back on a loaded
    # machine (to 5 ended 0.16 s after the resume in CI, before the second pair was up).
    plan = TablePlan("topper", settings=("--target", "15"))
    run = run_with_kill(plan, fresh_homes("relink"), VICTIM,
                        _linked_after_moves(started), after_start=started.append)
    assert run.killed and run.restart_note == "resumed"
    table = started[0]
    first = next(p for p in table.history[1:] if p.home is table.homes[VICTIM])
    resumed = table.processes[VICTIM]
    assert resumed is not first
    assert present([seat.summary for seat in run.record.seats][0]).startswith("Match over:")
    # The resumed process links directly again, to at least one other joiner (which
    # pair comes back first depends on who dials whom first).
    again = _paths(resumed.lines)
    relinked = [player for player in (1, 3) if any(p.get(str(player)) == "direct" for p in again)]
    assert relinked, again
    # That joiner sees it come back: direct to the victim again after the kill.
    killed_at = max(json.loads(line)["t"] for line in first.lines if line.startswith("{"))
    other = _paths(table.processes[relinked[0]].lines, since=killed_at)
    assert any(p.get(str(VICTIM)) == "direct" for p in other), other
