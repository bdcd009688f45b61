"""The full-screen table's ASCII look, for terminals that cannot draw its symbols."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from p2pcards.ui import console
from tests.ui.test_tui_harness import F1, headless, shows
from tests.ui.test_tui_screen import deciding, run, seat_everyone
from tests.ui.test_tui_tmux import TMUX, Tmux
from tests.ui.ui_scenes import bluff_respond


@pytest.fixture
def look() -> Iterator[None]:
    yield
    console.choose_look(None)


def screen_text(ascii: bool | None, help_box: bool = False) -> tuple[str, list[str]]:
    console.choose_look(ascii)

    async def scene() -> tuple[str, list[str]]:
        async with headless() as (screen, keys, term):
            seat_everyone(screen, 1)
            task = await deciding(screen, bluff_respond().view(1), term)
            if help_box:
                keys.send_text(F1)
                await shows(term, "Help")
            text, lines = term.text, term.lines
            task.cancel()
            return text, lines
    return run(scene())


def test_the_ascii_look_draws_every_cell_in_ascii_where_the_symbols_were(look: None) -> None:
    symbols, _ = screen_text(None)
    text, lines = screen_text(True)
    assert "♥" in symbols and "│" in symbols and "▶" in symbols
    assert text.isascii()
    assert len(lines) == 24 and all(len(line) == 80 for line in lines)
    hand_row = next(line for line in lines if "KH" in line and "2D" in line)
    assert hand_row.split() == ["2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "10D",
                                "JD", "KD", "KH", "KS"]
    assert "> YOUR TURN" in text and "Seat 0 . " in text
    # Every other cell is where it was: the look changes characters, never the layout.
    assert [len(row) for row in text.split("\n")] == [len(row) for row in symbols.split("\n")]
    assert console.to_cells(symbols) == text


def test_the_help_box_frame_is_ascii_too(look: None) -> None:
    text, _ = screen_text(True, help_box=True)
    assert "Help" in text and text.isascii() and "+" in text


# --- the real command in a real terminal (tmux) ----------------------------------------------

@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Tmux]:
    made = Tmux(tmp_path)
    try:
        yield made
    finally:
        made.kill()


def leave_at_the_first_decision(tmux: Tmux, args: list[str]) -> str:
    tmux.start(["play", "bluff", "--seed", "4", "--deals", "1", "--name", "Lou", *args])
    shown = tmux.wait_for(lambda t: "YOUR TURN" in t, "the first decision", timeout=30)
    tmux.keys("q")
    tmux.wait_for(lambda t: "Leave the table?" in t, "the leave question")
    tmux.keys("y")
    done = tmux.wait_for(lambda t: "EXITED" in t, "the program to exit", timeout=30, joined=True)
    assert "EXITED 0" in done
    return shown


@pytest.mark.skipif(TMUX is None, reason="tmux is not installed")
def test_ascii_asks_for_the_ascii_look_on_a_terminal_that_could_draw_symbols(terminal: Tmux) -> None:
    shown = leave_at_the_first_decision(terminal, ["--ascii"])
    assert shown.isascii(), shown
    assert "> YOUR TURN" in shown and "|Safe box" in shown and "p2pcards . BLUFF" in shown


@pytest.mark.skipif(TMUX is None, reason="tmux is not installed")
def test_a_terminal_in_the_c_locale_gets_the_ascii_look_by_itself(terminal: Tmux) -> None:
    # LANG=C without Python's UTF-8 fallbacks: stdout is ASCII, as on an old system.
    for variable in ("LC_ALL", "LC_CTYPE", "PYTHONIOENCODING"):
        terminal.env.pop(variable, None)
    terminal.env.update(LANG="C", PYTHONCOERCECLOCALE="0", PYTHONUTF8="0")
    shown = leave_at_the_first_decision(terminal, [])
    assert "> YOUR TURN" in shown and "|Safe box" in shown
    assert shown.isascii(), shown
