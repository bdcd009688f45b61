"""Checks of the same message by the seats of one process, one after another.

Why: the seats that share a process (a player and its bots in ``play``, a
host and its bots) all receive every message, and each starts its check in a
worker thread at once. Run together, each of them decodes a shuffle and
validates its few hundred points itself before any finds its proof checked
(``VALID_POINTS`` and ``PROCESS_CHECKS`` only spare work that has *finished*):
three times the work on the path every seat is waiting on. Run one after
another, the first does the work and the others find it done.

Only jobs on identical bytes wait for each other, each still makes every
check itself (a cache hit is a check that passed on these very bytes in this
process), and a job that failed leaves the next to fail on its own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class OneAtATime:
    """Runs jobs keyed by the message they check: same key, one after another."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._gates: dict[bytes, tuple[threading.Lock, int]] = {}

    def run(self, key: bytes, job: Callable[[], T]) -> T:
        with self._lock:
            gate, users = self._gates.get(key, (threading.Lock(), 0))
            self._gates[key] = (gate, users + 1)
        try:
            with gate:
                return job()
        finally:
            with self._lock:
                gate, users = self._gates[key]
                if users == 1:
                    del self._gates[key]
                else:
                    self._gates[key] = (gate, users - 1)

    def __len__(self) -> int:
        """Messages with a job running or waiting (a bound for tests: none are kept)."""
        with self._lock:
            return len(self._gates)


#: The process's gate: every session of this process checks through it.
SAME_MESSAGE = OneAtATime()
