"""Blame between real ``p2pcards`` processes over loopback: a forged report moves nothing.

One of the four processes is the real command patched to lie in an alert
(``hostile_peer.py``): right after its first game action it reports that the
next writer missed its deadline. Every honest process, the accused included,
takes it as an unconfirmed report and the match ends normally for all four,
each saved transcript verifying with the same outcome (issue 10, finding 1).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from .harness import STARTUP_TIMEOUT, Home, PeerProcess, ProcessTable
from .scenarios import match_problems, record, standard_plan

LIAR = 2
HOSTILE_PEER = Path(__file__).resolve().parent / "hostile_peer.py"


def _spawn_liar(table: ProcessTable, index: int) -> PeerProcess:
    home: Home = table.homes[index]
    args = table.plan.join_args(f"{table.plan.bind}:{table.port}")
    argv = [sys.executable, str(HOSTILE_PEER), "forge-deadline", *args]
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
