"""One table clock and presence on a simulated LAN (four network namespaces, real mDNS).

The host sets a 40-second table clock; the joiners keep the host's 40 for every
writer (the clock is in the genesis; join takes no --deadline of its own). A
joiner killed mid-match shows as reconnecting to every other player, then as
back once it resumes, and the match ends with no verdict: presence blames nobody.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from tests.support.netns import SimulatedLan

from .harness import Home, PeerProcess, ProcessTable, TablePlan
from .scenarios import after_events

HOST_CLOCK = 40
VICTIM = 2  # join order: the host is player 0, the joiners 1, 2, 3


def _events(process: PeerProcess, name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in process.lines if f'"event": "{name}"' in line]


@pytest.mark.slow
def test_every_peer_keeps_the_hosts_clock_and_sees_a_killed_player_drop_and_come_back(
    simulated_lan_factory: Callable[[int], SimulatedLan],
    fresh_homes: Callable[[str], list[Home]],
    tables: list[ProcessTable],
) -> None:
    lan = simulated_lan_factory(4)
    plan = TablePlan("topper", seed=None, settings=("--target", "4"))
    host_plan = TablePlan("topper", seed=None, deadline=HOST_CLOCK, settings=plan.settings)
    table = ProcessTable(plan, fresh_homes("clock"))
    tables.append(table)
    address = lan.addresses[0]
    table.start_host(prefix=lan.command(0, []), args=[
        "host", "topper", *plan.settings, "--bind", address, "--interface", address,
        "--table", "Clock night", *host_plan.seat_args(), *host_plan.clock_args()])
    for index in range(1, 4):
        table.add_joiner(index, ["join", "Clock night", "--interface", lan.addresses[index],
                                 "--timeout", "2", *plan.seat_args()],
                         prefix=lan.command(index, []))
    victim = table.processes[VICTIM]
    victim.wait_for(after_events("ActionApplied", 4), 120, "four moves")
    victim.kill()
    watchers = [table.processes[i] for i in (0, 1, 3)]
    for watcher in watchers:
        watcher.wait_for(lambda lines: any('"Presence"' in line
                                           and f'"{VICTIM}": "reconnecting"' in line
                                           for line in lines), 30, "the victim reconnecting")
    session = sorted({s["session"] for s in table.homes[VICTIM].saved()})[0]
    back = table.homes[VICTIM].spawn("resume", session, *plan.seat_args(),
                                     prefix=lan.command(VICTIM, []))
    table.history.append(back)
    table.processes[VICTIM] = back
    codes = table.wait()

    for watcher in watchers:
        changes = [e["changed"][str(VICTIM)] for e in _events(watcher, "Presence")
                   if str(VICTIM) in e.get("changed", {})]
        assert changes[:2] == ["reconnecting", "connected"], changes
    for process in table.processes:
        ended = _events(process, "TableEnded")
        assert not ended, ended  # a drop and a return blame nobody
    assert codes == [0, 0, 0, 0], [p.stderr() for p in table.processes]
    # Each joiner gives every writer the host's 40 s.
    for index in (1, 3):
        lefts = [e["deadline"] - e["mono"] for e in _events(table.processes[index], "Waiting")
                 if "deadline" in e and "player" in e]  # a writer (not the lobby)
        assert lefts and max(lefts) <= HOST_CLOCK + 0.5, lefts
        assert any(left > HOST_CLOCK - 5 for left in lefts), lefts
