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

from .harness import STARTUP_TIMEOUT, Home, PeerProcess, ProcessTable
from .scenarios import match_problems, record, standard_plan

LIAR = 2
HOSTILE_PEER = Path(__file__).resolve().parent / "hostile_peer.py"


def _spawn_liar(table: ProcessTable, index: int, mode: str = "forge-deadline") -> PeerProcess:
    home: Home = table.homes[index]
    args = table.plan.join_args(f"{table.plan.bind}:{table.port}")
    argv = [sys.executable, str(HOSTILE_PEER), mode, *args]
    process = PeerProcess(home, argv, home.root / "stderr-liar.txt")
    table.history.append(process)
    table.processes.append(process)
    process.wait_event("LobbyUpdate", STARTUP_TIMEOUT)
    return process


@pytest.mark.slow
def test_a_forged_deadline_report_between_real_processes_names_nobody(
    fresh_homes: Callable[[str], list[Home]], tables: list[ProcessTable],
) -> None:
    table = ProcessTable(standard_plan("topper"), fresh_homes("liar"))
    tables.append(table)
    table.start_host()
    for index in range(1, 4):
        if index == LIAR:
            _spawn_liar(table, index)
        else:
            table.add_joiner(index, table.plan.join_args(f"{table.plan.bind}:{table.port}"))
    table.wait()
    run = record(table)
    assert match_problems(run) == []
    assert all(seat.table_ended is None for seat in run.seats)
    assert all(seat.summary.startswith("Match over:") for seat in run.seats)
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
    table = ProcessTable(standard_plan("topper"), fresh_homes("echo"))
    tables.append(table)
    table.start_host()
    for index in range(1, 4):
        if index == LIAR:
            _spawn_liar(table, index, "echo-notices")
        else:
            table.add_joiner(index, table.plan.join_args(f"{table.plan.bind}:{table.port}"))
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
    assert all(c.verdict["rule"] == "left" for c in checks), [c.stdout for c in checks]
