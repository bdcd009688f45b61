#!/usr/bin/env python3
"""Screenshots of the browser table, for people to look at: both games, on a laptop's
window (1280x800) and a phone's (390x844).

Each game is a seeded table against bots in this process, its person's seat in the
browser (headless Chromium); the person's moves are a bot's, sent as the page sends
them, until a moment worth a picture: Bluff with a claim on the table and two cards
selected, Topper in the middle of a trick with trump named; then the deal's summary
and the end box. ``--readme`` also writes the README's picture (the Bluff table,
scaled to 960x600) to ``docs/browser-table.png``.

Usage: ``python scripts/web_screenshots.py [--out DIR] [--readme]``
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _png import small_png  # noqa: E402

from p2pcards.rules.bluff import BluffConfig, BluffState  # noqa: E402
from p2pcards.rules.bluff import Phase as BluffPhase  # noqa: E402
from p2pcards.rules.contract import Engine  # noqa: E402
from p2pcards.rules.topper import Phase as TopperPhase  # noqa: E402
from p2pcards.rules.topper import TopperConfig, TopperState  # noqa: E402
from tests.support.browser import Page, chromium, find_chromium  # noqa: E402
from tests.support.webplay import SeatTable, decision, page_message, seat_table  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
README_PICTURE = REPO / "docs" / "browser-table.png"
SIZES = {"1280x800": (1280, 800, False, 1.0), "390x844": (390, 844, True, 2.0)}
#: Seeds whose tables reach each picture's moment early, and matches long enough for a
#: deal's summary before the end box.
SEEDS = {"bluff": 11, "topper": 12}
CONFIGS = {"bluff": BluffConfig(deal_cap=2), "topper": TopperConfig(target_score=3)}


def worth_a_picture(game: str) -> Callable[[Engine], bool]:
    if game == "bluff":
        return lambda view: (isinstance(view, BluffState) and view.phase is BluffPhase.RESPOND
                             and view.last_claim is not None)
    return lambda view: (isinstance(view, TopperState) and view.phase is TopperPhase.PLAY
                         and len(view.current_trick) >= 2)


async def shoot(page: Page, out: Path, name: str) -> list[Path]:
    """The page at each size."""
    written = []
    for size, (width, height, mobile, scale) in SIZES.items():
        await page.viewport(width, height, mobile=mobile, scale=scale)
        await asyncio.sleep(0.4)  # the layout settles (fonts, images)
        path = out / f"{name}-{size}.png"
        await page.screenshot(path)
        written.append(path)
    await page.viewport(1280, 800)
    return written


async def settle(page: Page, table: SeatTable) -> None:
    """Wait until the page shows the seat's pending decision."""
    pending = table.seat.agent.waiting
    if pending is not None and pending.decision is not None:
        await page.wait_for(f"document.body.dataset.decision === '{pending.decision.position}'",
                            "the decision on the page")
    await asyncio.sleep(0.3)


async def readme_shot(page: Page, target: Path) -> Path:
    """The README's picture: the page at 1280x800, scaled to 960x600, in 256 colours."""
    await page.viewport(1280, 800)
    await asyncio.sleep(0.4)
    shot = await page.send("Page.captureScreenshot", format="png", clip={
        "x": 0, "y": 0, "width": 1280, "height": 800, "scale": 0.75})
    target.parent.mkdir(exist_ok=True)
    target.write_bytes(small_png(base64.b64decode(shot["data"])))  # a palette: a small file
    return target


async def one_game(game: str, page: Page, table: SeatTable, out: Path,
                   readme: Path | None = None) -> list[Path]:
    seat = table.seat
    written: list[Path] = []
    await page.goto(str(seat.address))
    await page.wait_for("document.body.dataset.connected === 'yes'", "the page")
    playing = asyncio.ensure_future(seat.play(table.hosted.result()))
    pictured: set[str] = set()
    wanted = worth_a_picture(game)
    for _ in range(400):
        moment = await decision(table)
        if moment == "end":
            await page.wait_for("!!document.querySelector('#end-box[open] [data-key=\"q\"]')",
                                "the end box")
            written += await shoot(page, out, f"{game}-end")
            await page.click('#end-box [data-key="q"]')
            break
        if moment == "summary":
            if "summary" not in pictured:
                pictured.add("summary")
                await page.wait_for("document.getElementById('summary-box').open", "the summary")
                written += await shoot(page, out, f"{game}-summary")
            seat.receive({"type": "summary_read"})
            continue
        pending = seat.agent.waiting
        assert pending is not None
        if "table" not in pictured and wanted(pending.view):
            pictured.add("table")
            await settle(page, table)
            if game == "bluff":
                for card in (await page.evaluate(
                        "[...document.querySelectorAll('#hand .card')].slice(3, 5)"
                        ".map((c) => c.dataset.slot)")):
                    await page.click(f'#hand [data-slot="{card}"]')
            if readme is not None:
                written.append(await readme_shot(page, readme))
            written += await shoot(page, out, f"{game}-table")
            if game == "bluff":
                await page.press("Escape")
        seat.receive(page_message(table.chooser.choose(pending.view)))
    await asyncio.wait_for(playing, 60)
    return written


async def run(out: Path, readme: bool) -> list[Path]:
    written: list[Path] = []
    async with chromium() as browser:
        for game, seed in SEEDS.items():
            with tempfile.TemporaryDirectory(prefix="p2pcards-shots-") as root:
                async with seat_table(game, seed, Path(root), config=CONFIGS[game]) as table:
                    page = await browser.new_page()
                    written += await one_game(game, page, table, out,
                                              README_PICTURE if readme and game == "bluff" else None)
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "p2pcards-shots")
    parser.add_argument("--readme", action="store_true",
                        help="also write the README's picture, docs/browser-table.png")
    args = parser.parse_args()
    if find_chromium()[0] is None:
        print(f"web_screenshots: {find_chromium()[1]}", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    for path in asyncio.run(run(args.out, args.readme)):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
