"""The full-screen table as a prompt_toolkit application: its layout, overlays and question line.

A seat's screen (:class:`~p2pcards.ui.tui.screen.TableScreen`) and a saved
table's replay (:class:`~p2pcards.ui.tui.replay_screen.ReplayScreen`) draw the same
table and read it with the same keys; they differ in what the other keys do.
:class:`TableApp` is what they share: the application on the asyncio loop
(``run_async``, redrawn on demand and once a second while a countdown runs),
the boxes over the table (help, history, a deal's summary, "leave?"), the
question line under the action bar, the status message, the log's scroll
and the hand's cursor. Each kind of screen gives its own key bindings and
says what a game key, the action bar and a typed answer mean.
"""

from __future__ import annotations

import asyncio
import contextlib
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Self

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import Condition
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import (
    ConditionalKeyBindings,
    KeyBindings,
    KeyBindingsBase,
    KeyPressEvent,
    merge_key_bindings,
)
from prompt_toolkit.keys import Keys
from prompt_toolkit.output import Output

from p2pcards.net.stopping import stop_task
from p2pcards.rules.contract import Engine
from p2pcards.ui.text import labelled_hand
from p2pcards.ui.text_common import HandCard, clean
from p2pcards.ui.text_summary import Summary
from p2pcards.ui.tui.asciilook import table_output
from p2pcards.ui.tui.drawn_screen import Question as Question
from p2pcards.ui.tui.layout import MIN_COLUMNS, MIN_ROWS, TableLayout
from p2pcards.ui.tui.lines import Line
from p2pcards.ui.tui.logcapture import LogCapture
from p2pcards.ui.tui.logview import LogScroll
from p2pcards.ui.tui.model import ScreenModel
from p2pcards.ui.tui.picker import HandPicker
from p2pcards.ui.tui.style import TABLE_STYLE

#: Seconds between redraws while a countdown is on the screen.
TICK = 1.0
#: Seconds a lone Esc waits to be told from an escape sequence (see ``__init__``).
ESC_WAIT = 0.05

#: The boxes drawn over the table (``TableApp.overlay``); None: the table itself.
HELP, HISTORY, SUMMARY, CONFIRM = "help", "history", "summary", "confirm"


class TableApp(ABC):
    """The application that draws the table, with the boxes over it and the question line.

    ``bindings`` makes the keys for this screen; ``input``/``output``
    default to the terminal (tests pass a pipe and a virtual terminal);
    ``clock`` replaces the loop's for countdowns.
    """

    def __init__(self, bindings: Callable[[Self], KeyBindings], *, offer_again: bool = False,
                 summary_seconds: float | None = None, input: Input | None = None, output: Output | None = None,
                 clock: Callable[[], float] | None = None,
                 again_label: str = "a new table") -> None:
        self.model = ScreenModel()
        self.offer_again = offer_again
        #: What ``n`` on the end box does: a new table (``play``), a rematch (LAN).
        self.again_label = again_label
        self.picker = HandPicker()
        self.scroll = LogScroll()
        #: The question being typed on the question line; None: the line is hidden.
        self.flow: Question | None = None
        self.message: tuple[str, str] | None = None
        #: The box over the table (:data:`HELP`, :data:`HISTORY`, :data:`SUMMARY`, :data:`CONFIRM`).
        self.overlay: str | None = None
        #: How long a deal's summary stays up by itself (a LAN table, where the
        #: others go on); None: until a key (against bots).
        self.summary_seconds = summary_seconds
        self.summary_until: float | None = None
        self.help_offset = 0
        #: The keys the help lists instead of the table's (a replay's); None: the table's.
        self.help_keys: tuple[tuple[str, str], ...] | None = None
        #: The end box offers its keys (nothing is closing any more).
        self.end_ready = False
        self._clock = clock
        self._app_task: asyncio.Task[None] | None = None
        self._tick_task: asyncio.Task[None] | None = None
        self._log_capture = LogCapture(lambda text: self._note(text, "warn"))
        self.prompt_buffer = Buffer(multiline=False, accept_handler=self._on_answer)
        self.view_layout = TableLayout(self)
        self.app: Application[None] = Application(
            layout=self.view_layout.layout, key_bindings=self._guarded(bindings(self)),
            style=TABLE_STYLE,
            full_screen=True, mouse_support=True, min_redraw_interval=0.05,
            input=input, output=table_output(output))
        # A lone Esc (close help, clear a selection) is told from the start of an
        # escape sequence by waiting for more bytes: prompt_toolkit waits 0.5 s, and
        # 1 s more for multi-key bindings, which this table has none of. Local
        # terminals send a sequence's bytes together, so 50 ms is plenty.
        self.app.ttimeoutlen = ESC_WAIT
        self.app.timeoutlen = ESC_WAIT

    # -- a window too small for the table ------------------------------------------------

    #: What Ctrl-C does, for the notice in a window too small for the table.
    way_out = "Ctrl-C leaves the table (the other players are told)"

    def too_small(self) -> tuple[int, int] | None:
        """The window's (columns, rows) when it is smaller than the table; else None."""
        try:
            size = self.app.output.get_size()
        except Exception:  # noqa: BLE001 - an output that cannot say: draw the table
            return None
        if size.columns < MIN_COLUMNS or size.rows < MIN_ROWS:
            return size.columns, size.rows
        return None

    def _guarded(self, table_keys: KeyBindings) -> KeyBindingsBase:
        """The screen's keys while the table is drawn; while the window is too small to
        draw it, no key acts unseen: every key is swallowed but Ctrl-C, the way out the
        notice shows."""
        small = Condition(lambda: self.too_small() is not None)
        notice = KeyBindings()

        @notice.add(Keys.Any, filter=small)
        def _swallow(event: KeyPressEvent) -> None:
            return None

        @notice.add("c-c", filter=small, eager=True)
        def _way_out(event: KeyPressEvent) -> None:
            self.leave_now()

        return merge_key_bindings([ConditionalKeyBindings(table_keys, ~small), notice])

    def leave_now(self) -> None:
        """Ctrl-C: leave at once (each kind of screen says how)."""
        return None

    # -- what each kind of screen says ---------------------------------------------------

    @abstractmethod
    def press(self, key: str) -> None:
        """A key with no binding of its own at the table (a letter, a digit, Enter)."""

    @abstractmethod
    def action_bar(self, width: int) -> Line:
        """The bar under the hand: the keys that act now."""

    @abstractmethod
    def answer(self, flow: Question, text: str) -> None:
        """Enter on the question line: ``text`` answers ``flow``."""

    def cancel_flow(self) -> None:
        """Esc on the question line."""
        self.close_question()
        self.message = None
        self._invalidate()

    def clock_tick(self) -> None:
        """Once a second while a countdown runs, before the redraw (by default: nothing)."""
        return None

    @property
    def deciding(self) -> bool:
        """This seat's move is asked (the hand's keys act)."""
        return False

    def shown_view(self) -> Engine | None:
        """The view the hand is drawn from."""
        return self.model.view

    def playable(self) -> set[int] | None:
        """The slots that may be played now; None: no dimming."""
        return None

    def click_card(self, index: int) -> None:
        """A click on a card of the hand: nothing (a seat's screen selects it while deciding)."""
        return None

    # -- what the panels ask -------------------------------------------------------------

    def now(self) -> float:
        if self._clock is not None:
            return self._clock()
        try:
            return asyncio.get_running_loop().time()
        except RuntimeError:
            return 0.0

    def hand(self) -> list[HandCard]:
        """This seat's hand in the order shown (the labels the plain commands use)."""
        view, me = self.shown_view(), self.model.me
        if view is None or me is None:
            return []
        if view.awaiting_deal or view.outcome is not None:
            return []
        return labelled_hand(view, me)

    def history_text(self) -> list[str]:
        model = self.model
        return model.history.lines(model.names(), model.me, model.view, symbols=True)

    def summary_seconds_left(self) -> int | None:
        """Whole seconds before a LAN table's summary closes by itself, or None."""
        if self.summary_until is None or self.overlay != SUMMARY:
            return None
        return max(0, int(self.summary_until - self.now() + 0.999))

    # -- the boxes over the table --------------------------------------------------------

    def show_summary(self) -> None:
        """Put a finished deal's summary over the table until it is read."""
        if self.model.summary is None or self.overlay is not None or self.model.ending:
            return
        self.overlay = SUMMARY
        if self.summary_seconds is not None:
            self.summary_until = self.now() + self.summary_seconds
            shown = self.model.summary
            with contextlib.suppress(RuntimeError):  # no loop: nothing to time
                asyncio.get_running_loop().call_later(
                    self.summary_seconds, lambda: self._summary_timed_out(shown))

    def _summary_timed_out(self, shown: Summary | None) -> None:
        if self.overlay == SUMMARY and self.model.summary is shown:
            self.close_overlay()

    def show_history(self) -> None:
        """``r``: the scoreboard and this deal's record, over the table until a key."""
        self.overlay, self.help_offset = HISTORY, 0
        self._invalidate()

    def show_help(self) -> None:
        self.overlay, self.help_offset = HELP, 0
        self._invalidate()

    def scroll_help(self, delta: int) -> None:
        self.help_offset = max(0, self.help_offset + delta)
        self._invalidate()

    def close_overlay(self) -> None:
        if self.overlay == SUMMARY:
            self.model.summary, self.summary_until = None, None
        self.overlay = None
        self._invalidate()

    # -- reading keys --------------------------------------------------------------------

    def move(self, delta: int) -> None:
        self.picker.move(delta, self.hand())
        self._invalidate()

    def escape(self) -> None:
        self.picker.clear()
        self.message = None
        self._invalidate()

    def scroll_log(self, delta: int) -> None:
        self.scroll.scroll(delta, len(self.model.visible_log()))
        self._invalidate()

    def toggle_details(self) -> None:
        """Every single cryptographic check in the log, or one line per stage."""
        self.model.show_details = not self.model.show_details
        self.scroll.to_end()
        self.message = ("info", "The log shows every single check (v: one line per stage)."
                        if self.model.show_details else
                        "The log shows one line per stage of checks (v: every single check).")
        self._invalidate()

    # -- the question line ---------------------------------------------------------------

    def open_question(self, flow: Question, message: str) -> None:
        """Ask ``flow``'s question on the question line, its default answer typed in."""
        self.flow = flow
        self.set_answer(flow.default)
        self.message = ("info", message)
        if self.app.is_running:
            self.view_layout.focus_prompt(self.app)
        self._invalidate()

    def set_answer(self, text: str) -> None:
        """Put ``text`` on the question line, the cursor after it."""
        self.prompt_buffer.text = text
        self.prompt_buffer.cursor_position = len(text)

    def close_question(self) -> None:
        if self.flow is None:
            return
        self.flow = None
        self.prompt_buffer.text = ""
        if self.app.is_running:
            self.view_layout.focus_table(self.app)

    def _on_answer(self, buffer: Buffer) -> bool:
        if self.flow is not None:
            self.answer(self.flow, buffer.text)
        return True  # the text is managed here

    # -- messages ------------------------------------------------------------------------

    def note(self, text: str) -> None:
        """A line from the program (e.g. the address a hosted table listens on) for the log."""
        self._note(text, "info")

    def _note(self, text: str, kind: str) -> None:
        self.model.note(clean(text, 300), kind)
        self._invalidate()

    def _refuse(self, text: str) -> None:
        """A key that cannot act: say why (and log it); nothing else changes."""
        self.message = self.model.refused(text)
        self._invalidate()

    def _invalidate(self) -> None:
        self.app.invalidate()

    # -- running -------------------------------------------------------------------------

    @property
    def app_task(self) -> asyncio.Task[None] | None:
        """The running application (None: not shown)."""
        return self._app_task

    async def start(self) -> None:
        """Show the screen (the application runs on this loop until :meth:`stop`)."""
        if self._app_task is not None:
            return
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
            await stop_task(self._tick_task)
        if self._app_task is not None:
            future = self.app.future
            if self.app.is_running and future is not None and not future.done():
                self.app.exit()
            try:
                # asyncio.wait, not suppress(CancelledError): a stop of this task lands.
                await asyncio.wait({self._app_task})
            except asyncio.CancelledError:
                self._app_task.cancel()  # stopped while the screen closes: it closes too
                raise
            finally:
                self._log_capture.stop()
            if not self._app_task.cancelled():
                self._app_task.exception()  # the screen's failure is not this stop's
        self._app_task = self._tick_task = None

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(TICK)
            if self.model.seconds_left(self.now()) is not None:
                self.clock_tick()
                self._invalidate()
            elif self.summary_seconds_left() is not None:
                self._invalidate()  # the summary's own countdown ("goes on in 3 s")
