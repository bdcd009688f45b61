"""Whole matches between four separate ``p2pcards`` processes over loopback TCP."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import pytest

from tests.support.typed import present

from .scenarios import MatchRecord

#: What each game's outcome counts (verify --json).
OUTCOME_TALLIES = {"bluff": "chips", "topper": "scores"}


@pytest.mark.slow
@pytest.mark.parametrize("game", ["bluff", "topper"])
def test_four_processes_play_a_whole_match_and_report_the_same_outcome(
    game: str, baseline: Callable[[str], MatchRecord],
) -> None:
    run = baseline(game)
    summaries = [seat.summary for seat in run.seats]
    assert [seat.returncode for seat in run.seats] == [0, 0, 0, 0], summaries
    # Each closing line says "you" for its own seat; the same winner is named by all four.
    assert all((s or "").startswith("Match over:") for s in summaries), summaries
    winners = {tuple(re.findall(r"[Ss]eat (\d)", present(s))) for s in summaries}
    assert len(winners) == 1, summaries


@pytest.mark.slow
@pytest.mark.parametrize("game", ["bluff", "topper"])
def test_verify_accepts_every_saved_transcript_of_a_whole_match(
    game: str, baseline: Callable[[str], MatchRecord],
) -> None:
    run = baseline(game)
    checks = [check for seat in run.seats for check in seat.verifications]
    # Each player's own transcript, and the host's relay copy.
    assert len(checks) == 5, [str(c.transcript) for c in checks]
    assert all(seat.player_verification is not None for seat in run.seats)
    refused = [(str(c.transcript), c.stdout[-300:]) for c in checks if not c.ok]
    assert refused == []
    outcomes = {check.outcome for check in checks}
    assert len(outcomes) == 1, outcomes
    outcome = json.loads(present(next(iter(outcomes))))
    assert len(outcome[OUTCOME_TALLIES[game]]) == 4 and outcome["winners"]


@pytest.mark.slow
@pytest.mark.parametrize("game", ["bluff", "topper"])
def test_every_peer_holds_the_same_transcript_byte_for_byte(
    game: str, baseline: Callable[[str], MatchRecord],
) -> None:
    run = baseline(game)
    copies = {run.player_transcript_bytes(seat) for seat in range(4)}
    assert run.relay_verification is not None
    copies.add(run.relay_verification.transcript.read_bytes())
    assert len(copies) == 1
