"""Every bot by game, kind and level: the one place the arena, the tables and the CLI ask.

A *factory* takes a ``random.Random`` and returns a bot (an object with
``name`` and ``choose(view)``). Levels set the search bots' budgets as
counts of simulations, not seconds, so a seeded bot decides the same on any
machine; the other kinds have one strength and ignore the level.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial

from p2pcards.bots.base import Bot
from p2pcards.bots.bluff import HeuristicBluffBot, RandomBluffBot
from p2pcards.bots.bluff_counter import CounterBluffBot
from p2pcards.bots.bluff_search import SearchBluffBot
from p2pcards.bots.kinds import DEFAULT_LEVEL as DEFAULT_LEVEL
from p2pcards.bots.kinds import KINDS as KINDS
from p2pcards.bots.kinds import LEVELS as LEVELS
from p2pcards.bots.topper import HeuristicTopperBot, RandomTopperBot
from p2pcards.bots.topper_counter import CounterTopperBot
from p2pcards.bots.topper_search import SearchTopperBot
from p2pcards.errors import P2PCardsError
from p2pcards.rules.games import GAMES

BotFactory = Callable[[random.Random], Bot]

#: Budgets of the search bots by level (keyword arguments of their classes).
_BUDGETS: dict[str, dict[str, dict[str, bool | int | float]]] = {
    "bluff": {
        "easy": {"learn": False, "pad": 1},
        "normal": {"learn": True},
        "hard": {"learn": True},
    },
    "topper": {
        "easy": {"iterations": 120, "bid_samples": 24},
        "normal": {"iterations": 1200, "bid_samples": 120, "match_aware": True},
        "hard": {"iterations": 4000, "bid_samples": 300, "match_aware": True, "ceiling": 2.0,
                 "wall_ceiling": 10.0},
    },
}

_CLASSES: dict[str, dict[str, Callable[..., Bot]]] = {
    "bluff": {"search": SearchBluffBot, "counter": CounterBluffBot, "heuristic": HeuristicBluffBot,
              "random": RandomBluffBot},
    "topper": {"search": SearchTopperBot, "counter": CounterTopperBot,
               "heuristic": HeuristicTopperBot, "random": RandomTopperBot},
}


class UnknownBot(P2PCardsError, ValueError):
    """No bot of that game, kind or level."""


def make_bot_factory(game: str, kind: str, level: str = DEFAULT_LEVEL) -> BotFactory:
    """The factory of ``kind`` bots for ``game`` at ``level``."""
    kinds = _CLASSES.get(game)
    if kinds is None:
        raise UnknownBot(f"no game {game!r} (games: {', '.join(GAMES)})")
    if kind not in kinds:
        raise UnknownBot(f"no {kind!r} bot for {game!r} (kinds: {', '.join(KINDS)})")
    if level not in LEVELS:
        raise UnknownBot(f"no level {level!r} (levels: {', '.join(LEVELS)})")
    if kind == "search":
        return partial(kinds[kind], **_BUDGETS[game][level])
    return kinds[kind]
