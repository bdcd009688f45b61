"""Two halves of a check at once: the same verdict, in the same order, as one after the other."""

from __future__ import annotations

import threading

import pytest

from p2pcards.crypto.halves import both_halves


class First(Exception):
    pass


class Second(Exception):
    pass


def test_both_halves_run_and_the_first_half_s_failure_comes_first() -> None:
    ran: list[str] = []

    def first() -> None:
        ran.append("first")
        raise First

    def second() -> None:
        ran.append("second")
        raise Second

    with pytest.raises(First):
        both_halves(first, second)
    assert sorted(ran) == ["first", "second"]


def test_the_second_half_s_failure_is_raised_when_the_first_passes() -> None:
    with pytest.raises(Second):
        both_halves(lambda: None, lambda: (_ for _ in ()).throw(Second()))


def test_the_halves_run_at_once_when_the_helper_is_free() -> None:
    # Each half waits for the other to have started: only two threads at once get past.
    both_started = threading.Barrier(2, timeout=10)

    def half() -> None:
        both_started.wait()

    both_halves(half, half)


def test_a_check_that_finds_the_helper_busy_runs_both_halves_itself() -> None:
    release = threading.Event()
    order: list[str] = []
    taken = threading.Event()

    def hold() -> None:
        release.wait(10)

    def hold_the_helper() -> None:
        taken.set()
        release.wait(10)

    outer = threading.Thread(target=both_halves, args=(hold, hold_the_helper))
    outer.start()  # holds the helper until released
    try:
        assert taken.wait(10)
        seen: list[threading.Thread] = []

        def second() -> None:
            order.append("b")
            seen.append(threading.current_thread())

        both_halves(lambda: order.append("a"), second)
        assert order == ["a", "b"] and seen == [threading.current_thread()]
    finally:
        release.set()
        outer.join(timeout=10)
