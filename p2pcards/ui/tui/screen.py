"""One person's seat on the full-screen table: the application wired to the seat's agent and events.

:class:`TableScreen` is what the command line hands a session: its agent
(``decide``, a :class:`~p2pcards.ui.tui.agent.SeatAgent`), its event sink
(``on_event``, a :class:`~p2pcards.ui.tui.sink.ScreenEvents`) and the
application that shows them (a :class:`~p2pcards.ui.tui.app.TableApp`).
What a seat does on any screen (the coach, away, talk, leaving, the end box,
:meth:`play` one table's session to its end) is the
:class:`~p2pcards.ui.tui.seatside.SeatSide` it shares with the browser's table;
what it adds is the keys: a game key completes the pending decision's action
(or asks a Bluff discard's rank and stake), ``a`` takes a pause, ``w`` asks
the coach (at a table against bots), ``t`` talks to the table, ``q`` leaves.
Everything runs on the one asyncio loop beside the sessions: the cryptography
in the sessions' worker threads, the bots in theirs.

It sees only its own seat's view and its own events. Leaving (``q`` and
``y``, or Ctrl-C) raises :class:`~p2pcards.ui.plain.PlayerQuit` out of a
pending decision, or else asks the session to send its signed leave notice.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable

from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from p2pcards.net.session_events import SessionEvent
from p2pcards.protocol.events import MatchCompleted, TableEnded
from p2pcards.rules.contract import Engine
from p2pcards.ui.plain import Coach
from p2pcards.ui.text import turn_line
from p2pcards.ui.tui import keymap
from p2pcards.ui.tui.app import CONFIRM, SUMMARY, Question, TableApp
from p2pcards.ui.tui.bars import action_line
from p2pcards.ui.tui.bindings import table_bindings
from p2pcards.ui.tui.keymap import REACTION_HINT, DiscardFlow, KeyHint, Refused, TalkFlow
from p2pcards.ui.tui.lines import Line
from p2pcards.ui.tui.picker import HandPicker
from p2pcards.ui.tui.seatside import SeatSide
from p2pcards.ui.tui.source import SessionGetter

#: What the status line says while a question is open.
_TYPE_THE_ANSWER = "Type the answer and press Enter (Esc cancels)."
#: The host's key while a seat is free at the end box: a bot takes it.
FILL_KEY = "b"


class TableScreen(SeatSide, TableApp):
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
        self._take_seat(session, coach, bell)

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
        self._tally(event)
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
        return self._with_evening(super().history_text())

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

    async def stop(self) -> None:
        try:
            await self._stop_coaching()
        finally:
            await super().stop()

    def _forget_choice(self) -> None:
        self.close_question()
        self.picker.clear()

    def _forget_table(self) -> None:
        self.flow = None
        self.overlay = None
        self.picker = HandPicker()

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
        """Sign and send the line (see :meth:`SeatSide._talk`); a refusal keeps the prompt
        open."""
        if not self._talk(text):
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
        if self._clock_warning(self.now()) and self.bell:
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

    # -- running -------------------------------------------------------------------------------

    async def start(self) -> None:
        if self._app_task is None:
            self.runner.ready()
            self.events.read_observer()
        await super().start()
