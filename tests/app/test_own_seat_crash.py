"""A crash of the host's own seat is nobody's decision to leave: its bots, stopped
as the host winds down, sign no leave, and the table stays resumable."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from p2pcards.app.hosted import TableOptions, start_hosted_table
from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.net.failing import LocalFailure
from p2pcards.net.journal import Journal
from p2pcards.net.session_events import Decision
from p2pcards.protocol import game_wire
from p2pcards.rules.contract import Engine
from p2pcards.rules.topper import TopperConfig


class _Broken(RuntimeError):
    """What a front end's failure looks like to the session (a screen that died)."""


class _CrashingAgent:
    async def decide(self, view: Engine, decision: Decision) -> None:
        raise _Broken("the front end failed")


async def _crash(tmp_path: Path) -> None:
    config = game_wire.by_name("topper").config_to_wire(TopperConfig(target_score=3))
    options = TableOptions(game="topper", config=config, seed=4, deadline=30,
                           journal_root=tmp_path)
    hosted = await start_hosted_table(seeded_identity(4, "me", "Me"), _CrashingAgent(), options,
                                      bots=3)
    try:
        with pytest.raises(LocalFailure, match="^your seat failed: _Broken: the front end failed") as crash:
            await asyncio.wait_for(hosted.result(), 60)
        assert isinstance(crash.value.__cause__, _Broken)  # said in words, the crash kept
    finally:
        await hosted.close()


def test_the_bots_of_a_crashed_host_seat_sign_no_leave(tmp_path: Path) -> None:
    asyncio.run(_crash(tmp_path))
    (session,) = list(tmp_path.iterdir())
    seats = [d for d in session.iterdir() if d.name != "relay"]
    assert len(seats) == 4
    assert [Journal(d).read_verdict() for d in seats] == [None] * 4
    assert Journal(session / "relay").read_notices() == []
