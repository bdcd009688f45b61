"""The front end of one seat, as the command line sets it up: a person's full
screen or line mode, or a bot, and where the session's events go (``--trace``
prints them as JSON lines for scripts).

The command line (``p2pcards.cli``) parses options and runs sessions; this
module decides who answers for the seat and who hears its events.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from typing import Any, NoReturn

from p2pcards.bots.registry import DEFAULT_LEVEL

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


class FrontEnd:
    """The front end of one seat: an agent (a person or a bot) and an event sink.

    A person gets the full-screen table unless ``--plain`` or ``--trace`` is
    given or the terminal is not one (a pipe, a file): then the line mode.
    ``again`` (``play``) offers a new table when a match ends; ``rematch``
    (``host``, ``join``) offers the full screen's end box a rematch instead.
    """

    def __init__(self, args: argparse.Namespace, game: str | None, again: bool = False,
                 rematch: bool = False) -> None:
        self.args = args
        self.session: Any = None
        self.trace = args.trace
        self.screen: Any = None
        self.printer: Any = None
        self.again = False
        if args.bot:
            self.agent: Any = LazyBotAgent(args.bot, args.seed,
                                            getattr(args, "bot_level", DEFAULT_LEVEL))
            self.plain = True
        elif args.plain or args.trace or not (sys.stdin.isatty() and sys.stdout.isatty()):
            from p2pcards.ui.plain import PlainAgent, PlainPrinter
            self.printer = PlainPrinter(names_provider=self.names, me_provider=self.my_seat,
                                        players_provider=self.players, view_provider=self.view)
            self.agent = PlainAgent(history=self.printer.history_lines, bell=args.bell,
                                    coach=_coach(again))
            self.plain = True
        else:
            from p2pcards.ui.tui import TableScreen
            from p2pcards.ui.tui.screen import LAN_SUMMARY_SECONDS
            # Against bots a deal's summary waits for a key; at a LAN table it counts down.
            self.screen = TableScreen(lambda: self.session, offer_again=again or rematch,
                                      again_label="again (a rematch, seats rotated)" if rematch
                                      else "a new table",
                                      summary_seconds=None if again else LAN_SUMMARY_SECONDS,
                                      bell=args.bell, coach=_coach(again))
            self.agent = self.screen
            self.plain = False

    def allow_coach(self) -> None:
        """Turn the coach on once a resumed table turns out to be against bots (a
        resumed solo table is known only after its record is read)."""
        if self.screen is not None:
            self.screen.coach = _coach(True)
        elif self.printer is not None:
            self.agent.coach = _coach(True)

    def names(self) -> list[str]:
        table = self.session.table if self.session is not None else None
        if table is None or table.player_at_seat is None:
            return []
        return [table.players[p].name for p in table.player_at_seat]

    def view(self) -> Any:
        """This seat's view between the session's steps (public facts and its own cards);
        while a resumed session tells its record again, the view of that moment."""
        replaying = getattr(self.session, "replaying", None)
        if replaying is not None:
            return replaying.view
        table = self.session.table if self.session is not None else None
        if table is None or table.engine is None or table.my_seat is None:
            return None
        from p2pcards.protocol.errors import LocalProtocolError
        try:
            return table.view()
        except LocalProtocolError:
            return None

    def my_seat(self) -> int | None:
        table = self.session.table if self.session is not None else None
        return None if table is None else table.my_seat

    def players(self) -> tuple[list[str], int | None]:
        """Names in join order and this seat's player index (before the seats are drawn)."""
        table = self.session.table if self.session is not None else None
        if table is None:
            return [], None
        return [p.name for p in table.players], table.me_player

    def on_event(self, event: Any) -> None:
        try:
            self._show(event)
        except BrokenPipeError:
            output_lost()

    def _show(self, event: Any) -> None:
        if self.trace:
            # A resumed seat's record told again is marked: it happened before the crash.
            replayed = ({"replayed": True} if getattr(self.session, "replaying", None) is not None
                        else {})
            print(json.dumps({"t": time.time(), "mono": time.monotonic(),
                              "event": type(event).__name__,
                              **trace_fields(event), **replayed}), flush=True)
        elif self.screen is not None:
            self.screen.on_event(event)
        elif self.printer is not None:
            self.printer(event)

    def say_to_table(self, text: str) -> Any:
        """A chat line from the person (plain ``say``), signed and sent by the session."""
        if self.session is None:
            from p2pcards.protocol.talk import TalkRefused
            raise TalkRefused("there is no table to talk to yet")
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

    async def start(self) -> None:
        """Show the full screen (if any) before the table opens."""
        if self.screen is not None:
            await self.screen.start()

    async def play(self, run: Any) -> Any:
        """Run a session to its end; the full screen then shows the result until a key.

        In plain mode a person's ``say`` lines go to the table at any moment."""
        if self.screen is None:
            listen = getattr(self.agent, "listen", None)
            if listen is None:
                return await run
            self.agent.talk = self.say_to_table
            listen()
            try:
                return await run
            finally:
                await self.agent.stop_listening()
        result = await self.screen.play(run)
        self.again = self.screen.again
        return result

    async def stop(self) -> None:
        """Give the terminal back (before the result is printed)."""
        if self.screen is not None:
            await self.screen.stop()


def _coach(against_bots: bool) -> Any:
    """The coach for a table against bots (``play``); none at a LAN table, where the
    others could not be told that a seat used one."""
    if not against_bots:
        return None
    from p2pcards.coaching import coach_line
    return coach_line


class LazyBotAgent:
    """A bot agent whose game is known only once the genesis arrives (``join``)."""

    def __init__(self, kind: str, seed: int | None, level: str = DEFAULT_LEVEL) -> None:
        self.kind, self.seed, self.level = kind, seed, level
        self._agent: Any = None

    async def decide(self, view: Any, decision: Any) -> Any:
        if self._agent is None:
            from p2pcards.bots.agent import BotAgent, make_bot_factory
            from p2pcards.rules.games import game_of
            game = game_of(view).name
            self._agent = BotAgent(make_bot_factory(game, self.kind, self.level), self.seed)
        return await self._agent.decide(view, decision)


def trace_fields(event: Any) -> dict[str, Any]:
    """The fields of one event that ``--trace`` prints (no secret: public facts and ids)."""
    out: dict[str, Any] = {}
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
