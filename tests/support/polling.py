"""Waiting in tests for a condition, always bounded: the suite's one polling helper.

A test never sleeps a fixed time and then looks; it waits for the thing it
expects (or for a later event that proves the moment has passed). ``until``
is for coroutines, ``eventually`` for plain code driving processes.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

#: Seconds a wait allows unless told otherwise: room for a loaded two-core machine
#: (a load of 8 runnable processes and beyond; it bounds a failure, never a pass).
TIMEOUT = 60.0


class WaitTimedOut(AssertionError, TimeoutError):
    """The condition did not hold in time: a test failure (``AssertionError``) that
    ``except TimeoutError`` also catches, as ``asyncio.wait_for`` callers expect."""


def _failure(what: str, timeout: float, describe: Callable[[], str] | None) -> WaitTimedOut:
    shown = f"\n{describe()}" if describe is not None else ""
    return WaitTimedOut(f"timed out after {timeout:g} s waiting for {what}{shown}")


async def until(predicate: Callable[[], T | None], timeout: float = TIMEOUT, *,
                what: str = "the condition", interval: float = 0.01,
                describe: Callable[[], str] | None = None) -> T:
    """Poll ``predicate`` on the running loop until it returns something true; that value.

    ``WaitTimedOut`` after ``timeout`` seconds, naming ``what`` (and showing
    ``describe()``, e.g. a screen, when given)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if loop.time() > end:
            raise _failure(what, timeout, describe)
        await asyncio.sleep(interval)


def eventually(predicate: Callable[[], T | None], timeout: float = TIMEOUT, *,
               what: str = "the condition", interval: float = 0.1,
               describe: Callable[[], str] | None = None) -> T:
    """``until`` for blocking code (processes, tmux panes): polls with ``time.sleep``."""
    end = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > end:
            raise _failure(what, timeout, describe)
        time.sleep(interval)
