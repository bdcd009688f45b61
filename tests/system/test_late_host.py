"""A host killed and resumed after the players gave up on it (issue 22 bug 5).

The joiner's record rightly names the host, which it could not reach; the host,
resumed later than the players' reconnect window, says that the table ended
while it was away, at once: it waits out no clock that ran while it was down,
and its own records name nobody."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from p2pcards.net.resume import ALIVE_EVERY, last_up

from .harness import STARTUP_TIMEOUT, Home, ProcessTable, TablePlan

WINDOW = 2.0
#: The table clock: far longer than the resumed host is given, had it waited one out.
CLOCK = 300.0


@pytest.mark.slow
def test_a_host_back_after_the_players_gave_up_names_nobody_and_says_so(
    fresh_homes: Callable[[str], list[Home]], tables: list[ProcessTable],
) -> None:
    plan = TablePlan.short("bluff", deadline=CLOCK, reconnect_window=WINDOW,
                           extra_host=("--bots", "2"))
    table = ProcessTable(plan, fresh_homes("latehost"))
    tables.append(table)
    table.start_host()
    joiner = table.add_joiner(1, plan.join_args(f"{plan.bind}:{table.port}"))
    joiner.wait_event("ActionApplied", STARTUP_TIMEOUT)
    table.processes[0].kill()

    joiner.wait(60)
    ended = joiner.table_ended()
    assert ended is not None and (ended["rule"], ended["blamed"]) == ("deadline", [0])
    assert "could not be reached (the host)" in (joiner.summary or ""), joiner.summary

    host_home = table.homes[0]
    relay = next(path.parent for path in host_home.transcripts() if path.parent.name == "relay")
    up_at = last_up(relay)
    assert up_at is not None
    for _ in range(200):  # until even the latest moment the host may have been up is too long ago
        if time.time() - up_at > WINDOW + ALIVE_EVERY + 0.5:
            break
        time.sleep(0.1)

    resumed = table.restart(0)
    assert resumed.wait(60) == 3, resumed.lines[-5:]
    summary = resumed.summary or ""
    assert summary.startswith("Table ended: the table ended while you were away"), summary
    assert "names nobody" in summary and "ran out of time" not in summary
    # Its records (its own seat, its bots', its relay's) hold no verdict of its clock.
    folders = [path.parent for path in host_home.transcripts()]
    assert len(folders) == 4 and not any((folder / "verdict").exists() for folder in folders)
    (own,) = host_home.saved()  # the host's own seat (not its bots', not its relay's)
    assert own["status"].startswith("ended while you were away") and not own["in_play"], own
    check = host_home.verify(Path(own["path"]) / "transcript")
    assert check.verdict is None and check.report.get("unfinished"), check.stdout
    # Its folder (or its session id) says what saved says: ended, not unfinished.
    check = host_home.verify(Path(own["path"]))
    assert check.report["ended_away"] and not check.report["unfinished"], check.stdout
    assert "the table ended while you were away" in " ".join(check.stdout.split())
