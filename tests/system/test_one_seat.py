"""One process per seat: after ``kill -9``, a person who runs ``p2pcards join``
again (not ``resume``) goes on from the saved secrets, which are never
overwritten, and the table ends as if nothing happened: nobody is named."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from .harness import MATCH_TIMEOUT, STARTUP_TIMEOUT, Home, ProcessTable
from .scenarios import after_events, standard_plan

VICTIM = 2  # the second joiner: player 2 in join order


def _meta_bytes(home: Home) -> bytes:
    (meta,) = [p for p in (home.state / "p2pcards" / "tables").glob("*/*/meta")]
    return meta.read_bytes()


@pytest.mark.slow
def test_join_again_after_kill_9_goes_on_from_the_saved_seat_and_nobody_is_named(
    fresh_homes: Callable[[str], list[Home]], tables: list[ProcessTable],
) -> None:
    # Unseeded: a seeded joiner would make the very same secrets again, hiding the fault.
    plan = standard_plan("topper", seed=None)
    table = ProcessTable(plan, fresh_homes("rejoin"))
    tables.append(table)
    table.start()
    victim = table.processes[VICTIM]
    victim.wait_for(after_events("ActionApplied", 2), STARTUP_TIMEOUT * 3, "second action")
    victim.kill()
    saved = _meta_bytes(table.homes[VICTIM])

    # The person runs `join` again, as at first (not `resume`).
    again = table.restart(VICTIM, plan.join_args(f"{plan.bind}:{table.port}"))
    codes = table.wait(MATCH_TIMEOUT)

    for process in table.processes:
        assert process.table_ended() is None, [p.summary for p in table.processes]
        assert process.summary is not None and process.summary.startswith("Match over:")
    assert codes == [0, 0, 0, 0]
    assert any(line.startswith("You already hold a seat at this table") for line in again.lines)
    assert _meta_bytes(table.homes[VICTIM]) == saved  # the secrets were never replaced
    for check in table.verify_all([VICTIM]):
        assert check.ok and check.verdict is None, check.stdout[-400:]
