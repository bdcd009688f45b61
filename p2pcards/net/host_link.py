"""A peer's link to the host: dial, say hello, queue what arrives, redial.

The link's task never touches the table: it puts what happens on the session's
one queue, in order — ``("up", connection, have)`` once the hello went out,
``("host", connection, frame)`` for each frame, ``("down", connection,
error)`` when the link is lost, and ``("lost", None, reason)`` when it gives
up (the reconnect window ran out after a loss, or the very first dial found
nobody listening), or ``("failed", None, error)`` when this end's own part of a
link fails unexpectedly (its hello, its direct-link listener): the session
stops with that error rather than blame the host for it. A first dial retries for ``FIRST_DIAL_WINDOW`` seconds a
host that listens but cut the handshake (its admission budget, a burst of
strangers may take us a moment later). Between failed dials it waits as
:class:`~p2pcards.net.redial.Redial` says (backoff with jitter, bounded by
the window). Before the table starts (``churn_ends``), links that are cut
before they held :data:`STEADY_LINK` seconds, one after another for a whole
reconnect window, end the wait too (:class:`~p2pcards.net.redial.Churn`): a
host that cuts every link at once would otherwise keep a joiner in its lobby
for ever, each dial succeeding. Nobody is named there; once the table is in
play its clock bounds a churned table (progress, not reconnects, restarts it).
"""

from __future__ import annotations

import asyncio
import errno
import logging
import socket
from collections.abc import Awaitable, Callable

from p2pcards.net.connection import Connection
from p2pcards.net.errors import NetError
from p2pcards.net.inbox import InboxItem
from p2pcards.net.redial import Churn, Redial
from p2pcards.protocol import frames
from p2pcards.wiremap import WireMap

log = logging.getLogger(__name__)

#: Seconds a first dial may retry a host that cut the handshake (not one refusing outright).
FIRST_DIAL_WINDOW = 3.0
#: Seconds after a first failed dial (doubling per failure, at most ``MAX_REDIAL_DELAY``,
#: with jitter: :class:`~p2pcards.net.redial.Redial`); a lost link is redialled at once.
REDIAL_DELAY = 0.2
MAX_REDIAL_DELAY = 1.0
#: Seconds a link to the host must stay up to count as one that held (see the module doc).
STEADY_LINK = 5.0

Post = Callable[[InboxItem], Awaitable[None]]


#: The errors that say no route leads to the host's address from here.
_UNREACHABLE = frozenset({errno.EHOSTUNREACH, errno.ENETUNREACH, errno.EHOSTDOWN, errno.ENETDOWN,
                          errno.EADDRNOTAVAIL})


def why_unreached(error: BaseException) -> str:
    """Why a dial did not reach the host, in the person's words (never an OSError's
    ``[Errno …]`` text): refused, unreachable, timed out, an unknown name, or the
    handshake's own sentence."""
    if isinstance(error, ConnectionRefusedError):
        return "refused: nothing accepts connections on that port"
    if isinstance(error, TimeoutError) or getattr(error, "errno", None) == errno.ETIMEDOUT:
        return "timed out: nothing answered"
    if isinstance(error, socket.gaierror):
        return "unknown address: that name could not be looked up"
    if isinstance(error, OSError) and error.errno in _UNREACHABLE:
        return "unreachable: no route to that address from this network"
    if isinstance(error, NetError):
        return f"the link's handshake failed: {error}"
    if isinstance(error, OSError) and error.strerror:
        return f"the connection failed: {error.strerror.lower()}"
    return f"the connection failed ({type(error).__name__})"


class HostLink:
    """Keeps one session's link to the host (see the module docstring)."""

    def __init__(self, connector: Callable[[], Awaitable[Connection]], post: Post,
                 reconnect_window: float, churn_ends: Callable[[], bool] = lambda: False) -> None:
        self.connector = connector
        self.post = post
        self.reconnect_window = reconnect_window
        #: Whether a reconnect window of links cut at once ends the wait now (the
        #: session says: before its table starts).
        self.churn_ends = churn_ends
        self.connected_once = False
        #: Why the last dial that gave up failed, in words (:func:`why_unreached`).
        self.unreached: str | None = None

    async def run(self, hello: Callable[[Connection], Awaitable[WireMap]]) -> None:
        """Until cancelled or given up; ``hello(connection)`` makes the hello's
        body for a new link. Should it fail unexpectedly (this end's own set-up,
        such as its direct-link listener), the session hears of that failure
        (``failed``) instead of waiting for nothing, or of a host that cannot be
        reached when it was not the host's doing."""
        try:
            await self._run(hello)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - reported to the table task
            log.info("the link to the host failed: %r", error)
            await self.post(("failed", None, error))

    async def _run(self, hello: Callable[[Connection], Awaitable[WireMap]]) -> None:
        # The first dial's window, then the reconnect window after each loss.
        redial = Redial(first=REDIAL_DELAY, most=MAX_REDIAL_DELAY, window=FIRST_DIAL_WINDOW)
        churn = Churn(steady=STEADY_LINK, window=self.reconnect_window)
        loop = asyncio.get_running_loop()
        while True:
            try:
                connection = await self.connector()
            except (TimeoutError, OSError, NetError) as error:
                refused = not self.connected_once and isinstance(error, ConnectionRefusedError)
                if refused or not await redial.failed():
                    self.unreached = why_unreached(error)
                    await self.post(("lost", None, f"cannot reach the host ({self.unreached})"))
                    return
                continue
            self.connected_once = True
            up_at = loop.time()
            try:
                body = await hello(connection)
                await connection.send(frames.encode("hello", body))
                await self.post(("up", connection, body["have"]))
                while True:
                    await self.post(("host", connection, await connection.recv()))
            except NetError as error:
                connection.close()
                await self.post(("down", connection, error))
                now = loop.time()
                if churn.cut(now - up_at, now) and self.churn_ends():
                    self.unreached = (f"{churn.cuts} links in a row were cut within "
                                      f"{STEADY_LINK:g} s of opening")
                    await self.post(("lost", None, f"cannot keep a link to the host: {self.unreached}"))
                    return
                redial.restart(self.reconnect_window)
            except BaseException:
                connection.close()  # this end failed, or was stopped: no socket left open
                raise
