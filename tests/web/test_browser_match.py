"""Whole matches in a real browser (headless Chromium): a person plays Bluff and Topper by
clicks against three bots, to the end box, and leaves from it.

The table runs in this process (the same protocol and cryptography as ever, the bots as
full peers); the person's seat is the browser table, served on loopback and opened by
Chromium at its printed address. Each choice is a seeded bot's, read from the seat's
pending view, and made on the page the way a person makes it: clicking the cards, the
rank, the stake and the buttons, the mouse pressed where the element is on top. The page
must show each decision before it is clicked, close each deal's summary, show the end
box with the results, and throw no script error.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from p2pcards.ui.web import WebSeat
from tests.support.browser import Page, chromium, find_chromium
from tests.support.polling import until
from tests.support.typed import present
from tests.support.webplay import SeatTable, click_action, decision, seat_table
from tests.ui.test_tui_harness import same_action

CHROMIUM, NO_CHROMIUM = find_chromium()
needs_a_browser = pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)


async def open_table(page: Page, seat: WebSeat) -> None:
    await page.goto(present(seat.address))
    await page.wait_for("document.body.dataset.connected === 'yes'", "the page's socket")


async def play_by_clicks(table: SeatTable, page: Page) -> dict[str, int]:
    """Play the seat's decisions on ``page`` until the end box is up; what was done."""
    seat = table.seat
    done = {"decisions": 0, "summaries": 0}
    for _ in range(400):  # bounded: a one-deal match has far fewer decisions
        moment = await decision(table)
        if moment == "end":
            return done
        if moment == "summary":
            await page.wait_for("document.getElementById('summary-box').open", "the summary")
            await page.click("#summary-close")
            await until(lambda: seat.model.summary is None, 30, what="the summary read")
            done["summaries"] += 1
            continue
        pending = present(seat.agent.waiting)
        position = present(pending.decision).position
        await page.wait_for(f"document.body.dataset.decision === '{position}'",
                            f"the page to offer decision {position}")
        wanted = table.chooser.choose(pending.view)
        await click_action(page, wanted, pending.view)
        await until(pending.future.done, 30, what=f"{wanted} to be taken",
                    describe=lambda: str(seat.message))
        assert same_action(pending.future.result(), wanted)
        done["decisions"] += 1
    raise AssertionError("the match did not end")


@pytest.mark.slow
@needs_a_browser
@pytest.mark.parametrize(("game", "seed"), [("bluff", 11), ("topper", 12)])
def test_a_whole_match_by_clicks_to_the_end_box(game: str, seed: int, tmp_path: Path) -> None:
    async def run() -> None:
        async with seat_table(game, seed, tmp_path) as table, chromium(CHROMIUM) as browser:
            page = await browser.new_page()
            await open_table(page, table.seat)
            playing = asyncio.ensure_future(table.seat.play(table.hosted.result()))
            done = await play_by_clicks(table, page)
            await page.wait_for("!!document.querySelector('#end-box[open] [data-key=\"q\"]')",
                                "the end box's choices")
            box = await page.evaluate("document.getElementById('end-box').innerText")
            assert "MATCH OVER" in box and "★ winner" in box and "You (Ann)" in box
            await page.click('#end-box [data-key="q"]')
            result = await asyncio.wait_for(playing, 30)
            assert result.outcome is not None
            assert done["decisions"] >= (5 if game == "bluff" else 2)
            assert page.errors == []
    asyncio.run(run())
