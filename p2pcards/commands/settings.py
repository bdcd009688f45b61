"""What the options make of a table and a seat: the genesis settings and clock,
the bots' pace, a session's own clock, the front end's options."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from p2pcards.app.front import FrontOptions
from p2pcards.bots.registry import DEFAULT_LEVEL
from p2pcards.commands import UserError
from p2pcards.rules import games as rules_games

#: The table clock of ``host`` when ``--deadline`` is not given (``play`` has none).
HOST_MOVE_TIME = 120


def table_config(game: str, args: argparse.Namespace, move_time: int) -> dict[str, int]:
    """The genesis configuration: the game's settings, the table clock (0: no limit),
    where there is a clock the pauses each player may take, and ``host --hints``."""
    from p2pcards.protocol.table_settings import HINTS, MOVE_TIME, PAUSES
    pauses = getattr(args, "pauses", 0) if move_time else 0
    return {**config_from_args(game, args), MOVE_TIME: move_time,
            **({PAUSES: pauses} if pauses else {}),
            **({HINTS: 1} if getattr(args, "hints", False) else {})}


def clock_seconds(args: argparse.Namespace, default: int) -> int:
    """``--deadline`` as the table clock's whole seconds, or ``default`` (0: no limit)."""
    return default if args.deadline is None else max(1, round(args.deadline))


def session_deadline(args: argparse.Namespace) -> float:
    """A session's own clock, used only at a table whose genesis sets none."""
    return float(HOST_MOVE_TIME) if args.deadline is None else args.deadline


#: Each game's settings from the options (``--deals`` is read apart), by game name.
_SETTINGS: dict[str, Callable[[argparse.Namespace], dict[str, int]]] = {
    "bluff": lambda args: {"table_price": args.price, "starting_chips": args.chips},
    "topper": lambda args: {"target_score": args.target},
}


#: The config field ``--deals`` sets (0: none), by game name.
_DEALS_FIELD = {"bluff": "deal_cap", "topper": "deal_limit"}


def config_from_args(game: str, args: argparse.Namespace) -> dict[str, int]:
    from p2pcards.protocol import game_wire
    rules = rules_games.by_name(game)
    field = _DEALS_FIELD[game]
    deals = getattr(rules.default_config(), field) if args.deals is None else (args.deals or None)
    try:
        config = rules.config(**_SETTINGS[game](args), **{field: deals})
    except ValueError as error:  # each option is in range, yet together they make no table
        raise UserError(f"these table settings make no {game} table: {error}") from None
    return game_wire.by_name(game).config_to_wire(config)


def pace_of(args: argparse.Namespace) -> float:
    """The bots' think time: as asked, else one second when a person plays."""
    from p2pcards.bots.pace import DEFAULT_PACE
    if args.pace is not None:
        pace: float = args.pace
        return pace
    return 0.0 if args.bot else DEFAULT_PACE


def front_options(args: argparse.Namespace) -> FrontOptions:
    """A seat's front-end options from any command's parsed arguments: the one
    place that reads them (``watch`` and ``resume`` lack some; their defaults stand)."""
    return FrontOptions(bot=getattr(args, "bot", None), plain=getattr(args, "plain", False),
                        trace=getattr(args, "trace", False), bell=getattr(args, "bell", True),
                        seed=getattr(args, "seed", None),
                        bot_level=getattr(args, "bot_level", DEFAULT_LEVEL),
                        web=getattr(args, "web", False),
                        browser=not getattr(args, "no_browser", False))
