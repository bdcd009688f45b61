"""What the seeded sweeps of ``tests/sim`` assert, and what a breach must cost its writer.

A sweep runs many seeded schedules and fails with the schedule of every failing
seed, hint, pause and leave settings included (what replays it). A breach check
runs one schedule in which a coalition member breaks a rule once and asserts the
verdict every honest peer owes it (``judge.py``'s property (b)) and that
``p2pcards verify`` confirms it from cold.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from p2pcards.protocol.envelope import SignedMessage
from p2pcards.protocol.verify import verify_transcript

from .judge import Outcome, judge, run_schedule
from .schedule import Schedule, describe_hints
from .simulation import Simulation


def failures(outcomes: Sequence[Outcome]) -> list[str]:
    """Each failure, after the schedule that replays it."""
    return [f"{describe_hints(o.schedule)}: {f}" for o in outcomes for f in o.failures]


def assert_kept(outcomes: Sequence[Outcome]) -> None:
    """Every outcome kept the judge's properties (the first twenty failures shown)."""
    found = failures(outcomes)
    assert not found, "\n".join(found[:20])


def sweep(schedules: Iterable[Schedule]) -> list[Outcome]:
    """Run and judge each schedule; assert that all kept the properties."""
    outcomes = [run_schedule(schedule) for schedule in schedules]
    assert_kept(outcomes)
    return outcomes


def breach_named(schedule: Schedule, mtype: str, rule: str) -> int:
    """Run ``schedule``, whose one member signs a ``mtype`` message that breaks a
    rule, once: every honest peer names it with evidence (that message, or the
    equivocation it makes beside the move it withheld), each one naming it under
    ``rule`` holds that message as its evidence and ``verify`` confirms it from
    cold, and the judge confirmed all three honest verdicts. Returns how many
    honest peers named it under ``rule``."""
    (cheat,) = schedule.coalition
    sim = Simulation(schedule).run()
    outcome = judge(sim)
    assert outcome.failures == []
    assert [e[:2] for e in sim.evidence] == [("single", cheat)]
    bad = sim.evidence[0][3]
    assert SignedMessage.parse(bad).type == mtype
    proven = 0
    for peer in sim.peers:
        if not peer.honest:
            continue
        verdict = peer.verdict
        assert verdict is not None and verdict.players == (cheat,) and verdict.evidence, peer.player
        if verdict.rule == rule:
            assert verdict.evidence == (bad,)
            report = verify_transcript(peer.table.transcript(), verdict, workers=1)
            assert report.verdict_confirmed is True, report.verdict_refused
            proven += 1
    assert outcome.confirmed == 3
    return proven
