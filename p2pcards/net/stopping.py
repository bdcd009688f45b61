"""Stopping a task from a clean-up path without taking its cancel as ours.

``task.cancel()`` then ``with suppress(CancelledError): await task`` swallows a
cancel of the *waiting* task too, should one land while it waits: a stop (Ctrl-C,
a closing host) then goes unheard and the waiter plays on (the stall
:mod:`p2pcards.net.inbox` had). ``asyncio.wait`` never raises the task's own
end, so here the waiter's cancel still lands.
"""

from __future__ import annotations

import asyncio
from typing import Any


async def stop_task(task: asyncio.Future[Any], *, quiet: bool = False) -> None:
    """Cancel ``task`` and wait until it has ended. Its failure (an exception other
    than its cancel) is raised here, unless ``quiet``; a cancel of the task that
    waits here propagates as usual."""
    task.cancel()
    await asyncio.wait({task})
    if task.cancelled():
        return
    error = task.exception()  # retrieved either way: never "never retrieved"
    if error is not None and not quiet:
        raise error


__all__ = ["stop_task"]
