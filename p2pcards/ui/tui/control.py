"""A prompt_toolkit control drawn by a function of its size, with clickable fragments.

Every panel of the table is a :class:`DrawnControl`: prompt_toolkit tells it
the width and height it gets, the drawing function returns exactly that
many lines, and a click lands on the fragment under the mouse. Drawing from
the size (rather than from a fixed layout) is what lets the table use a
larger window.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from prompt_toolkit.layout.controls import GetLinePrefixCallable, UIContent, UIControl
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType
from prompt_toolkit.utils import get_cwidth

from p2pcards.ui.tui.lines import Lines

if TYPE_CHECKING:
    from prompt_toolkit.key_binding.key_bindings import NotImplementedOrNone

Draw = Callable[[int, int], Lines]


class DrawnControl(UIControl):
    """Shows ``draw(width, height)``; ``wheel(delta)`` gets mouse-wheel scrolls.

    A ``focusable`` control holds the keyboard focus when no text is typed.

    ``height`` (a function of the width) gives the preferred height, for a
    panel whose size follows its content.
    """

    def __init__(self, draw: Draw, *, height: Callable[[int], int] | None = None,
                 wheel: Callable[[int], object] | None = None, focusable: bool = False) -> None:
        self.draw = draw
        self.focusable = focusable
        self.height = height
        self.wheel = wheel
        self._lines: Lines = []

    def preferred_height(self, width: int, max_available_height: int, wrap_lines: bool,
                         get_line_prefix: GetLinePrefixCallable | None) -> int | None:
        if self.height is None:
            return None
        return min(max_available_height, self.height(width))

    def create_content(self, width: int, height: int | None) -> UIContent:
        lines = self.draw(width, height or 1)
        self._lines = lines
        return UIContent(get_line=lambda i: lines[i] if 0 <= i < len(lines) else [],
                         line_count=len(lines), show_cursor=False)

    def mouse_handler(self, mouse_event: MouseEvent) -> NotImplementedOrNone:
        if self.wheel is not None and mouse_event.event_type in (
                MouseEventType.SCROLL_UP, MouseEventType.SCROLL_DOWN):
            self.wheel(3 if mouse_event.event_type == MouseEventType.SCROLL_UP else -3)
            return None
        row, column = mouse_event.position.y, mouse_event.position.x
        if not 0 <= row < len(self._lines):
            return NotImplemented
        x = 0
        for fragment in self._lines[row]:
            w = get_cwidth(fragment[1])
            if x <= column < x + w:
                if len(fragment) > 2 and fragment[2] is not None:
                    return fragment[2](mouse_event)
                return NotImplemented
            x += w
        return NotImplemented

    def is_focusable(self) -> bool:
        return self.focusable
