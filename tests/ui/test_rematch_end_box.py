"""A LAN table's end box offers a rematch (``n``) as well as leaving (``q``)."""

from __future__ import annotations

import asyncio

from tests.ui.test_tui_harness import drawn, headless, wait_until
from tests.ui.test_tui_screen import _outcome, run, seat_everyone
from tests.ui.ui_scenes import end_box_shown

LABEL = "again (a rematch, seats rotated)"


def test_a_lan_end_box_offers_a_rematch_under_its_own_name_and_n_chooses_it() -> None:
    async def scene() -> tuple[str, bool]:
        async with headless(100, 30, offer_again=True, again_label=LABEL) as (screen, keys, term):
            seat_everyone(screen, 0)
            playing, shown = await end_box_shown(screen, term, _outcome())
            keys.send_text("n")
            await asyncio.wait_for(playing, 5)
            return shown, screen.again
    shown, chose = run(scene())
    assert f" n  {LABEL}" in shown and "a new table" not in shown
    assert chose


class _Count:
    """The host's count at the end box (an EveningHost's two members the screen uses)."""

    def __init__(self) -> None:
        self.free = ["Gil"]

    @property
    def seat_free(self) -> bool:
        return bool(self.free)

    def fill_free_seat(self) -> str | None:
        return f'End box: "{self.free.pop()}"\'s seat goes to the bot "Dee".' if self.free else None


def test_the_host_fills_a_free_seat_with_b_which_shows_only_while_a_seat_is_free() -> None:
    async def scene() -> tuple[str, str, str, list[str]]:
        async with headless(100, 30, offer_again=True, again_label=LABEL) as (screen, keys, term):
            seat_everyone(screen, 0)
            await drawn(screen, term)
            before = term.text  # no wait at the end box: no b
            count = _Count()
            screen.filler = count
            await drawn(screen, term)
            offered = term.text
            keys.send_text("b")
            await wait_until(lambda: not count.free, "the seat filled", term)
            await drawn(screen, term)
            return before, offered, term.text, [line.text for line in screen.model.log]
    before, offered, after, log = run(scene())
    hint = " b  a bot takes the free seat"
    assert hint not in before and hint in offered and hint not in after
    assert 'End box: "Gil"\'s seat goes to the bot "Dee".' in log


def test_the_hosts_wait_shows_whom_it_waits_for_on_the_status_line_until_it_is_over() -> None:
    waiting = 'End box: waiting for "Kai" to choose (84 s left, then the evening ends).'

    async def scene() -> tuple[str, object, object, list[str]]:
        async with headless(100, 30, offer_again=True, again_label=LABEL) as (screen, keys, term):
            seat_everyone(screen, 0)
            screen.waiting(waiting)
            await drawn(screen, term)
            shown, during = term.text, screen.message
            screen.waiting(None)
            return shown, during, screen.message, [line.text for line in screen.model.log]
    shown, during, after, log = run(scene())
    assert during == ("info", waiting) and waiting[:60] in shown
    assert after is None  # the wait is over: the status line says whose turn it is again
    assert waiting in log


def test_the_time_left_is_refreshed_on_the_status_line_without_filling_the_log() -> None:
    first = 'End box: you chose again; waiting for the others (120 s left).'
    later = 'End box: you chose again; waiting for the others (115 s left).'

    async def scene() -> tuple[str, object, list[str]]:
        async with headless(100, 30, offer_again=True, again_label=LABEL) as (screen, keys, term):
            seat_everyone(screen, 0)
            screen.waiting(first)
            screen.waiting(later, log=False)  # the countdown's refresh
            await drawn(screen, term)
            return term.text, screen.message, [line.text for line in screen.model.log]
    shown, message, log = run(scene())
    assert message == ("info", later) and later[:60] in shown
    assert first in log and later not in log
