"""A hosted Topper table in this process for session tests: the host's seat
and two bots are heuristic bots, one seat is left for the test's own session."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from p2pcards.app.hosted import TableOptions, start_hosted_table
from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.bots.agent import BotAgent, make_bot_factory
from p2pcards.protocol import game_wire
from p2pcards.rules.topper import TopperConfig


def topper_bot(seed: int) -> BotAgent:
    return BotAgent(make_bot_factory("topper", "heuristic"), seed)


@contextlib.asynccontextmanager
async def hosted_topper(root: Path, seed: int) -> AsyncIterator[Any]:
    """The hosted table (its relay's journal under ``root / 'host'``), closed at the end."""
    config = game_wire.by_name("topper").config_to_wire(TopperConfig(target_score=3))
    options = TableOptions(game="topper", config=config, seed=seed, deadline=30,
                           journal_root=root / "host")
    hosted = await start_hosted_table(seeded_identity(seed, "me", "Me"), topper_bot(1), options,
                                      bots=2)
    try:
        yield hosted
    finally:
        await hosted.close(grace=0, linger=0)
