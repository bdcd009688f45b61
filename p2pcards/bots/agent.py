"""A bot as a table agent: it answers the protocol runner from its view only.

The bot's random generator is derived from a seed and the transcript
position of the decision, so a bot that is restarted mid-match chooses
exactly what it would have chosen without the restart. A bot that learns
its opponents (``remembers``) is kept between decisions and reseeded for
each; after a restart it learns again from what the current view shows.
"""

from __future__ import annotations

import asyncio
import random
import secrets
from typing import Protocol, cast

# The one registry of bots, re-exported for the table code that builds agents.
from p2pcards.bots.base import Bot
from p2pcards.bots.registry import BotFactory, make_bot_factory
from p2pcards.rules.contract import Engine

__all__ = ["BotAgent", "make_bot_factory"]


class Positioned(Protocol):
    """What a bot's agent needs of the session's question: its place on the record."""

    @property
    def position(self) -> int: ...


class _Remembering(Bot, Protocol):
    """A bot kept between decisions (``remembers``), reseeded for each."""

    rng: random.Random


class BotAgent:
    """Chooses with a bot seeded by (seed, position) per decision, off the event loop."""

    def __init__(self, make_bot: BotFactory, seed: int | None = None) -> None:
        self.make_bot = make_bot
        self.seed = secrets.randbits(64) if seed is None else seed
        self._kept: _Remembering | None = None

    def _bot_for(self, rng: random.Random) -> Bot:
        if self._kept is not None:
            self._kept.rng = rng
            return self._kept
        bot: Bot = self.make_bot(rng)
        if getattr(bot, "remembers", False):
            self._kept = cast(_Remembering, bot)
        return bot

    async def decide(self, view: Engine, decision: Positioned) -> object:
        bot = self._bot_for(random.Random(f"{self.seed}:{decision.position}"))
        return await asyncio.to_thread(bot.choose, view)
