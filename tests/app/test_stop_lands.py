"""Clean-up paths that wait for tasks to end: a stop (Ctrl-C) that lands while one
of them is slow to end stops the clean-up instead of being swallowed by it, and
what must be closed still is."""

from __future__ import annotations

import asyncio

import pytest

from p2pcards.app.hosted import HostedTable
from p2pcards.net.session_events import SessionResult
from p2pcards.ui.tui.run import TableRun
from tests.net.test_stopping import _waiter_is_cancelled, stubborn

pytestmark = pytest.mark.asyncio


class _Host:
    """What HostedTable.close touches of its host."""

    journal = None

    def __init__(self) -> None:
        self.closed = False

    async def close(self) -> None:
        self.closed = True


async def test_a_stop_during_a_hosts_close_lands_and_the_host_still_closes() -> None:
    release = asyncio.Event()
    seat = asyncio.ensure_future(stubborn(release))
    host = _Host()
    hosted = HostedTable(host, tasks=[seat])  # type: ignore[arg-type, list-item]  # stand-ins
    closing = asyncio.ensure_future(hosted.close(grace=0, linger=0))
    assert await _waiter_is_cancelled(closing, release)
    assert host.closed
    await asyncio.wait({seat}, timeout=5)


class _Source:
    async def leave(self) -> None:
        pass

    def left_result(self) -> SessionResult:
        return SessionResult(reason="left")


class _Screen:
    source = _Source()


async def test_a_stop_while_leaving_a_table_whose_session_is_slow_to_end_lands() -> None:
    release = asyncio.Event()
    session = asyncio.ensure_future(stubborn(release))
    run = TableRun(_Screen())  # type: ignore[arg-type]
    leaving = asyncio.ensure_future(run._leave(session))  # type: ignore[arg-type]
    await asyncio.sleep(0.6)  # past the leave's grace (LEAVE_GRACE): it stops the session
    assert await _waiter_is_cancelled(leaving, release)
    await asyncio.wait({session}, timeout=5)
