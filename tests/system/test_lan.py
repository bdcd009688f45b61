"""A whole match on a simulated LAN: four network namespaces on a bridge, real mDNS.

The host advertises its table with zeroconf in one namespace; three players
in the others find it with ``p2pcards join --interface <their address>`` and
play a whole match with bots. Skipped, saying why, where namespaces cannot
be made (see ``tests/support/netns.py``).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.support.netns import SimulatedLan

from .harness import Home, ProcessTable, TablePlan
from .scenarios import record

DISCOVERY_SECONDS = "2"


@pytest.mark.slow
def test_peers_in_three_namespaces_discover_the_host_and_play_a_whole_match(
    simulated_lan_factory: Callable[[int], SimulatedLan],
    fresh_homes: Callable[[str], list[Home]],
    tables: list[ProcessTable],
) -> None:
    lan = simulated_lan_factory(4)
    plan = TablePlan.short("bluff", seed=None, deadline=30)
    table = ProcessTable(plan, fresh_homes("lan"))
    tables.append(table)
    host_address = lan.addresses[0]
    table.start_host(prefix=lan.command(0, []), args=[
        "host", "bluff", *plan.settings, "--bind", host_address, "--interface", host_address,
        "--table", "LAN night", *plan.seat_args(), *plan.clock_args()])
    joined = []
    for index in range(1, 4):
        joiner = table.add_joiner(index, ["join", "LAN night", "--interface", lan.addresses[index],
                                          "--timeout", DISCOVERY_SECONDS, *plan.seat_args()],
                                  prefix=lan.command(index, []))
        joined.append(next(line for line in joiner.lines if line.startswith("Joining ")))
    table.wait()
    run = record(table)

    # Each joiner found the table by mDNS at the host's namespace address, not by --connect.
    assert all(f"at {host_address}:{table.port}" in line for line in joined), joined
    summaries = [seat.summary for seat in run.seats]
    # Every seat saw the match end (each says "you" for itself: the outcomes are compared below).
    assert all((s or "").startswith("Match over:") for s in summaries), summaries
    checks = [check for seat in run.seats for check in seat.verifications]
    assert len(checks) == 5 and all(check.ok for check in checks), [c.stdout for c in checks]
    assert len({check.outcome for check in checks}) == 1
