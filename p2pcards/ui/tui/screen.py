"""One person's seat on the full-screen table: the application wired to the seat's agent and events.

:class:`TableScreen` is what the command line hands a session: its agent
(``decide``, a :class:`~p2pcards.ui.tui.agent.SeatAgent`), its event sink
(``on_event``, a :class:`~p2pcards.ui.tui.sink.ScreenEvents`) and the
application that shows them (a :class:`~p2pcards.ui.tui.app.TableApp`).
What it adds is the seat's side of the keys: a game key completes the
pending decision's action (or asks a Bluff discard's rank and stake), ``a``
takes a pause, ``w`` asks the coach (at a table against bots), ``t`` talks to the
table, ``q`` leaves; and :meth:`play`,
which runs one table's session to its end and waits for the person's choice
in the end box (a :class:`~p2pcards.ui.tui.run.TableRun`). Everything runs on the one asyncio loop beside the
sessions: the cryptography in the sessions' worker threads, the bots in
theirs.

It sees only its own seat's view and its own events. Leaving (``q`` and
``y``, or Ctrl-C) raises :class:`~p2pcards.ui.plain.PlayerQuit` out of a
pending decision, or else asks the session to send its signed leave notice.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Protocol, TypeVar, cast

from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from p2pcards.net.session_events import Decision, SessionEvent, SessionResult
from p2pcards.net.stopping import stop_task
from p2pcards.protocol.events import MatchCompleted, TableEnded
from p2pcards.protocol.table_settings import PAUSE_SECONDS
from p2pcards.protocol.talk import TalkRefused
from p2pcards.rules.contract import Engine
from p2pcards.ui.evening import EveningTally
from p2pcards.ui.plain import Coach
from p2pcards.ui.text import turn_line
from p2pcards.ui.text_common import HINTS_OFF, clean, no_pause
from p2pcards.ui.tui import keymap
from p2pcards.ui.tui.agent import PendingDecision, SeatAgent
from p2pcards.ui.tui.app import CONFIRM, SUMMARY, Question, TableApp
from p2pcards.ui.tui.bars import action_line
from p2pcards.ui.tui.bindings import table_bindings
from p2pcards.ui.tui.clockwarn import ClockWarnings
from p2pcards.ui.tui.keymap import REACTION_HINT, DiscardFlow, KeyHint, Refused, TalkFlow
from p2pcards.ui.tui.lines import Line
from p2pcards.ui.tui.model import ScreenModel
from p2pcards.ui.tui.picker import HandPicker
from p2pcards.ui.tui.run import TableRun
from p2pcards.ui.tui.sink import ScreenEvents
from p2pcards.ui.tui.source import SessionGetter, SessionSource

#: Seconds a deal's summary stays up by itself at a LAN table (a countdown shows it).
LAN_SUMMARY_SECONDS = 6.0
#: What a table's session returns (its result, or a spectator's).
R = TypeVar("R")
#: What the status line says while a question is open.
_TYPE_THE_ANSWER = "Type the answer and press Enter (Esc cancels)."


class _Talking(Protocol):
    """A session with table talk (a player's; a spectator only listens)."""

    def say(self, text: str) -> object: ...


class SeatFiller(Protocol):
    """The host's count at a LAN table's end box, while it waits for the others' choices."""

    @property
    def seat_free(self) -> bool: ...

    def fill_free_seat(self) -> str | None: ...


#: The host's key while a seat is free at the end box: a bot takes it.
FILL_KEY = "b"


class TableScreen(TableApp):
    """A person's seat on a full-screen table: the application with the seat's keys, composed
    with the seat's agent (:attr:`agent`), the session's event sink (:attr:`events`) and the
    run of each table (:attr:`runner`).

    ``session`` returns this seat's peer session (it may not exist yet when
    the screen is made); ``offer_again`` offers a new table at the end (for
    ``p2pcards play``); ``coach`` is what ``w`` asks (a table against bots; None: refused);
    ``bell`` rings the terminal's bell with a clock
    warning. ``input``/``output`` default to the terminal; tests pass a pipe
    and a virtual terminal.
    """

    def __init__(self, session: SessionGetter | None = None, *, offer_again: bool = False,
                 summary_seconds: float | None = None, bell: bool = True,
                 coach: Coach | None = None, input: Input | None = None, output: Output | None = None,
                 clock: Callable[[], float] | None = None,
                 again_label: str = "a new table") -> None:
        super().__init__(table_bindings, offer_again=offer_again, summary_seconds=summary_seconds,
                         input=input, output=output, clock=clock, again_label=again_label)
        self.source = SessionSource(session or (lambda: None))
        self.agent = SeatAgent(self)
        self.events = ScreenEvents(self, self.source)
        #: Ring the terminal's bell with a clock warning (``--no-bell`` turns it off).
        self.bell = bell
        self.warnings = ClockWarnings()
        self.runner = TableRun(self)
        #: The coach ``w`` asks (a table against bots, or one whose host allowed hints);
        #: None: hints are refused.
        self.coach = coach
        self._coaching: asyncio.Task[None] | None = None
        #: The evening so far at this screen (shown where a new table is offered: ``play``).
        self.evening = EveningTally()
        #: The host's end box count while it waits (``b`` fills a free seat); None: no wait.
        self.filler: SeatFiller | None = None

    # -- what the session calls --------------------------------------------------------

    async def decide(self, view: Engine, decision: Decision | None = None) -> object:
        """Enable the action bar for ``view`` and return the legal action the person completes."""
        return await self.agent.decide(view, decision)

    def on_event(self, event: SessionEvent) -> None:
        """Take in an event of the session (see :meth:`ScreenEvents.on_event`)."""
        self.events.on_event(event)

    __call__ = on_event

    @property
    def pending(self) -> PendingDecision | None:
        """The decision the session is waiting for, if any."""
        return self.agent.pending

    # -- what the agent and the events tell the screen ----------------------------------

    def decision_forced(self, view: Engine) -> None:
        self.model.set_view(view)
        self.show_summary()
        # Not a choice: the rules make the called discard's owner show it.
        self.model.note("Your discard was called: revealing it.", "info")
        self._invalidate()

    def decision_opened(self, view: Engine) -> None:
        self.model.set_view(view)
        self.show_summary()
        self.picker.single = keymap.picks_one_card(view)
        self.picker.sync(self.hand())
        self.message = None
        self._invalidate()

    def decision_closed(self) -> None:
        self.close_question()
        self._invalidate()

    def view_taken(self) -> None:
        self.picker.sync(self.hand())

    def event_shown(self, event: SessionEvent, at_rest: bool) -> None:
        if isinstance(event, MatchCompleted) and self.offer_again:
            self.evening.take(event.outcome, self.model.names())
            self.model.evening = self.evening.lines()
        if at_rest:
            self.show_summary()
        if isinstance(event, (MatchCompleted, TableEnded)) and (
                self.overlay == CONFIRM
                or (self.overlay == SUMMARY and self.summary_seconds is not None)):
            # The end box says how the table ended. "Leave?" is moot now, and a LAN table's
            # summary counts down to a deal that will not come: neither may hide the end
            # until a key (``r`` still shows every deal). Against bots the last summary
            # waits for its key as always, the end box behind it.
            self.close_overlay()
        self._invalidate()

    # -- what the panels ask ---------------------------------------------------------------

    @property
    def deciding(self) -> bool:
        return self.agent.pending is not None

    def shown_view(self) -> Engine | None:
        pending = self.agent.pending
        return pending.view if pending is not None else self.model.view

    def playable(self) -> set[int] | None:
        """The slots that may be played now (Topper, while deciding); None: no dimming."""
        pending = self.agent.pending
        return None if pending is None else keymap.playable(pending.view)

    def action_bar(self, width: int) -> Line:
        """The action bar: the keys that act now, or what to answer."""
        deciding = self.deciding
        hints = self.hints()
        filling = not deciding and bool(hints)  # the host's b while a seat is free
        return action_line(hints, (deciding and self.flow is None) or filling, width, self.press,
                           asking=deciding and self.flow is not None, watching=self.model.observer)

    def hints(self) -> list[KeyHint]:
        pending = self.agent.pending
        if pending is None:
            return [KeyHint(FILL_KEY, "a bot takes the free seat", FILL_KEY)] if self._can_fill() \
                else []
        hints = keymap.hints(pending.view)
        if pending.pauses_left and self.model.seconds_left(self.now()) is not None:
            hints.append(KeyHint("a", f"away ({pending.pauses_left})"))
        if self.coach is not None and self.flow is None:
            hints.append(KeyHint("w", "coach", "w"))
        return hints

    def history_text(self) -> list[str]:
        """The scoreboard and this deal's record, then the evening so far (``play``)."""
        lines = super().history_text()
        evening = self.evening.lines()
        return lines + ([""] + evening if evening else [])

    # -- the seat's keys -------------------------------------------------------------------

    def press(self, key: str) -> None:
        """A game key: act, ask the rank and stake, or say why it does nothing now."""
        if self.model.ending is not None:
            self._end_key(key)
            return
        pending = self.agent.pending
        if pending is None and key == FILL_KEY and self._can_fill():
            self._fill()
            return
        if pending is None:
            self._refuse(self._not_now(key))
            return
        hand = self.hand()
        try:
            outcome = keymap.press(key, pending.view, self.picker.chosen(hand),
                                   self.picker.at_cursor(hand))
        except Refused as refusal:
            self._refuse(str(refusal))
            return
        if isinstance(outcome, DiscardFlow):
            self._open_discard(outcome)
        else:
            self._resolve(outcome)

    def waiting(self, text: str | None) -> None:
        """The host's end box after ``n``: what it waits for, in the log and on the status
        line until the wait is over (None)."""
        if text is not None:
            self.note(text)
        self.message = None if text is None else ("info", clean(text, 300))
        self._invalidate()

    def _can_fill(self) -> bool:
        return self.filler is not None and self.filler.seat_free

    def _fill(self) -> None:
        """``b`` while the host waits at the end box: a bot takes the first free seat."""
        if self.filler is None:
            return
        said = self.filler.fill_free_seat()
        if said is not None:
            self.note(said)

    def _not_now(self, key: str) -> str:
        view = self.model.view
        shown = "Space" if key == " " else key
        if view is None:
            return f"the key {shown!r} does nothing yet: the table is being set up"
        turn = turn_line(view, self.model.names(), self.model.me)
        return f"the key {shown!r} does nothing now: {turn}"

    def toggle(self) -> None:
        if not self.deciding:
            self._refuse(self._not_now(" "))
            return
        self.picker.toggle(self.hand())
        self.message = None
        self._invalidate()

    def click_card(self, index: int) -> None:
        """A click on a card of the hand: select it (only while deciding)."""
        if not self.deciding or self.flow is not None:
            return
        self.picker.click(index, self.hand())
        self.message = None
        self._invalidate()

    def take_pause(self) -> None:
        """``a``: step away, taking one of the table's pauses (more time for this move)."""
        pending = self.agent.waiting
        if pending is None:
            self._refuse("away is for your own turn, to get more time for it")
            return
        if pending.pauses_left <= 0:
            self._refuse(no_pause(pending.decision.deadline if pending.decision else None))
            return
        self.close_question()
        self.picker.clear()
        self.message = ("info", f"Away: {PAUSE_SECONDS // 60} more minutes on this move, "
                                f"for every player's clock.")
        self.agent.step_away()
        self._invalidate()

    def ask_coach(self) -> None:
        """``w``: the coach's move for this turn and why (the normal bot's choice, searched
        off the event loop), at a table that allows hints; refused elsewhere."""
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

    async def stop(self) -> None:
        coaching, self._coaching = self._coaching, None
        try:
            if coaching is not None and not coaching.done():
                await stop_task(coaching)
        finally:
            await super().stop()

    def _resolve(self, action: object) -> None:
        self.close_question()
        self.message = None
        self.picker.clear()
        self.agent.choose(action)
        self._invalidate()

    # -- the question line: a discard's rank and stake, a chat line ---------------------------

    def _open_discard(self, flow: DiscardFlow) -> None:
        if flow.step == "done":
            self._answer_discard(flow, "")
            return
        self.open_question(flow, _TYPE_THE_ANSWER)

    def open_talk(self) -> None:
        """``t``: a one-line chat prompt, at any moment of the table (play goes on
        meanwhile); Enter sends, Esc cancels, a lone digit is a quick reaction."""
        if self.model.ending is not None:
            self._end_key("t")
            return
        self.open_question(TalkFlow(), f"Enter sends, Esc cancels. Quick: {REACTION_HINT}.")

    def answer(self, flow: Question, text: str) -> None:
        if isinstance(flow, TalkFlow):
            self._send_talk(flow, text)
        elif isinstance(flow, DiscardFlow):
            self._answer_discard(flow, text)

    def _answer_discard(self, flow: DiscardFlow, text: str) -> None:
        try:
            action = flow.answer(text)
        except Refused as refusal:
            self._refuse(str(refusal))
            return
        if action is None:
            self.set_answer(flow.default)
            self.message = ("info", _TYPE_THE_ANSWER)
            self._invalidate()
            return
        self._resolve(action)

    def _send_talk(self, flow: TalkFlow, text: str) -> None:
        """Sign and send the line through the session (its own event puts it in the
        log); a refusal (empty, too fast, no table yet) keeps the prompt open."""
        session = self.source.session
        try:
            line = flow.answer(text)
            if session is None or getattr(session, "talk", None) is None:
                raise Refused("there is nobody to talk to yet: the table has not started")
            cast(_Talking, session).say(line)  # a player's session: it has a table talk
        except (Refused, TalkRefused) as refusal:
            self._refuse(str(refusal))
            return
        self.close_question()
        self.message = None
        self._invalidate()

    def cancel_flow(self) -> None:
        talking = isinstance(self.flow, TalkFlow)
        self.close_question()
        self.message = ("info", "Nothing said." if talking
                        else "Discard cancelled; the cards stay selected.")
        self._invalidate()

    # -- the clock ---------------------------------------------------------------------------

    def clock_tick(self) -> None:
        self.warn_of_the_clock()

    def warn_of_the_clock(self) -> None:
        """While it is your turn: at 30 and at 10 seconds left, say so (and ring the bell)."""
        left = self.model.seconds_left(self.now())
        pending = self.agent.pending
        if pending is None or left is None:
            return
        if not self.warnings.due(pending, left):
            return
        self.message = ("warn", f"{left} seconds left to move: after that the others "
                                f"end the table naming you.")
        if self.bell:
            with contextlib.suppress(Exception):  # a terminal without a bell
                self.app.output.bell()
                self.app.output.flush()

    # -- leaving, and the end of the table -----------------------------------------------------

    def ask_leave(self) -> None:
        """``q``: leave after a confirmation (at the end of the table: just leave)."""
        if self.model.ending is not None:
            self._end_key("q")
            return
        self.overlay = CONFIRM
        self._invalidate()

    def confirm_leave(self) -> None:
        self.overlay = None
        self.leave_now()

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
        if key == "n" and self.offer_again:
            self.runner.choose("again")
        elif key == "q":  # not Enter: a key meant for the last card must not close the results
            self.runner.choose("quit")
        else:
            keys = f"n for {self.again_label}, q to leave" if self.offer_again else "q to leave"
            self.message = ("info", f"The table is over: {keys}.")
            self._invalidate()

    # -- running -------------------------------------------------------------------------------

    async def start(self) -> None:
        if self._app_task is None:
            self.runner.ready()
            self.events.read_observer()
        await super().start()

    async def play(self, run: Awaitable[R]) -> R | SessionResult:
        """Run one table's session (``run``) on this screen until it ends or the person leaves;
        then the end box waits for the person's choice (see :class:`TableRun`)."""
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
        self.flow = None
        self.message = None
        self.overlay = None
        self.end_ready = False
        self.picker = HandPicker()
        self._invalidate()
