"""Leaving the simulated table (a signed ``leave`` notice; see
``tests/sim/simulation.py``): a coalition member that leaves is named ``left``
by every honest peer still open, with its notice as evidence that ``verify``
endorses; the leaves it forges for the honest seats (signed with its own key)
and those it replays from another table (signed by the honest players there)
name nobody, over seeded schedules with delays, cuts and the other attacks."""

from __future__ import annotations

import pytest

from p2pcards.protocol.envelope import SignedNotice
from p2pcards.protocol.errors import PlayerLeft
from p2pcards.protocol.verify import verify_transcript

from .judge import judge
from .schedule import Schedule, leave_schedule_for
from .simulation import Simulation
from .sweeps import sweep

LEAVE_SEEDS = 16
SLOW_LEAVE_SEEDS = 90


@pytest.mark.parametrize("leaver, at", [(1, 5), (2, 20), (3, 30)])
def test_a_leaver_is_named_left_by_every_honest_peer_and_no_forged_leave_names_anyone(
        leaver: int, at: int) -> None:
    sim = Simulation(Schedule(seed=7, coalition=frozenset({leaver}), leave_at=at)).run()
    assert judge(sim).failures == []
    for peer in sim.peers:
        if not peer.honest:
            continue
        verdict = peer.verdict
        assert verdict is not None and verdict.rule == PlayerLeft.rule, peer.player
        assert verdict.players == (leaver,)
        (notice,) = verdict.evidence
        assert SignedNotice.parse(notice).player == leaver
        report = verify_transcript(peer.table.transcript(), verdict, workers=1)
        assert report.verdict_refused is None, report.verdict_refused


def test_seeded_schedules_with_leaves_name_no_honest_player() -> None:
    outcomes = sweep(leave_schedule_for(seed) for seed in range(800_000, 800_000 + LEAVE_SEEDS))
    assert any(any(v is not None and v.rule == PlayerLeft.rule for v in o.verdicts.values())
               for o in outcomes)


@pytest.mark.slow
def test_many_more_seeded_schedules_with_leaves_keep_the_three_properties() -> None:
    sweep(leave_schedule_for(seed) for seed in range(810_000, 810_000 + SLOW_LEAVE_SEEDS))
    sweep(leave_schedule_for(seed, game="bluff")
          for seed in range(820_000, 820_000 + SLOW_LEAVE_SEEDS // 3))
