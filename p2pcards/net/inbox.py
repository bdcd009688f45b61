"""The one queue a peer session's table task reads, and how it waits on it.

Every link's reader puts what happens on one bounded queue (backpressure: a
reader waits when the table task is behind), so only one task ever touches
the table. The task waits for the next item, the agent's decision, or the
rules' next wake-up, whichever comes first.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from p2pcards.net.errors import NotRunning

if TYPE_CHECKING:
    from p2pcards.net.connection import Connection

#: What the table task reads: (kind, source, payload), as the links put them: a
#: frame from the host or from a player's direct link, the host link up (with the
#: hello's count) or down (why), the host lost for good (why, in words), this end's
#: own link set-up failed (the error: the session stops with it), or a wake.
InboxItem = (tuple[Literal["host"], "Connection", bytes]
             | tuple[Literal["direct"], int, bytes]
             | tuple[Literal["up"], "Connection", int]
             | tuple[Literal["down"], "Connection", Exception]
             | tuple[Literal["lost"], None, str]
             | tuple[Literal["failed"], None, Exception]
             | tuple[Literal["wake"], None, None])
#: Frames waiting for the table task before the links' readers wait (backpressure).
INBOX_SIZE = 1024
#: Seconds to read what already arrived before a deadline counts as missed.
LAST_LOOK = 0.05


@dataclass
class Woken:
    """What one wait brought: an item, the decision finished, or the time is up."""

    item: InboxItem | None = None
    decided: bool = False

    @property
    def timed_out(self) -> bool:
        return self.item is None and not self.decided


class Inbox:
    """The table task's queue (made once the session runs)."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[InboxItem] | None = None

    def open(self) -> None:
        self._queue = asyncio.Queue(INBOX_SIZE)

    @property
    def queue(self) -> asyncio.Queue[InboxItem]:
        """Raises :class:`NotRunning` before the session runs."""
        if self._queue is None:
            raise NotRunning("the session's inbox exists only once it runs")
        return self._queue

    async def put(self, item: InboxItem) -> None:
        await self.queue.put(item)

    def wake(self) -> None:
        """Make the table task look again (nothing to read)."""
        if self._queue is not None:
            with contextlib.suppress(asyncio.QueueFull):
                self._queue.put_nowait(("wake", None, None))

    async def next(self, decision: asyncio.Task[object] | None, wake_at: float) -> Woken:
        """Wait for the next item, ``decision`` to finish, or the loop's time
        ``wake_at`` (inf: no clock), whichever is first."""
        getter = asyncio.ensure_future(self.queue.get())
        waiting = {getter} | ({decision} if decision else set())
        loop = asyncio.get_running_loop()
        timeout = None if math.isinf(wake_at) else max(0.0, wake_at - loop.time())
        try:
            done, _ = await asyncio.wait(waiting, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
            if not done:
                # Look once more before blaming anyone: after this process was
                # suspended, its clock ran on while the socket filled, and the
                # first poll after waking reports the timer before the socket.
                done, _ = await asyncio.wait(waiting, timeout=LAST_LOOK,
                                             return_when=asyncio.FIRST_COMPLETED)
        finally:
            if not getter.done():
                # Reap the getter without taking its CancelledError as ours: a stop
                # (``task.cancel()``) that lands while we wait here must still stop the
                # task, or a stopped seat plays on and may blame the host it lost.
                getter.cancel()
                await asyncio.wait({getter})
        # Also when a decision came at once: an item taken is never lost.
        item = getter.result() if getter in done else None
        return Woken(item, decision is not None and decision in done)


__all__ = ["INBOX_SIZE", "LAST_LOOK", "Inbox", "InboxItem", "Woken"]
