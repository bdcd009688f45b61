"""``hint``: the coach at a table against bots, refused at a LAN table (plain mode and the command line)."""

from __future__ import annotations

import asyncio
import random

from p2pcards.bots.coach import advise
from p2pcards.cli import build_parser
from p2pcards.coaching import coach_line
from p2pcards.commands.settings import front_options
from p2pcards.front import FrontEnd
from p2pcards.rules.bluff import Pass
from p2pcards.rules.topper import PassBid
from p2pcards.ui.plain import HINT_HELP, PlainAgent
from p2pcards.ui.text_common import HINTS_OFF, faces_as_symbols
from tests.ui.test_plain import Typist
from tests.ui.ui_scenes import NAMES, bluff_respond, topper_bidding


def _agent(lines: list[str], hints: bool) -> tuple[PlainAgent, list[str]]:
    typist = Typist()
    typist.lines = list(lines)
    out: list[str] = []
    return PlainAgent(typist.read_line, out.append, names=NAMES,
                      coach=coach_line if hints else None), out


def test_hint_at_a_table_against_bots_prints_the_coachs_move_and_why_then_asks_again() -> None:
    agent, out = _agent(["hint", "pass"], hints=True)
    view = bluff_respond().view(1)
    assert asyncio.run(agent.decide(view)) == Pass(1)
    advice = advise(view, random.Random("coach:0"), NAMES)
    assert advice.text() in out
    assert advice.text().startswith("Coach: ")
    assert HINT_HELP in out  # the choices list it
    assert sum(line.startswith("Your command") for line in out) == 2


def test_hint_at_a_lan_table_is_refused_with_why_and_changes_nothing() -> None:
    agent, out = _agent(["hint", "pass"], hints=False)
    assert asyncio.run(agent.decide(topper_bidding().view(0))) == PassBid(0)
    assert f"Not accepted: {HINTS_OFF}." in out
    assert not any(line.startswith("Coach:") for line in out)
    assert HINT_HELP not in out


def test_the_front_end_of_play_gives_hints_and_that_of_a_lan_seat_does_not() -> None:
    """``play`` (a table against bots) gives plain mode the coach; ``host`` and ``join``
    (LAN tables) do not."""
    for words, game, on in ((["play", "bluff", "--plain"], "bluff", True),
                            (["host", "topper", "--plain"], "topper", False),
                            (["join", "--plain"], None, False)):
        args = build_parser().parse_args(words)
        front = FrontEnd(front_options(args), game, again=words[0] == "play")
        assert isinstance(front.agent, PlainAgent)
        assert (front.agent.coach is coach_line) is on, words


# --- the full screen: w ---------------------------------------------------------------------

def _screen_after_w(hints: bool) -> tuple[str, object, list[str]]:
    from tests.ui.test_tui_harness import headless, shows
    from tests.ui.test_tui_screen import deciding, run, seat_everyone

    async def scene() -> tuple[str, object, list[str]]:
        async with headless(100, 30, coach=coach_line if hints else None) as (screen, keys, term):
            seat_everyone(screen, 1)
            task = await deciding(screen, bluff_respond().view(1), term)
            bar = [h.shown for h in screen.hints()]
            keys.send_text("w")
            await shows(term, "Coach:" if hints else "hints are off")
            message = screen.message
            task.cancel()
            return term.text, message, bar
    return run(scene())


def test_w_at_a_table_against_bots_shows_the_coachs_move_and_why() -> None:
    text, message, bar = _screen_after_w(hints=True)
    advice = advise(bluff_respond().view(1), random.Random("coach:0"), NAMES)
    assert message == ("coach", faces_as_symbols(advice.text()))  # cards as the board draws them
    assert "Coach:" in text
    assert "w" in bar


def test_w_at_a_lan_table_is_refused_with_why() -> None:
    text, message, bar = _screen_after_w(hints=False)
    assert message == ("error", f"Not accepted: {HINTS_OFF}")
    assert "w" not in bar
