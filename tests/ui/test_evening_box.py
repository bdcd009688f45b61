"""The evening so far on the end box and in the history (``p2pcards play``, table after table)."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from p2pcards.net.session_events import SessionResult
from p2pcards.protocol import events as proto
from p2pcards.rules.bluff.events import BluffOutcome, Termination
from p2pcards.rules.contract import Outcome
from p2pcards.rules.topper.events import TopperOutcome
from p2pcards.ui.evening_tally import EveningTally
from p2pcards.ui.tui import TableScreen
from tests.ui.test_tui_harness import drawn, headless, wait_until
from tests.ui.test_tui_screen import run, seat_everyone

BLUFF = BluffOutcome(Termination.LAST_WITH_CHIPS, (2,), (0, 0, 2000, 0), 7)
TOPPER = TopperOutcome(Termination.TARGET_REACHED, (0,), (22, 9, 4, -3), 5)
NAMES = ["Alice", "Bob", "Carol", "Dave"]


def test_the_tally_counts_wins_and_totals_by_name_over_the_matches() -> None:
    tally = EveningTally()
    assert tally.lines() == []
    tally.take(TOPPER, NAMES)
    tally.take(TOPPER, ["Bob", "Alice", "Carol", "Dave"])  # seats drawn anew
    tally.take(BLUFF, NAMES)
    assert tally.matches == 3
    assert tally.wins == {"Alice": 1, "Bob": 1, "Carol": 1, "Dave": 0}
    assert tally.totals == {"topper": {"Alice": 31, "Bob": 31, "Carol": 8, "Dave": -6},
                            "bluff": {"Alice": 0, "Bob": 0, "Carol": 2000, "Dave": 0}}
    lines = tally.lines()
    assert lines[0] == "This evening: 3 matches. Wins: Alice 1, Bob 1, Carol 1, Dave 0."
    assert "Topper points in all: Alice 31, Bob 31, Carol 8, Dave -6." in lines


def _end_of(screen: TableScreen, outcome: Outcome) -> Coroutine[Any, Any, SessionResult]:
    async def session() -> SessionResult:
        screen.on_event(proto.MatchCompleted(outcome))
        return SessionResult(outcome=outcome)
    return session()


def test_the_end_box_of_play_shows_the_evening_so_far_and_r_shows_it_too() -> None:
    async def scene() -> tuple[str, list[str]]:
        async with headless(100, 34, offer_again=True) as (screen, keys, term):
            seat_everyone(screen, 0)
            playing = asyncio.ensure_future(screen.play(_end_of(screen, TOPPER)))
            await wait_until(lambda: screen.end_ready, "the end box", term)
            keys.send_text("n")
            await asyncio.wait_for(playing, 5)
            screen.new_table()
            seat_everyone(screen, 0)
            playing = asyncio.ensure_future(screen.play(_end_of(screen, BLUFF)))
            await wait_until(lambda: screen.end_ready, "the end box", term)
            await drawn(screen, term)
            shown = term.text
            history = screen.history_text()
            keys.send_text("q")
            await asyncio.wait_for(playing, 5)
            return shown, history
    shown, history = run(scene())
    assert "This evening: 2 matches. Wins: Alice 1, Carol 1, Bob 0, Dave 0." in shown
    assert "This evening: 2 matches." in "\n".join(history)


def test_a_lan_table_shows_no_evening() -> None:
    async def scene() -> str:
        async with headless(100, 34) as (screen, keys, term):
            seat_everyone(screen, 0)
            playing = asyncio.ensure_future(screen.play(_end_of(screen, TOPPER)))
            await wait_until(lambda: screen.end_ready, "the end box", term)
            await drawn(screen, term)
            keys.send_text("q")
            await asyncio.wait_for(playing, 5)
            return term.text
    assert "This evening" not in run(scene())
