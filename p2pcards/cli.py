"""The ``p2pcards`` command: play, host, join, list tables, verify, resume.

Every command that plays uses the same protocol and cryptography: ``play`` is
a table hosted on this machine whose other three seats are bots.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import json
import logging
import os
import shutil
import sys
import sysconfig
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from p2pcards import __version__
from p2pcards.bots.registry import DEFAULT_LEVEL
from p2pcards.bots.registry import KINDS as BOT_KINDS
from p2pcards.bots.registry import LEVELS as BOT_LEVELS
from p2pcards.errors import P2PCardsError
from p2pcards.evening_cli import add_again_args, offers_evening
from p2pcards.front import EXIT_PIPE, FrontEnd, quiet_stdout
from p2pcards.protocol.relay import DEFAULT_SPECTATORS
from p2pcards.records import (
    SHORT,
    RecordNotFound,
    SavedTable,
    find_record,
    is_session_text,
    my_saved_tables,
    others_in,
    own_record,
    pick_mine,
    records_in,
)
from p2pcards.rules import games as rules_games
from p2pcards.ui import commandline, console
from p2pcards.ui.text_common import plural, quoted

GAMES = tuple(rules_games.GAMES)


class UserError(P2PCardsError):
    """A command that cannot run as given: one sentence for the person, exit 2."""


def _int_within(text: str, low: int, high: int, not_a_number: str, out_of_range: str) -> int:
    """An option's whole number in ``low..high``; the sentences say what it is."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{not_a_number}, not {text!r}") from None
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"{out_of_range}, not {value}")
    return value


def _port(text: str) -> int:
    """A TCP port number, 0 meaning any free port."""
    sentence = "a port is a number from 0 to 65535"
    return _int_within(text, 0, 65535, sentence, sentence)


def _table_name(text: str) -> str:
    """A table's name as every player's software takes it (the rules of a display name)."""
    from p2pcards.net.storage import InvalidName, check_name
    try:
        return check_name(text)
    except InvalidName as error:
        raise argparse.ArgumentTypeError(f"{error} (a table's name, like a player's)") from None


def _bot_count(text: str) -> int:
    """How many of the three seats besides the host's get a bot."""
    return _int_within(text, 0, 3, "the number of bots is 0, 1, 2 or 3",
                       "a table has three seats besides yours: 0, 1, 2 or 3 bots")


def _spectators(text: str) -> int:
    """How many spectators a host admits at once."""
    from p2pcards.protocol.relay import MAX_SPECTATORS
    return _int_within(text, 0, MAX_SPECTATORS, "the number of spectators is a whole number",
                       f"a table admits 0 to {MAX_SPECTATORS} spectators")


def _pauses(text: str) -> int:
    """How many times each player may step away (``away``) at a table with a clock."""
    from p2pcards.protocol.table import MAX_PAUSES
    return _int_within(text, 0, MAX_PAUSES, "the number of pauses is a whole number",
                       f"each player may have 0 to {MAX_PAUSES} pauses")


def _seconds(text: str) -> float:
    """A positive number of seconds (a limit of zero would end the table at once)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, not {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"the time must be a positive number of seconds, not {text}")
    return value


#: The largest table setting an option takes: every setting (and 50 x the price,
#: the default stack) fits the genesis's 31-bit integers with room to spare.
MAX_SETTING = 1_000_000


def _setting(what: str, low: int) -> Callable[[str], int]:
    """A table setting's whole number, ``low`` to ``MAX_SETTING``: the sentence
    says what it counts (argparse adds the option as the person typed it)."""
    def parse(text: str) -> int:
        return _int_within(text, low, MAX_SETTING, f"{what} is a whole number",
                           f"{what} is a whole number from {low} to {MAX_SETTING:,}")
    parse.__name__ = what  # argparse names a type by it in its own messages
    return parse


def _config_args(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("table settings (see RULES.md)")
    group.add_argument("--price", type=_setting("the table price", 1), default=10, metavar="T",
                       help="Bluff: table price T; pass price and minimum stake (default 10)")
    group.add_argument("--chips", type=_setting("the starting stack", 1), default=None,
                       metavar="N", help="Bluff: starting chips per player (default 50 x T)")
    group.add_argument("--deals", type=_setting("the number of deals", 0), default=None,
                       metavar="N",
                       help="deal cap (Bluff, default 20) or deal limit (Topper, default 100); 0 = none")
    group.add_argument("--target", type=_setting("the target score", 1), default=21, metavar="N",
                       help="Topper: score that wins (default 21)")
    group.add_argument("--pauses", type=_pauses, default=2, metavar="N",
                       help="times each player may step away in his turn (a, or away: 5 more "
                            "minutes for that move on every clock), at a table with a clock "
                            "(default 2)")


def _pace(text: str) -> float:
    """A bot's think time in seconds: 0 (at once) up to a minute."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, not {text!r}") from None
    if not 0 <= value <= 60:
        raise argparse.ArgumentTypeError(f"a bot's think time is 0 to 60 seconds, not {text}")
    return value


def _pace_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pace", type=_pace, default=None, metavar="S",
                        help="seconds each bot takes per move, so you can follow them "
                             "(default 1 when a person plays this seat, 0 with --autoplay)")


def pace_of(args: argparse.Namespace) -> float:
    """The bots' think time: as asked, else one second when a person plays."""
    from p2pcards.bots.pace import DEFAULT_PACE
    if args.pace is not None:
        return args.pace
    return 0.0 if args.bot else DEFAULT_PACE


def _ascii_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ascii", action="store_true",
                        help="draw the full-screen table in ASCII (C D H S for the suits), for a "
                             "terminal that cannot draw its symbols (chosen by itself when the "
                             "terminal's encoding cannot hold them)")


def _seat_args(parser: argparse.ArgumentParser, *, clock: bool = True) -> None:
    """A seat's options; ``clock``: this command sets the table clock (``play``,
    ``host``), else ``--deadline`` is refused (every seat keeps the host's clock)."""
    parser.add_argument("--name", help="your display name (saved with your identity)")
    parser.add_argument("--plain", action="store_true",
                        help="line-based interface (screen readers, simple terminals)")
    _ascii_arg(parser)
    parser.add_argument("--autoplay", dest="bot", metavar="KIND", default=None, choices=BOT_KINDS,
                        help=f"let a bot play your own seat ({', '.join(BOT_KINDS)}); play and "
                             f"host choose the other seats' bots with --bot-kind")
    # The old spelling, which read like --bot-kind (the other seats' bots): still taken.
    parser.add_argument("--bot", dest="bot", choices=BOT_KINDS, help=argparse.SUPPRESS)
    if clock:
        parser.add_argument("--deadline", type=_seconds, default=None, metavar="S",
                            help="the table clock: seconds each player has per move before the "
                                 "table ends naming them (play: default no limit; host: default "
                                 "120); every seat keeps the host's")
    else:
        # Accepted only to be refused with a sentence: ignoring it would let a person
        # believe the table runs on a clock it does not.
        parser.add_argument("--deadline", dest="refused_deadline", default=None,
                            help=argparse.SUPPRESS)
        parser.set_defaults(deadline=None)
    parser.add_argument("--no-bell", dest="bell", action="store_false",
                        help="no terminal bell with the 30 and 10 seconds warnings")
    parser.add_argument("--reconnect-window", type=_seconds, default=60.0, metavar="S",
                        help="seconds to keep redialling a lost host before the table ends "
                             "naming it (default 60)")
    parser.add_argument("--trace", action="store_true",
                        help="print every event as a JSON line with a timestamp (for scripts)")
    parser.add_argument("--seed", type=int, default=None, help=argparse.SUPPRESS)


def _finding_args(parser: argparse.ArgumentParser, default: str) -> None:
    """How ``join`` and ``watch`` find their table."""
    parser.add_argument("table", nargs="?", default=None,
                        help="the table's name, its host's key fingerprint, or its number in "
                             f"`p2pcards tables` (default: {default})")
    parser.add_argument("--connect", metavar="HOST:PORT",
                        help="skip discovery and dial this address (IPv6 in brackets: [fd00::1]:PORT)")
    parser.add_argument("--timeout", type=_seconds, default=3.0, metavar="S",
                        help="seconds to look for tables (default 3)")
    parser.add_argument("--interface", action="append", default=None, metavar="ADDR",
                        help="look only on the interface with this address or name (repeatable)")


def _direct_args(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("direct links to the other players (see SECURITY.md)")
    group.add_argument("--no-listen", action="store_true",
                       help="accept no direct links (the others cannot dial you; you still dial them)")
    group.add_argument("--no-direct", action="store_true",
                       help="no direct links at all: everything goes through the host")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="p2pcards",
        description="A peer-to-peer card table for the local network: Bluff and Topper "
                    "with no trusted party.")
    parser.add_argument("--version", action="version", version=f"p2pcards {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log protocol details")
    sub = parser.add_subparsers(dest="command", required=True)

    play = sub.add_parser("play", help="play a whole match against three bots on this machine")
    play.add_argument("game", choices=GAMES)
    play.add_argument("--bot-kind", dest="bot_kind", default="search", choices=BOT_KINDS,
                      help=f"kind of the three bots: {', '.join(BOT_KINDS)} (default search); "
                           "the same option as host's")
    # The old spelling, which read like host's "--bots N" (a count): still accepted, not shown.
    play.add_argument("--bots", dest="bot_kind", choices=BOT_KINDS, help=argparse.SUPPRESS)
    play.add_argument("--bot-level", dest="bot_level", default=DEFAULT_LEVEL, choices=BOT_LEVELS,
                      help=f"strength of search bots: {', '.join(BOT_LEVELS)} (default {DEFAULT_LEVEL}); "
                           "the same option as host's")
    # The old spelling, unlike host's: still accepted, not shown.
    play.add_argument("--level", dest="bot_level", choices=BOT_LEVELS, help=argparse.SUPPRESS)
    _seat_args(play)
    _pace_arg(play)
    _config_args(play)

    host = sub.add_parser("host", help="host a table on the LAN (advertised with zeroconf)")
    host.add_argument("game", choices=GAMES)
    host.add_argument("--table", type=_table_name, default=None,
                      help="table name (default: your name's table)")
    host.add_argument("--bots", type=_bot_count, default=0, metavar="N",
                      help="fill N seats with bots (0..3)")
    host.add_argument("--bot-kind", default="search", choices=BOT_KINDS,
                      help=f"kind of those bots: {', '.join(BOT_KINDS)} (default search)")
    host.add_argument("--bot-level", default=DEFAULT_LEVEL, choices=BOT_LEVELS,
                      help=f"strength of search bots: {', '.join(BOT_LEVELS)} (default {DEFAULT_LEVEL})")
    host.add_argument("--bind", default="::",
                      help="address to listen on (default ::, every address of IPv4 and IPv6 on one "
                           "port; 0.0.0.0: IPv4 only)")
    host.add_argument("--port", type=_port, default=0, help="TCP port (default: any free port)")
    host.add_argument("--spectators", type=_spectators, default=DEFAULT_SPECTATORS, metavar="N",
                      help="how many people may watch at once with p2pcards watch "
                           "(default 8; 0: nobody)")
    host.add_argument("--no-advertise", action="store_true", help="do not announce with zeroconf")
    host.add_argument("--interface", action="append", default=None, metavar="ADDR",
                      help="announce only on the interface with this address or name (repeatable)")
    _seat_args(host)
    _pace_arg(host)
    _config_args(host)
    add_again_args(host, host=True)

    join = sub.add_parser("join", help="find a table on the LAN (or --connect) and join it")
    _finding_args(join, "the only open table")
    _seat_args(join, clock=False)
    _direct_args(join)
    add_again_args(join, host=False)

    watch = sub.add_parser("watch", help="watch a table on the LAN as a spectator (every move "
                                         "checked, no hand shown)")
    _finding_args(watch, "the only table that admits spectators")
    watch.add_argument("--name", help="your display name (saved with your identity)")
    watch.add_argument("--plain", action="store_true",
                       help="line-based interface (screen readers, simple terminals)")
    _ascii_arg(watch)
    watch.add_argument("--reconnect-window", type=_seconds, default=30.0, metavar="S",
                       help="seconds to keep redialling a lost host (default 30)")
    watch.add_argument("--trace", action="store_true",
                       help="print every event as a JSON line with a timestamp (for scripts)")
    watch.set_defaults(bot=None, bell=False, seed=None)

    tables = sub.add_parser("tables", help="list the tables announced on the LAN")
    tables.add_argument("--timeout", type=_seconds, default=2.0, metavar="S",
                        help="seconds to listen for announcements (default 2)")
    tables.add_argument("--interface", action="append", default=None, metavar="ADDR",
                        help="look only on the interface with this address or name (repeatable)")
    tables.add_argument("--json", action="store_true", help="one JSON object per table, for scripts")

    verify = sub.add_parser("verify", help="re-check a saved transcript offline")
    verify.add_argument("file", metavar="FILE|SESSION",
                        help="a saved transcript (or the folder holding it), or a session id "
                             "from p2pcards saved, or its start: your own record of that table")
    verify.add_argument("more", metavar="FILE|SESSION", nargs="*",
                        help="more matches of the same evening: each is checked alone, then "
                             "that each is the rematch of the one before (in any order)")
    verify.add_argument("--json", action="store_true",
                        help="print one JSON object (seats, join order, rule ids) for scripts")
    verify.add_argument("-v", "--verbose", dest="details", action="store_true",
                        help="also show each player's join-order index and the verdict's rule id")

    replay = sub.add_parser("replay", help="step through a saved table, move by move (checked "
                                           "as verify does)")
    replay.add_argument("file", metavar="FILE|SESSION",
                        help="a saved transcript (or the folder holding it; your own table's "
                             "folder also shows your hand), or a session id as verify takes it")
    replay.add_argument("--plain", action="store_true",
                        help="print every public event in order, a line per deal's summary and "
                             "the outcome, instead of the full screen (also when not a terminal)")
    _ascii_arg(replay)
    replay.add_argument("--public", action="store_true",
                        help="show only public facts even when the folder holds your secrets "
                             "(no hand)")
    replay.add_argument("--speed", type=float, default=2.0, metavar="MOVES",
                        help="moves per second when playing (Space; + and - change it; "
                             "default 2)")
    replay.add_argument("--play", action="store_true",
                        help="start playing at once (the full screen; Space pauses)")

    saved = sub.add_parser("saved", help="list your saved tables, newest first (to verify or resume)")
    saved.add_argument("--json", action="store_true", help="one JSON object per table, for scripts")

    standings = sub.add_parser("standings", help="the evening's standings: matches, wins and "
                                                 "totals, from saved records that verify")
    standings.add_argument("records", nargs="*", metavar="FOLDER",
                           help="more saved records to count (a table's folder, a transcript, or a "
                                "folder holding them, e.g. a friend's); yours are always counted")
    standings.add_argument("--evening", default=None, metavar="ID",
                           help="only the evening with this id (or a prefix of it)")
    standings.add_argument("--json", action="store_true", help="one JSON object, for scripts")

    resume = sub.add_parser("resume", help="rejoin a table this machine was playing")
    resume.add_argument("session", nargs="?", default=None,
                        help="session id (or a prefix of it) from `p2pcards saved`; "
                             "default: your one table still in play")
    _seat_args(resume, clock=False)
    _pace_arg(resume)
    _direct_args(resume)

    whoami = sub.add_parser("whoami", help="show (or set) your identity's name and fingerprint")
    whoami.add_argument("--name", help="new display name")
    return parser


#: The table clock of ``host`` when ``--deadline`` is not given (``play`` has none).
HOST_MOVE_TIME = 120


def table_config(game: str, args: argparse.Namespace, move_time: int) -> dict[str, int]:
    """The genesis configuration: the game's settings, the table clock (0: no limit)
    and, where there is a clock, the pauses each player may take."""
    from p2pcards.protocol.table import MOVE_TIME, PAUSES
    pauses = getattr(args, "pauses", 0) if move_time else 0
    return {**config_from_args(game, args), MOVE_TIME: move_time,
            **({PAUSES: pauses} if pauses else {})}


def _clock_seconds(args: argparse.Namespace, default: int) -> int:
    """``--deadline`` as the table clock's whole seconds, or ``default`` (0: no limit)."""
    return default if args.deadline is None else max(1, round(args.deadline))


def _session_deadline(args: argparse.Namespace) -> float:
    """A session's own clock, used only at a table whose genesis sets none."""
    return float(HOST_MOVE_TIME) if args.deadline is None else args.deadline


#: Each game's settings from the options (``--deals`` is read apart), by game name.
_SETTINGS: dict[str, Callable[[argparse.Namespace], dict[str, Any]]] = {
    "bluff": lambda args: {"table_price": args.price, "starting_chips": args.chips},
    "topper": lambda args: {"target_score": args.target},
}
#: The config field ``--deals`` sets (0: none), by game name.
_DEALS_FIELD = {"bluff": "deal_cap", "topper": "deal_limit"}


def config_from_args(game: str, args: argparse.Namespace) -> dict[str, int]:
    from p2pcards.protocol import games
    rules = rules_games.by_name(game)
    field = _DEALS_FIELD[game]
    deals = getattr(rules.default_config(), field) if args.deals is None else (args.deals or None)
    try:
        config = rules.config(**_SETTINGS[game](args), **{field: deals})
    except ValueError as error:  # each option is in range, yet together they make no table
        raise UserError(f"these table settings make no {game} table: {error}") from None
    return games.by_name(game).config_to_wire(config)


def _identity(args: argparse.Namespace) -> Any:
    """This person's identity; ``--name`` renames it (a name the others' software
    would refuse is one sentence), and a first identity is named after the login."""
    name = getattr(args, "name", None)
    if name is None and not os.path.exists(_identity_path()):
        name = _login_name()
    return _named_identity(name)


def _named_identity(name: str | None) -> Any:
    from p2pcards.net.storage import InvalidName, load_or_create_identity
    try:
        return load_or_create_identity(name)
    except InvalidName as error:
        raise UserError(f"--name {name!r}: {error}") from None


def _login_name() -> str:
    """The login name as a first identity's name, when it is a usable one."""
    from p2pcards.net.storage import DEFAULT_NAME, InvalidName, check_name
    try:
        return check_name(_user_name()[:32])
    except InvalidName:
        return DEFAULT_NAME


def _user_name() -> str:
    """The account's name as the first display name (``USER``, or ``USERNAME`` on Windows)."""
    import getpass
    try:
        return getpass.getuser() or "player"
    except (ImportError, KeyError, OSError):  # no variable set, and no pwd (Windows)
        return "player"


def _identity_path() -> Path:
    from p2pcards.net.storage import identity_path
    return identity_path()


def _journal_root() -> Path:
    """Where saved tables live, made if need be: a place that cannot hold them is
    one sentence before any table starts (not a table that hangs at its genesis)."""
    from p2pcards.net.storage import state_dir, tables_dir
    try:
        root = tables_dir()
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(f"cannot keep saved tables in {state_dir()}: "
                        f"{error.strerror or error}") from None
    return root


def _print_result(result: Any, front: FrontEnd, out: Any = sys.stdout) -> int:
    from p2pcards.ui.text_events import Speaker, verdict_sentence, winners_sentence
    table = front.session.table if front.session is not None else None
    players, me_player = front.players()
    speaker = Speaker(front.names(), table.my_seat if table is not None else None,
                      table.player_at_seat if table is not None else None, players, me_player)
    if result.outcome is not None:
        print(f"Match over: {winners_sentence(result.outcome.winners, speaker)}.", file=out)
        code = 0
    elif result.verdict is not None and table is not None and result.verdict.rule == "left" \
            and result.verdict.players == (table.me_player,):
        print("You left the table; the other players were told.", file=out)
        code = 0
    elif result.verdict is not None:
        print(f"Table ended: {verdict_sentence(result.verdict, speaker)}", file=out)
        code = 3
    elif result.left_in_lobby:
        print("You left before the table started; nothing was played.", file=out)
        return 0
    else:
        print(f"Table closed: {result.reason}", file=out)
        code = 2
    if front.session is not None and front.session.journal is not None:
        session = front.session.journal.directory.parent.name[:SHORT]
        print(f"Saved as session {session}; check it with: {command_line('verify', session)}",
              file=out)
    return code


async def _cmd_play(args: argparse.Namespace) -> int:
    from p2pcards.app import TableOptions, start_hosted_table
    identity = _identity(args)
    front = FrontEnd(args, args.game, again=True)
    _sit_down()
    await front.start()
    try:
        for table_number in range(10_000):  # a new table each time the player asks for one
            seed = None if args.seed is None else args.seed + table_number
            # Against bots nobody is hurried: no clock unless the player sets one.
            options = TableOptions(game=args.game,
                                   config=table_config(args.game, args, _clock_seconds(args, 0)),
                                   name=f"{identity.name}'s table"[:32],
                                   deadline=_session_deadline(args),
                                   reconnect_window=args.reconnect_window,
                                   journal_root=_journal_root(), bot_kind=args.bot_kind,
                                   bot_level=args.bot_level, seed=seed, pace=pace_of(args))
            front.session = None
            hosted = await start_hosted_table(identity, front.agent, options, bots=3,
                                              on_event=front.on_event)
            front.session = hosted.sessions[0]
            result = await _play_then_clean_up(front.play(hosted.result()), _close_hosted(front, hosted))
            if not front.again:
                break
    finally:
        await front.stop()
    return _print_result(result, front)


async def _cmd_host(args: argparse.Namespace) -> int:
    from p2pcards.app import TableOptions, start_hosted_table
    from p2pcards.protocol.relay import LobbyChanged
    identity = _identity(args)
    front = FrontEnd(args, args.game, rematch=True)
    table_name = (args.table or f"{identity.name}'s table")[:32]
    move_time = _clock_seconds(args, HOST_MOVE_TIME)
    options = TableOptions(game=args.game, config=table_config(args.game, args, move_time),
                           name=table_name, deadline=float(move_time), journal_root=_journal_root(),
                           reconnect_window=args.reconnect_window,
                           bot_kind=args.bot_kind, bot_level=args.bot_level,
                           seed=args.seed, advertise=not args.no_advertise,
                           interfaces=args.interface, tcp_host=args.bind, tcp_port=args.port,
                           pace=pace_of(args), spectators=args.spectators)

    def host_event(event: Any) -> None:
        if isinstance(event, LobbyChanged) and not args.trace and front.screen is None:
            names = ", ".join(p.name + (" (bot)" if p.bot else "") for p in event.players)
            front.say(f"Lobby: {names}; {plural(event.free_seats, 'free seat')}")
        front.on_event(event)

    _sit_down()
    await front.start()
    try:
        try:
            hosted = await start_hosted_table(identity, front.agent, options, bots=args.bots,
                                              on_event=front.on_event, on_host_event=host_event)
        except OSError as error:
            if isinstance(error, P2PCardsError):
                raise  # not the listening socket: one sentence of its own (see main)
            raise UserError(_listen_failure(args.bind, args.port, error)) from None
        front.session = hosted.sessions[0]
        port = hosted.host.listening_port
        front.say(json.dumps({"listening": port, "fingerprint": identity.fingerprint}) if args.trace
                  else f"Hosting {args.game} table {quoted(table_name)} on port {port} "
                       f"(host key {identity.fingerprint}). Waiting for players. "
                       f"{_join_hint(table_name, hosted.host.tcp_host or args.bind, port)}")
        if not offers_evening(args, front):
            result = await _play_then_clean_up(front.play(hosted.result()),
                                               _close_hosted(front, hosted))
        else:
            result = await _host_an_evening(args, front, identity, options, hosted)
    finally:
        await front.stop()
    return _print_result(result, front)


async def _host_an_evening(args: argparse.Namespace, front: FrontEnd, identity: Any,
                           options: Any, hosted: Any) -> Any:
    """``host --again``: the match, the end box, the rematches (p2pcards.evening_cli)."""
    from p2pcards.evening_cli import host_evening
    try:
        result = await front.play(hosted.result())
    except BaseException:
        await _close_hosted(front, hosted)()
        raise
    return await host_evening(args, front, identity, options, hosted, result,
                              lambda table: _close_hosted(front, table)())


def _join_hint(table_name: str, bind: str, port: int) -> str:
    """What to tell a friend: the name for discovery, and this machine's address
    and port for a network that blocks multicast (LAN addresses of the families
    the socket serves; loopback only when there is nothing else)."""
    from p2pcards.net.addresses import friend_addresses, local_addresses
    addresses = friend_addresses(bind, local_addresses())
    direct = " or ".join(f"--connect {_address(a, port)}" for a in addresses[:3])
    return (f"Friends join with: p2pcards join {commandline.quote(table_name)}"
            + (f" (where multicast is blocked: p2pcards join {direct})" if direct else ""))


async def _find_table(args: argparse.Namespace) -> tuple[str, int, bytes | str | None]:
    if args.connect:
        host, port = _host_port(args.connect)
        return host, port, None
    found = await _browse(args)
    watching = args.command == "watch"
    table = _pick_table(found, args.table, watching=watching)
    verb = "Watching" if watching else "Joining"
    clock = table.clock
    timed = "" if clock is None else ", no clock" if clock == 0 else f", {clock} s per move"
    print(f"{verb} {quoted(table.name)} ({table.game}{timed}) hosted by {table.host_name or '?'} "
          f"at {_address(table.host, table.port)}, host key {table.fingerprint}", flush=True)
    if clock == 0 and not watching:
        print(NO_CLOCK_WARNING, flush=True)
    return table.host, table.port, table.public_key or table.fingerprint


async def _cmd_join(args: argparse.Namespace) -> int:
    """Join a table; one this person already holds a seat at (a ``join`` again
    after a crash) goes on from its saved secrets, as ``resume`` does."""
    from p2pcards.app import joining_session
    from p2pcards.net.journal import Journal, SeatAlreadySaved
    identity = _identity(args)
    host, port, fingerprint = await _find_table(args)
    front = FrontEnd(args, None, rematch=True)
    heard = _Heard(front.on_event)
    seat: dict[str, Any] = dict(expected_peer=fingerprint, deadline=_session_deadline(args),
                                reconnect_window=args.reconnect_window,
                                journal_root=_journal_root(), bot=bool(args.bot), seed=args.seed,
                                label=_joiner_label(identity), direct=not args.no_direct,
                                listen=not args.no_listen)
    front.session = joining_session(identity, front.agent, host, port, on_event=heard.hear,
                                    **seat)
    _sit_down()
    await front.start()
    try:
        result = await _play_then_clean_up(front.play(front.session.run()))
        if offers_evening(args, front):
            from p2pcards.evening_cli import join_evening
            result = await join_evening(args, front, identity, host, port, fingerprint, result,
                                        dict(seat, on_event=front.on_event))
    except SeatAlreadySaved as saved:
        # The host seated our key at a table we saved: fresh secrets would sign a
        # second version of what our seat already wrote. Our saved seat goes on.
        held: Path | None = saved.directory
    else:
        held = None
    finally:
        await front.stop()
    if held is None:
        if front.session.table is None and result.outcome is None and result.verdict is None \
                and not result.left_in_lobby:
            return _not_joined(result.reason, heard, front, _address(host, port))
        return _print_result(result, front)
    meta = Journal(held).read_meta()
    if meta.get("hosted"):
        raise UserError(f"you host this table yourself: bring it back with "
                        f"{command_line('resume', held.parent.name[:SHORT])}")
    print(f"You already hold a seat at this table (saved as session {held.parent.name[:SHORT]}): "
          f"going on from it, as p2pcards resume does.", flush=True)
    return await _resume_joined(args, identity, held, meta)


class _Heard:
    """What a joining session told its front end before any table: whether it ever
    reached the host, and the host's refusal."""

    def __init__(self, on_event: Callable[[Any], None]) -> None:
        self.on_event = on_event
        self.linked = False
        self.refused: str | None = None

    def hear(self, event: Any) -> None:
        from p2pcards.net.session_events import LinkUp, Rejected
        if isinstance(event, LinkUp):
            self.linked = True
        elif isinstance(event, Rejected):
            self.refused = event.reason
        self.on_event(event)


def _not_joined(reason: str, heard: _Heard, front: FrontEnd, address: str) -> int:
    """A join that never sat down, in one sentence: no table answered at that address,
    or the host refused this player (said once: plain mode has printed it already)."""
    if heard.refused is not None:
        if front.printer is None or front.trace:  # no line of plain mode said it
            print(f"Table closed: {reason}")
        return 2
    if not heard.linked:
        raise UserError(_nobody_answered(address, reason))
    print(f"Table closed: the host went away before the table started ({reason})")
    return 2


def _nobody_answered(address: str, reason: str) -> str:
    """A dial that never reached a host, said as what the person can check."""
    why = ("nothing accepts connections there" if "refused" in reason.lower()
           or f"Errno {errno.ECONNREFUSED}" in reason else "no answer")
    return (f"no table answered at {address} ({why}): check the address and port the "
            f"host's screen shows, and that its firewall lets them in")


async def _cmd_watch(args: argparse.Namespace) -> int:
    from p2pcards.app import tcp_connector
    from p2pcards.net.watch import WatchSession
    identity = _identity(args)
    host, port, fingerprint = await _find_table(args)
    front = FrontEnd(args, None)
    heard = _Heard(front.on_event)
    front.session = WatchSession(identity, tcp_connector(host, port, identity, fingerprint),
                                 on_event=heard.hear, reconnect_window=args.reconnect_window)
    _sit_down("Stopped watching.")
    await front.start()
    try:
        result = await _play_then_clean_up(front.play(front.session.run()))
    finally:
        await front.stop()
    if getattr(result, "stopped", False):
        print("You stopped watching.")
        return 0
    if result.outcome is None and result.verdict is None and front.session.table is None:
        if not heard.linked:
            raise UserError(_nobody_answered(_address(host, port), result.reason))
        raise UserError(f"could not watch: {result.reason}")
    return _print_result(result, front)


def _joiner_label(identity: Any) -> str:
    """Each joiner's own seeded byte source (``--seed``), the same again on ``resume``."""
    return f"joiner-{identity.fingerprint}"


def _resumed_line(table_name: str, port: int | None) -> str:
    """What a resumed host is doing: a solo table against bots has no port."""
    if port is None:
        return f"Resuming your table {quoted(table_name)} against the bots."
    return (f"Hosting table {quoted(table_name)} again on port {port}; "
            f"waiting for the players to reconnect.")


def _close_hosted(front: FrontEnd, hosted: Any) -> Callable[[], Awaitable[None]]:
    """The host's clean-up: the relay stays up while other players' tables are
    still in play (their own clocks decide), and the host is told why it waits."""
    async def close() -> None:
        if not hosted.host.relay.started:
            # Left in the lobby: no table to finish, nobody's clock to wait for.
            await hosted.close(grace=0, linger=0)
            return
        if all(task.done() for task in hosted.tasks) and hosted.host.players_linked():
            front.say(f"Keeping the table open for the players still at it "
                      f"(up to {hosted.linger:.0f} s; Ctrl-C to stop now).")
        await hosted.close()
    return close


async def _play_then_clean_up(coro: Any, cleanup: Any = None) -> Any:
    """Run a session, then clean up. On Ctrl-C the session itself tells the
    other peers (a signed leave notice) before its link closes."""
    try:
        return await coro
    finally:
        if cleanup is not None:
            await cleanup()


def _host_port(text: str) -> tuple[str, int]:
    """``--connect``'s HOST:PORT: ``10.0.0.5:4000``, ``laptop.local:4000``, or an
    IPv6 address in brackets (``[fd00::1]:4000``, ``[fe80::1%eth0]:4000``)."""
    wants = f"--connect wants HOST:PORT (the address a host shows), not {text!r}"
    text = text.strip()
    if text.startswith("["):
        host, bracket, rest = text[1:].partition("]")
        if not bracket or not rest.startswith(":"):
            raise UserError(wants)
        port = rest[1:]
    else:
        host, _, port = text.rpartition(":")
        if ":" in host:
            raise UserError(f"{wants}: put an IPv6 address in brackets, as in [{host}]:{port}")
    if not host or not port.isdigit() or not 0 < int(port) <= 65535:
        raise UserError(wants)
    return host, int(port)


async def _browse(args: argparse.Namespace) -> list[Any]:
    """The tables on the LAN (``--interface``: only where it says)."""
    from p2pcards.net.discovery import browse_tables
    from p2pcards.net.errors import UnknownInterface
    try:
        return await browse_tables(args.timeout, interfaces=args.interface)
    except UnknownInterface as error:
        raise UserError(f"{error} (--interface takes an address or name of this machine's interfaces)") from None


def _in_order(found: Sequence[Any]) -> list[Any]:
    """Tables in the order ``tables`` numbers them (by name, then host key), so a
    number read off the list means the same table to ``join``."""
    return sorted(found, key=lambda t: (t.name.casefold(), t.fingerprint, t.host, t.port))


async def _cmd_tables(args: argparse.Namespace) -> int:
    found = _in_order(await _browse(args))
    if args.json:
        for number, t in enumerate(found, start=1):
            print(json.dumps({"number": number, "name": t.name, "game": t.game,
                              "host": t.host_name, "address": t.host, "port": t.port,
                              "free": t.free_seats, "spectators": t.spectators,
                              "clock": t.clock, "version": t.version, "fp": t.fingerprint}))
        return 0
    if not found:
        print("No tables found on the LAN (a friend's host shows an address for "
              "p2pcards join --connect HOST:PORT).")
        return 0
    print(f"{'#':>2}  {'TABLE':<24}  {'GAME':<6}  {'FREE':<4}  {'WATCH':<5}  {'CLOCK':<8}  "
          f"{'HOST':<16}  {'ADDRESS':<21}  KEY")
    for number, t in enumerate(found, start=1):
        free = "full" if t.free_seats == 0 else str(t.free_seats)
        watch = str(t.spectators) if t.spectators else "no"
        print(f"{number:>2}  {t.name[:24]:<24}  {t.game:<6}  {free:<4}  {watch:<5}  {_clock_word(t.clock):<8}  "
              f"{(t.host_name or '?')[:16]:<16}  {_address(t.host, t.port):<21}  {t.fingerprint}")
    if any(t.clock == 0 for t in found):
        print(NO_CLOCK_WARNING)
    print("Join one with: p2pcards join NAME (or its number, or its KEY when names clash); "
          "watch one with: p2pcards watch NAME")
    return 0


#: What ``tables`` and ``join`` say of a table whose host set no clock.
NO_CLOCK_WARNING = ("Warning: a table with no clock has no time limit per move: "
                    "anyone at it can stall it for ever.")


def _clock_word(clock: int | None) -> str:
    """A table's clock as ``tables`` shows it: seconds per move, "none", or "?"
    (a host too old to announce it)."""
    if clock is None:
        return "?"
    return "none" if clock == 0 else f"{clock}s"


def _address(host: str, port: int) -> str:
    """``HOST:PORT`` as ``--connect`` takes it (IPv6 in brackets)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _pick_table(found: Sequence[Any], wanted: str | None, *, watching: bool = False) -> Any:
    """The table ``join WANTED`` (or ``watch WANTED``) means: by name, host key (or
    its start) or list number; without WANTED, the only open table (the only one
    that admits spectators). Each refusal says what to do."""
    listed = _in_order(found)
    hint = "see p2pcards tables, or use --connect HOST:PORT"
    if wanted is None:
        matches = listed
    else:
        key = wanted.strip().lower()
        matches = [t for t in listed if t.name == wanted]
        if not matches and len(key) >= 4:
            matches = [t for t in listed if t.fingerprint.startswith(key)]
        if not matches and key.isdigit() and 1 <= int(key) <= len(listed):
            matches = [listed[int(key) - 1]]
    open_ones = [t for t in matches if (t.spectators if watching else t.free_seats) > 0]
    if not matches:
        if wanted is not None and key.isdigit() and listed:
            raise UserError(f"no table number {key}: {plural(len(listed), 'table')} found, "
                            f"numbered 1 to {len(listed)} as p2pcards tables lists them (a "
                            f"table is named by its number, its name or its host key)")
        named = f" named {quoted(wanted)}" if wanted is not None else ""
        accepted = (" (a table is named by its number in p2pcards tables, its name or its "
                    "host key; or use --connect HOST:PORT)") if wanted is not None and listed \
            else f" ({hint})"
        raise UserError(f"no table{named} found on the LAN{accepted}")
    if not open_ones and watching:
        if len(matches) == 1:
            raise UserError(f"table {quoted(matches[0].name)} admits no spectators")
        raise UserError(f"no table{'' if wanted is None else ' named ' + quoted(wanted)} "
                        f"admits spectators ({hint})")
    if not open_ones:
        if len(matches) == 1:
            raise UserError(f"table {quoted(matches[0].name)} is full: its four seats are taken")
        raise UserError(f"every table{'' if wanted is None else ' named ' + quoted(wanted)} "
                        f"is full ({hint})")
    if len(open_ones) > 1:
        rows = "; ".join(f"{listed.index(t) + 1}. {quoted(t.name)} ({t.game}, host "
                         f"{t.host_name or '?'}, key {t.fingerprint})" for t in open_ones)
        verb = "watch" if watching else "join"
        raise UserError(f"{len(open_ones)} {'' if watching else 'open '}tables match; {verb} one "
                        f"by its number or key: {rows}")
    return open_ones[0]


def _progress_bar(stage: str, done: int, total: int) -> None:
    """One line on a terminal's stderr, redrawn in place, cleared when done."""
    width = 30
    filled = width * done // max(1, total)
    line = f"\rverify: {stage:<6} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}"
    sys.stderr.write("\r" + " " * len(line) + "\r" if stage == "done" else line)
    sys.stderr.flush()


def _cmd_verify(args: argparse.Namespace) -> int:
    from p2pcards.net.journal import NoTranscript, read_saved_transcript
    from p2pcards.protocol.errors import ProtocolError
    from p2pcards.protocol.saved import SEAT_META_SHAPE
    from p2pcards.protocol.schema import validate
    from p2pcards.protocol.verdict import Verdict
    from p2pcards.protocol.verify import tail_problem, verify_transcript
    from p2pcards.ui.text_verify import report_json, report_lines
    if args.more:
        return _verify_evening([args.file, *args.more], as_json=args.json)
    try:
        record = _record_path(args.file)
        journal, transcript, messages = read_saved_transcript(record)
    except NoTranscript as missing:
        raise UserError(str(missing)) from None
    try:
        saved = journal.read_verdict()
        verdict = Verdict.from_wire(saved) if saved is not None else None
    except (OSError, ProtocolError) as error:
        raise UserError(f"{journal.verdict_path} is not a saved verdict ({error})") from None
    report = verify_transcript(messages, verdict,
                               progress=_progress_bar if sys.stderr.isatty() else None)
    if not report.game:
        raise UserError(f"{transcript} is not a p2pcards transcript "
                        f"(its first record is no table's genesis: {report.problem})")
    if report.problem is None:
        report.problem = tail_problem(transcript.stat().st_size, messages)
    # ``meta`` is read only when a saved table's folder is given (asking for your
    # own table; a session id stands for that folder), and only to say which player
    # "you" are: absent, unreadable or of another shape (a relay's, a damaged file),
    # it is ignored. Given a transcript file, ``verify`` never opens the ``meta`` beside it.
    me_player = None
    if record.is_dir():
        with contextlib.suppress(OSError, ValueError, ProtocolError):
            me_player = validate(SEAT_META_SHAPE, journal.read_meta(), "meta")["player"]
    if args.json:
        print(json.dumps(report_json(report, me_player)))
    else:
        print("\n".join(report_lines(report, me_player, details=args.details)))
    return 0 if report.ok else 1


def _verify_evening(given: list[str], *, as_json: bool) -> int:
    """``verify`` of several matches: each alone, then the chain (PROTOCOL.md §14)."""
    from p2pcards.net.journal import NoTranscript, read_saved_transcript
    from p2pcards.protocol.verify_evening import verify_evening
    from p2pcards.ui.text_verify import evening_json, evening_lines
    transcripts = []
    for text in given:
        try:
            transcripts.append(read_saved_transcript(_record_path(text))[2])
        except NoTranscript as missing:
            raise UserError(str(missing)) from None
    report = verify_evening(transcripts, ordered=False)
    print(json.dumps(evening_json(report)) if as_json else "\n".join(evening_lines(report)))
    return 0 if report.ok else 1


def _cmd_replay(args: argparse.Namespace) -> int:
    from p2pcards.ui.replay import ReplayError, load_saved, print_plain, replay_saved
    if not 0.1 <= args.speed <= 50:
        raise UserError(f"--speed is moves per second, 0.1 to 50, not {args.speed:g}")
    path = _record_path(args.file)
    try:
        saved = load_saved(path)
    except ReplayError as error:
        raise UserError(str(error)) from None
    bar = sys.stderr.isatty()
    try:
        record = replay_saved(saved, own_hand=not args.public, progress=(
            lambda done, total: _progress_bar("replay", done, total)) if bar else None)
    except ReplayError as error:
        if error.position == 0:
            raise UserError(f"{path} is not a p2pcards transcript (its first record is no "
                            f"table's genesis: {error})") from None
        raise UserError(f"{path} cannot be replayed: {error}") from None
    finally:
        if bar:
            _progress_bar("done", 1, 1)
    if args.plain or not (sys.stdin.isatty() and sys.stdout.isatty()):
        from p2pcards.ui.plain import print_line
        try:
            print_plain(record, print_line)
        except BrokenPipeError:  # the reader (e.g. head) has read enough
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    from p2pcards.ui.tui.replay import ReplayScreen
    asyncio.run(ReplayScreen(record, speed=args.speed).run(playing=args.play))
    return 0


def _my_saved_tables(identity: Any) -> list[SavedTable]:
    """This person's own seats only (not its bots' nor its relay's), newest first."""
    return my_saved_tables(_journal_root(), identity.fingerprint)


def _shown_path(path: Path) -> str:
    """A folder as ``saved`` prints it: under the home folder as ``~/…``."""
    with contextlib.suppress(ValueError, RuntimeError):
        return str(Path("~") / path.relative_to(Path.home()))
    return str(path)


def _commands_for(row: SavedTable) -> dict[str, str]:
    """The commands that take up a saved table, by what they do."""
    commands = {"verify": command_line("verify", row.short), "replay": command_line("replay", row.short)}
    if row.in_play:
        commands["resume"] = command_line("resume", row.short)
    return commands


def _cmd_saved(args: argparse.Namespace) -> int:
    identity = _identity(args)
    rows = _my_saved_tables(identity)
    if args.json:
        for row in rows:
            print(json.dumps({"session": row.session, "game": row.game, "table": row.table,
                              "players": list(row.players), "saved": row.saved_at,
                              "status": row.status, "in_play": row.in_play,
                              "path": str(row.directory), "evening": _evening_id(row.directory),
                              "others": others_in(row.directory.parent, identity.fingerprint),
                              "commands": _commands_for(row)}))
        return 0
    if not rows:
        print("No saved tables.")
        return 0
    # An evening's tables together (p2pcards.standings says how tables are grouped),
    # the evening of the newest table first; each table names its evening.
    evenings = {row.directory: _evening_id(row.directory) for row in rows}
    order = list(dict.fromkeys(evenings[row.directory] for row in rows))
    print(f"{'SESSION':<12}  {'GAME':<6}  {'TABLE':<24}  {'SAVED':<16}  STATUS")
    for row in sorted(rows, key=lambda r: order.index(evenings[r.directory])):
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(row.saved_at))
        print(f"{row.short:<12}  {row.game:<6}  {row.table[:24]:<24}  {when:<16}  "
              f"{row.status}")
        evening = evenings[row.directory]
        print(f"{'':<12}  players: {', '.join(row.players)}"
              + (f"; evening {evening}" if evening is not None else ""))
        others = others_in(row.directory.parent, identity.fingerprint)
        print(f"{'':<12}  record: {_shown_path(row.directory)}")
        print(f"{'':<12}  (yours" + (f"; its session's folder also holds: {', '.join(others)})"
                                     if others else ")"))
        also = "replay and resume take the same id" if row.in_play else "replay takes the same id"
        print(f"{'':<12}  check it: {_commands_for(row)['verify']} ({also})")
    return 0


def _evening_id(directory: Path) -> str | None:
    from p2pcards.standings import evening_of
    evening = evening_of(directory)
    return None if evening is None else evening[0]


def _cmd_standings(args: argparse.Namespace) -> int:
    from p2pcards import standings
    identity = _identity(args)
    records = standings.own_records(_journal_root(), identity.fingerprint)
    for given in args.records:
        found = standings.records_under(Path(given))
        if not found:
            raise UserError(f"no saved table at {given} (a table's folder holds a transcript; "
                            f"see p2pcards saved)")
        records += found
    result = standings.pick(standings.collect(records), args.evening)
    if args.evening and not result.evenings:
        raise UserError(f"no evening {args.evening!r} in the records that verify")
    if args.json:
        print(json.dumps(standings.standings_json(result)))
    else:
        print("\n".join(standings.standings_lines(result)))
    return 1 if any(n.failed for n in result.not_counted) else 0


def _pick_saved(identity: Any, prefix: str | None) -> SavedTable:
    """The saved table ``resume`` means: the one matching ``prefix``, or without one,
    the only table of yours still in play."""
    rows = _my_saved_tables(identity)
    if prefix:
        try:
            return pick_mine(rows, prefix)
        except RecordNotFound as error:
            raise UserError(str(error)) from None
    in_play = [r for r in rows if r.in_play]
    if len(in_play) != 1:
        named = ", ".join(f"{r.short} ({r.game}, {quoted(r.table)})" for r in in_play)
        raise UserError(f"{len(in_play)} saved tables of yours are in play: {named}; "
                        f"name one by its session (p2pcards resume {in_play[0].short})"
                        if in_play else
                        "no saved table of yours is in play (see p2pcards saved)")
    return in_play[0]


def _record_path(text: str) -> Path:
    """What ``verify`` and ``replay`` read: a file or a record's folder as typed; a
    session's folder, or a session id (or its unique start) from ``p2pcards saved``,
    standing for your own record in it."""
    path = Path(text)
    try:
        if path.is_dir() and not (path / "transcript").exists() and records_in(path):
            return own_record(path, _known_fingerprint())  # a whole session's folder
        if path.exists() or not is_session_text(text):
            return path  # a path (or no id): read as typed, a missing one said so there
        from p2pcards.net.storage import tables_dir
        return find_record(tables_dir(), text, _known_fingerprint())  # made by nothing here
    except RecordNotFound as error:
        raise UserError(str(error)) from None


def _known_fingerprint() -> str | None:
    """This person's fingerprint if an identity exists; reading a record makes none."""
    if not _identity_path().exists():
        return None
    try:
        return _named_identity(None).fingerprint
    except P2PCardsError:  # an unusable identity file: verify still reads the record
        return None


async def _cmd_resume(args: argparse.Namespace) -> int:
    identity = _identity(args)
    picked = _pick_saved(identity, args.session)
    directory, meta = picked.directory, picked.meta
    if not picked.in_play:
        return await _show_finished(args, identity, directory)
    if meta.get("hosted"):
        return await _resume_hosted(args, identity, directory.parent)
    return await _resume_joined(args, identity, directory, meta)


async def _resume_joined(args: argparse.Namespace, identity: Any, directory: Path,
                         meta: dict) -> int:
    """Rejoin, from its saved record, a table this person joined (not hosted)."""
    from p2pcards.app import randomness_for, tcp_connector
    from p2pcards.net.journal import Journal, JournalInUse
    from p2pcards.net.peer import PeerSession
    front = FrontEnd(args, None)
    session = PeerSession(identity, front.agent,
                          tcp_connector(meta["host"], meta["port"], identity, meta.get("pin") or None),
                          bot=bool(args.bot), deadline=_session_deadline(args),
                          reconnect_window=args.reconnect_window, journal_root=_journal_root(),
                          randomness_for=randomness_for(args.seed, _joiner_label(identity)),
                          on_event=front.on_event, direct=not args.no_direct,
                          listen=not args.no_listen, announce=not args.no_direct)
    try:
        session.resume_from(Journal(directory))
    except JournalInUse:
        raise UserError("that table is in use by another p2pcards process of yours; "
                        "end it first (two processes for one seat would sign twice)") from None
    front.session = session
    _sit_down()
    await front.start()
    try:
        result = await _play_then_clean_up(front.play(session.run()))
    finally:
        await front.stop()
    return _print_result(result, front)


async def _show_finished(args: argparse.Namespace, identity: Any, directory: Path) -> int:
    """A table that already ended: its result screen (or lines), from the saved
    record alone; nobody is dialled and no port is opened."""
    from p2pcards.net.journal import Journal, JournalInUse
    from p2pcards.net.peer import PeerSession

    async def no_dial() -> Any:
        raise ConnectionError("a finished table dials nobody")

    front = FrontEnd(args, None)
    session = PeerSession(identity, front.agent, no_dial, journal_root=_journal_root(),
                          on_event=front.on_event, direct=False, listen=False)
    try:
        table = session.resume_from(Journal(directory))
    except JournalInUse:
        raise UserError("that table is open in another p2pcards process of yours") from None
    front.session = session
    front.say(f"Your table {quoted(table.table_name)} is over; this is how it ended.")
    await front.start()
    try:
        result = await front.play(session.run())
    finally:
        await front.stop()
    return _print_result(result, front)


async def _resume_hosted(args: argparse.Namespace, identity: Any, table_dir: Path) -> int:
    """Host again a table this machine hosted: the relay on its old port, its own
    seat and its bots from their journals; the remote players reconnect."""
    from p2pcards.app import TableEndedWhileAway, resume_hosted_table
    from p2pcards.net.journal import JournalInUse
    front = FrontEnd(args, None)
    _sit_down()
    await front.start()
    try:
        try:
            hosted = await resume_hosted_table(
                identity, front.agent, table_dir, deadline=_session_deadline(args),
                reconnect_window=args.reconnect_window, seed=args.seed, pace=pace_of(args),
                on_event=front.on_event)
        except JournalInUse:
            raise UserError("that table is in use by another p2pcards process of yours; "
                            "end it first (two hosts for one table would sign twice)") from None
        except TableEndedWhileAway as away:
            # Nothing to host again and nobody to name: one sentence, as a table that ended.
            await front.stop()
            print(f"Table ended: {away}.")
            return 3
        front.session = hosted.sessions[0]
        port = hosted.host.tcp_port
        if port is None:  # a solo table against bots, as play made it: the coach is on
            front.allow_coach()
        front.say(json.dumps({"listening": port, "fingerprint": identity.fingerprint,
                              "resumed": True}) if args.trace
                  else _resumed_line(hosted.host.lobby.table_name, port))
        result = await _play_then_clean_up(front.play(hosted.result()), _close_hosted(front, hosted))
    finally:
        await front.stop()
    return _print_result(result, front)


def _cmd_whoami(args: argparse.Namespace) -> int:
    identity = _identity(args)
    print(f"{identity.name} {identity.fingerprint}")
    return 0


def command_line(*args: str) -> str:
    """A short ``p2pcards`` command line that runs as printed from where it was
    printed: the plain name when it is on PATH, else this installation's own script
    (relative to the current folder when it lies below it, as after ``scripts/play``
    the command lives only in the repo's venv), else the interpreter with ``-m``."""
    # The venv's scripts folder: bin/p2pcards, or Scripts\p2pcards.exe on Windows.
    script = Path(sysconfig.get_path("scripts")) / ("p2pcards.exe" if os.name == "nt" else "p2pcards")
    on_path = shutil.which("p2pcards")
    if on_path and script.exists() and Path(on_path).resolve() == script.resolve():
        head = "p2pcards"
    elif script.exists():
        head = commandline.quote(_below_here(script))
    else:
        head = f"{commandline.quote(sys.executable)} -m p2pcards"
    return " ".join([head, *(commandline.quote(a) for a in args)])


def _below_here(path: Path) -> str:
    """``path`` relative to the current folder when it lies below it, else whole."""
    with contextlib.suppress(ValueError, OSError):
        relative = path.resolve().relative_to(Path.cwd().resolve())
        # A bare name would be looked up on PATH: ./p2pcards names this one.
        return str(relative) if len(relative.parts) > 1 else os.path.join(os.curdir, relative)
    return str(path)


def _listen_failure(address: str, port: int, error: OSError) -> str:
    """Why a table cannot listen where it was asked to, in the person's words."""
    where = f"{address}:{port}" if port else address
    if error.errno == errno.EADDRINUSE:
        return f"cannot host on {where}: that port is already in use (try another --port, or 0)"
    if error.errno == errno.EADDRNOTAVAIL:
        return (f"cannot host on {where}: {address} is not an address of this machine "
                f"(--bind takes one of this machine's own addresses)")
    if error.errno == errno.EACCES:
        return f"cannot host on {where}: permission denied (ports below 1024 need privileges)"
    return f"cannot host on {where}: {error.strerror or error}"


#: The environment variable that lets the hidden ``--seed`` through (tests, benchmarks).
SEED_ENV = "P2PCARDS_INSECURE_SEED"


def _refuse_a_seed_outside_tests(args: argparse.Namespace) -> None:
    """``--seed`` derives every key share, nonce and shuffle from one number: anyone
    who knows it knows every hand. Only tests and benchmarks may use it, on purpose."""
    if getattr(args, "seed", None) is not None and os.environ.get(SEED_ENV) != "1":
        raise UserError(f"--seed makes every key and shuffle predictable, so anyone could "
                        f"know every hand: it is for tests and benchmarks only ({SEED_ENV}=1)")


def _refuse_a_clock_of_ones_own(args: argparse.Namespace) -> None:
    """``join`` and ``resume`` take no ``--deadline``: the table clock is a setting of
    the table's genesis, chosen by its host and the same on every seat."""
    if getattr(args, "refused_deadline", None) is not None:
        raise UserError(f"{args.command} takes no --deadline: the table clock is its host's "
                        f"setting and every seat keeps it (p2pcards tables shows each "
                        f"table's; p2pcards host --deadline S sets it)")


#: Exit statuses besides a command's own: a project error; Ctrl-C (128 + SIGINT).
#: A reader that stopped reading (``| head``) is ``EXIT_PIPE`` (128 + SIGPIPE).
EXIT_ERROR, EXIT_INTERRUPTED = 1, 130

#: What Ctrl-C means once this process sat down at a table (or watched one):
#: "Left the table."; None before, in discovery, ``tables`` or ``verify``,
#: where it is just the end of the command.
_seated: str | None = None


def _sit_down(farewell: str = "Left the table.") -> None:
    global _seated
    _seated = farewell


def _run_command(args: argparse.Namespace) -> int:
    commands = {"play": _cmd_play, "host": _cmd_host, "join": _cmd_join, "watch": _cmd_watch,
                "tables": _cmd_tables,
                "resume": _cmd_resume}
    _refuse_a_seed_outside_tests(args)
    _refuse_a_clock_of_ones_own(args)
    if args.command in commands:
        return asyncio.run(commands[args.command](args))
    return {"verify": _cmd_verify, "replay": _cmd_replay, "saved": _cmd_saved,
            "standings": _cmd_standings, "whoami": _cmd_whoami}[args.command](args)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; every way it can fail is one sentence and an exit status.

    A person's mistake (:class:`UserError`) exits 2, any other project error 1;
    a reader that stopped reading (``p2pcards saved | head -1``) and Ctrl-C
    outside a table end quietly, without a traceback."""
    global _seated
    _seated = None
    console.install()  # stand-ins for what the console's encoding cannot show (--help too)
    args = build_parser().parse_args(argv)
    console.choose_look(True if getattr(args, "ascii", False) else None)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.ERROR,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        code = _run_command(args)
        sys.stdout.flush()  # inside the try: a reader gone before the last line is quiet too
        return code
    except UserError as error:
        print(f"p2pcards: {error}", file=sys.stderr)
        return 2
    except P2PCardsError as error:
        print(f"p2pcards: {error}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        quiet_stdout()
        return EXIT_PIPE
    except KeyboardInterrupt:
        if _seated is not None:
            print(f"\n{_seated}", file=sys.stderr)
        return EXIT_INTERRUPTED
