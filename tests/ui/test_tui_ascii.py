"""The full-screen table's ASCII look, for terminals that cannot draw its symbols."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from test_tui_harness import F1, headless, shows
from test_tui_screen import deciding, run, seat_everyone
from ui_scenes import bluff_respond

from p2pcards.ui import console


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
