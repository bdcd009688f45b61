"""Blame between real ``p2pcards`` processes over loopback: a forged report moves nothing.

One of the four processes is the real command patched to lie in an alert
(``hostile_peer.py``): right after its first game action it reports that the
next writer missed its deadline. Every honest process, the accused included,
takes it as an unconfirmed report and the match ends normally for all four,
each saved transcript verifying with the same outcome (issue 10, finding 1).
"""

from __future__ import annotations

import json
import signal
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from p2pcards.net.journal import Journal
from tests.support.typed import present

from .harness import STARTUP_TIMEOUT, Home, PeerProcess, ProcessTable, TablePlan
from .scenarios import match_problems, record, standard_plan

LIAR = 2
HOSTILE_PEER = Path(__file__).resolve().parent / "hostile_peer.py"


def _spawn_liar(table: ProcessTable, index: int, mode: str) -> PeerProcess:
    home: Home = table.homes[index]
    args = table.plan.join_args(f"{table.plan.bind}:{table.port}")
    argv = [sys.executable, str(HOSTILE_PEER), mode, *args]
    process = PeerProcess(home, argv, home.root / "stderr-liar.txt")
    table.history.append(process)
    table.processes.append(process)
    process.wait_event("LobbyUpdate", STARTUP_TIMEOUT)
    return process


def _table_with_liars(plan: TablePlan, homes: list[Home], tables: list[ProcessTable],
                      liars: dict[int, str]) -> ProcessTable:
    """The host, then joiners 1 to 3, each one in ``liars`` a hostile peer of that mode."""
    table = ProcessTable(plan, homes)
    tables.append(table)
    table.start_host()
    for index in range(1, 4):
        if index in liars:
            _spawn_liar(table, index, liars[index])
        else:
            table.add_joiner(index, table.plan.join_args(f"{table.plan.bind}:{table.port}"))
    return table


@pytest.mark.slow
def test_a_forged_deadline_report_between_real_processes_names_nobody(
    fresh_homes: Callable[[str], list[Home]], tables: list[ProcessTable],
) -> None:
    table = _table_with_liars(standard_plan("topper"), fresh_homes("liar"), tables, {LIAR: "forge-deadline"})
    table.wait()
    run = record(table)
    assert match_problems(run) == []
    assert all(seat.table_ended is None for seat in run.seats)
    assert all(present(seat.summary).startswith("Match over:") for seat in run.seats)
    reports = []
    for index, process in enumerate(table.processes):
        if index == LIAR:
            continue
        for line in process.lines:
            if '"Reported"' in line:
                reports.append(json.loads(line))
    assert len(reports) == 3, reports
    assert {r["reporter"] for r in reports} == {LIAR}  # join order: the host is player 0


@pytest.mark.slow
def test_a_leave_echoed_to_an_honest_relay_as_a_message_names_the_leaver_only_for_leaving(
    fresh_homes: Callable[[str], list[Home]], tables: list[ProcessTable],
) -> None:
    """Player 2 hands every notice it receives back to the real host as a transcript
    message of its signer; player 3 leaves (Ctrl-C). The honest relay stores none
    of it: the host and player 1 end with `left` naming player 3 and nothing else,
    and their records, the relay's included, verify."""
    leaver = 3
    table = _table_with_liars(standard_plan("topper"), fresh_homes("echo"), tables, {LIAR: "echo-notices"})
    table.processes[leaver].wait_for(
        lambda lines: sum('"ActionApplied"' in line for line in lines) >= 3 or None,
        STARTUP_TIMEOUT, "three actions")
    table.processes[leaver].signal(signal.SIGINT)
    for index in (0, 1):
        table.processes[index].wait(60)
        ended = table.processes[index].table_ended()
        assert ended is not None and ended["rule"] == "left", (index, ended)
        assert ended["blamed"] == [leaver], (index, ended)
    echoer = table.processes[LIAR]
    echoer.wait(60)
    echoed = [bytes.fromhex(line.split(": ")[-1]) for line in echoer.stderr().splitlines()
              if line.startswith("echoed a notice as a message: ")]
    assert echoed, "the echoer should have handed the leave back as a message"
    relay = [p for p in table.homes[0].transcripts() if p.parent.name == "relay"]
    assert len(relay) == 1 and not set(echoed) & set(Journal(relay[0].parent).read_messages())
    # The players' records (the relay's copy keeps no verdict: it judges nothing).
    checks = [c for c in table.verify_all([0, 1]) if c.transcript.parent.name != "relay"]
    assert len(checks) == 2 and all(c.ok for c in checks), [c.stdout for c in checks]
    assert all(present(c.verdict)["rule"] == "left" for c in checks), [c.stdout for c in checks]


@pytest.mark.slow
def test_a_writer_that_sends_only_on_direct_links_gets_nobody_named(
    fresh_homes: Callable[[str], list[Home]], tables: list[ProcessTable],
) -> None:
    """Player 3 never sends the host a message it signed, only its direct peers
    (issue 20, finding 1). Its commit is the message before the host seat's open,
    and the host's own seat has no direct link: it hears player 3 through the
    others, which pass on to the host what they accept (before, it named player 3
    and the others then named the host's seat). The match ends normally for all
    four, nobody named."""
    writer = 3
    table = _table_with_liars(standard_plan("topper", deadline=6.0), fresh_homes("direct-only"), tables,
                              {writer: "direct-only"})
    table.wait()
    run = record(table)
    assert match_problems(run) == []
    assert all(seat.table_ended is None for seat in run.seats), [s.table_ended for s in run.seats]
    assert all(present(seat.summary).startswith("Match over:") for seat in run.seats)
    assert "withheld from the host" in table.processes[writer].stderr()


@pytest.mark.slow
def test_fake_shuffles_on_direct_links_do_not_make_the_next_shuffler_late(
    fresh_homes: Callable[[str], list[Home]], tables: list[ProcessTable],
) -> None:
    """Every joiner sends each of its shuffles first as 1000 copies with a broken
    signature on every direct link (issue 20, finding 2; before the cheap checks
    came first, each copy started a speculative shuffle at the next shuffler,
    which then missed its deadline). Whatever the seats drawn, some joiner's next
    shuffler is another joiner, directly linked. No copy starts any work beyond a
    signature check: every shuffler writes within its deadline and the match ends
    normally for all four."""
    table = _table_with_liars(standard_plan("topper", deadline=6.0), fresh_homes("fakes"), tables,
                              dict.fromkeys(range(1, 4), "fake-shuffles"))
    table.wait()
    run = record(table)
    assert match_problems(run) == []
    assert all(seat.table_ended is None for seat in run.seats), [s.table_ended for s in run.seats]
    sent = [line for index in range(1, 4) for line in table.processes[index].stderr().splitlines()
            if "fake shuffles" in line]
    assert any(line.endswith(("next shuffler 1", "next shuffler 2", "next shuffler 3"))
               for line in sent), sent
