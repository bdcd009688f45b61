"""How the table is laid out on the screen, from 80×24 up.

::

    title bar: game, deal or hand, link state, help and leave keys
                    [ the seat across the table ]
    [ seat on your left ]   the board   [ seat on your right ]
    your seat: chips or score, link, turn and countdown
    your hand, drawn as cards
    the action bar (only the legal keys) / the rank or stake question
    the status line (whose turn, or why a key was refused)
    the log of the table's events (takes whatever height is left)

Boxes float over it for help, "leave the table?" and the end of the table.
Every panel is drawn for the size it gets; the board and the log take the
room a larger window gives.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from prompt_toolkit.application.current import get_app
from prompt_toolkit.filters import Condition
from prompt_toolkit.layout import (
    ConditionalContainer,
    Float,
    FloatContainer,
    HSplit,
    Layout,
    VSplit,
    Window,
)
from prompt_toolkit.layout.controls import BufferControl, FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension as D
from prompt_toolkit.widgets import Frame

from p2pcards.ui.tui.bars import status_line, title_line
from p2pcards.ui.tui.board import board_lines
from p2pcards.ui.tui.control import DrawnControl
from p2pcards.ui.tui.dialogs import (
    confirm_lines,
    ending_height,
    ending_lines,
    help_length,
    help_lines,
    history_lines,
    summary_height,
    summary_lines,
)
from p2pcards.ui.tui.drawn_screen import DrawnScreen
from p2pcards.ui.tui.hand import hand_lines
from p2pcards.ui.tui.lines import Lines, wrapped
from p2pcards.ui.tui.logview import log_lines
from p2pcards.ui.tui.seats import BOTTOM, LEFT, RIGHT, TOP, seat_panel

if TYPE_CHECKING:
    from prompt_toolkit.application import Application

#: The smallest window the table is drawn in (columns, rows); a smaller one shows a notice.
MIN_COLUMNS, MIN_ROWS = 80, 24
#: Rows the status line may grow to for the coach's advice (other messages: two), so that
#: it is read whole at the smallest window (the log keeps three rows there).
COACH_ROWS = 4
#: Width of the box across the table.
ACROSS = D(min=30, preferred=46, max=52)
DIALOG_WIDTH = D(min=40, preferred=70, max=76)


class TableLayout:
    """The windows of the table for one screen (a :class:`~p2pcards.ui.tui.app.TableApp`)."""

    def __init__(self, screen: DrawnScreen) -> None:
        self.screen = screen
        self.hand_window = Window(DrawnControl(self._hand, focusable=True), height=3)
        self.prompt_window = Window(BufferControl(screen.prompt_buffer),
                                    style="class:prompt.input", height=1)
        flow_open = Condition(lambda: screen.flow is not None)

        def seat(place: int) -> DrawnControl:
            return DrawnControl(lambda w, h: seat_panel(screen.model, place, w, h, screen.now()))

        title = Window(DrawnControl(lambda w, h: [title_line(screen.model, w)]), height=1)
        across = VSplit([Window(width=D(weight=1)), Window(seat(TOP), width=ACROSS),
                         Window(width=D(weight=1))], height=3)
        middle = VSplit([
            Window(seat(LEFT), width=self._side),
            Window(width=1, char="│", style="class:dim"),
            Window(DrawnControl(lambda w, h: board_lines(screen.model, w, h)),
                   width=D(min=30, preferred=500)),
            Window(width=1, char="│", style="class:dim"),
            Window(seat(RIGHT), width=self._side),
        ], height=self._middle)
        mine = Window(seat(BOTTOM), height=1)
        bar = Window(DrawnControl(lambda w, h: [screen.action_bar(w)]), height=1)
        question = VSplit([
            Window(FormattedTextControl(lambda: [("class:prompt", f" {screen.flow.question} ")]
                                        if screen.flow is not None else []),
                   dont_extend_width=True),
            self.prompt_window,
        ])
        status = Window(DrawnControl(self._status, height=self._status_height),
                        height=self._status_rows)
        log = Window(DrawnControl(lambda w, h: log_lines(screen.model.visible_log(), screen.scroll, w, h),
                                  wheel=screen.scroll_log), height=D(min=3, preferred=1000))
        body = HSplit([
            title, across, middle, mine, self.hand_window, bar,
            ConditionalContainer(question, filter=flow_open),
            status, Window(height=1, char="─", style="class:dim"), log,
        ])
        help_box = Frame(Window(DrawnControl(self._help)), title="Help", style="class:dialog",
                         width=D(min=40, preferred=78, max=78))
        confirm_box = Frame(Window(DrawnControl(confirm_lines), height=3), title="Leave",
                            style="class:dialog", width=DIALOG_WIDTH)
        end_box = HSplit([Frame(Window(DrawnControl(self._ending, height=self._ending_height)),
                                title=lambda: screen.model.ending.title if screen.model.ending
                                else "")], style=self._ending_style, width=DIALOG_WIDTH)
        summary_box = Frame(
            Window(DrawnControl(lambda w, h: summary_lines(
                screen.model, screen.summary_seconds_left(), w, h),
                height=lambda w: summary_height(screen.model, w))),
            title=lambda: screen.model.summary.title if screen.model.summary else "",
            style="class:dialog", width=DIALOG_WIDTH)
        history_box = Frame(Window(DrawnControl(lambda w, h: history_lines(
            screen.history_text(), w, h))), title="History", style="class:dialog",
            width=D(min=40, preferred=78, max=78))
        self.root = FloatContainer(body, floats=[
            Float(ConditionalContainer(end_box, filter=Condition(
                lambda: screen.model.ending is not None and screen.overlay is None))),
            Float(ConditionalContainer(help_box, filter=Condition(
                lambda: screen.overlay == "help")), top=1, bottom=1),
            Float(ConditionalContainer(confirm_box, filter=Condition(
                lambda: screen.overlay == "confirm"))),
            Float(ConditionalContainer(summary_box, filter=Condition(
                lambda: screen.overlay == "summary"))),
            Float(ConditionalContainer(history_box, filter=Condition(
                lambda: screen.overlay == "history")), top=1, bottom=1),
        ])
        small = Condition(lambda: screen.too_small() is not None)
        notice = Window(DrawnControl(self._too_small), style="class:dialog")
        self.layout = Layout(HSplit([ConditionalContainer(self.root, filter=~small),
                                     ConditionalContainer(notice, filter=small)]),
                             focused_element=self.hand_window)

    def _too_small(self, width: int, height: int) -> Lines:
        """The notice in a window too small for the table: its size, the size needed,
        and the one key that acts meanwhile."""
        size = self.screen.too_small() or (width, height)
        text = (f"Window too small for the table: {size[0]}×{size[1]}, it needs at least "
                f"{MIN_COLUMNS}×{MIN_ROWS}. Make it larger to go on; no other key acts "
                f"meanwhile. {self.screen.way_out}.")
        return wrapped(f" {text}", width, "class:dialog", indent=" ")[:height]

    @staticmethod
    def _side() -> D:
        """The side seats: a quarter of the window, 18 to 30 columns."""
        columns = get_app().output.get_size().columns
        return D.exact(max(18, min(30, columns // 4)))

    @staticmethod
    def _middle() -> D:
        """The board's rows: six at 24 rows, up to ten in a taller window."""
        rows = get_app().output.get_size().rows
        return D.exact(6 + max(0, min(4, (rows - 24) // 4)))

    def _hand(self, width: int, height: int) -> Lines:
        screen = self.screen
        empty = ("(the public view: no player's hand is shown)"
                 if screen.model.observer
                 else "(no cards in your hand)")
        return hand_lines(screen.hand(), screen.picker, width, playable=screen.playable(),
                          active=screen.deciding, on_click=screen.click_card,
                          empty=empty)

    def _status(self, width: int, height: int) -> Lines:
        message = self.screen.message
        if message is not None and height > 1:
            kind, text = message
            lines = wrapped(f" {text}", width, f"class:status.{kind}", indent="   ")
            if len(lines) > height:  # never cut silently: the whole line is in the log
                lines = lines[:height - 1] + wrapped(
                    "   … (the whole line is in the log)", width, f"class:status.{kind}")
            if len(lines) > 1:
                return lines[:height]
        return [status_line(self.screen.model, message, width)]

    def _status_rows(self) -> D:
        """Exactly the rows the message needs (the log below yields them first)."""
        return D.exact(self._status_height(get_app().output.get_size().columns))

    def _status_height(self, width: int) -> int:
        message = self.screen.message
        if message is None:
            return 1
        rows = len(wrapped(f" {message[1]}", width, indent="   "))
        return min(COACH_ROWS if message[0] == "coach" else 2, rows)

    def _help(self, width: int, height: int) -> Lines:
        screen = self.screen
        total = help_length(screen.model.game, width, screen.help_keys)
        screen.help_offset = max(0, min(screen.help_offset, total - height + 1))
        return help_lines(screen.model.game, screen.help_offset, width, height, screen.help_keys)

    def _ending(self, width: int, height: int) -> Lines:
        screen = self.screen
        return ending_lines(screen.model, screen.offer_again, screen.end_ready, width, height,
                            screen.again_label)

    def _ending_height(self, width: int) -> int:
        return ending_height(self.screen.model, width)

    def _ending_style(self) -> str:
        ending = self.screen.model.ending
        kind = ending.kind if ending is not None else "result"
        return "class:dialog class:dialog.verdict" if kind != "result" else \
            "class:dialog class:dialog.result"

    def focus_table(self, app: Application[None]) -> None:
        app.layout.focus(self.hand_window)

    def focus_prompt(self, app: Application[None]) -> None:
        app.layout.focus(self.prompt_window)
