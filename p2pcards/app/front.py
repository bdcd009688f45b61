"""The front end of one seat, as the command line sets it up: a person's full
screen or line mode, or a bot, and where the session's events go (``--trace``
prints them as JSON lines for scripts).

The command line (``p2pcards.cli``) parses options and runs sessions; this
module decides who answers for the seat and who hears its events, and hands
the screens their coach (:func:`coach_line`): the screens know no bot (the
layers), and a seat without a coach refuses hints.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import random
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn, TypeVar

from p2pcards.bots.registry import DEFAULT_LEVEL
from p2pcards.net.session_events import SessionEvent, SessionResult
from p2pcards.net.stopping import stop_task
from p2pcards.wiremap import WireMap

if TYPE_CHECKING:
    from p2pcards.bots.agent import BotAgent
    from p2pcards.net.peer import PeerSession
    from p2pcards.net.session_events import Decision
    from p2pcards.net.session_snapshot import SessionSnapshot
    from p2pcards.net.watch import WatchSession
    from p2pcards.protocol.talk import TalkLine
    from p2pcards.rules.contract import Engine
    from p2pcards.ui.plain import PlainAgent, PlainPrinter
    from p2pcards.ui.tui import TableScreen
    from p2pcards.ui.tui.seatside import SeatFiller
    from p2pcards.ui.web import WebSeat

R = TypeVar("R")

#: The exit status when the reader of our output went away: 128 + SIGPIPE, as a shell says.
EXIT_PIPE = 141


def quiet_stdout() -> None:
    """Nobody reads our output any more (the reader of a pipe ended): anything
    still buffered, or printed from now on, goes nowhere instead of failing."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass


def output_lost() -> NoReturn:
    """The reader of this seat's output went away (``p2pcards play --plain | head``):
    the process ends at once, as a crash does. Unwinding would stop its sessions,
    and a stopped session tells the others it left: a false leave on the record
    of a seat (or a bot) that never chose to go. Its saved seats resume instead."""
    quiet_stdout()
    os._exit(EXIT_PIPE)


@dataclass(frozen=True)
class FrontOptions:
    """What a seat's front end takes from the command line's options (built from
    them in one place, :func:`p2pcards.commands.settings.front_options`)."""

    #: The bot kind that plays this seat (``--autoplay``), or None: a person does.
    bot: str | None = None
    #: The line mode (``--plain``) instead of the full screen.
    plain: bool = False
    #: Every event as a JSON line (``--trace``), for scripts.
    trace: bool = False
    #: The terminal bell with the clock's warnings (``--no-bell`` turns it off).
    bell: bool = True
    #: The insecure test seed (``--seed``) a bot's choices derive from.
    seed: int | None = None
    #: The strength of a search bot playing this seat.
    bot_level: str = DEFAULT_LEVEL
    #: The table in the browser (``--web``) instead of the terminal.
    web: bool = False
    #: ``--web``: start the default browser at the table (``--no-browser``: print the address only).
    browser: bool = True


class FrontEnd:
    """The front end of one seat: an agent (a person or a bot) and an event sink.

    A person gets the full-screen table unless ``--plain`` or ``--trace`` is
    given or the terminal is not one (a pipe, a file): then the line mode;
    ``--web`` shows the table in the browser instead (the same screen's model
    and agent, :mod:`p2pcards.ui.web`).
    ``again`` (``play``) offers a new table when a match ends; ``rematch``
    (``host``, ``join``) offers the full screen's end box a rematch instead.
    """

    def __init__(self, options: FrontOptions, game: str | None, again: bool = False,
                 rematch: bool = False) -> None:
        self.options = options
        self.session: PeerSession | WatchSession | None = None
        self.trace = options.trace
        self.screen: TableScreen | WebSeat | None = None
        self.printer: PlainPrinter | None = None
        self.again = False
        self._fill_reader: asyncio.Future[None] | None = None
        #: Whether this seat's coach is on (a table against bots, or one allowing hints).
        self._coached = again
        if options.bot:
            #: Who decides this seat's moves: a bot, typed commands or the full screen.
            self.agent: LazyBotAgent | PlainAgent | TableScreen | WebSeat = LazyBotAgent(
                options.bot, options.seed, options.bot_level)
            self.plain = True
        elif options.web:
            from p2pcards.ui.text_summary import LAN_SUMMARY_SECONDS
            from p2pcards.ui.web import WebSeat
            self.screen = WebSeat(lambda: self.session, offer_again=again or rematch,
                                  again_label=_again_label(rematch),
                                  summary_seconds=None if again else LAN_SUMMARY_SECONDS,
                                  bell=options.bell, coach=_coach(again), echo=_echo,
                                  open_browser=options.browser)
            self.agent = self.screen
            self.plain = False
        elif options.plain or options.trace or not (sys.stdin.isatty() and sys.stdout.isatty()):
            from p2pcards.ui.plain import PlainAgent, PlainPrinter
            self.printer = PlainPrinter(names_provider=self.names, me_provider=self.my_seat,
                                        players_provider=self.players, view_provider=self.view)
            self.agent = PlainAgent(history=self.printer.history_lines, bell=options.bell,
                                    coach=_coach(again))
            self.plain = True
        else:
            from p2pcards.ui.text_summary import LAN_SUMMARY_SECONDS
            from p2pcards.ui.tui import TableScreen
            # Against bots a deal's summary waits for a key; at a LAN table it counts down.
            self.screen = TableScreen(lambda: self.session, offer_again=again or rematch,
                                      again_label=_again_label(rematch),
                                      summary_seconds=None if again else LAN_SUMMARY_SECONDS,
                                      bell=options.bell, coach=_coach(again))
            self.agent = self.screen
            self.plain = False

    def allow_coach(self) -> None:
        """Turn the coach on once a resumed table turns out to be against bots (a
        resumed solo table is known only after its record is read)."""
        self._coached = True
        self._set_coach(_coach(True))

    def _set_coach(self, coach: CoachLine | None) -> None:
        if self.screen is not None:
            self.screen.coach = coach
        elif (plain := self._plain_agent()) is not None:
            plain.coach = coach

    def _offer_hints(self) -> None:
        """A LAN table whose host allowed hints (known from its genesis): the coach is
        on, and each hint is signed and sent to every peer before it is shown."""
        if self._coached or self.session is None or (self.screen is None and self.printer is None):
            return
        from p2pcards.net.peer import PeerSession
        table = getattr(self.session, "table", None)
        if (table is None or not table.hints or table.me_player is None
                or not isinstance(self.session, PeerSession)):
            return
        self._coached = True
        self._set_coach(telling_coach(self.session.hint))

    def snapshot(self) -> SessionSnapshot:
        """The session now (the providers below are called between its steps)."""
        from p2pcards.net.session_snapshot import snapshot
        return snapshot(self.session)

    def names(self) -> list[str]:
        return self.snapshot().seat_names

    def view(self) -> Engine | None:
        """This seat's view between the session's steps (public facts and its own cards);
        while a resumed session tells its record again, the view of that moment."""
        return self.snapshot().seat_view

    def my_seat(self) -> int | None:
        return self.snapshot().my_seat

    def players(self) -> tuple[list[str], int | None]:
        """Names in join order and this seat's player index (before the seats are drawn)."""
        seen = self.snapshot()
        return [p.name for p in seen.players], seen.me_player

    def on_event(self, event: SessionEvent) -> None:
        self._offer_hints()
        try:
            self._show(event)
        except BrokenPipeError:
            output_lost()

    def _show(self, event: SessionEvent) -> None:
        if self.trace:
            # A resumed seat's record told again is marked: it happened before the crash.
            replayed = ({"replayed": True} if self.session is not None
                        and self.session.replaying is not None else {})
            print(json.dumps({"t": time.time(), "mono": time.monotonic(),
                              "cpu": time.process_time(), "event": type(event).__name__,
                              **trace_fields(event), **replayed}), flush=True)
        elif self.screen is not None:
            self.screen.on_event(event)
        elif self.printer is not None:
            self.printer(event)

    def say_to_table(self, text: str) -> TalkLine:
        """A chat line from the person (plain ``say``), signed and sent by the session."""
        from p2pcards.net.peer import PeerSession
        from p2pcards.protocol.talk import TalkRefused
        if self.session is None:
            raise TalkRefused("there is no table to talk to yet")
        if not isinstance(self.session, PeerSession):
            raise TalkRefused("a spectator does not talk at the table")
        return self.session.say(text)

    def say(self, text: str) -> None:
        """A message of the program: on the full screen's log, else printed."""
        if self.screen is not None:
            self.screen.note(text)
            return
        try:
            print(text, flush=True)
        except BrokenPipeError:
            output_lost()

    def say_waiting(self, text: str | None, log: bool = True) -> None:
        """What an end box waits for and the time left (the full screen keeps it on its
        status line until ``None``: the wait is over); printed in plain mode unless
        ``log`` is off (a refresh of the time left only)."""
        if self.screen is not None:
            self.screen.waiting(text, log=log)
        elif text is not None and log:
            self.say(text)

    async def start(self) -> None:
        """Show the full screen (if any) before the table opens."""
        if self.screen is not None:
            await self.screen.start()

    async def play(self, run: Awaitable[R]) -> R | SessionResult:
        """Run a session to its end; the full screen then shows the result until a key.

        In plain mode a person's ``say`` lines go to the table at any moment."""
        if self.screen is None:
            plain = self._plain_agent()
            if plain is None:
                return await run
            plain.talk = self.say_to_table
            plain.listen()
            try:
                return await run
            finally:
                await plain.stop_listening()
        result = await self.screen.play(run)
        self.again = self.screen.again
        return result

    async def chooses_again(self) -> bool:
        """The end box's choice after a LAN match: the full screen's ``n`` (made in
        :meth:`play`), plain mode's typed ``again`` (asked now); a bot leaves."""
        if self.screen is not None:
            return self.again
        plain = self._plain_agent()
        if self.chooses_at_end and plain is not None:
            return await plain.end_box() == "again"
        return False

    def _plain_agent(self) -> PlainAgent | None:
        """This seat's typed commands (plain mode's person, or a test's stand-in for
        one); None for the full screen or a bot."""
        if self.printer is None:
            return None
        from p2pcards.ui.plain import PlainAgent
        return self.agent if isinstance(self.agent, PlainAgent) else None

    @property
    def chooses_at_end(self) -> bool:
        """A person's end box (the full screen's keys, plain mode's commands); not
        ``--trace`` (scripts choose with ``--again``)."""
        return self.screen is not None or (self.printer is not None and not self.trace)

    async def offer_fill(self, filler: SeatFiller | None) -> None:
        """While the host waits for the others: ``filler`` (an
        :class:`~p2pcards.evening.host_side.EveningHost`) puts a bot in a free seat (the
        full screen's ``b``, plain mode's ``fill``) and says who took it; None: the
        wait is over."""
        if self.screen is not None:
            self.screen.filler = filler
            return
        reading, self._fill_reader = self._fill_reader, None
        if reading is not None:
            await stop_task(reading)
        plain = self._plain_agent()
        if filler is not None and plain is not None:
            self._fill_reader = asyncio.ensure_future(plain.host_end_box(filler.fill_free_seat))

    async def stop(self) -> None:
        """Give the terminal back (before the result is printed)."""
        if self.screen is not None:
            await self.screen.stop()


def _again_label(rematch: bool) -> str:
    """What the end box's "again" does: a rematch (``host``, ``join``) or a new table."""
    return "again (a rematch, seats rotated)" if rematch else "a new table"


def _echo(text: str) -> None:
    """A line in the terminal beside the browser's table (its address, the host's notes)."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        output_lost()


def _coach(against_bots: bool) -> CoachLine | None:
    """The coach for a table against bots (``play``); none at a LAN table until its
    genesis turns out to allow hints (see :meth:`FrontEnd._offer_hints`)."""
    if not against_bots:
        return None
    return coach_line


# -- the coach, as the screens ask it --------------------------------------------------

#: The coach as the screens call it: (view, names by seat, position, symbols) -> one line.
CoachLine = Callable[["Engine", Sequence[str], int, bool], Awaitable[str]]
REFUSED = "Not accepted: "


async def coach_line(view: Engine, names: Sequence[str], position: int, symbols: bool = False) -> str:
    """The coach's advice for ``view``, searched off the event loop (seeded by the
    decision's ``position``: asked twice, it says the same), or ``Not accepted: why``
    when there is none; cards as the board writes them with ``symbols``. The advice
    itself is :mod:`p2pcards.bots.coach`'s (loaded on the first question)."""
    from p2pcards.bots.coach import NoAdvice, advise
    from p2pcards.ui.text_common import faces_as_symbols
    try:
        advice = await asyncio.to_thread(advise, view, random.Random(f"coach:{position}"), names)
    except NoAdvice as none:
        return f"{REFUSED}{none}."
    text = advice.text()
    return faces_as_symbols(text) if symbols else text


def telling_coach(tell: Callable[[int], Awaitable[None]]) -> CoachLine:
    """The coach of a LAN table whose host allowed hints: its advice is searched first,
    then ``tell(position)`` (the session's :meth:`~p2pcards.net.peer.PeerSession.hint`,
    for the decision at ``position``) signs and sends the seat's ``hint`` to every peer,
    and only then is the advice shown, so every screen marks it coached. No advice (not
    this seat's turn), or the table refusing the hint (the move made meanwhile):
    ``Not accepted: why``, nothing shown."""
    from p2pcards.protocol.errors import ProtocolError

    async def coach(view: Engine, names: Sequence[str], position: int,
                    symbols: bool = False) -> str:
        line = await coach_line(view, names, position, symbols)
        if line.startswith(REFUSED):
            return line
        try:
            await tell(position)
        except ProtocolError as refusal:
            return f"{REFUSED}{refusal}."
        return line
    return coach


class LazyBotAgent:
    """A bot agent whose game is known only once the genesis arrives (``join``)."""

    def __init__(self, kind: str, seed: int | None, level: str = DEFAULT_LEVEL) -> None:
        self.kind, self.seed, self.level = kind, seed, level
        self._agent: BotAgent | None = None

    async def decide(self, view: Engine, decision: Decision) -> object:
        if self._agent is None:
            from p2pcards.bots.agent import BotAgent, make_bot_factory
            from p2pcards.rules.games import game_of
            game = game_of(view).name
            self._agent = BotAgent(make_bot_factory(game, self.kind, self.level), self.seed)
        return await self._agent.decide(view, decision)


def trace_fields(event: object) -> WireMap:
    """The fields of one event that ``--trace`` prints (no secret: public facts and ids)."""
    out: WireMap = {}
    for key in ("seat", "deck", "player", "position", "reason", "reconnect", "count", "reporter"):
        value = getattr(event, key, None)
        if isinstance(value, (int, str, bool)):
            out[key] = value
    verdict = getattr(event, "verdict", None)
    if verdict is not None:
        out["rule"] = verdict.rule
        out["blamed"] = list(verdict.players)
    for key in ("paths", "changed"):  # Paths, Presence: by player index
        value = getattr(event, key, None)
        if isinstance(value, dict):
            out[key] = {str(player): state for player, state in value.items()}
    deadline = getattr(event, "deadline", None)  # Waiting: event-loop (monotonic) time
    if isinstance(deadline, float) and math.isfinite(deadline):
        out["deadline"] = deadline
    return out
