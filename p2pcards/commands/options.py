"""Every ``p2pcards`` command's options, and the values each option takes: a value out
of range is refused with a sentence that says what it is (argparse adds the option
as the person typed it).

:func:`build_parser` builds the parser (one function per subcommand, and one per
group of options that several share); :mod:`p2pcards.cli` runs what it parses.
It loads no table and no rules: ``--version`` and ``--help`` stay fast.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from p2pcards import __version__
from p2pcards.bots.kinds import DEFAULT_LEVEL
from p2pcards.bots.kinds import KINDS as BOT_KINDS
from p2pcards.bots.kinds import LEVELS as BOT_LEVELS
from p2pcards.protocol.limits import DEFAULT_SPECTATORS

#: The games (the keys of :data:`p2pcards.rules.games.GAMES`, which a test holds equal),
#: named here so that the parser loads no rules.
GAMES = ("bluff", "topper")


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
    from p2pcards.protocol.limits import MAX_SPECTATORS
    return _int_within(text, 0, MAX_SPECTATORS, "the number of spectators is a whole number",
                       f"a table admits 0 to {MAX_SPECTATORS} spectators")


def _pauses(text: str) -> int:
    """How many times each player may step away (``away``) at a table with a clock."""
    from p2pcards.protocol.table_settings import MAX_PAUSES
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


def _rematches(text: str) -> int:
    """How many rematches ``--again`` plays at most."""
    return _int_within(text, 0, 1000, "--again takes a whole number",
                       "--again takes 0..1000 rematches")


def _again_args(parser: argparse.ArgumentParser, *, host: bool) -> None:
    """The end-box options of ``host`` and ``join``."""
    parser.add_argument("--again", type=_rematches, default=None, metavar="N",
                        help="at the end box choose again, for up to N rematches with the "
                             "same players (rotated seats, no joining), then leave")
    if host:
        parser.add_argument("--fill-with-bots", action="store_true",
                            help="with --again: a seat freed at the end box gets a bot at once")


def _hints_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hints", action="store_true",
                        help="allow the coach's hints (w, or hint): a seat that asks signs a "
                             "'hint' first, and every screen marks it coached (default: off)")


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


def _ascii_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ascii", action="store_true",
                        help="draw the full-screen table in ASCII (C D H S for the suits), for a "
                             "terminal that cannot draw its symbols (chosen by itself when the "
                             "terminal's encoding cannot hold them)")


def _web_args(parser: argparse.ArgumentParser) -> None:
    """The table in the browser instead of the terminal (``--web``)."""
    parser.add_argument("--web", action="store_true",
                        help="show the table in your web browser: served on 127.0.0.1 to this "
                             "browser alone (a one-time token in the address it opens)")
    parser.add_argument("--no-browser", action="store_true",
                        help="with --web: print the table's address instead of opening the "
                             "default browser")


def _seat_args(parser: argparse.ArgumentParser, *, clock: bool = True) -> None:
    """A seat's options; ``clock``: this command sets the table clock (``play``,
    ``host``), else ``--deadline`` is refused (every seat keeps the host's clock)."""
    parser.add_argument("--name", help="your display name (saved with your identity)")
    parser.add_argument("--plain", action="store_true",
                        help="line-based interface (screen readers, simple terminals)")
    _web_args(parser)
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

    _play_args(sub.add_parser("play", help="play a whole match against three bots on this machine"))
    _host_args(sub.add_parser("host", help="host a table on the LAN (advertised with zeroconf)"))
    _join_args(sub.add_parser("join", help="find a table on the LAN (or --connect) and join it"))
    _watch_args(sub.add_parser("watch", help="watch a table on the LAN as a spectator (every move "
                                             "checked, no hand shown)"))
    _tables_args(sub.add_parser("tables", help="list the tables announced on the LAN"))
    _verify_args(sub.add_parser("verify", help="re-check a saved transcript offline"))
    _replay_args(sub.add_parser("replay", help="step through a saved table, move by move (checked "
                                               "as verify does)"))
    _saved_args(sub.add_parser("saved", help="list your saved tables, newest first (to verify or resume)"))
    _standings_args(sub.add_parser("standings", help="the evening's standings: matches, wins and "
                                                     "totals, from saved records that verify"))
    _resume_args(sub.add_parser("resume", help="rejoin a table this machine was playing"))
    _whoami_args(sub.add_parser("whoami", help="show (or set) your identity's name and fingerprint"))
    return parser


def _play_args(play: argparse.ArgumentParser) -> None:
    """The options of ``p2pcards play``."""
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


def _host_args(host: argparse.ArgumentParser) -> None:
    """The options of ``p2pcards host``."""
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
    _hints_arg(host)
    _again_args(host, host=True)


def _join_args(join: argparse.ArgumentParser) -> None:
    """The options of ``p2pcards join``."""
    _finding_args(join, "the only open table")
    _seat_args(join, clock=False)
    _direct_args(join)
    _again_args(join, host=False)


def _watch_args(watch: argparse.ArgumentParser) -> None:
    """The options of ``p2pcards watch``."""
    _finding_args(watch, "the only table that admits spectators")
    watch.add_argument("--name", help="your display name (saved with your identity)")
    watch.add_argument("--plain", action="store_true",
                       help="line-based interface (screen readers, simple terminals)")
    _web_args(watch)
    _ascii_arg(watch)
    watch.add_argument("--reconnect-window", type=_seconds, default=30.0, metavar="S",
                       help="seconds to keep redialling a lost host (default 30)")
    watch.add_argument("--trace", action="store_true",
                       help="print every event as a JSON line with a timestamp (for scripts)")
    watch.set_defaults(bot=None, bell=False, seed=None)


def _tables_args(tables: argparse.ArgumentParser) -> None:
    """The options of ``p2pcards tables``."""
    tables.add_argument("--timeout", type=_seconds, default=2.0, metavar="S",
                        help="seconds to listen for announcements (default 2)")
    tables.add_argument("--interface", action="append", default=None, metavar="ADDR",
                        help="look only on the interface with this address or name (repeatable)")
    tables.add_argument("--json", action="store_true", help="one JSON object per table, for scripts")


def _verify_args(verify: argparse.ArgumentParser) -> None:
    """The options of ``p2pcards verify``."""
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


def _replay_args(replay: argparse.ArgumentParser) -> None:
    """The options of ``p2pcards replay``."""
    replay.add_argument("file", metavar="FILE|SESSION",
                        help="a saved transcript (or the folder holding it; your own table's "
                             "folder also shows your hand), or a session id as verify takes it")
    replay.add_argument("--plain", action="store_true",
                        help="print every public event in order, a line per deal's summary and "
                             "the outcome, instead of the full screen (also when not a terminal)")
    _web_args(replay)
    _ascii_arg(replay)
    replay.add_argument("--public", action="store_true",
                        help="show only public facts even when the folder holds your secrets "
                             "(no hand)")
    replay.add_argument("--speed", type=float, default=2.0, metavar="MOVES",
                        help="moves per second when playing (Space; + and - change it; "
                             "default 2)")
    replay.add_argument("--play", action="store_true",
                        help="start playing at once (the full screen; Space pauses)")


def _saved_args(saved: argparse.ArgumentParser) -> None:
    """The options of ``p2pcards saved``."""
    saved.add_argument("--json", action="store_true", help="one JSON object per table, for scripts")


def _standings_args(standings: argparse.ArgumentParser) -> None:
    """The options of ``p2pcards standings``."""
    standings.add_argument("records", nargs="*", metavar="FOLDER",
                           help="more saved records to count (a table's folder, a transcript, or a "
                                "folder holding them, e.g. a friend's); yours are always counted")
    standings.add_argument("--evening", default=None, metavar="ID",
                           help="only the evening with this id (or a prefix of it)")
    standings.add_argument("--json", action="store_true", help="one JSON object, for scripts")


def _resume_args(resume: argparse.ArgumentParser) -> None:
    """The options of ``p2pcards resume``."""
    resume.add_argument("session", nargs="?", default=None,
                        help="session id (or a prefix of it) from `p2pcards saved`; "
                             "default: your one table still in play")
    _seat_args(resume, clock=False)
    _pace_arg(resume)
    _direct_args(resume)
    _again_args(resume, host=False)  # a table resumed at its end box chooses there


def _whoami_args(whoami: argparse.ArgumentParser) -> None:
    """The options of ``p2pcards whoami``."""
    whoami.add_argument("--name", help="new display name")
