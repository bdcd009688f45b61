"""While the full screen owns the terminal, log records go to the table's log, not to stderr.

A warning printed to the terminal would be drawn over the table (and stay
there until the next full redraw); shown as a line of the log it is read
like any other event. The handlers that wrote to the terminal are put back
when the screen closes.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

from p2pcards.ui.text_common import clean


class ScreenLogHandler(logging.Handler):
    """Hands each record to ``note(text)`` as one short line."""

    def __init__(self, note: Callable[[str], None]) -> None:
        super().__init__(logging.WARNING)
        self.note = note

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = clean(f"{record.levelname.lower()} ({record.name}): {record.getMessage()}", 300)
            self.note(text)
        except Exception:  # a log line must never break the screen
            self.handleError(record)


class LogCapture:
    """Moves the root logger's terminal handlers aside while the screen is up."""

    def __init__(self, note: Callable[[str], None]) -> None:
        self.handler = ScreenLogHandler(note)
        self._moved: list[logging.Handler] = []

    def start(self) -> None:
        root = logging.getLogger()
        self._moved = [h for h in root.handlers if isinstance(h, logging.StreamHandler)
                       and getattr(h, "stream", None) in (sys.stderr, sys.stdout)]
        for handler in self._moved:
            root.removeHandler(handler)
        root.addHandler(self.handler)

    def stop(self) -> None:
        root = logging.getLogger()
        root.removeHandler(self.handler)
        for handler in self._moved:
            root.addHandler(handler)
        self._moved = []
