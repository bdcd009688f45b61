"""The scrolling log of the table's events, newest at the bottom.

The log follows new lines unless the player scrolled back (PgUp, the mouse
wheel); then it holds still until he scrolls down again, and says how many
newer entries are below. Only the entries that fit are wrapped and drawn.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2pcards.ui.tui.lines import Lines, pad, wrapped
from p2pcards.ui.tui.model import LogLine


class LogScroll:
    """How far back the log is scrolled, in entries from the newest."""

    def __init__(self) -> None:
        self.back = 0
        self._seen = 0

    def follow(self, total: int) -> None:
        """The log now has ``total`` entries: a scrolled-back view stays where it is."""
        if self.back and total > self._seen:
            self.back += total - self._seen
        self._seen = total
        self.back = min(self.back, max(0, total - 1))

    def scroll(self, delta: int, total: int) -> None:
        """Positive: back in time; negative: towards the newest (the log has ``total`` entries)."""
        self.follow(total)
        self.back = max(0, min(self.back + delta, max(0, total - 1)))

    def to_end(self) -> None:
        self.back = 0


def log_lines(entries: Sequence[LogLine], scroll: LogScroll, width: int, height: int) -> Lines:
    """The visible part of the log for ``width`` × ``height`` cells."""
    if height <= 0:
        return []
    scroll.follow(len(entries))
    end = len(entries) - scroll.back
    room = height - (1 if scroll.back else 0)
    rows: Lines = []
    index = end - 1
    while index >= 0 and len(rows) < room:
        entry = entries[index]
        rows = wrapped(entry.text, max(10, width - 1), f"class:log.{entry.kind}") + rows
        index -= 1
    rows = rows[-room:] if room > 0 else []
    if scroll.back:
        rows.append([("class:log.more", f"↓ {scroll.back} newer entries: PgDn or End")])
    return [pad([("", " ")] + row, width) for row in rows]
