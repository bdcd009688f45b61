"""A bot as a table agent: it answers the protocol runner from its view only.

The bot's random generator is derived from a seed and the transcript
position of the decision, so a bot that is restarted mid-match chooses
exactly what it would have chosen without the restart.
"""

from __future__ import annotations

import asyncio
import random
import secrets
from typing import Any, Callable, Optional

from p2pcards.bots.bluff import HeuristicBluffBot, RandomBluffBot
from p2pcards.bots.topper import HeuristicTopperBot, RandomTopperBot

#: Bot kinds by game, each a class taking a ``random.Random``.
BOT_KINDS: dict[str, dict[str, Callable[[random.Random], Any]]] = {
    "bluff": {"heuristic": HeuristicBluffBot, "random": RandomBluffBot},
    "topper": {"heuristic": HeuristicTopperBot, "random": RandomTopperBot},
}


def make_bot_factory(game: str, kind: str) -> Callable[[random.Random], Any]:
    try:
        return BOT_KINDS[game][kind]
    except KeyError:
        kinds = ", ".join(BOT_KINDS.get(game, {})) or "none"
        raise ValueError(f"no {kind!r} bot for {game!r} (kinds: {kinds})") from None


class BotAgent:
    """Chooses with a fresh bot per decision, seeded by (seed, position)."""

    def __init__(self, make_bot: Callable[[random.Random], Any], seed: Optional[int] = None) -> None:
        self.make_bot = make_bot
        self.seed = secrets.randbits(64) if seed is None else seed

    async def decide(self, view: Any, decision: Any) -> Any:
        bot = self.make_bot(random.Random(f"{self.seed}:{decision.position}"))
        return await asyncio.to_thread(bot.choose, view)
