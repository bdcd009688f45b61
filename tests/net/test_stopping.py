"""Stopping a task on a clean-up path: a cancel of the task that waits for it still
lands (``suppress(CancelledError)`` around ``await task`` swallowed it), and the
stopped task's own failure is raised or, ``quiet``, only retrieved."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from p2pcards.net.stopping import stop_task

pytestmark = pytest.mark.asyncio

#: A bound on how long a test waits for what should happen at once (never asserted on).
BOUND = 5.0


async def stubborn(release: asyncio.Event, entered: asyncio.Event | None = None) -> None:
    """A task slow to stop: every cancel before ``release`` is set is ignored."""
    if entered is not None:
        entered.set()
    for _ in range(1000):  # bounded: each turn waits for a cancel or the release
        try:
            await release.wait()
            return
        except asyncio.CancelledError:
            continue


async def _waiter_is_cancelled(waiter: asyncio.Task[Any], release: asyncio.Event) -> bool:
    """Cancel ``waiter`` (waiting for a stubborn task), then release the stubborn one:
    whether the waiter ended by that cancel."""
    for _ in range(20):  # a few loop turns: the waiter reaches its wait
        await asyncio.sleep(0)
    waiter.cancel()
    await asyncio.wait({waiter}, timeout=BOUND)
    release.set()
    await asyncio.wait({waiter}, timeout=BOUND)
    return waiter.cancelled()


async def test_a_cancel_of_the_waiter_lands_while_the_task_is_slow_to_stop() -> None:
    release = asyncio.Event()
    child = asyncio.ensure_future(stubborn(release))
    waiter = asyncio.ensure_future(stop_task(child))
    assert await _waiter_is_cancelled(waiter, release)
    await asyncio.wait({child}, timeout=BOUND)
    assert child.done()


async def test_the_stopped_tasks_failure_is_raised_unless_quiet() -> None:
    async def fails() -> None:
        try:
            await asyncio.sleep(3600)
        finally:
            raise ValueError("broke while stopping")
    for quiet in (False, True):
        child = asyncio.ensure_future(fails())
        await asyncio.sleep(0)
        if quiet:
            await stop_task(child, quiet=True)
        else:
            with pytest.raises(ValueError, match="broke while stopping"):
                await stop_task(child)
        assert child.done() and not child.cancelled()


async def test_a_session_stopped_while_it_reaps_a_slow_host_link_stops() -> None:
    """PeerSession.run's clean-up reaps its host link: a stop that lands meanwhile
    (the table ended by itself just before Ctrl-C) ends the session."""
    from p2pcards.app.insecure_seed import seeded_identity
    from p2pcards.net.connection import Connection
    from p2pcards.net.peer import PeerSession
    from p2pcards.net.session_events import SessionResult
    from tests.app.hosted import topper_bot
    entered, release = asyncio.Event(), asyncio.Event()

    async def connect() -> Connection:
        await stubborn(release, entered)
        raise ConnectionRefusedError("released")

    session = PeerSession(seeded_identity(3, "me", "Me"), topper_bot(3), connect)

    async def play() -> SessionResult:  # the table ends at once, the host link still dialling
        await entered.wait()
        return SessionResult(reason="over")
    session._play = play  # type: ignore[method-assign]
    running = asyncio.ensure_future(session.run())
    await entered.wait()
    assert await _waiter_is_cancelled(running, release)
