"""Running the full-screen table headless: a pipe for keys, a pyte terminal for the screen.

The helpers here are imported by the other ``test_tui_*`` modules; the tests
here check that the harness itself reads what the application draws.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import pyte
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from p2pcards.rules.bluff import BluffState, Challenge, Discard, Pass
from p2pcards.rules.topper import Bid, NameTrump, PassBid, Play
from p2pcards.ui.tui import TableScreen
from tests.support import until
from tests.support.typed import present

RIGHT, LEFT, HOME = "\x1b[C", "\x1b[D", "\x1b[H"
ENTER, CTRL_C, CTRL_U, F1, PAGE_UP = "\r", "\x03", "\x15", "\x1bOP", "\x1b[5~"
#: The longest wait for the screen to show something (seconds); tests never sleep longer.
WAIT = 20.0


class VirtualTerminal:
    """A pyte screen that prompt_toolkit's VT100 output writes into."""

    encoding = "utf-8"

    def __init__(self, columns: int = 80, rows: int = 24) -> None:
        self.columns, self.rows = columns, rows
        self.screen = pyte.Screen(columns, rows)
        self.stream = pyte.Stream(self.screen)

    def write(self, data: str) -> None:
        self.stream.feed(data)

    def flush(self) -> None:
        pass

    def size(self) -> Size:
        return Size(rows=self.rows, columns=self.columns)

    def output(self) -> Vt100_Output:
        return Vt100_Output(self, self.size, term="xterm-256color", enable_cpr=False)  # type: ignore[arg-type]

    @property
    def lines(self) -> list[str]:
        return list(self.screen.display)

    @property
    def text(self) -> str:
        return "\n".join(line.rstrip() for line in self.lines)

    def find(self, needle: str) -> tuple[int, int]:
        """(row, column) of the first ``needle`` on the screen (a test failure if it is not shown)."""
        for row, line in enumerate(self.lines):
            column = line.find(needle)
            if column >= 0:
                return row, column
        raise AssertionError(f"{needle!r} is not on the screen:\n{self.text}")

    def char(self, row: int, column: int) -> Any:
        return self.screen.buffer[row][column]


def click(column: int, row: int) -> str:
    """A left click (press and release) at a 0-based cell, as an SGR mouse report."""
    return f"\x1b[<0;{column + 1};{row + 1}M\x1b[<0;{column + 1};{row + 1}m"


async def wait_until(predicate: Callable[[], Any], what: str,
                     term: VirtualTerminal | None = None, timeout: float = WAIT) -> Any:
    """``tests.support.until``, showing the screen when it fails."""
    return await until(predicate, timeout, what=what, interval=0.02,
                       describe=None if term is None else lambda: term.text)


async def drawn(screen: TableScreen, term: VirtualTerminal | None = None) -> None:
    """Wait for a redraw that started after this call: the terminal then shows the present."""
    count = screen.app.render_counter
    screen.app.invalidate()
    await wait_until(lambda: screen.app.render_counter > count, "a redraw", term)


async def shows(term: VirtualTerminal, needle: str, timeout: float = WAIT) -> None:
    await wait_until(lambda: needle in term.text, repr(needle), term, timeout)


@contextlib.asynccontextmanager
async def headless(columns: int = 80, rows: int = 24,
                   **kwargs: Any) -> AsyncIterator[tuple[TableScreen, Any, VirtualTerminal]]:
    """A running :class:`TableScreen` with a pipe for keys and a virtual terminal."""
    term = VirtualTerminal(columns, rows)
    with create_pipe_input() as keys:
        screen = TableScreen(input=keys, output=term.output(), **kwargs)
        await screen.start()
        try:
            yield screen, keys, term
        finally:
            await screen.stop()


def keys_for(action: Any, screen: TableScreen) -> list[str]:
    """The key presses that make ``action`` on ``screen`` (each string sent on its own)."""
    hand = screen.hand()
    index = {entry.slot: i for i, entry in enumerate(hand)}
    if isinstance(action, (Pass, PassBid)):
        return ["p"]
    if isinstance(action, Challenge):
        return ["b"]
    if isinstance(action, Bid):
        return [str(action.tricks)]
    if isinstance(action, NameTrump):
        return [action.suit.letter.lower()]
    if isinstance(action, Play):
        return [HOME + RIGHT * index[action.slot], ENTER]
    if isinstance(action, Discard):
        presses = [HOME + RIGHT * index[slot] + " " for slot in action.slots] + ["d"]
        view = present(screen.pending).view
        if action.rank is not None and view.phase.value == "lead":
            presses.append(action.rank.label + ENTER)
        me = present(view.viewer)
        assert isinstance(view, BluffState)
        if view.min_stake_for(me) < view.stacks[me]:
            presses.append(CTRL_U + str(action.stake) + ENTER)
        return presses
    raise AssertionError(f"no keys for {action!r}")


def same_action(got: Any, wanted: Any) -> bool:
    """Equal actions: a discard's cards compared as a set (keys select them in hand order), and
    a response's rank left out or repeated alike (it can only be the round's)."""
    if isinstance(wanted, Discard) and isinstance(got, Discard):
        return (set(got.slots) == set(wanted.slots) and got.stake == wanted.stake
                and (None in (got.rank, wanted.rank) or got.rank == wanted.rank))
    return bool(got == wanted)


# --- the harness reads what the application draws -----------------------------------------

def test_the_virtual_terminal_shows_the_empty_table_at_80_by_24() -> None:
    async def run() -> str:
        async with headless() as (screen, keys, term):
            await shows(term, "Connecting to the table")
            return term.text
    text = asyncio.run(run())
    lines = text.split("\n")
    assert len(lines) == 24
    assert "p2pcards" in lines[0] and "q leave" in lines[0]
    assert "Not your turn." in text


def test_keys_sent_through_the_pipe_reach_the_screen() -> None:
    async def run() -> tuple[str, str | None]:
        async with headless() as (screen, keys, term):
            await shows(term, "Connecting")
            keys.send_text(F1)
            await shows(term, "Help")
            return term.text, screen.overlay
    text, overlay = asyncio.run(run())
    assert overlay == "help"
    assert "discard the selected cards" in text
