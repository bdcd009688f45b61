"""Pauses at the simulated table (``away``, genesis ``config.away``; see
``tests/sim/simulation.py``): players take one before some moves (seeded by
the position) and no honest pause gets an honest player named over seeded
schedules (property (a)); a coalition member's ``away`` with no pause left gets
its writer named with that message as evidence (``table.away``, property (b)),
and ``verify`` confirms the verdict. A failing seed is printed with its settings."""

from __future__ import annotations

import pytest

from p2pcards.protocol.envelope import SignedMessage
from p2pcards.protocol.errors import NoPauseLeft
from p2pcards.protocol.table_records import AWAY, Stage

from .judge import judge
from .schedule import SEATED, Schedule, pause_schedule_for
from .simulation import Simulation
from .sweeps import breach_named, sweep

PAUSE_SEEDS = 16
SLOW_PAUSE_SEEDS = 80


def test_an_undisturbed_match_with_pauses_is_played_to_its_end() -> None:
    sim = Simulation(Schedule(seed=7, pauses=2)).run()
    assert judge(sim).failures == []
    transcript = sim.peers[0].table.transcript()
    taken = sum(SignedMessage.parse(raw).type == AWAY for raw in transcript)
    assert taken > 0
    assert len({tuple(p.table.pauses_left) for p in sim.peers}) == 1
    assert sum(sim.peers[0].table.pauses_left) == 4 * 2 - taken
    for peer in sim.peers:
        assert peer.verdict is None and peer.table.stage is Stage.OVER, peer.player


def test_seeded_matches_with_pauses_name_no_honest_player() -> None:
    outcomes = sweep(pause_schedule_for(seed) for seed in range(700_000, 700_000 + PAUSE_SEEDS))
    assert any(o.over for o in outcomes)
    assert any(o.schedule.pause_attack for o in outcomes)


@pytest.mark.slow
def test_many_more_seeded_matches_with_pauses_keep_the_three_properties() -> None:
    sweep(pause_schedule_for(seed, pauses=seed % 3)
          for seed in range(710_000, 710_000 + SLOW_PAUSE_SEEDS))
    sweep(pause_schedule_for(seed, game="bluff")
          for seed in range(720_000, 720_000 + SLOW_PAUSE_SEEDS // 4))


@pytest.mark.parametrize("pauses, cheat", [(0, 2), (1, 1)])
def test_an_away_with_no_pause_left_gets_its_writer_named_and_verify_agrees(
        pauses: int, cheat: int) -> None:
    """With no pauses at the table, or its one pause spent, a coalition member
    writes ``away`` instead of its move: every honest peer names it (with that
    message as evidence, or with the equivocation it makes beside the move it
    withheld), and ``p2pcards verify`` confirms a ``table.away`` verdict from cold."""
    schedule = Schedule(seed=11, pauses=pauses, coalition=frozenset({cheat}), pause_attack=True,
                        hint_at=SEATED + 8)
    assert breach_named(schedule, AWAY, NoPauseLeft.rule) >= 2
