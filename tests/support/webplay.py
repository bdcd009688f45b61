"""Playing a browser seat in tests: a table in this process whose person's seat is a
:class:`~p2pcards.ui.web.WebSeat`, and a chosen action made the way a person makes it —
by the page's own messages, or by clicks and keys in a real browser.

The choice comes from a seeded bot reading the seat's pending view (what a person at
that seat sees); the page then has to express it, and the seat to take it, checked by
the referee as any key press is.
"""

from __future__ import annotations

import contextlib
import json
import random
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from p2pcards.app.hosted import HostedTable, TableOptions, start_hosted_table
from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.bots.agent import make_bot_factory
from p2pcards.bots.base import Bot
from p2pcards.protocol import game_wire
from p2pcards.rules.bluff import BluffConfig, BluffState, Challenge, Discard, Pass
from p2pcards.rules.bluff import Phase as BluffPhase
from p2pcards.rules.contract import Engine
from p2pcards.rules.topper import Bid, NameTrump, PassBid, Play, TopperConfig
from p2pcards.ui.plain import Coach
from p2pcards.ui.text import labelled_hand
from p2pcards.ui.web import WebSeat
from p2pcards.wiremap import WireMap
from tests.support.browser import Page
from tests.support.polling import until
from tests.support.typed import present

#: Short matches: one Bluff deal; Topper to 1 point (seeds chosen so the first hand is bid).
SHORT = {"bluff": BluffConfig(deal_cap=1), "topper": TopperConfig(target_score=1)}


def options(game: str, seed: int, root: Path | None = None, config: object = None,
            **more: Any) -> TableOptions:
    """A seeded table's options: a short match unless ``config`` says otherwise."""
    config = game_wire.by_name(game).config_to_wire(config or SHORT[game])
    return TableOptions(game=game, config=config, seed=seed, deadline=120, journal_root=root,
                        bot_kind="heuristic", **more)


@dataclass
class SeatTable:
    """A hosted table in this process: its person's browser seat and the others' bots."""

    seat: WebSeat
    hosted: HostedTable
    chooser: Bot


@contextlib.asynccontextmanager
async def seat_table(game: str, seed: int, root: Path | None = None, *, serve: bool = True,
                     lines: list[str] | None = None, coach: Coach | None = None,
                     config: object = None) -> AsyncIterator[SeatTable]:
    """A seeded table against three bots, its host's seat in the browser (``serve``: the
    page served on loopback, no browser started; ``coach``: the seat's), closed at the end."""
    said = lines if lines is not None else []
    seat = WebSeat(offer_again=True, open_browser=False, echo=said.append, coach=coach)
    if serve:
        await seat.start()
        await seat.opened()
    else:
        seat.runner.ready()
    hosted = await start_hosted_table(seeded_identity(seed, "me", "Ann"), seat,
                                      options(game, seed, root, config), bots=3,
                                      on_event=seat.on_event)
    seat.source.get_session = lambda: hosted.sessions[0]
    try:
        yield SeatTable(seat, hosted, make_bot_factory(game, "heuristic")(random.Random(seed)))
    finally:
        await hosted.close(grace=0, linger=0)
        await seat.stop()


def page_message(action: object) -> WireMap:
    """The message the page sends for ``action`` (what its buttons and keys send)."""
    if isinstance(action, (Pass, PassBid)):
        return {"type": "key", "key": "p", "slots": []}
    if isinstance(action, Challenge):
        return {"type": "key", "key": "b", "slots": []}
    if isinstance(action, Bid):
        return {"type": "key", "key": str(action.tricks), "slots": []}
    if isinstance(action, NameTrump):
        return {"type": "key", "key": action.suit.letter.lower(), "slots": []}
    if isinstance(action, Play):
        return {"type": "key", "key": "enter", "slots": [action.slot]}
    if isinstance(action, Discard):
        return {"type": "key", "key": "d", "slots": list(action.slots),
                "rank": action.rank.label if action.rank is not None else "",
                "stake": str(action.stake)}
    raise AssertionError(f"no page message for {action!r}")


def keys_for(action: object, view: Engine) -> list[str]:
    """The key presses that make a Topper ``action`` on the page (as on the full screen)."""
    if isinstance(action, PassBid):
        return ["p"]
    if isinstance(action, Bid):
        return [str(action.tricks)]
    if isinstance(action, NameTrump):
        return [action.suit.letter.lower()]
    if isinstance(action, Play):
        order = [entry.slot for entry in labelled_hand(view, present(view.viewer))]
        return ["Home"] + ["ArrowRight"] * order.index(action.slot) + ["Enter"]
    raise AssertionError(f"no keys for {action!r}")


async def click_action(page: Page, action: object, view: object) -> None:
    """Make ``action`` on the page as a person does: click the cards and the buttons."""
    if isinstance(action, (Pass, PassBid)):
        await page.click('#controls [data-key="p"]')
    elif isinstance(action, Challenge):
        await page.click('#controls [data-key="b"]')
    elif isinstance(action, Bid):
        await page.click(f'#controls [data-bid="{action.tricks}"]')
    elif isinstance(action, NameTrump):
        await page.click(f'#controls [data-key="{action.suit.letter.lower()}"]')
    elif isinstance(action, Play):
        await page.click(f'#hand [data-slot="{action.slot}"]')
    elif isinstance(action, Discard):
        await _click_discard(page, action, view)
    else:
        raise AssertionError(f"no clicks for {action!r}")


async def _click_discard(page: Page, action: Discard, view: object) -> None:
    for slot in action.slots:
        await page.click(f'#hand [data-slot="{slot}"]')
        await page.wait_for(f"document.querySelector('#hand [data-slot=\"{slot}\"]')"
                            f".getAttribute('aria-pressed') === 'true'", f"card {slot} selected")
    assert isinstance(view, BluffState)
    if view.phase is BluffPhase.LEAD and action.rank is not None:
        await page.click(f'#controls [data-rank="{action.rank.label}"]')
    await page.click("#stake")
    await page.evaluate("document.getElementById('stake').select()")
    await page.type_text(str(action.stake))
    await page.press("Tab")  # the stake is committed when the field is left
    await page.wait_for(f"document.getElementById('stake').value === {json.dumps(str(action.stake))}",
                        f"the stake {action.stake}")
    await page.click('#controls [data-key="d"]')


async def decision(table: SeatTable, timeout: float = 90.0) -> str:
    """Wait for the seat's next moment to act: ``decide``, ``summary`` or ``end``."""
    seat = table.seat

    def moment() -> str | None:
        if seat.model.summary is not None and seat.model.ending is None:
            return "summary"
        if seat.end_ready:
            return "end"
        if seat.agent.waiting is not None:
            return "decide"
        return None
    return await until(moment, timeout, what="the seat's next decision, summary or end")
