"""The line-based front end: a person plays by typing short commands, one line at a time.

Nothing but plain lines in and out (no cursor movement, no colour), so it
works in any terminal, over a pipe, and with a screen reader. The words come
from :mod:`p2pcards.ui.text`; this module only reads lines and writes them.
"""

from __future__ import annotations

import asyncio
import math
import queue
import sys
import threading
from collections.abc import Awaitable, Callable, Sequence
from typing import TextIO

from p2pcards.errors import P2PCardsError
from p2pcards.net.session_events import Decision, LeaveTable, LobbyUpdate, SessionEvent, TakePause, Waiting
from p2pcards.net.stopping import stop_task
from p2pcards.protocol.events import (
    ActionApplied,
    CardsRevealed,
    PlayersSeated,
    SharesVerified,
    ShuffleVerified,
)
from p2pcards.protocol.table_settings import PAUSE_SECONDS
from p2pcards.protocol.talk import REACTIONS, TalkRefused
from p2pcards.rules.contract import Engine
from p2pcards.ui.text import (
    CommandError,
    describe,
    options_help,
    parse_command,
    render,
    rules_summary,
)
from p2pcards.ui.text_checks import CHECKS, CheckFolder
from p2pcards.ui.text_common import CLOCK_WARNINGS, HINTS_OFF, clean, no_pause, plural
from p2pcards.ui.text_summary import History

ReadLine = Callable[[], Awaitable[str]]
Write = Callable[[str], None]
NamesSource = Sequence[str] | Callable[[], Sequence[str] | None] | None
#: The coach a seat may ask: (view, names by seat, the decision's position, symbols) -> one
#: line, its advice or ``Not accepted: why`` (see :mod:`p2pcards.app.front`).
Coach = Callable[[Engine, Sequence[str], int, bool], Awaitable[str]]

_HELP = {"help", "?"}
_QUIT = {"quit", "q", "exit"}
_TABLE = {"table", "look", "l"}
_HISTORY = {"history", "scores", "record"}
_AWAY = {"away", "pause"}
PAUSE_MINUTES = PAUSE_SECONDS // 60
_SAY = "say"
_HINT = {"hint", "coach"}
#: The end box of a LAN match (``host``, ``join``): a rematch, leaving, a bot in a free seat.
_AGAIN = {"again", "n"}
_LEAVE = {"leave", "q", "quit", "exit"}
_FILL = {"fill"}
#: Lines the end box reads at most before it takes the answer as leave (a bounded loop).
END_BOX_LINES = 200
#: What the end box of a LAN match asks.
END_BOX_PROMPT = ("The match is over: type again for a rematch with the same players "
                  "(seats rotated), or leave to free your seat.")
#: What ``help`` adds about table talk.
TALK_HELP = ("At any moment: say TEXT talks to the table; say 1-6 sends a quick reaction ("
             + ", ".join(f"{i} {word}" for i, word in enumerate(REACTIONS, start=1)) + ").")

#: The ``hint`` line of the choices, where the table allows hints.
HINT_HELP = "  hint                     what the coach (the normal bot) would do here, and why"


class PlayerQuit(LeaveTable):
    """The person asked to leave (``quit``, or the input ended): the caller leaves the table."""


class NothingToDecide(P2PCardsError, LookupError):
    """``decide`` was given a view in which this seat is not the one to act."""


class StdinLines:
    """Lines of a text stream read by one daemon thread, awaited without blocking the loop.

    A daemon thread (not the event loop's executor) so that a program can
    exit while the thread still waits for a line nobody will type.
    """

    #: How often an awaiting caller looks for a line (seconds).
    poll = 0.05

    def __init__(self, stream: TextIO | None = None) -> None:
        self._stream = stream
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._ended = False

    def _read(self) -> None:
        stream = self._stream if self._stream is not None else sys.stdin
        try:
            for line in iter(stream.readline, ""):
                self._lines.put(line)
        except (OSError, ValueError):
            pass
        self._lines.put(None)

    async def __call__(self) -> str:
        if self._ended:
            raise EOFError("the input has ended")
        if self._thread is None:
            self._thread = threading.Thread(target=self._read, name="stdin-lines", daemon=True)
            self._thread.start()
        while True:
            try:
                line = self._lines.get_nowait()
            except queue.Empty:
                await asyncio.sleep(self.poll)
                continue
            if line is None:
                self._ended = True
                raise EOFError("the input has ended")
            return line.rstrip("\r\n")


_STDIN: StdinLines | None = None


def stdin_lines() -> StdinLines:
    """The one reader of this process's standard input (two readers would split its lines)."""
    global _STDIN
    if _STDIN is None:
        _STDIN = StdinLines()
    return _STDIN


def print_line(text: str) -> None:
    print(text, flush=True)


def _names(source: NamesSource) -> Sequence[str]:
    names = source() if callable(source) else source
    return names if names is not None else ()


class PlainAgent:
    """A person at a seat, deciding by typed commands (the ``Agent`` of ``net.peer``).

    ``read_line`` is awaited for each line (it raises ``EOFError`` when the
    input ends); ``write`` prints one block of lines. ``names`` gives the
    display name at each seat (a sequence, or a callable returning one).
    """

    def __init__(self, read_line: ReadLine | None = None, write: Write | None = None,
                 *, names: NamesSource = None, symbols: bool = False,
                 history: Callable[[Engine, Sequence[str], int], list[str]] | None = None,
                 bell: bool = False, talk: Callable[[str], object] | None = None,
                 coach: Coach | None = None) -> None:
        self.read_line = read_line if read_line is not None else stdin_lines()
        self.write = write if write is not None else print_line
        self.names = names
        self.symbols = symbols
        #: The scoreboard and this deal's record for a view (``history``), if kept.
        self.history = history
        #: Ring the terminal's bell with the clock's warnings.
        self.bell = bell
        #: Sends a chat line to the table (the session's ``say``); None: no table talk.
        self.talk = talk
        #: The coach ``hint`` asks (a table against bots, or one whose host allowed
        #: hints); None: hints are refused.
        self.coach = coach
        self._lines: asyncio.Queue[str | None] | None = None
        self._pump: asyncio.Task[None] | None = None
        self._ended = False

    # -- reading lines, and table talk at any moment ---------------------------------------

    def listen(self) -> None:
        """Read lines between turns too, so that ``say`` goes out at once whoever's
        turn it is; every other line waits for this player's turn, as before.
        Call with the event loop running; :meth:`stop_listening` ends it."""
        if self._pump is not None and not self._pump.done():
            return
        if self._lines is None:
            self._lines = asyncio.Queue()
        self._pump = asyncio.ensure_future(self._read_all())

    async def stop_listening(self) -> None:
        """Stop reading between turns (the table is over); lines already read are kept."""
        pump, self._pump = self._pump, None
        if pump is not None and not pump.done():
            await stop_task(pump)

    async def _read_all(self) -> None:
        lines = self._lines
        if lines is None:  # pragma: no cover - listen() makes the queue before the pump
            return
        while True:
            try:
                line = await self.read_line()
            except EOFError:
                await lines.put(None)
                return
            if not self._say(line):
                await lines.put(line)

    async def _next_line(self) -> str:
        """The next line for a decision (from the reader between turns, if it runs)."""
        if self._ended:
            raise EOFError("the input has ended")
        if self._lines is None or (self._pump is None and self._lines.empty()):
            return await self.read_line()
        line = await self._lines.get()
        if line is None:
            self._ended = True
            raise EOFError("the input has ended")
        return line

    def _say(self, line: str) -> bool:
        """A ``say`` line goes to the table at once (whoever's turn it is, never as a
        move); whether ``line`` was one."""
        word, _, rest = line.strip().partition(" ")
        if word.lower() != _SAY:
            return False
        text = rest.strip()
        if text.isdigit() and 1 <= int(text) <= len(REACTIONS):
            text = REACTIONS[int(text) - 1]
        if self.talk is None:
            self.write("Not sent: there is no table to talk to here.")
        elif not text:
            self.write(f"Say what? {TALK_HELP}")
        else:
            try:
                self.talk(text)
            except TalkRefused as refusal:
                self.write(f"Not sent: {refusal}")
        return True

    # -- the end box of a LAN match --------------------------------------------------------

    async def end_box(self) -> str:
        """The person's choice at the end of a LAN match, typed as the end box's keys
        choose it: ``"again"`` (a rematch) or ``"leave"`` (the input ending, too)."""
        self.write(END_BOX_PROMPT)
        for _ in range(END_BOX_LINES):
            try:
                line = await self._next_line()
            except EOFError:
                return "leave"
            if self._say(line):
                continue
            word = line.strip().lower()
            if word in _AGAIN:
                return "again"
            if word in _LEAVE:
                return "leave"
            self.write(("Not accepted: " + repr(clean(line, 20)) + ". " if word and word not in _HELP
                        else "") + END_BOX_PROMPT)
        return "leave"

    async def host_end_box(self, fill: Callable[[], str | None]) -> None:
        """The host's commands while it waits for the others' choices: ``fill`` gives a
        free seat to a bot (``fill()`` says who took it, or None: no seat is free).
        Runs until cancelled (the wait is over) or the input ends."""
        for _ in range(END_BOX_LINES):
            try:
                line = await self._next_line()
            except EOFError:
                return
            if self._say(line):
                continue
            word = line.strip().lower()
            if word in _FILL:
                said = fill()
                self.write(said if said is not None else "Not accepted: no seat is free.")
            elif word:
                self.write("Waiting for the others' choices: type fill to give a free seat "
                           "to a bot.")

    async def decide(self, view: Engine, decision: Decision | None = None) -> object:
        """Show the table, read commands until one is legal, and return its action.

        ``decision`` (from the peer session) brings the names by seat and the
        deadline; a local loop may leave it out.
        """
        me = view.viewer if view.viewer is not None else view.to_act
        if view.to_act is None or view.to_act != me:
            raise NothingToDecide(f"seat {me} is not to act in this view")
        names = decision.names if decision is not None and decision.names else _names(self.names)
        forced = view.forced_action()
        if forced is not None:
            # Not a choice: the rules make the called discard's owner show it.
            self.write("Your discard was called: revealing it.")
            return forced
        pauses = decision.pauses_left if decision is not None else 0
        self.write(render(view, names, me, self.symbols))
        if decision is not None and any(decision.coached):
            self.write(coached_line(decision.coached, names, me))
        self.write(options_help(view, pauses))
        if self.coach is not None:
            self.write(HINT_HELP)
        warner: asyncio.Task[None] | None = None
        if decision is not None:
            left = decision.deadline - asyncio.get_running_loop().time()
            if 0 < left < math.inf:  # a table without a clock has no countdown
                self.write(f"You have about {int(left)} seconds to answer." + (
                    f" (type away for {PAUSE_MINUTES} more minutes on this move; "
                    f"{plural(decision.pauses_left, 'pause')} left)"
                    if decision.pauses_left else ""))
                warner = asyncio.ensure_future(self._warn(decision.deadline))
        try:
            return await self._read_command(view, names, me, pauses,
                                            decision.deadline if decision is not None else None,
                                            decision.position if decision is not None else 0)
        finally:
            if warner is not None:
                warner.cancel()

    async def _hint(self, view: Engine, names: Sequence[str], position: int) -> str:
        """``hint``: the coach's move and why, where the table allows hints."""
        if self.coach is None:
            return f"Not accepted: {HINTS_OFF}."
        return await self.coach(view, names, position, self.symbols)

    async def _warn(self, deadline: float) -> None:
        """At 30 and at 10 seconds left, say so (and ring the bell) while the person types."""
        loop = asyncio.get_running_loop()
        for mark in sorted(CLOCK_WARNINGS, reverse=True):
            wait = deadline - mark - loop.time()
            if wait < 0:
                continue
            await asyncio.sleep(wait)
            self.write(("\a" if self.bell else "") + f"{mark} seconds left to move: after that "
                       f"the others end the table naming you.")

    async def _read_command(self, view: Engine, names: Sequence[str], me: int,
                            pauses: int = 0, deadline: float | None = None,
                            decision_position: int = 0) -> object:
        """Commands until one is legal (or help, the table, the history, hint, away, quit)."""
        while True:
            self.write("Your command (help lists them):")
            try:
                line = await self._next_line()
            except EOFError:
                raise PlayerQuit("the input ended") from None
            if self._say(line):
                continue
            word = line.strip().lower()
            if word in _QUIT:
                raise PlayerQuit("the player typed quit")
            if word in _HELP:
                self.write(rules_summary(view))
                self.write(options_help(view, pauses))
                self.write(TALK_HELP)
                if self.coach is not None:
                    self.write(HINT_HELP)
                continue
            if word in _TABLE:
                self.write(render(view, names, me, self.symbols))
                continue
            if word in _AWAY:
                if pauses > 0:
                    raise TakePause("the player stepped away")
                self.write(f"Not accepted: {no_pause(deadline)}.")
                continue
            if word in _HINT:
                self.write(await self._hint(view, names, decision_position))
                continue
            if word in _HISTORY:
                self.write("\n".join(self.history(view, names, me)) if self.history
                           else "No history is kept here.")
                continue
            try:
                return parse_command(line, view)
            except CommandError as error:
                self.write(f"Not accepted: {error}")


def coached_line(coached: Sequence[int], names: Sequence[str], me: int) -> str:
    """Who asked the coach at this table so far (hints the host allowed), by seat."""
    marks = [("you" if seat == me else f"Seat {seat} ({clean(names[seat], 32)})"
              if seat < len(names) else f"Seat {seat}") + f" {plural(n, 'time')}"
             for seat, n in enumerate(coached) if n]
    return "Coached: " + ", ".join(marks) + "."


class PlainPrinter:
    """Prints one line per table, protocol or session event (``on_event`` of a session).

    It knows only events, which hold only what this peer may know, so it
    cannot print another seat's hidden card. ``names_provider`` returns the
    display names by seat (or None before the seats are drawn);
    ``me_provider`` this peer's seat (without it, the seat is learnt from
    this peer's own shuffle or shares); ``players_provider`` the names in join
    order and this peer's player index, to name people before seats are drawn. Without ``verbose``, the events that
    repeat for every message (each card's decryption check, each deadline
    restart) are left out, a card played is described once, by the play, and
    the cryptographic checks fold into one line per stage.
    """

    _QUIET = (CardsRevealed, Waiting)

    def __init__(self, write: Write | None = None, names_provider: NamesSource = None,
                 *, me_provider: Callable[[], int | None] | None = None,
                 players_provider: Callable[[], tuple[Sequence[str], int | None]] | None = None,
                 view_provider: Callable[[], Engine | None] | None = None,
                 verbose: bool = False, symbols: bool = False,
                 one_line_summaries: bool = False, game: str | None = None) -> None:
        #: The game's name (from the lobby, if not given), for the words that depend on it.
        self.game = game
        #: This seat's view after the events so far (for a summary's chips), if known.
        self.view_provider = view_provider
        self.write = write if write is not None else print_line
        self.names_provider = names_provider
        self.me_provider = me_provider
        self.players_provider = players_provider
        self.symbols = symbols
        self.verbose = verbose
        #: A deal's summary on one line (a replay's record), not as a block.
        self.one_line_summaries = one_line_summaries
        self.seating: tuple[int, ...] | None = None
        self.my_seat: int | None = None
        self._checks = CheckFolder()
        self._results = History()

    def on_event(self, event: SessionEvent) -> None:
        if isinstance(event, LobbyUpdate):
            self.game = clean(event.game, 10) or self.game
        if isinstance(event, PlayersSeated):
            self.seating = tuple(event.player_at_seat)
        if isinstance(event, (ShuffleVerified, SharesVerified)) and event.own:
            self.my_seat = event.seat
        if not self.verbose and isinstance(event, self._QUIET):
            return
        if not self.verbose and isinstance(event, CHECKS):
            stage = self._checks.fold(event)  # one line per stage, not one per check
            if stage:
                self.write(stage)
            return
        me = self.me_provider() if self.me_provider is not None else self.my_seat
        self._take_results(event)
        players, me_player = self.players_provider() if self.players_provider else ((), None)
        line = describe(event, _names(self.names_provider), me, self.seating,
                        players=players, me_player=me_player, symbols=self.symbols,
                        game=self.game)
        if line:
            self.write(line)
        self._write_summary(me)

    def history_lines(self, view: Engine, names: Sequence[str], me: int) -> list[str]:
        """The scoreboard and this deal's record (the ``history`` command)."""
        return self._results.lines(names, me, view, self.symbols)

    def _take_results(self, event: SessionEvent) -> None:
        results = event.results if isinstance(event, ActionApplied) else (event,)
        for result in results:
            self._results.take(result)

    def _write_summary(self, me: int | None) -> None:
        """The summary of a deal (hand) just scored, after its lines (chips are on the board)."""
        if not self._results.due:
            return
        view = self.view_provider() if self.view_provider is not None else None
        summary = self._results.summary(_names(self.names_provider), me, view, self.symbols)
        if summary is not None and self.one_line_summaries:
            said = "; ".join(line.rstrip(".") for line in summary.lines)
            self.write(f"— {summary.title}: {said}.")
        elif summary is not None:
            self.write("\n".join([f"— {summary.title} —", *summary.lines]))

    __call__ = on_event


__all__ = ["PlainAgent", "PlainPrinter", "PlayerQuit", "NothingToDecide", "StdinLines",
           "stdin_lines", "print_line"]
