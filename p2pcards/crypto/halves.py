"""Two halves of one check at once, on two cores: libsodium runs without the GIL.

Why: between two shuffles every seat waits on one verification (about ``8N``
scalar multiplications), and at each turn of the shares round the next writer
waits on its check of the shares before (its own cards' proofs); a shuffle's
equations, or those proofs, split into two independent halves, and
libsodium's multiplications release Python's lock, so a second thread does
the other half meanwhile. The result is exactly the sequential one: both
halves always run to their end, and a failure of the first half is reported
before one of the second (the order a one-thread check finds them in).
"""

from __future__ import annotations

import contextvars
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor


class _Helper:
    """One helper thread of this process, and whether it is free."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="second-half")
        #: Held while the helper works: a check that finds it busy (another seat's)
        #: runs both halves itself rather than queue behind it.
        self.free = threading.Semaphore(1)


_helper: _Helper | None = None
_lock = threading.Lock()


def _this_process() -> _Helper | None:
    """This process's helper (a forked child makes its own), or None on one core."""
    global _helper
    if (os.cpu_count() or 1) < 2:
        return None
    with _lock:
        if _helper is None or _helper.pid != os.getpid():
            _helper = _Helper()
        return _helper


def both_halves(first: Callable[[], None], second: Callable[[], None]) -> None:
    """Run ``first`` here and ``second`` beside it; raise ``first``'s error, else ``second``'s."""
    helper = _this_process()
    if helper is None or not helper.free.acquire(blocking=False):
        first()
        second()
        return
    free = helper.free

    def beside() -> None:
        try:
            second()
        finally:
            free.release()

    # In a copy of this context: a check whose points wait for validation
    # (PendingPoints) hears of the multiplications made on the other core too.
    other = helper.pool.submit(contextvars.copy_context().run, beside)
    try:
        first()
    finally:
        failure = other.exception()  # waits: the second half never outlives the check
    if failure is not None:
        raise failure
