"""A person's seat on any screen — the terminal's full screen or the browser's page — apart
from how it is drawn.

:class:`SeatSide` composes the seat's agent (:class:`~p2pcards.ui.tui.agent.SeatAgent`),
the session's event sink (:class:`~p2pcards.ui.tui.sink.ScreenEvents`) and the run of each
table (:class:`~p2pcards.ui.tui.run.TableRun`), and does what a seat does besides choosing
its move: the coach, away, talk, leaving, the end box's choice, the host's bot for a free
seat, the evening so far, the clock's warnings, a new table. A screen mixes it in before
its drawing class (:class:`~p2pcards.ui.tui.screen.TableScreen` with the prompt_toolkit
application, :class:`~p2pcards.ui.web.WebSeat` with the browser's page), which provides
the model, the status line's message and how a change is shown; the words are the same on
both. Nothing here imports prompt_toolkit.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Protocol, TypeVar, cast

from p2pcards.net.session_events import Decision, SessionEvent, SessionResult
from p2pcards.net.stopping import stop_task
from p2pcards.protocol.events import MatchCompleted
from p2pcards.protocol.table_settings import PAUSE_SECONDS
from p2pcards.protocol.talk import TalkRefused
from p2pcards.rules.contract import Engine
from p2pcards.ui.evening_tally import EveningTally
from p2pcards.ui.plain import Coach
from p2pcards.ui.text_common import HINTS_OFF, clean, no_pause
from p2pcards.ui.tui.agent import PendingDecision, SeatAgent
from p2pcards.ui.tui.clockwarn import ClockWarnings
from p2pcards.ui.tui.keymap import Refused, TalkFlow
from p2pcards.ui.tui.model import ScreenModel
from p2pcards.ui.tui.run import TableRun
from p2pcards.ui.tui.sink import ScreenEvents
from p2pcards.ui.tui.source import SessionGetter, SessionSource

#: What a table's session returns (its result, or a spectator's).
R = TypeVar("R")


class _Talking(Protocol):
    """A session with table talk (a player's; a spectator only listens)."""

    def say(self, text: str) -> object: ...


class SeatFiller(Protocol):
    """The host's count at a LAN table's end box, while it waits for the others' choices."""

    @property
    def seat_free(self) -> bool: ...

    def fill_free_seat(self) -> str | None: ...


class SeatSide:
    """The seat's side of a screen (see the module's docstring); :meth:`_take_seat` sets it up.

    ``offer_again`` and ``again_label``: what the end box offers (a new table, a
    rematch); ``coach``: what the coach key asks (None: refused); ``bell``: the
    clock's warnings ring (or beep).
    """

    #: What the screen shows (from its drawing class).
    model: ScreenModel
    #: The status line's notice or refusal (kind, text); None: whose turn it is.
    message: tuple[str, str] | None
    offer_again: bool
    again_label: str
    #: The end box offers its choices (nothing is closing any more).
    end_ready: bool

    if TYPE_CHECKING:  # provided by the drawing class
        @property
        def app_task(self) -> asyncio.Task[None] | None: ...

        def _invalidate(self) -> None: ...

        def _refuse(self, text: str) -> None: ...

        def note(self, text: str) -> None: ...

    def _take_seat(self, session: SessionGetter | None, coach: Coach | None,
                   bell: bool) -> None:
        self.source = SessionSource(session or (lambda: None))
        self.agent = SeatAgent(self)
        self.events = ScreenEvents(self, self.source)
        self.runner = TableRun(self)
        #: Ring (or beep) with a clock warning (``--no-bell`` turns it off).
        self.bell = bell
        self.warnings = ClockWarnings()
        #: The coach (a table against bots, or one whose host allowed hints); None: refused.
        self.coach = coach
        self._coaching: asyncio.Task[None] | None = None
        #: The evening so far at this screen (shown where a new table is offered: ``play``).
        self.evening = EveningTally()
        #: The host's end box count while it waits (a bot for a free seat); None: no wait.
        self.filler: SeatFiller | None = None

    # -- hooks of the drawing class ------------------------------------------------------

    def decision_forced(self, view: Engine) -> None:
        """The rules chose this seat's action for it (a called Bluff discard is shown)."""

    def decision_opened(self, view: Engine) -> None:
        """A decision is pending: offer the legal choices for ``view``."""

    def decision_closed(self) -> None:
        """The pending decision was settled (or cancelled)."""

    def view_taken(self) -> None:
        """The model took a new view of this seat from the session."""

    def event_shown(self, event: SessionEvent, at_rest: bool) -> None:
        """``event`` is in the model: a match's end counts in the evening; the screen shows it."""
        self._tally(event)
        self._invalidate()

    def _forget_choice(self) -> None:
        """The move being made is over (taken, paused, cancelled): forget what was picked."""

    def _forget_table(self) -> None:
        """A new table: forget what the drawing kept of the last one."""

    # -- what the session calls ----------------------------------------------------------

    async def decide(self, view: Engine, decision: Decision | None = None) -> object:
        """Offer ``view``'s legal choices; the legal action the person completes."""
        return await self.agent.decide(view, decision)

    def on_event(self, event: SessionEvent) -> None:
        """Take in an event of the session (see :meth:`ScreenEvents.on_event`)."""
        self.events.on_event(event)

    __call__ = on_event

    @property
    def pending(self) -> PendingDecision | None:
        """The decision the session is waiting for, if any."""
        return self.agent.pending

    @property
    def deciding(self) -> bool:
        return self.agent.pending is not None

    # -- what the seat does besides its move -----------------------------------------------

    def _tally(self, event: SessionEvent) -> None:
        """A match's end counts in the evening so far (where a new table is offered)."""
        if isinstance(event, MatchCompleted) and self.offer_again:
            self.evening.take(event.outcome, self.model.names())
            self.model.evening = self.evening.lines()

    def _with_evening(self, lines: list[str]) -> list[str]:
        """The scoreboard and this deal's record (``lines``), then the evening so far."""
        evening = self.evening.lines()
        return lines + ([""] + evening if evening else [])

    def take_pause(self) -> None:
        """Away: in one's turn, one of the table's pauses (more time for this move)."""
        pending = self.agent.waiting
        if pending is None:
            self._refuse("away is for your own turn, to get more time for it")
            return
        if pending.pauses_left <= 0:
            self._refuse(no_pause(pending.decision.deadline if pending.decision else None))
            return
        self._forget_choice()
        self.message = ("info", f"Away: {PAUSE_SECONDS // 60} more minutes on this move, "
                                f"for every player's clock.")
        self.agent.step_away()
        self._invalidate()

    def ask_coach(self) -> None:
        """The coach's move for this turn and why (the normal bot's choice, searched off the
        event loop), at a table that allows hints; refused elsewhere."""
        if self.model.ending is not None:
            self._end_key("w")
            return
        if self.coach is None:
            self._refuse(HINTS_OFF)
            return
        pending = self.agent.pending
        if pending is None:
            self._refuse("the coach advises on your own turn")
            return
        if self._coaching is not None and not self._coaching.done():
            self.message = ("info", "The coach is still thinking…")
            self._invalidate()
            return
        self.message = ("info", "The coach is thinking…")
        self._coaching = asyncio.ensure_future(self._ask(self.coach, pending))
        self._invalidate()

    async def _ask(self, coach: Coach, pending: PendingDecision) -> None:
        position = pending.decision.position if pending.decision is not None else 0
        line = await coach(pending.view, self.model.names(), position, True)
        if self.agent.pending is not pending:
            return  # the turn is over: its advice is moot
        if line.startswith("Not accepted: "):
            self._refuse(line.removeprefix("Not accepted: ").rstrip("."))
            return
        self.message = ("coach", line)  # the status line grows to show it whole
        self.model.note(line, "info")
        self._invalidate()

    def _talk(self, text: str) -> bool:
        """Sign and send a chat line (a lone 1-6: a quick reaction) through the session (its
        own event puts it in the log); a refusal (empty, too fast, no table yet) is said,
        and False."""
        session = self.source.session
        try:
            line = TalkFlow().answer(text)
            if session is None or getattr(session, "talk", None) is None:
                raise Refused("there is nobody to talk to yet: the table has not started")
            cast(_Talking, session).say(line)  # a player's session: it has a table talk
        except (Refused, TalkRefused) as refusal:
            self._refuse(str(refusal))
            return False
        return True

    def leave_now(self) -> None:
        """Leave the table: the other players are told (a signed notice)."""
        if self.model.ending is not None:
            self.runner.choose("quit")
            return
        if self.agent.leaving:
            return
        self.model.note("You are leaving the table; telling the other players.", "warn")
        self.message = ("info", "Leaving: telling the other players and closing the table…")
        self.agent.leave()
        self.runner.leave()
        self._invalidate()

    def _end_key(self, key: str) -> None:
        """A key in the end box: ``n`` again (where offered), ``q`` leave; else what they do."""
        if key == "n" and self.offer_again:
            self.runner.choose("again")
        elif key == "q":  # not Enter: a key meant for the last card must not close the results
            self.runner.choose("quit")
        else:
            keys = f"n for {self.again_label}, q to leave" if self.offer_again else "q to leave"
            self.message = ("info", f"The table is over: {keys}.")
            self._invalidate()

    def _can_fill(self) -> bool:
        return self.filler is not None and self.filler.seat_free

    def _fill(self) -> None:
        """While the host waits at the end box: a bot takes the first free seat."""
        if self.filler is None or not self.filler.seat_free:
            self._refuse("no seat is free for a bot now")
            return
        said = self.filler.fill_free_seat()
        if said is not None:
            self.note(said)

    def waiting(self, text: str | None, log: bool = True) -> None:
        """An end box after "again": what it waits for (and the time left), in the log
        (unless ``log`` is off: a refresh) and on the status line until the wait is over
        (None)."""
        if text is not None and log:
            self.model.note(clean(text, 300), "info")
        self.message = None if text is None else ("info", clean(text, 300))
        self._invalidate()

    def _clock_warning(self, now: float) -> bool:
        """While it is this seat's turn: at 30 and at 10 seconds left, say so; True when a
        warning is due now (the screen rings its bell)."""
        left = self.model.seconds_left(now)
        pending = self.agent.pending
        if pending is None or left is None or not self.warnings.due(pending, left):
            return False
        self.message = ("warn", f"{left} seconds left to move: after that the others "
                                f"end the table naming you.")
        return True

    # -- running ---------------------------------------------------------------------------

    async def play(self, run: Awaitable[R]) -> R | SessionResult:
        """Run one table's session (``run``) until it ends or the person leaves; then the
        end box waits for the person's choice (see :class:`~p2pcards.ui.tui.run.TableRun`)."""
        return await self.runner.play(run)

    @property
    def again(self) -> bool:
        """After :meth:`play`: the person asked for a new table."""
        return self.runner.again

    def end_shown(self) -> None:
        self.end_ready = True
        self._invalidate()

    def new_table(self) -> None:
        """Forget the last table (keep the log) before the next one's events arrive."""
        log, details, show = self.model.log, self.model.details, self.model.show_details
        self.model = ScreenModel()
        self.model.log, self.model.details, self.model.show_details = log, details, show
        self.model.note("— a new table —", "info")
        self.agent.pending = None
        self.message = None
        self.end_ready = False
        self._forget_table()
        self._invalidate()

    async def _stop_coaching(self) -> None:
        coaching, self._coaching = self._coaching, None
        if coaching is not None and not coaching.done():
            await stop_task(coaching)
