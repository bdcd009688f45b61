"""The screen as its layout reads it: what the panels draw from, and nothing else.

:class:`~p2pcards.ui.tui.layout.TableLayout` builds the windows once and
draws them from the screen it belongs to at every redraw. It takes the
screen through :class:`DrawnScreen` rather than as a
:class:`~p2pcards.ui.tui.app.TableApp`, which makes the layout and owns
it: the layout depends on what it draws, not on the application.
"""

from __future__ import annotations

from typing import Protocol

from prompt_toolkit.buffer import Buffer

from p2pcards.ui.text_common import HandCard
from p2pcards.ui.tui.lines import Line
from p2pcards.ui.tui.logview import LogScroll
from p2pcards.ui.tui.model import ScreenModel
from p2pcards.ui.tui.picker import HandPicker


class Question(Protocol):
    """What the question line asks (a discard's rank and stake, a chat line, a deal's number)."""

    @property
    def question(self) -> str: ...

    @property
    def default(self) -> str: ...


class DrawnScreen(Protocol):
    """What the table's panels read of their screen at each redraw."""

    @property
    def model(self) -> ScreenModel: ...
    @property
    def flow(self) -> Question | None:
        """The question on the question line; None: the line is hidden."""
    @property
    def prompt_buffer(self) -> Buffer: ...
    @property
    def scroll(self) -> LogScroll: ...
    @property
    def picker(self) -> HandPicker: ...
    @property
    def message(self) -> tuple[str, str] | None:
        """The status line's message: (kind, text)."""
    @property
    def overlay(self) -> str | None:
        """The box over the table; None: the table itself."""
    @property
    def help_keys(self) -> tuple[tuple[str, str], ...] | None: ...
    #: The help box's first line (the layout keeps it within the help's length).
    help_offset: int
    @property
    def offer_again(self) -> bool: ...
    @property
    def end_ready(self) -> bool: ...
    @property
    def again_label(self) -> str: ...
    @property
    def way_out(self) -> str:
        """What gets out of a window too small for the table."""
    @property
    def deciding(self) -> bool: ...

    def now(self) -> float: ...
    def too_small(self) -> tuple[int, int] | None: ...
    def action_bar(self, width: int) -> Line: ...
    def hand(self) -> list[HandCard]: ...
    def playable(self) -> set[int] | None: ...
    def click_card(self, index: int) -> None: ...
    def scroll_log(self, delta: int) -> None: ...
    def summary_seconds_left(self) -> int | None: ...
    def history_text(self) -> list[str]: ...
