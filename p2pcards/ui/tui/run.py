"""One table's session on a seat's screen: to its end or the person's leaving, then the choice at the end.

A session runs on its own task while the screen answers keys; it may end by
itself (a match played out, a verdict, the link lost), or the person may
leave outside a decision: then the signed leave notice goes out and the
session has half a second to finish. Unless the person left, the end box
then waits for his choice (``p2pcards play`` offers a new table, ``n``;
``q`` leaves). :class:`TableRun` holds that sequence and its futures; the
screen passes on the keys and draws what the run decided.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, Literal, Protocol, TypeVar

from p2pcards.net.session_events import SessionResult
from p2pcards.net.stopping import stop_task
from p2pcards.ui.tui.agent import SeatAgent
from p2pcards.ui.tui.sink import ScreenEvents
from p2pcards.ui.tui.source import SessionSource

#: What the person chose in the end box.
Choice = Literal["again", "quit"]
#: Seconds the session has to finish after the leave notice went out.
LEAVE_GRACE = 0.5
#: What a table's session returns (its result, or a spectator's).
R = TypeVar("R")


class RunScreen(Protocol):
    """The screen a :class:`TableRun` runs on."""

    agent: SeatAgent
    source: SessionSource
    events: ScreenEvents

    @property
    def app_task(self) -> asyncio.Task[None] | None:
        """The running application (None: not shown); the run stops waiting when it ends."""

    def end_shown(self) -> None:
        """The end box is up and waits for the person's choice."""

    def new_table(self) -> None:
        """Forget the last table before the next one's events arrive."""


class TableRun:
    """Runs sessions on one screen: :meth:`play` one table, :meth:`leave` and
    :meth:`choose` from the person's keys."""

    def __init__(self, screen: RunScreen) -> None:
        self.screen = screen
        #: After :meth:`play`: the person asked for a new table.
        self.again = False
        self._leave_requested: asyncio.Event | None = None
        self._choice: asyncio.Future[Choice] | None = None

    def ready(self) -> None:
        """Be ready for the person's leaving before a session runs (the screen is shown)."""
        self._leave_requested = asyncio.Event()

    def leave(self) -> None:
        """The person leaves outside the end box: stop waiting for the session."""
        if self._leave_requested is not None:
            self._leave_requested.set()

    def choose(self, choice: Choice) -> None:
        """The person's choice in the end box (before it is up, ``quit`` still leaves)."""
        if self._choice is not None and not self._choice.done():
            self._choice.set_result(choice)
        elif choice == "quit":
            self.screen.agent.leaving = True

    async def play(self, run: Awaitable[R]) -> R | SessionResult:
        """Run one table's session (``run``) until it ends or the person leaves.

        At the end, the closing box waits for the person's choice: ``again``
        is then True if he asked for a new table. Returns the session's result.
        """
        screen = self.screen
        leave_requested = self._leave_requested
        if leave_requested is None:
            leave_requested = self._leave_requested = asyncio.Event()
        self.again = False
        session_task = asyncio.ensure_future(run)
        leave_task = asyncio.ensure_future(leave_requested.wait())
        app_task = screen.app_task
        waiters: set[asyncio.Future[Any]] = {session_task, leave_task}  # Any: asyncio.wait's mixed results
        if app_task is not None:
            waiters.add(app_task)
        try:
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
            result: R | SessionResult
            if session_task.done():
                result = session_task.result()
            else:
                result = await self._leave(session_task)
        finally:
            leave_task.cancel()
            if not session_task.done():
                session_task.cancel()
        app_task = screen.app_task
        if screen.agent.leaving or app_task is None or app_task.done():
            return result
        screen.events.ended(result)
        self._choice = asyncio.get_running_loop().create_future()
        screen.end_shown()
        waited: set[asyncio.Future[Any]] = {self._choice, app_task}  # Any: asyncio.wait's mixed results
        await asyncio.wait(waited, return_when=asyncio.FIRST_COMPLETED)
        self.again = self._choice.done() and self._choice.result() == "again"
        if self.again:
            self._choice = None
            screen.new_table()
        return result

    async def _leave(self, session_task: asyncio.Future[R]) -> R | SessionResult:
        """The person left outside a decision: send the signed notice, stop the session."""
        source = self.screen.source
        await source.leave()
        await asyncio.wait({session_task}, timeout=LEAVE_GRACE)
        finished = session_task.done() and not session_task.cancelled()
        if finished and session_task.exception() is None:
            return session_task.result()
        await stop_task(session_task, quiet=True)  # a stop of this task still lands
        return source.left_result()
