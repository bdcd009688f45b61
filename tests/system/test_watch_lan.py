"""A spectator on a simulated LAN (network namespaces, real mDNS): it finds the
table with ``p2pcards watch``, sees every public move as it happens, and ends
with the players' outcome, while the players never wait for it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.netns import SimulatedLan

from .harness import STARTUP_TIMEOUT, Home, PeerProcess, ProcessTable, TablePlan, make_homes


def _moves(process: PeerProcess) -> list[int]:
    return [json.loads(line)["position"] for line in process.lines
            if '"event": "ActionApplied"' in line]


@pytest.mark.slow
def test_a_spectator_in_its_own_namespace_sees_every_move_and_the_outcome(
    simulated_lan_factory: Callable[[int], SimulatedLan],
    fresh_homes: Callable[[str], list[Home]],
    tables: list[ProcessTable],
    tmp_path: Path,
) -> None:
    lan = simulated_lan_factory(5)
    plan = TablePlan.short("topper", seed=None, deadline=30)
    homes = fresh_homes("watch")
    table = ProcessTable(plan, homes[:4])
    tables.append(table)
    address = lan.addresses[0]
    table.start_host(prefix=lan.command(0, []), args=[
        "host", "topper", *plan.settings, "--bind", address, "--interface", address,
        "--table", "Watch night", *plan.seat_args(), *plan.clock_args()])
    # The spectator comes first: it watches the lobby fill, then the whole match.
    sam = make_homes(tmp_path / "spectator", ("Sam",))[0]  # not one of the players
    spectator = sam.spawn("watch", "Watch night", "--interface", lan.addresses[4],
                               "--timeout", "2", "--trace",
                               prefix=lan.command(4, []))
    table.history.append(spectator)
    spectator.wait_event("LobbyUpdate", STARTUP_TIMEOUT)
    for index in range(1, 4):
        table.add_joiner(index, ["join", "Watch night", "--interface", lan.addresses[index],
                                 "--timeout", "2", *plan.seat_args()],
                         prefix=lan.command(index, []))
    codes = table.wait()
    assert codes == [0, 0, 0, 0]
    assert spectator.wait(STARTUP_TIMEOUT) == 0, spectator.stderr()

    assert any(line.startswith('Watching "Watch night"') for line in spectator.lines)
    player_moves = _moves(table.processes[1])
    assert player_moves and _moves(spectator) == player_moves
    # The same outcome as every player: the same final scores in the trace's summary line.
    assert (spectator.summary or "").startswith("Match over:"), spectator.lines[-5:]
    verdicts = [p.table_ended() for p in table.processes]
    assert verdicts == [None] * 4
