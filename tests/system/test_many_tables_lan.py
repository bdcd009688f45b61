"""Many tables, one LAN: a table of four plays to its end, every pair of players
linked directly, while three other tables are announced and played on the same
laptops and the same LAN (``tests/support/other_tables.py``), evening after
evening.

Four namespaces on one simulated LAN are four laptops; each also runs seats of
the other tables (so one laptop hosts two tables at once). The players find
their table by name, by the number ``tables`` gave it and by its host key,
while the other tables come and go; none of them ever picks up another
table's records: the listing, the resolution, the direct-link announcements.
Skipped, saying why, where namespaces cannot be made (``tests/support/netns.py``).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import eventually
from tests.support.listing import listing_rows
from tests.support.netns import SimulatedLan
from tests.support.other_tables import OtherTables

from .harness import REPO_ROOT, Home, PeerProcess, ProcessTable, TablePlan, p2pcards_argv

pytestmark = pytest.mark.slow

OURS = "Our night"
OTHERS = 3
#: A whole match of ours while 12 other processes play on two cores.
MATCH_SECONDS = 600.0


def _run(home: Home, lan: SimulatedLan, index: int, *args: str) -> str:
    """``p2pcards ARGS`` in namespace ``index`` with ``home``'s files; its output."""
    done = subprocess.run(lan.command(index, p2pcards_argv(*args)), capture_output=True, text=True,
                          timeout=120, cwd=REPO_ROOT, env=home.env(), check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _listed(home: Home, lan: SimulatedLan, seen: list[set[str]]) -> set[str]:
    """The names of the tables ``tables`` lists in the first player's laptop (also kept in ``seen``)."""
    shown = _run(home, lan, 1, "tables", "--json", "--timeout", "2")
    seen.append({json.loads(line)["name"] for line in shown.splitlines() if line.startswith("{")})
    return seen[-1]


def _direct_to(process: PeerProcess, player: int) -> bool:
    return any(e.get("event") == "Paths" and e["paths"].get(str(player)) == "direct"
               for e in process.events())


def _linked_to_the_others(process: PeerProcess, player: int) -> Callable[[list[str]], bool]:
    """Whether ``process`` (player ``player``) has had a direct link to each other joiner."""
    return lambda lines: all(_direct_to(process, other) for other in {1, 2, 3} - {player})


def test_a_table_of_four_plays_to_its_end_with_every_direct_link_while_three_other_tables_play(
    simulated_lan_factory: Callable[[int], SimulatedLan],
    fresh_homes: Callable[[str], list[Home]],
    tables: list[ProcessTable],
    tmp_path: Path,
) -> None:
    lan = simulated_lan_factory(4)
    others = OtherTables(OTHERS, tmp_path / "others", interface=None, label="Next door", matches=10,
                         prefix=lambda table, seat: lan.command((table + seat + 1) % 4, []))
    # A whole game to 21: long enough for every direct link to come up first on a
    # loaded machine (to 5 ended before one did, beside another copy of the suite).
    plan = TablePlan("topper", settings=("--target", "21"), seed=None, deadline=60)
    homes = fresh_homes("many")
    table = ProcessTable(plan, homes)
    tables.append(table)
    try:
        others.start()
        eventually(lambda: others.playing() == OTHERS, timeout=300, what="three other tables seated",
                   describe=lambda: repr(others.tally))
        # At least two (a third may be between two evenings' announcements), in a list
        # made again until they are: 16 processes on two cores (12 of them playing, and
        # another worker's tests) can starve one 2 s listing of its answers.
        seen: list[set[str]] = []
        eventually(lambda: len(_listed(homes[1], lan, seen) & set(others.names)) >= 2, timeout=120,
                   what="two other tables listed", interval=1.0, describe=lambda: repr(seen[-3:]))
        host_key = homes[0].run("whoami").stdout.split()[-1]
        table.start_host(prefix=lan.command(0, []), args=[
            "host", "topper", *plan.settings, "--table", OURS, *plan.seat_args(), *plan.clock_args()])
        find = ["--timeout", "3", *plan.seat_args()]
        # By name; by the number the list printed in that laptop gave it; by host key.
        table.add_joiner(1, ["join", OURS, *find], prefix=lan.command(1, []))
        lists: list[list[dict[str, str]]] = []

        def ours_beside_others() -> bool:
            lists.append(listing_rows(_run(homes[2], lan, 2, "tables", "--timeout", "3").splitlines()))
            return any(row["TABLE"] == OURS for row in lists[-1]) and len(lists[-1]) > 1

        eventually(ours_beside_others, timeout=120, what="our table listed beside the others",
                   interval=1.0, describe=lambda: repr(lists[-2:]))
        listed = lists[-1]
        number = next(row["#"] for row in listed if row["TABLE"] == OURS)
        table.add_joiner(2, ["join", number, *find], prefix=lan.command(2, []))
        table.add_joiner(3, ["join", host_key[:9], *find], prefix=lan.command(3, []))
        for joiner in table.processes[1:]:
            joining = next(line for line in joiner.lines if line.startswith("Joining "))
            assert joining.startswith(f'Joining "{OURS}" (topper') and f"host key {host_key}" in joining
        # Every pair of players links directly (the host's own seat talks to its relay).
        for player, joiner in enumerate(table.processes[1:], start=1):
            joiner.wait_for(_linked_to_the_others(joiner, player), MATCH_SECONDS,
                            "a direct link to each other player")
        codes = table.wait(MATCH_SECONDS)
    finally:
        tally = others.stop()
    assert codes == [0, 0, 0, 0], [p.stderr()[-400:] for p in table.processes]
    assert all((p.summary or "").startswith("Match over:") for p in table.processes)
    for check in table.verify_all():
        assert check.ok, check.stdout[-400:]
    # The other tables (all seated before ours began) played on, evening after
    # evening, and none of them went wrong either.
    assert tally.matches > 0 and tally.problems == [], tally
