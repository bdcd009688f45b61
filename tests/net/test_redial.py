"""The one redial helper (``p2pcards.net.redial``) under a fake clock: the pauses
back off with jitter and stay bounded, the bounds stop it, a restart forgets
the failures, and cancelling it stops its wait; a run of links cut at once
(every dial succeeding) ends after its window unless a link holds."""

from __future__ import annotations

import asyncio
import random

import pytest

from p2pcards.net.redial import Churn, Redial


class FakeClock:
    """A clock that moves only when something sleeps on it."""

    def __init__(self) -> None:
        self.t = 0.0
        self.slept: list[float] = []

    def now(self) -> float:
        return self.t

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.t += seconds


def _redial(clock: FakeClock, seed: int = 1, **bounds: object) -> Redial:
    return Redial(first=0.2, most=1.0, jitter=0.25, now=clock.now, sleep=clock.sleep,
                  rng=random.Random(seed), **bounds)  # type: ignore[arg-type]


def test_pauses_double_from_first_up_to_most_less_their_jitter() -> None:
    clock = FakeClock()
    redial = _redial(clock, attempts=8)

    async def fail_six() -> list[bool]:
        return [await redial.failed() for _ in range(6)]
    assert asyncio.run(fail_six()) == [True] * 6
    bases = [0.2, 0.4, 0.8, 1.0, 1.0, 1.0]
    assert all(0.75 * base <= slept <= base for slept, base in zip(clock.slept, bases, strict=True))
    assert len(set(clock.slept)) == len(clock.slept)  # jittered: no two alike
    # Seeded jitter: the same seed gives the same attempt times.
    again = FakeClock()
    other = _redial(again, attempts=8)

    async def fail_six_again() -> None:
        for _ in range(6):
            await other.failed()
    asyncio.run(fail_six_again())
    assert again.slept == clock.slept


def test_attempts_bound_the_failures_in_a_row() -> None:
    clock = FakeClock()
    redial = _redial(clock, attempts=3)

    async def fail_until_done() -> int:
        for tries in range(1, 100):
            if not await redial.failed():
                return tries
        raise AssertionError("never gave up")
    assert asyncio.run(fail_until_done()) == 3
    assert len(clock.slept) == 2  # no pause after the last failure: it says so at once


def test_the_window_bounds_the_time_spent_redialling() -> None:
    clock = FakeClock()
    redial = _redial(clock, window=3.0)

    async def fail_until_done() -> float:
        for _ in range(100):
            if not await redial.failed():
                return clock.t
        raise AssertionError("never gave up")
    ended = asyncio.run(fail_until_done())
    assert 3.0 <= ended <= 3.0 + 1.0  # the last pause began inside the window


def test_a_restart_forgets_the_failures_and_starts_a_new_window() -> None:
    clock = FakeClock()
    redial = _redial(clock, window=2.0)

    async def scenario() -> tuple[bool, bool]:
        while await redial.failed():
            pass
        exhausted = redial.exhausted()
        redial.restart(window=10.0)  # the link came up, then was lost
        clock.slept.clear()
        return exhausted, await redial.failed()
    exhausted, again = asyncio.run(scenario())
    assert exhausted and again
    assert 0.15 <= clock.slept[0] <= 0.2  # the backoff starts from the first pause again


def test_cancelling_stops_the_wait() -> None:
    async def scenario() -> bool:
        never = asyncio.get_running_loop().create_future()

        async def sleep_forever(seconds: float) -> None:
            await never

        redial = Redial(first=0.2, most=1.0, attempts=5, sleep=sleep_forever, rng=random.Random(2))
        task = asyncio.create_task(redial.failed())
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return task.cancelled()
    assert asyncio.run(scenario())


def test_a_redial_must_be_bounded() -> None:
    with pytest.raises(ValueError):
        Redial(first=0.2, most=1.0, now=lambda: 0.0)
    with pytest.raises(ValueError):
        Redial(first=0.2, most=0.1, attempts=3, now=lambda: 0.0)


def test_links_cut_at_once_end_after_the_window_from_the_first_cut() -> None:
    churn = Churn(steady=5.0, window=10.0)
    cuts = [churn.cut(held=0.5, now=t) for t in (1.0, 1.6, 6.0, 10.9)]
    assert cuts == [False, False, False, False]
    assert churn.cut(held=0.5, now=11.0)  # 10 s since the first short link was cut
    assert churn.cuts == 5


def test_a_link_that_held_ends_the_run_of_cut_links() -> None:
    churn = Churn(steady=5.0, window=10.0)
    assert not churn.cut(held=0.5, now=1.0)
    assert not churn.cut(held=5.0, now=10.0)  # it held: the run is over
    assert churn.since is None and churn.cuts == 0
    assert not churn.cut(held=0.5, now=12.0)  # a new run, from here
    assert not churn.cut(held=0.5, now=21.9)
    assert churn.cut(held=0.5, now=22.0)
