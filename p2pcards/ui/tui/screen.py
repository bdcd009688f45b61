"""The full-screen table: one person's seat as a prompt_toolkit application.

:class:`TableScreen` is at once the seat's :class:`~p2pcards.net.peer.Agent`
(``decide`` enables the action bar for the view it is given and returns the
first legal action the person completes), the session's event sink
(``on_event`` updates the screen) and the application itself. Everything
runs on the one asyncio loop beside the sessions: the application with
``run_async``, the cryptography in the sessions' worker threads, the bots
in theirs; the screen is redrawn on events (prompt_toolkit draws only what
changed) and once a second while a countdown runs.

It sees only its own seat's view and its own events. Leaving (``q`` and
``y``, or Ctrl-C) raises :class:`~p2pcards.ui.plain.PlayerQuit` out of a
pending decision, or else asks the session to send its signed leave notice.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer

from p2pcards.net.session_events import (
    Decision,
    LinkDown,
    LinkUp,
    LobbyUpdate,
    Paths,
    Rejected,
    SessionResult,
    TakePause,
    Waiting,
)
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.events import (
    ActionApplied,
    CardsRevealed,
    Committed,
    HandDealt,
    KeyShareVerified,
    MatchEnded,
    PlayersSeated,
    SharesVerified,
    ShuffleVerified,
    TableEnded,
)
from p2pcards.protocol.table import PAUSE_SECONDS
from p2pcards.protocol.talk import TalkRefused
from p2pcards.ui.plain import NothingToDecide, PlayerQuit
from p2pcards.ui.text import labelled_hand, turn_line
from p2pcards.ui.text_common import CLOCK_WARNINGS, HandCard, clean
from p2pcards.ui.tui import keymap
from p2pcards.ui.tui.bars import action_line
from p2pcards.ui.tui.bindings import table_bindings
from p2pcards.ui.tui.draw import Line
from p2pcards.ui.tui.keymap import REACTION_HINT, DiscardFlow, KeyHint, Refused, TalkFlow
from p2pcards.ui.tui.layout import TableLayout
from p2pcards.ui.tui.logcapture import LogCapture
from p2pcards.ui.tui.logview import LogScroll
from p2pcards.ui.tui.model import Ending, ScreenModel
from p2pcards.ui.tui.picker import HandPicker
from p2pcards.ui.tui.source import SessionGetter, SessionSource
from p2pcards.ui.tui.style import TABLE_STYLE

#: Seconds between redraws while a countdown is on the screen.
TICK = 1.0
#: Events a peer session emits between its steps (the table is then at rest).
_SESSION_EVENTS = (LobbyUpdate, LinkUp, LinkDown, Waiting, Paths, Rejected, ProtocolError, Committed,
                   KeyShareVerified, PlayersSeated, ShuffleVerified, SharesVerified, HandDealt,
                   CardsRevealed, ActionApplied, MatchEnded, TableEnded)


#: Seconds a deal's summary stays up by itself at a LAN table (a countdown shows it).
LAN_SUMMARY_SECONDS = 6.0
#: Seconds a lone Esc waits to be told from an escape sequence (see ``__init__``).
ESC_WAIT = 0.05


@dataclass
class _Pending:
    """A decision the session is waiting for."""

    view: Any
    decision: Decision | None
    future: asyncio.Future[Any]


class TableScreen:
    """A person's seat on a full-screen table (agent, event sink and application).

    ``session`` returns this seat's peer session (it may not exist yet when
    the screen is made); ``offer_again`` offers a new table at the end (for
    ``p2pcards play``). ``input``/``output`` default to the terminal; tests
    pass a pipe and a virtual terminal.
    """

    def __init__(self, session: SessionGetter | None = None, *, offer_again: bool = False,
                 summary_seconds: float | None = None, bell: bool = True,
                 input: Any = None, output: Any = None,
                 clock: Callable[[], float] | None = None) -> None:
        self.model = ScreenModel()
        self.source = SessionSource(session or (lambda: None))
        self.offer_again = offer_again
        self.picker = HandPicker()
        self.scroll = LogScroll()
        self.pending: _Pending | None = None
        #: The question being typed: a discard's rank and stake, or a chat line (``t``).
        self.flow: DiscardFlow | TalkFlow | None = None
        self.message: tuple[str, str] | None = None
        self.overlay: str | None = None
        #: How long a deal's summary stays up by itself (a LAN table, where the
        #: others go on); None: until a key (against bots).
        self.summary_seconds = summary_seconds
        self.summary_until: float | None = None
        #: Ring the terminal's bell with a clock warning (``--no-bell`` turns it off).
        self.bell = bell
        self._warned: set[int] = set()
        self._warned_for: _Pending | None = None
        self.help_offset = 0
        #: The keys the help lists instead of the table's (a replay's); None: the table's.
        self.help_keys: tuple[tuple[str, str], ...] | None = None
        self.again = False
        self.end_ready = False
        self._clock = clock
        self._leaving = False
        self._leave_requested: asyncio.Event | None = None
        self._choice: asyncio.Future[str] | None = None
        self._app_task: asyncio.Task | None = None
        self._tick_task: asyncio.Task | None = None
        self._log_capture = LogCapture(lambda text: self._note(text, "warn"))
        self.prompt_buffer = Buffer(multiline=False, accept_handler=self._on_answer)
        self.view_layout = TableLayout(self)
        self.app: Application = Application(
            layout=self.view_layout.layout, key_bindings=table_bindings(self), style=TABLE_STYLE,
            full_screen=True, mouse_support=True, min_redraw_interval=0.05,
            input=input, output=output)
        # A lone Esc (close help, clear a selection) is told from the start of an
        # escape sequence by waiting for more bytes: prompt_toolkit waits 0.5 s, and
        # 1 s more for multi-key bindings, which this table has none of. Local
        # terminals send a sequence's bytes together, so 50 ms is plenty.
        self.app.ttimeoutlen = ESC_WAIT
        self.app.timeoutlen = ESC_WAIT

    # -- the agent ---------------------------------------------------------------------

    async def decide(self, view: Any, decision: Decision | None = None) -> Any:
        """Enable the action bar for ``view`` and return the legal action the person completes."""
        me = view.viewer if view.viewer is not None else view.to_act
        if view.to_act is None or view.to_act != me:
            raise NothingToDecide(f"seat {me} is not to act in this view")
        if self._leaving:
            raise PlayerQuit("the player left the table")
        self.model.set_view(view)
        self._show_summary()
        forced = view.forced_action()
        if forced is not None:
            # Not a choice: the rules make the called discard's owner show it.
            self.model.note("Your discard was called: revealing it.", "info")
            self._invalidate()
            return forced
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.pending = _Pending(view, decision, future)
        self.picker.single = keymap.picks_one_card(view)
        self.picker.sync(self.hand())
        self.message = None
        self._invalidate()
        try:
            return await future
        finally:
            self.pending = None
            self._close_flow()
            self._invalidate()

    def on_event(self, event: Any) -> None:
        """Take in an event of the session (called between the session's steps).

        Only the session's own events are a moment to read its table: the
        host's relay reports from its own task, perhaps while a worker
        thread changes the table.
        """
        self.model.apply(event)
        if isinstance(event, _SESSION_EVENTS):
            self._refresh()
        if isinstance(event, (MatchEnded, TableEnded)):
            self.overlay = None if self.overlay == "confirm" else self.overlay
        self._invalidate()

    __call__ = on_event

    def note(self, text: str) -> None:
        """A line from the program (e.g. the address a hosted table listens on) for the log."""
        self._note(text, "info")

    def _note(self, text: str, kind: str) -> None:
        self.model.note(clean(text, 300), kind)
        self._invalidate()

    def _refresh(self) -> None:
        model, source = self.model, self.source
        if not model.players:
            players = source.players()
            if players:
                model.set_players(players, source.me_player())
                model.game = source.game() or model.game
        seating = source.seating()
        if seating is not None:
            model.seating = tuple(seating)
        seat = source.my_seat()
        if seat is not None:
            model.me = seat
        if self.pending is None:
            view = source.view()
            if view is not None:
                model.set_view(view)
                self.picker.sync(self.hand())
        self._show_summary()

    def _show_summary(self) -> None:
        """Put a finished deal's summary over the table until it is read."""
        if self.model.summary is None or self.overlay is not None or self.model.ending:
            return
        self.overlay = "summary"
        if self.summary_seconds is not None:
            self.summary_until = self.now() + self.summary_seconds
            shown = self.model.summary
            with contextlib.suppress(RuntimeError):  # no loop: nothing to time
                asyncio.get_running_loop().call_later(
                    self.summary_seconds, lambda: self._summary_timed_out(shown))

    def _summary_timed_out(self, shown: Any) -> None:
        if self.overlay == "summary" and self.model.summary is shown:
            self.close_overlay()

    def summary_seconds_left(self) -> int | None:
        """Whole seconds before a LAN table's summary closes by itself, or None."""
        if self.summary_until is None or self.overlay != "summary":
            return None
        return max(0, int(self.summary_until - self.now() + 0.999))

    # -- what the panels ask ----------------------------------------------------------------

    def now(self) -> float:
        if self._clock is not None:
            return self._clock()
        try:
            return asyncio.get_running_loop().time()
        except RuntimeError:
            return 0.0

    def _view(self) -> Any:
        return self.pending.view if self.pending is not None else self.model.view

    def hand(self) -> list[HandCard]:
        """This seat's hand in the order shown (the labels the plain commands use)."""
        view, me = self._view(), self.model.me
        if view is None or me is None:
            return []
        if view.awaiting_deal or view.outcome is not None:
            return []
        return labelled_hand(view, me)

    def playable(self) -> set[int] | None:
        """The slots that may be played now (Topper, while deciding); None: no dimming."""
        pending = self.pending
        return None if pending is None else keymap.playable(pending.view)

    @property
    def watching(self) -> bool:
        """This screen shows a spectator's session (no seat, no hand)."""
        return bool(getattr(self.source.session, "spectator", False))

    def action_bar(self, width: int) -> Line:
        """The action bar: the keys that act now, or what to answer."""
        deciding = self.pending is not None
        return action_line(self.hints(), deciding and self.flow is None, width, self.press,
                           asking=deciding and self.flow is not None, watching=self.watching)

    def hints(self) -> list[KeyHint]:
        pending = self.pending
        if pending is None:
            return []
        hints = keymap.hints(pending.view)
        pauses = pending.decision.pauses_left if pending.decision is not None else 0
        if pauses and self.model.seconds_left(self.now()) is not None:
            hints.append(KeyHint("a", f"away ({pauses})"))
        return hints

    # -- keys ---------------------------------------------------------------------------------

    def press(self, key: str) -> None:
        """A game key: act, ask the rank and stake, or say why it does nothing now."""
        if self.model.ending is not None:
            self._end_key(key)
            return
        pending = self.pending
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
            self._open_flow(outcome)
        else:
            self._resolve(outcome)

    def _not_now(self, key: str) -> str:
        view = self.model.view
        shown = "Space" if key == " " else key
        if view is None:
            return f"the key {shown!r} does nothing yet: the table is being set up"
        turn = turn_line(view, self.model.names(), self.model.me)
        return f"the key {shown!r} does nothing now: {turn}"

    def move(self, delta: int) -> None:
        self.picker.move(delta, self.hand())
        self._invalidate()

    def toggle(self) -> None:
        if self.pending is None:
            self._refuse(self._not_now(" "))
            return
        self.picker.toggle(self.hand())
        self.message = None
        self._invalidate()

    def click_card(self, index: int) -> None:
        """A click on a card of the hand: select it (only while deciding)."""
        if self.pending is None or self.flow is not None:
            return
        self.picker.click(index, self.hand())
        self.message = None
        self._invalidate()

    def escape(self) -> None:
        self.picker.clear()
        self.message = None
        self._invalidate()

    def scroll_log(self, delta: int) -> None:
        self.scroll.scroll(delta, len(self.model.visible_log()))
        self._invalidate()

    def show_history(self) -> None:
        """``r``: the scoreboard and this deal's record, over the table until a key."""
        self.overlay, self.help_offset = "history", 0
        self._invalidate()

    def history_text(self) -> list[str]:
        model = self.model
        return model.history.lines(model.names(), model.me, model.view, symbols=True)

    def toggle_details(self) -> None:
        """Every single cryptographic check in the log, or one line per stage."""
        self.model.show_details = not self.model.show_details
        self.scroll.to_end()
        self.message = ("info", "The log shows every single check (v: one line per stage)."
                        if self.model.show_details else
                        "The log shows one line per stage of checks (v: every single check).")
        self._invalidate()

    def show_help(self) -> None:
        self.overlay, self.help_offset = "help", 0
        self._invalidate()

    def scroll_help(self, delta: int) -> None:
        self.help_offset = max(0, self.help_offset + delta)
        self._invalidate()

    def close_overlay(self) -> None:
        if self.overlay == "summary":
            self.model.summary, self.summary_until = None, None
        self.overlay = None
        self._invalidate()

    def ask_leave(self) -> None:
        """``q``: leave after a confirmation (at the end of the table: just leave)."""
        if self.model.ending is not None:
            self._end_key("q")
            return
        self.overlay = "confirm"
        self._invalidate()

    def confirm_leave(self) -> None:
        self.overlay = None
        self.leave_now()

    def leave_now(self) -> None:
        """Leave the table: the other players are told (a signed notice)."""
        if self.model.ending is not None:
            self._choose("quit")
            return
        if self._leaving:
            return
        self._leaving = True
        self.model.note("You are leaving the table; telling the other players.", "warn")
        self.message = ("info", "Leaving: telling the other players and closing the table…")
        pending = self.pending
        if pending is not None and not pending.future.done():
            pending.future.set_exception(PlayerQuit("the player left the table"))
        if self._leave_requested is not None:
            self._leave_requested.set()
        self._invalidate()

    def _end_key(self, key: str) -> None:
        if key == "n" and self.offer_again:
            self._choose("again")
        elif key == "q":  # not Enter: a key meant for the last card must not close the results
            self._choose("quit")
        else:
            keys = "n for a new table, q to leave" if self.offer_again else "q to leave"
            self.message = ("info", f"The table is over: {keys}.")
            self._invalidate()

    def _choose(self, choice: str) -> None:
        if self._choice is not None and not self._choice.done():
            self._choice.set_result(choice)
        elif choice == "quit":
            self._leaving = True

    # -- the discard question ---------------------------------------------------------------

    def _open_flow(self, flow: DiscardFlow) -> None:
        if flow.step == "done":
            self._answer_flow(flow, "")
            return
        self.flow = flow
        self.prompt_buffer.text = flow.default
        self.prompt_buffer.cursor_position = len(flow.default)
        self.message = ("info", "Type the answer and press Enter (Esc cancels).")
        if self.app.is_running:
            self.view_layout.focus_prompt(self.app)
        self._invalidate()

    def _on_answer(self, buffer: Buffer) -> bool:
        if isinstance(self.flow, TalkFlow):
            self._send_talk(self.flow, buffer.text)
        elif self.flow is not None:
            self._answer_flow(self.flow, buffer.text)
        return True  # the text is managed here

    def _answer_flow(self, flow: DiscardFlow, text: str) -> None:
        try:
            action = flow.answer(text)
        except Refused as refusal:
            self._refuse(str(refusal))
            return
        if action is None:
            self.prompt_buffer.text = flow.default
            self.prompt_buffer.cursor_position = len(flow.default)
            self.message = ("info", "Type the answer and press Enter (Esc cancels).")
            self._invalidate()
            return
        self._resolve(action)

    def cancel_flow(self) -> None:
        talking = isinstance(self.flow, TalkFlow)
        self._close_flow()
        self.message = ("info", "Nothing said." if talking
                        else "Discard cancelled; the cards stay selected.")
        self._invalidate()

    # -- table talk ---------------------------------------------------------------------------

    def open_talk(self) -> None:
        """``t``: a one-line chat prompt, at any moment of the table (play goes on
        meanwhile); Enter sends, Esc cancels, a lone digit is a quick reaction."""
        if self.model.ending is not None:
            self._end_key("t")
            return
        self.flow = TalkFlow()
        self.prompt_buffer.text = ""
        self.message = ("info", f"Enter sends, Esc cancels. Quick: {REACTION_HINT}.")
        if self.app.is_running:
            self.view_layout.focus_prompt(self.app)
        self._invalidate()

    def _send_talk(self, flow: TalkFlow, text: str) -> None:
        """Sign and send the line through the session (its own event puts it in the
        log); a refusal (empty, too fast, no table yet) keeps the prompt open."""
        session = self.source.session
        try:
            line = flow.answer(text)
            if session is None or getattr(session, "talk", None) is None:
                raise Refused("there is nobody to talk to yet: the table has not started")
            session.say(line)
        except (Refused, TalkRefused) as refusal:
            self._refuse(str(refusal))
            return
        self._close_flow()
        self.message = None
        self._invalidate()

    def _close_flow(self) -> None:
        if self.flow is None:
            return
        self.flow = None
        self.prompt_buffer.text = ""
        if self.app.is_running:
            self.view_layout.focus_table(self.app)

    # -- outcomes of keys ---------------------------------------------------------------------

    def _resolve(self, action: Any) -> None:
        pending = self.pending
        self._close_flow()
        self.message = None
        self.picker.clear()
        if pending is not None and not pending.future.done():
            pending.future.set_result(action)
        self._invalidate()

    def take_pause(self) -> None:
        """``a``: step away, taking one of the table's pauses (more time for this move)."""
        pending = self.pending
        if pending is None or pending.future.done():
            self._refuse("away is for your own turn, to get more time for it")
            return
        left = pending.decision.pauses_left if pending.decision is not None else 0
        if left <= 0:
            self._refuse("away: no pause left at this table (or it has no clock to pause)")
            return
        self._close_flow()
        self.picker.clear()
        self.message = ("info", f"Away: {PAUSE_SECONDS // 60} more minutes on this move, "
                                f"for every player's clock.")
        pending.future.set_exception(TakePause("the player stepped away"))
        self._invalidate()

    def _refuse(self, text: str) -> None:
        """A key that cannot act: say why; nothing else changes."""
        self.message = ("error", f"Not accepted: {text}")
        self.model.note(f"Not accepted: {text}", "warn")
        self._invalidate()

    def _invalidate(self) -> None:
        self.app.invalidate()

    # -- running ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Show the screen (the application runs on this loop until :meth:`stop`)."""
        if self._app_task is not None:
            return
        self._leave_requested = asyncio.Event()
        self._log_capture.start()
        self._app_task = asyncio.ensure_future(self.app.run_async(set_exception_handler=False))
        self._tick_task = asyncio.ensure_future(self._tick())
        for _ in range(200):  # bounded: the application is up within a few loop turns
            if self.app.is_running or self._app_task.done():
                break
            await asyncio.sleep(0.005)

    async def stop(self) -> None:
        """Leave the full screen and give the terminal back."""
        if self._tick_task is not None:
            self._tick_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._tick_task
        if self._app_task is not None:
            future = self.app.future
            if self.app.is_running and future is not None and not future.done():
                self.app.exit()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._app_task
            self._log_capture.stop()
        self._app_task = self._tick_task = None

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(TICK)
            if self.model.seconds_left(self.now()) is not None:
                self.warn_of_the_clock()
                self._invalidate()

    def warn_of_the_clock(self) -> None:
        """While it is your turn: at 30 and at 10 seconds left, say so (and ring the bell)."""
        left = self.model.seconds_left(self.now())
        if self.pending is None or left is None:
            return
        if self._warned_for is not self.pending:
            self._warned_for, self._warned = self.pending, set()
        crossed = {mark for mark in CLOCK_WARNINGS if left <= mark}
        if not crossed - self._warned:
            return
        self._warned |= crossed
        self.message = ("warn", f"{left} seconds left to move: after that the others "
                                f"end the table naming you.")
        if self.bell:
            with contextlib.suppress(Exception):  # a terminal without a bell
                self.app.output.bell()
                self.app.output.flush()

    async def play(self, run: Awaitable[Any]) -> Any:
        """Run one table's session (``run``) on this screen until it ends or the person leaves.

        At the end, the closing box waits for the person's choice: ``again``
        is then True if he asked for a new table. Returns the session's result.
        """
        if self._leave_requested is None:
            self._leave_requested = asyncio.Event()
        self.again = False
        session_task = asyncio.ensure_future(run)
        leave_task = asyncio.ensure_future(self._leave_requested.wait())
        waiters = {session_task, leave_task}
        if self._app_task is not None:
            waiters.add(self._app_task)
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
            if session_task.done():
                result = session_task.result()
            else:
                result = await self._leave(session_task)
        finally:
            leave_task.cancel()
            if not session_task.done():
                session_task.cancel()
        if self._leaving or self._app_task is None or self._app_task.done():
            return result
        self._show_end(result)
        self._choice = asyncio.get_running_loop().create_future()
        self.end_ready = True
        self._invalidate()
        await asyncio.wait({self._choice, self._app_task}, return_when=asyncio.FIRST_COMPLETED)
        self.again = self._choice.done() and self._choice.result() == "again"
        if self.again:
            self._new_table()
        return result

    async def _leave(self, session_task: asyncio.Future[Any]) -> Any:
        """The person left outside a decision: send the signed notice, stop the session."""
        await self.source.leave()
        await asyncio.wait({session_task}, timeout=0.5)
        finished = session_task.done() and not session_task.cancelled()
        if finished and session_task.exception() is None:
            return session_task.result()
        session_task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await session_task
        return self.source.left_result()

    def _show_end(self, result: Any) -> None:
        if self.model.ending is not None:
            return
        if isinstance(result, SessionResult) and result.outcome is not None:
            self.model.apply(MatchEnded(result.outcome))
        elif isinstance(result, SessionResult) and result.verdict is not None:
            self.model.apply(TableEnded(result.verdict))
        else:
            reason = clean(getattr(result, "reason", "") or "the table closed", 200)
            self.model.ending = Ending("TABLE CLOSED", f"The table closed: {reason}.", "closed")
            self.model.note(f"The table closed: {reason}.", "warn")

    def _new_table(self) -> None:
        """Forget the last table (keep the log) before the next one's events arrive."""
        log, details, show = self.model.log, self.model.details, self.model.show_details
        self.model = ScreenModel()
        self.model.log, self.model.details, self.model.show_details = log, details, show
        self.model.note("— a new table —", "info")
        self.pending = None
        self.flow = None
        self.message = None
        self.overlay = None
        self.end_ready = False
        self._choice = None
        self.picker = HandPicker()
        self._invalidate()
