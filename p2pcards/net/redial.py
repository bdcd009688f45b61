"""When to dial again after a failed dial: one bounded backoff with jitter.

The link to the host (:mod:`~p2pcards.net.host_link`), a spectator's link
(:mod:`~p2pcards.net.watch`) and each direct link (:mod:`~p2pcards.net.mesh`)
redial the same way: after each failure in a row the pause doubles from
``first`` up to ``most``, each pause shortened by a random part of up to
``jitter`` of itself (so peers that lost a link at the same moment — a host
restarting, a switch rebooting — do not all dial again in the same
instant), and it gives up once ``attempts`` failures in a row or a
``window`` of seconds are used up (the window runs from when the
:class:`Redial` was made, or from the last :meth:`Redial.restart`). A pause
is never longer than ``most``. The clock, the sleep and the random draws can
be handed in, so a test runs it under a fake clock with seeded jitter.
:class:`Churn` bounds the other endless case: every dial succeeds and every
link is cut at once.
"""

from __future__ import annotations

import asyncio
import random
import secrets
from collections.abc import Awaitable, Callable

Sleep = Callable[[float], Awaitable[None]]


class Redial:
    """The pauses between failed dials of one link, bounded (see the module doc)."""

    def __init__(self, *, first: float, most: float, jitter: float = 0.25,
                 attempts: int | None = None, window: float | None = None,
                 now: Callable[[], float] | None = None, sleep: Sleep = asyncio.sleep,
                 rng: random.Random | None = None) -> None:
        if first <= 0 or most < first or not 0 <= jitter < 1:
            raise ValueError("a backoff needs 0 < first <= most and 0 <= jitter < 1")
        if attempts is None and window is None:
            raise ValueError("a redial is bounded: give attempts, a window or both")
        self.first, self.most, self.jitter = first, most, jitter
        self.attempts, self.window = attempts, window
        self._now = now or (lambda: asyncio.get_running_loop().time())
        self._sleep = sleep
        # Jitter is no secret; it only has to differ between peers.
        self._rng: random.Random = rng or secrets.SystemRandom()
        self.failures = 0
        #: When the window began (made in a running event loop, unless ``now`` is given).
        self._since = self._now()

    def restart(self, window: float | None = None) -> None:
        """A link was up (and may have been lost): failures are forgotten and the
        window (``window``, if given, from now on) starts again."""
        if window is not None:
            self.window = window
        self.failures = 0
        self._since = self._now()

    def pause(self) -> float:
        """The pause after the failures so far (the next one's length): doubled per
        failure from ``first``, at most ``most``, less up to ``jitter`` of itself."""
        base: float = min(self.most, self.first * 2 ** max(0, self.failures - 1))
        return base * (1 - self.jitter * self._rng.random())

    def exhausted(self) -> bool:
        """Whether the bounds are used up (no more dials)."""
        if self.attempts is not None and self.failures >= self.attempts:
            return True
        return self.window is not None and self._now() >= self._since + self.window

    async def failed(self) -> bool:
        """One more failed dial: wait the pause and say True to dial again, or say
        False at once when the bounds are used up. Cancelling it stops the wait."""
        self.failures += 1
        if self.exhausted():
            return False
        await self._sleep(self.pause())
        return True


class Churn:
    """Links that came up and were cut before they held ``steady`` seconds, one after
    another. Each of their dials succeeds, so a :class:`Redial` (which counts failed
    dials) never ends such a run; :meth:`cut` says when it has lasted ``window``
    seconds. A link that held ends the run. The times are handed in."""

    def __init__(self, *, steady: float, window: float) -> None:
        self.steady, self.window = steady, window
        #: When the run's first short link was cut (None: no run).
        self.since: float | None = None
        #: Short links cut in the run.
        self.cuts = 0

    def cut(self, held: float, now: float) -> bool:
        """A link was cut at ``now`` after ``held`` seconds up: True once the run of
        short links has lasted the window (dialling again gains nothing)."""
        if held >= self.steady:
            self.since, self.cuts = None, 0
            return False
        if self.since is None:
            self.since = now
        self.cuts += 1
        return now - self.since >= self.window


__all__ = ["Churn", "Redial"]
