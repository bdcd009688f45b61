"""A spectator's full screen: the players' seats by name with their bots, the table clock, no
hand, the same log and end box as a player's, and a bar that says it is watching."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

from p2pcards.app.hosted import TableOptions, start_hosted_table
from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.bots.agent import BotAgent, make_bot_factory
from p2pcards.cards import Card
from p2pcards.net.watch import WatchResult, WatchSession
from p2pcards.protocol import game_wire
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.table_settings import MOVE_TIME
from p2pcards.rules.topper import TopperConfig, TopperState
from tests.ui.test_tui_harness import headless, wait_until

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(asyncio.wait_for(coro, timeout=90))


def test_a_spectator_screen_shows_every_seat_by_name_the_bots_and_the_clock_and_no_hand(tmp_path: Path) -> None:
    async def scene() -> tuple[list[str], str, WatchResult, list[tuple[set[Card], set[Card]]]]:
        config = {**game_wire.by_name("topper").config_to_wire(TopperConfig(target_score=1)),
                  MOVE_TIME: 90}
        options = TableOptions(game="topper", config=config, seed=5, journal_root=tmp_path)
        me = seeded_identity(5, "me", "Hana")
        hosted = await start_hosted_table(
            me, BotAgent(make_bot_factory("topper", "heuristic"), 5), options, bots=3)
        sam = Identity.generate("Sam")
        held: list[WatchSession] = []
        try:
            async with headless(session=lambda: held[0] if held else None) as (screen, keys, term):
                watcher = WatchSession(sam, hosted.host.local_connector(sam),
                                       on_event=screen.on_event)
                held.append(watcher)
                midway: list[str] = []

                known: list[tuple[set[Card], set[Card]]] = []

                clocks: list[str] = []

                def in_play() -> bool:
                    view = screen.model.view
                    assert view is None or isinstance(view, TopperState)
                    ticking = re.search(r"(▶ to act|… working) +\d:\d\d", term.text)
                    if ticking and not clocks:
                        clocks.append(term.text)
                    if view is not None and view.tricks and not midway:
                        midway.append(term.text)
                        played = {card for trick in view.tricks for _, card in trick.plays}
                        played |= {card for _, card in view.current_trick}
                        known.append(({f for f in view._faces if f is not None}, played))
                    return bool(midway and clocks)

                watching = asyncio.ensure_future(watcher.run())
                await wait_until(in_play, "a trick played", term)
                result = await asyncio.wait_for(watching, 60)
                await wait_until(lambda: screen.model.ending is not None, "the end", term)
                await wait_until(lambda: "Match over" in term.text or "won" in term.text,
                                 "the end box", term)
                return midway + clocks, term.text, result, known
        finally:
            await hosted.close(grace=0.1, linger=0)

    midway, end, result, known = run(scene())
    faces, played = known[0]
    assert faces == played  # the spectator's view knows the cards played, and no other
    screen = midway[0]
    assert "Watching: every move checked, no hand shown." in screen
    assert "You" not in screen and "Hana" in screen
    # The players' marks and the table clock, as a seat's screen shows them.
    # (Counted in the seats' panels: the log may also list the lobby, bots marked.)
    marked = set(re.findall(r"Seat \d · (\S+) \(bot\)", screen))
    assert len(marked) == 3 and "Hana" not in marked and "Hana (bot)" not in screen
    assert re.search(r"(▶ to act|… working) +1:[0-3]\d", midway[1])
    assert result.outcome is not None
    # No card of any hand shows while it is held: the bottom row is not a hand.
    assert "YOUR TURN" not in screen and "Your move" not in screen
    assert "the public view: no player's hand is shown" in screen
    assert "won" in end or "Match over" in end
