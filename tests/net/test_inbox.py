"""The table task's wait on its inbox: a stop from outside always stops it.

A seat whose task was cancelled while the wait reaped its queue getter used to
play on (the getter's CancelledError was taken for the task's own): it wrote its
move with no link, and after the reconnect window saved a verdict naming its
host, so the resumed table stalled waiting for that seat."""

from __future__ import annotations

import asyncio
import math

import pytest

from p2pcards.net.inbox import Inbox


def test_a_cancel_at_any_step_of_the_wait_stops_the_task() -> None:
    async def run() -> list[int]:
        stopped: list[int] = []
        for steps in range(20):  # every point the wait can be suspended at, in turn
            inbox = Inbox()
            inbox.open()
            decision = asyncio.get_running_loop().create_future()
            decision.set_result(None)  # a decision came: the getter is reaped
            task = asyncio.create_task(inbox.next(decision, math.inf))  # type: ignore[arg-type]
            for _ in range(steps):
                await asyncio.sleep(0)
            if task.done():
                assert task.result().decided
                return stopped
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            stopped.append(steps)
        raise AssertionError("the wait never ended by itself")

    stopped = asyncio.run(run())
    assert len(stopped) >= 2  # cancelled before the wait and while it reaped the getter


def test_an_item_is_kept_when_a_decision_comes_first() -> None:
    async def run() -> tuple[bool, object]:
        inbox = Inbox()
        inbox.open()
        decision = asyncio.get_running_loop().create_future()
        decision.set_result(None)
        woken = await inbox.next(decision, math.inf)  # type: ignore[arg-type]
        await inbox.put(("host", None, b"frame"))  # type: ignore[arg-type]  # no connection needed
        later = await inbox.next(None, math.inf)
        return woken.decided, later.item

    decided, item = asyncio.run(run())
    assert decided and item == ("host", None, b"frame")
