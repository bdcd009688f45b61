"""A hosted Topper table in this process for session tests: the host's seat
and two bots are heuristic bots, one seat is left for the test's own session
(or a player who never answers, :class:`Silent`)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from p2pcards.app.hosted import TableOptions, start_hosted_table
from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.bots.agent import BotAgent, Positioned, make_bot_factory
from p2pcards.protocol import game_wire
from p2pcards.rules.contract import Engine
from p2pcards.rules.topper import TopperConfig


def topper_bot(seed: int) -> BotAgent:
    return BotAgent(make_bot_factory("topper", "heuristic"), seed)


class Silent:
    """A player who never answers (until the program is stopped); ``asked`` is set
    once it was asked."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()

    async def decide(self, view: Engine, decision: Positioned) -> None:
        self.asked.set()
        await asyncio.Event().wait()


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
