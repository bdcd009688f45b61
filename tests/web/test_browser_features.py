"""The browser table's other features in a real browser (headless Chromium): a match played
by keys alone with the coach, the chat, the help, the history and the log's details on the
way; a spectator's table; a saved table replayed by its keys and buttons."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from p2pcards.app.front import coach_line
from p2pcards.app.hosted import TableOptions, start_hosted_table
from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.app.joined import tcp_connector
from p2pcards.bots.agent import BotAgent, make_bot_factory
from p2pcards.net.watch import WatchSession
from p2pcards.protocol import game_wire
from p2pcards.protocol.identity import Identity
from p2pcards.rules.topper import TopperConfig
from p2pcards.ui.replay_steps import load_saved, replay_saved
from p2pcards.ui.web import WebSeat
from p2pcards.ui.web.replay import WebReplay
from tests.support.browser import Page, chromium
from tests.support.polling import until
from tests.support.typed import present
from tests.support.webplay import decision, keys_for, seat_table
from tests.ui.test_tui_harness import same_action
from tests.web.test_browser_match import CHROMIUM, needs_a_browser, open_table

LOOPBACK = "127.0.0.1"


async def keys(page: Page, *presses: str) -> None:
    for key in presses:
        await page.press(key)


async def text_of(page: Page, selector: str) -> str:
    return str(await page.evaluate(f"document.querySelector({selector!r}).innerText"))


@pytest.mark.slow
@needs_a_browser
def test_a_topper_match_by_keys_with_the_coach_chat_help_history_and_details(tmp_path: Path) -> None:
    async def run() -> None:
        async with seat_table("topper", 12, tmp_path, coach=coach_line) as table, \
                chromium(CHROMIUM) as browser:
            seat = table.seat
            page = await browser.new_page()
            await open_table(page, seat)
            playing = asyncio.ensure_future(seat.play(table.hosted.result()))
            first = True
            for _ in range(200):  # bounded: a one-hand match has few decisions
                moment = await decision(table)
                if moment == "end":
                    break
                if moment == "summary":
                    await page.wait_for("document.getElementById('summary-box').open", "a summary")
                    await page.press("Enter")  # any key: back to the table
                    await until(lambda: seat.model.summary is None, 30, what="the summary read")
                    continue
                pending = present(seat.agent.waiting)
                position = present(pending.decision).position
                await page.wait_for(f"document.body.dataset.decision === '{position}'",
                                    f"decision {position} on the page")
                if first:
                    first = False
                    await page.press("w")
                    await page.wait_for("document.getElementById('status').innerText"
                                        ".startsWith('Coach:')", "the coach's line")
                    await page.press("?")
                    await page.wait_for("document.getElementById('help-box').open", "the help")
                    assert "trump" in await text_of(page, "#help-body")
                    await page.press("Escape")
                    await page.press("r")
                    await page.wait_for("document.getElementById('history-box').open", "the history")
                    assert "Scoreboard" in await text_of(page, "#history-body")
                    await page.press("Escape")
                    await page.press("v")
                    await page.wait_for("document.getElementById('details').checked", "the details")
                    await page.press("t")
                    await page.type_text("good cards all round")
                    await page.press("Enter")
                    await page.wait_for("document.getElementById('log').innerText"
                                        ".includes('good cards all round')", "the chat line")
                    await page.click("#reactions button")  # gg
                    await page.wait_for("document.getElementById('log').innerText.includes(': gg')",
                                        "the quick reaction")
                wanted = table.chooser.choose(pending.view)
                await keys(page, *keys_for(wanted, pending.view))
                await until(pending.future.done, 30, what=f"{wanted} by keys",
                            describe=lambda: str(seat.message))
                assert same_action(pending.future.result(), wanted)
            await page.wait_for("!!document.querySelector('#end-box[open] [data-key=\"q\"]')",
                                "the end box")
            await page.press("q")
            assert (await asyncio.wait_for(playing, 30)).outcome is not None
            assert page.errors == []
    asyncio.run(run())


@pytest.mark.slow
@needs_a_browser
def test_a_spectator_sees_the_table_move_and_no_hand(tmp_path: Path) -> None:
    async def run() -> None:
        config = game_wire.by_name("topper").config_to_wire(TopperConfig(target_score=1))
        options = TableOptions(game="topper", config=config, seed=12, deadline=60,
                               journal_root=tmp_path, tcp_host=LOOPBACK, tcp_port=0, pace=0.15)
        hosted = await start_hosted_table(seeded_identity(12, "me", "Hana"),
                                          BotAgent(make_bot_factory("topper", "heuristic"), 12),
                                          options, bots=3)
        seat = WebSeat(open_browser=False, echo=lambda text: None, summary_seconds=1.0)
        sam = Identity.generate("Sam")
        watcher = WatchSession(sam, tcp_connector(LOOPBACK, present(hosted.host.tcp_port), sam),
                               on_event=seat.on_event)
        seat.source.get_session = lambda: watcher
        try:
            await seat.start()
            await seat.opened()
            async with chromium(CHROMIUM) as browser:
                page = await browser.new_page()
                await open_table(page, seat)
                watching = asyncio.ensure_future(seat.play(watcher.run()))
                await page.wait_for("document.querySelectorAll('.trick .played').length >= 2",
                                    "cards played on the board", 120)
                assert await page.evaluate("document.querySelectorAll('#hand .card').length") == 0
                assert "no player's hand is shown" in await text_of(page, "#hand")
                # The controls are drawn from the next view (under load, after the cards).
                await page.wait_for("document.getElementById('controls').innerText.includes('Watching')",
                                    "the spectator's controls", 60)
                assert await page.evaluate("document.getElementById('talk').hidden") is True
                await page.wait_for("!!document.querySelector('#end-box[open] [data-key=\"q\"]')",
                                    "the end box", 120)
                assert "★ winner" in await text_of(page, "#end-box")
                await page.click('#end-box [data-key="q"]')
                result = await asyncio.wait_for(watching, 30)
                assert result.outcome is not None
                assert page.errors == []
        finally:
            await hosted.close(grace=0, linger=0)
            await seat.stop()
    asyncio.run(run())


@pytest.mark.slow
@needs_a_browser
def test_a_saved_table_is_replayed_by_its_keys_and_buttons(tmp_path: Path) -> None:
    async def run() -> None:
        async with seat_table("topper", 12, tmp_path, serve=False) as table:
            seat = table.seat
            playing = asyncio.ensure_future(seat.play(table.hosted.result()))
            while not playing.done():
                pending = seat.agent.waiting
                if pending is not None:
                    pending.future.set_result(table.chooser.choose(pending.view))
                await asyncio.sleep(0.01)
            folder = present(table.hosted.sessions[0].journal).directory
        record = replay_saved(load_saved(folder))
        replay = WebReplay(record, open_browser=False, echo=lambda text: None)
        showing = asyncio.ensure_future(replay.run())
        await until(lambda: replay.address, 30, what="the replay served")
        async with chromium(CHROMIUM) as browser:
            page = await browser.new_page()
            await page.goto(present(replay.address))
            await page.wait_for("document.body.dataset.connected === 'yes'", "the replay's page")
            # The page's first parts come after its socket opens: waited for, not assumed.
            await page.wait_for("document.getElementById('controls').innerText.includes('move 0/')",
                                "the replay's first move shown")
            await page.press("End")
            await page.wait_for("!!document.querySelector('#end-box[open] [data-key=\"q\"]')",
                                "the end box at the end")
            await page.click('#end-box [data-step="previous"]')
            await until(lambda: replay.index < len(record.steps) - 1, 10, what="a move back")
            await page.press("Home")
            await until(lambda: replay.index == 0, 10, what="the start")
            await page.wait_for("!document.getElementById('end-box').open", "the end box gone")
            await page.click('#controls [data-step="next"]')
            await page.press("ArrowRight")
            await until(lambda: record.move_of(replay.index) == 2, 10, what="two moves on")
            await page.wait_for("document.getElementById('controls').innerText.includes('move 2/')",
                                "the position on the page")
            await page.press("g")
            await page.type_text("1")
            await page.press("Enter")
            await until(lambda: replay.index == record.deal_start(1), 10, what="deal 1's start")
            await page.wait_for("document.querySelectorAll('#hand .card').length === 6",
                                "the saved player's own hand")
            await page.press(" ")
            await until(lambda: record.move_of(replay.index) > 3, 30, what="the replay playing")
            await page.press("q")
            await asyncio.wait_for(showing, 30)
            assert page.errors == []
    asyncio.run(run())
