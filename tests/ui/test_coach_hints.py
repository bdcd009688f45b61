"""``hint``: the coach at a table against bots, refused at a LAN table (plain mode and the command
line); on the full screen its line is read whole, and ``r`` lists the player's own discards."""

from __future__ import annotations

import asyncio
import random

from p2pcards.app.front import FrontEnd, coach_line
from p2pcards.bots.coach import advise
from p2pcards.cards import FULL_DECK, Card, Rank
from p2pcards.commands.options import build_parser
from p2pcards.commands.settings import front_options
from p2pcards.rules.bluff import BluffState, Discard, Pass, faces_for_hands
from p2pcards.rules.topper import PassBid
from p2pcards.ui.plain import HINT_HELP, PlainAgent
from p2pcards.ui.text_common import HINTS_OFF, faces_as_symbols
from p2pcards.ui.text_summary import bluff_record
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


# --- the coach's line is read whole, and r lists your discards ---------------------------------

def _six_aces() -> BluffState:
    """Dave (seat 3) holds one Ace; Alice, Bob and Carol claimed two Aces each."""
    state = BluffState.new(None, 0)
    state.deal(faces_for_hands({3: [Card.parse(w) for w in
                                    ("AS", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H",
                                     "JH", "QH", "KH")]}, FULL_DECK))
    for seat in range(3):
        state.apply(Discard(seat, tuple(slot for slot, _ in state.hand(seat))[:2], 10,
                            Rank.ACE if seat == 0 else None))
    return state


def test_the_coachs_line_is_shown_whole_on_the_status_line_at_80_columns() -> None:
    """The coach's why quotes the count (longer than the two rows a message used to get,
    where it was cut mid-sentence): the status line grows to show all of it."""
    from tests.ui.test_tui_harness import drawn, headless, shows
    from tests.ui.test_tui_screen import deciding, run, seat_everyone

    view = _six_aces().view(3)

    async def scene() -> tuple[list[str], str]:
        async with headless(80, 24, coach=coach_line) as (screen, keys, term):
            seat_everyone(screen, 3)
            task = await deciding(screen, view, term)
            keys.send_text("w")
            await shows(term, "Coach:")
            await drawn(screen, term)
            expected = faces_as_symbols(
                advise(view, random.Random("coach:0"), screen.model.names()).text())
            lines = term.text.split("\n")
            task.cancel()
            return lines, expected
    lines, expected = run(scene())
    assert len(expected) > 2 * 78  # more than the two rows a message had
    first = next(i for i, line in enumerate(lines) if line.startswith(" Coach:"))
    last = next(i for i in range(first, len(lines)) if lines[i].startswith("─"))
    shown = " ".join(" ".join(lines[first:last]).split())
    assert shown == " ".join(expected.split())
    assert "at most 3 can be true" in shown


def test_r_lists_your_own_discards_and_what_the_others_claimed() -> None:
    """Dave sheds two cards claimed as Aces (2H 3H: a bluff); r then lists them as his
    discards under their own ranks, beside the Aces the others claimed."""
    from tests.ui.test_tui_harness import headless, shows
    from tests.ui.test_tui_screen import run, seat_everyone

    state = _six_aces()
    mine = tuple(slot for slot, face in state.hand(3) if face in (Card.parse("2H"), Card.parse("3H")))
    state.apply(Discard(3, mine, 10, None))
    state.apply(Pass(0))
    view = state.view(1)
    record = bluff_record(state.view(3), 3)
    assert "   2: 1 of 4 known · 2H discarded by you" in record
    assert "   3: 1 of 4 known · 3H discarded by you" in record
    assert "   A: 1 of 4 known · AS in your hand, 6 claimed by others" in record

    async def scene() -> str:
        async with headless(100, 30) as (screen, keys, term):
            seat_everyone(screen, 3)
            screen.model.set_view(state.view(3))
            keys.send_text("r")
            await shows(term, "discarded by you")
            return term.text
    del view
    text = run(scene())
    assert "2♥ discarded by you" in text and "3♥ discarded by you" in text
