"""Coach's hints at the simulated table (``hint``, genesis ``config.hints``;
see ``tests/sim/simulation.py``): with hints on, honest players sign a ``hint``
before some of their moves (seeded by the position, like their actions), and
property (a) holds over many seeded schedules: no honest hint gets an honest
player named. The coalition's hint breaches — a ``hint`` at a table without
hints, a second ``hint`` in a row, a ``hint`` for a position another seat
writes — get their writer named with the message as evidence by every honest
peer that received it when it was next (property (b)), and ``verify`` confirms
each such verdict. A failing seed is printed with its hint settings."""

from __future__ import annotations

import pytest

from p2pcards.protocol.envelope import SignedMessage
from p2pcards.protocol.errors import HintNotAllowed, OutOfTurn
from p2pcards.protocol.table_records import HINT, Stage

from .judge import judge
from .schedule import SEATED, Schedule, hint_schedule_for
from .simulation import Simulation
from .sweeps import assert_kept, breach_named, sweep

#: Seeded schedules with hints on (and a few with hints off) the fast tier runs.
HINT_SEEDS = 24
CHUNKS = 2
OFF_SEEDS = 8
#: Marked slow: many more.
SLOW_HINT_SEEDS = 120


def _hints(sim: Simulation) -> int:
    """How many ``hint`` messages the longest honest transcript holds."""
    longest = max((p.table.transcript() for p in sim.peers if p.honest), key=len)
    return sum(SignedMessage.parse(raw).type == HINT for raw in longest)


def test_an_undisturbed_match_with_hints_is_played_to_its_end_and_counts_them() -> None:
    """Every player hints before some moves: nobody is named, the match ends, and
    every peer counts the same hints per player."""
    sim = Simulation(Schedule(seed=7, hints=True)).run()
    assert judge(sim).failures == []
    counts = {tuple(p.table.hints_used) for p in sim.peers}
    assert len(counts) == 1
    assert sum(next(iter(counts))) == _hints(sim) > 0
    for peer in sim.peers:
        assert peer.verdict is None and peer.table.stage is Stage.OVER, peer.player


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_seeded_matches_with_hints_name_no_honest_player(chunk: int) -> None:
    size = HINT_SEEDS // CHUNKS
    start = 500_000 + chunk * size
    sims = [Simulation(hint_schedule_for(seed)).run() for seed in range(start, start + size)]
    outcomes = [judge(sim) for sim in sims]
    assert_kept(outcomes)
    assert any(o.over for o in outcomes)
    # Honest hints were written, and hint breaches were among the schedules.
    assert sum(_hints(sim) for sim in sims) > size
    assert any(o.schedule.hint_attack is not None for o in outcomes)


def test_seeded_matches_without_hints_name_the_hinting_coalition_only() -> None:
    sweep(hint_schedule_for(seed, hints=False) for seed in range(510_000, 510_000 + OFF_SEEDS))


def test_seeded_bluff_matches_with_hints_name_no_honest_player() -> None:
    sweep(hint_schedule_for(seed, game="bluff") for seed in range(520_000, 520_000 + OFF_SEEDS))


@pytest.mark.slow
def test_many_more_seeded_matches_with_hints_keep_the_three_properties() -> None:
    sweep(hint_schedule_for(seed) for seed in range(600_000, 600_000 + SLOW_HINT_SEEDS))
    sweep(hint_schedule_for(seed, hints=False)
          for seed in range(610_000, 610_000 + SLOW_HINT_SEEDS // 4))
    sweep(hint_schedule_for(seed, game="bluff")
          for seed in range(620_000, 620_000 + SLOW_HINT_SEEDS // 4))


@pytest.mark.parametrize("kind, hints, cheat, rule", [
    ("hint_off", False, 2, HintNotAllowed.rule),        # a hint where none is allowed
    ("hint_twice", True, 1, HintNotAllowed.rule),       # a second hint in a row
    ("hint_out_of_turn", True, 1, OutOfTurn.rule),      # a hint in another seat's turn
    ("hint_out_of_turn", False, 3, OutOfTurn.rule),
])
def test_a_hint_breach_gets_its_writer_named_with_evidence_and_verify_agrees(
        kind: str, hints: bool, cheat: int, rule: str) -> None:
    """Each honest peer names the writer of the breaching ``hint`` with that
    message as evidence (or, holding the writer's other version first, for the
    equivocation its two messages prove), and ``p2pcards verify`` confirms a
    ``table.hint`` / ``turn`` verdict from cold on that peer's record."""
    schedule = Schedule(seed=11, hints=hints, coalition=frozenset({cheat}), hint_attack=kind,
                        hint_at=SEATED + 8)
    assert breach_named(schedule, HINT, rule) >= 1
