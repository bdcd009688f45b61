"""Lines of styled text that fit a given width: the material every panel is drawn with.

A *line* is a prompt_toolkit fragment list: ``(style, text)`` pairs, or
``(style, text, mouse_handler)`` for a clickable piece. Panels are drawn
for the width and height they are given, so the screen adapts to the
terminal's size; text is cut, never wrapped past a panel's edge.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from prompt_toolkit.formatted_text import OneStyleAndTextTuple
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType
from prompt_toolkit.utils import get_cwidth

if TYPE_CHECKING:
    from prompt_toolkit.key_binding.key_bindings import NotImplementedOrNone

Fragment = OneStyleAndTextTuple  # (style, text) or (style, text, mouse handler)
Line = list[Fragment]
Lines = list[Line]
#: What a clickable fragment calls on a mouse event (prompt_toolkit: None or NotImplemented).
MouseHandler = Callable[[MouseEvent], object]


def fragment(style: str, text: str, handler: MouseHandler | None = None) -> Fragment:
    """``(style, text)``, or ``(style, text, handler)`` when it is clickable."""
    return (style, text) if handler is None else (style, text, handler)


def width_of(line: Sequence[Fragment]) -> int:
    return sum(get_cwidth(fragment[1]) for fragment in line)


def cut(line: Sequence[Fragment], width: int) -> Line:
    """``line`` cut to at most ``width`` columns (the last shown character becomes "…")."""
    if width <= 0:
        return []
    if width_of(line) <= width:
        return list(line)
    out: Line = []
    room = width - 1
    for fragment in line:
        text = fragment[1]
        kept = ""
        for ch in text:
            w = get_cwidth(ch)
            if w > room:
                break
            kept += ch
            room -= w
        if kept:
            out.append((fragment[0], kept, *fragment[2:]))
        if len(kept) < len(text):
            break
    style = line[len(out) - 1][0] if out else ""
    out.append((style, "…"))
    return out


def pad(line: Sequence[Fragment], width: int, style: str = "") -> Line:
    """``line`` cut or filled with spaces to exactly ``width`` columns."""
    out = cut(line, width)
    room = width - width_of(out)
    if room > 0:
        out.append((style, " " * room))
    return out


def wrapped(text: str, width: int, style: str = "", indent: str = "  ") -> Lines:
    """``text`` broken into lines of at most ``width`` columns (later lines indented)."""
    if width <= len(indent) + 1:
        return [cut([(style, text)], width)]
    pieces = textwrap.wrap(text, width=width, subsequent_indent=indent,
                           break_long_words=True) or [""]
    return [[(style, piece)] for piece in pieces]


def pack(chunks: Iterable[Sequence[Fragment]], width: int, separator: str = " · ",
         sep_style: str = "class:dim") -> Lines:
    """Chunks side by side, separated, starting a new line where the next would not fit."""
    lines: Lines = []
    current: Line = []
    for chunk in chunks:
        chunk = list(chunk)
        if not chunk:
            continue
        if current and width_of(current) + len(separator) + width_of(chunk) > width:
            lines.append(current)
            current = []
        if current:
            current.append((sep_style, separator))
        current.extend(chunk)
    if current:
        lines.append(current)
    return [cut(line, width) for line in lines]


def clickable(handler: Callable[[], object]) -> Callable[[MouseEvent], NotImplementedOrNone]:
    """A mouse handler that calls ``handler`` on a click (button release) and ignores the rest."""
    def on_mouse(event: MouseEvent) -> NotImplementedOrNone:
        if event.event_type == MouseEventType.MOUSE_UP:
            handler()
            return None
        return NotImplemented
    return on_mouse


def fit(lines: Sequence[Line], width: int, height: int) -> Lines:
    """Exactly ``height`` lines (cut, or filled with blank ones), each padded to ``width``."""
    out = [pad(line, width) for line in list(lines)[:max(0, height)]]
    return out + [pad([], width) for _ in range(max(0, height) - len(out))]
