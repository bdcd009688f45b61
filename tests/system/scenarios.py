"""Whole-table scenarios shared by the system tests and the soak script.

A scenario plays a table of four processes (see :mod:`system.harness`),
perhaps with a fault, and returns a :class:`MatchRecord`: what every seat
printed at the end and what ``p2pcards verify`` says of every saved
transcript. :func:`judge_fault` decides whether a faulted run ended in one of
the two ways a crash may end a table: exactly as the same seeded run without
the fault, or with a verdict naming the seat that did not come back; either
way with every honest peer's transcript intact.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .harness import (
    MATCH_TIMEOUT,
    HarnessError,
    Home,
    ProcessTable,
    TablePlan,
    Verification,
)

#: The two games' matches used by the system tests: two Bluff deals, so a
#: restarted peer shuffles a deck after it resumed; Topper to 5 points.
STANDARD_SETTINGS = {"bluff": ("--deals", "2"), "topper": ("--target", "5")}
SEAT_NAMES = ("Hana", "Ivo", "Juno", "Kai")


def standard_plan(game: str, **kwargs: object) -> TablePlan:
    return TablePlan(game, settings=STANDARD_SETTINGS[game], **kwargs)  # type: ignore[arg-type]


@dataclass
class SeatRecord:
    """One seat at the end of a run: its last process's closing line and trace, its transcripts."""

    summary: str | None
    returncode: int | None
    table_ended: dict[str, Any] | None
    lines: int
    first_table_line: int | None
    """Index of the first line after the genesis (the first ``Committed`` event)."""
    verifications: list[Verification] = field(default_factory=list)

    @property
    def player_verification(self) -> Verification | None:
        """The check of this player's own transcript (not a host's relay copy)."""
        own = [v for v in self.verifications if v.transcript.parent.name != "relay"]
        return own[0] if len(own) == 1 else None


@dataclass
class MatchRecord:
    seats: list[SeatRecord]
    peak_rss_kib: list[int | None]
    relay_verification: Verification | None

    def player_transcript_bytes(self, seat: int) -> bytes | None:
        check = self.seats[seat].player_verification
        return check.transcript.read_bytes() if check is not None else None


def record(table: ProcessTable, seats: list[int] | None = None) -> MatchRecord:
    """Read what a finished table left (verifying the transcripts of ``seats``, default all)."""
    chosen = list(range(4)) if seats is None else seats
    checks = table.verify_all(chosen)
    out = []
    for index, process in enumerate(table.processes):
        first = next((i for i, line in enumerate(process.lines) if '"Committed"' in line), None)
        mine = [c for c in checks if c.transcript.is_relative_to(table.homes[index].root)]
        out.append(SeatRecord(process.summary, process.returncode, process.table_ended(),
                              len(process.lines), first, mine))
    relay = [c for c in checks if c.transcript.parent.name == "relay"]
    return MatchRecord(out, [p.peak_rss_kib for p in table.processes], relay[0] if relay else None)


def play_recorded(plan: TablePlan, homes: list[Home], timeout: float = MATCH_TIMEOUT,
                  after_start: Callable[[ProcessTable], None] | None = None) -> MatchRecord:
    """Play one whole table without faults and record it (``after_start`` runs once all
    four are seated)."""
    table = ProcessTable(plan, homes)
    try:
        table.start()
        if after_start is not None:
            after_start(table)
        table.wait(timeout)
        return record(table)
    finally:
        table.stop()


def match_problems(run: MatchRecord) -> list[str]:
    """Why a fault-free run is not a clean match that all four agree on (empty if it is)."""
    problems = []
    # Each seat's closing line says "you" for its own seat: the outcomes are compared below.
    summaries = [seat.summary for seat in run.seats]
    if not all((summary or "").startswith("Match over:") for summary in summaries):
        problems.append(f"not every seat saw the match end: {summaries}")
    outcomes = set()
    for index, seat in enumerate(run.seats):
        if seat.returncode != 0:
            problems.append(f"seat {index} exited with {seat.returncode}")
        for check in seat.verifications:
            if not check.ok:
                problems.append(f"verify refused {check.transcript}: {check.stdout[-300:]}")
            outcomes.add(check.outcome)
    if len(outcomes) != 1 or None in outcomes:
        problems.append(f"transcripts disagree on the outcome: {sorted(map(str, outcomes))}")
    return problems


# -- faults ------------------------------------------------------------------------------


KillPoint = Callable[[list[str]], bool]


def after_lines(count: int) -> KillPoint:
    """Once the process has printed ``count`` lines."""
    def reached(lines: list[str]) -> bool:
        return len(lines) >= count
    reached.__doc__ = f"after {count} lines"
    return reached


def after_events(name: str, count: int) -> KillPoint:
    """Once the process has traced ``count`` events called ``name``."""
    needle = f'"event": "{name}"'

    def reached(lines: list[str]) -> bool:
        return sum(needle in line for line in lines) >= count
    reached.__doc__ = f"after {count} {name} events"
    return reached


def random_kill_line(rng: random.Random, seat: SeatRecord) -> int:
    """A random point in a seat's fault-free run, counted in printed lines: after the
    genesis (so there is a table to resume) and before the last tenth (so the kill
    most likely lands while the match is still on)."""
    first = (seat.first_table_line or 0) + 1
    return rng.randrange(first, max(first + 1, seat.lines * 9 // 10))


@dataclass
class FaultRun:
    victim: int
    kill_point: str
    killed: bool
    """False if the victim had already finished when its kill point came."""
    restart_note: str
    honest: list[int]
    """The seats whose process plays to the end."""
    record: MatchRecord


def run_with_kill(plan: TablePlan, homes: list[Home], victim: int, kill_when: KillPoint,
                  timeout: float = MATCH_TIMEOUT,
                  after_start: Callable[[ProcessTable], None] | None = None) -> FaultRun:
    """SIGKILL seat ``victim`` when ``kill_when(its lines)`` holds, then restart it with
    ``p2pcards resume`` (a host hosts its table again) and play on."""
    table = ProcessTable(plan, homes)
    try:
        table.start()
        if after_start is not None:
            after_start(table)
        process = table.processes[victim]
        try:
            process.wait_for(kill_when, timeout, f"kill point ({kill_when.__doc__})")
        except HarnessError:
            if process.poll() is None:
                raise
        killed = process.poll() is None
        note = "not killed: it had finished"
        if killed:
            process.kill()
            note = _restart(table, victim)
        table.wait(timeout)
        honest = [i for i in range(4) if table.processes[i] is not process or not killed]
        return FaultRun(victim, kill_when.__doc__ or "", killed, note, honest,
                        record(table, honest))
    finally:
        table.stop()


def _restart(table: ProcessTable, victim: int) -> str:
    table.restart(victim)
    return "resumed"


def judge_fault(run: FaultRun, baseline: MatchRecord) -> list[str]:
    """Why a faulted run is not acceptable (empty if it is): it must equal the baseline,
    or every other seat must end with a deadline verdict naming the victim; and every
    honest peer's saved transcript must verify."""
    seats, honest = run.record.seats, run.honest
    problems = []
    for index in honest:
        checks = seats[index].verifications
        if not checks or seats[index].player_verification is None:
            problems.append(f"seat {index} has no saved transcript of its own")
        for check in checks:
            if check.transcript.parent.name != "relay" and not check.ok:
                problems.append(f"verify refused seat {index}'s {check.transcript.name}: "
                                f"{check.stdout[-300:]}")
    same = all(seats[i].summary == baseline.seats[i].summary
               and run.record.player_transcript_bytes(i) == baseline.player_transcript_bytes(i)
               for i in honest)
    named = all((seats[i].table_ended or {}).get("rule") == "deadline"
                and (seats[i].table_ended or {}).get("blamed") == [run.victim]
                for i in range(4) if i != run.victim)
    if not (same or named):
        problems.append("neither the fault-free result nor a verdict naming seat "
                        f"{run.victim}: {[s.summary for s in seats]}")
    return problems


def transcript_of(home: Home) -> Path | None:
    own = [p for p in home.transcripts() if p.parent.name != "relay"]
    return own[0] if len(own) == 1 else None
