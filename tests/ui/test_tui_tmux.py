"""The real ``p2pcards play`` in a real terminal (tmux): a person plays by keys, or leaves.

Each test starts its own tmux server (``-L`` with a unique name, no user
config), types with ``send-keys``, reads the screen with ``capture-pane``,
and kills the server at the end whatever happens.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support import eventually

REPO = Path(__file__).resolve().parents[2]
TMUX = shutil.which("tmux")
pytestmark = pytest.mark.skipif(TMUX is None, reason="tmux is not installed")
#: Seconds a whole short match may take end to end.
MATCH_BOUND = 90.0


class Tmux:
    """One private tmux server running one command in a 100×30 window."""

    def __init__(self, home: Path, columns: int = 100, rows: int = 30) -> None:
        self.name = f"p2pcards-test-{uuid.uuid4().hex[:12]}"
        self.columns, self.rows = columns, rows
        self.env = {**os.environ, "XDG_CONFIG_HOME": str(home / "config"),
                    "XDG_STATE_HOME": str(home / "state"), "TERM": "xterm-256color",
                    "P2PCARDS_INSECURE_SEED": "1"}  # seeded matches (tests only)

    def _tmux(self, *args: str) -> subprocess.CompletedProcess[str]:
        assert TMUX is not None  # the module is skipped without tmux
        return subprocess.run([TMUX, "-L", self.name, "-f", os.devnull, *args], env=self.env,
                              capture_output=True, text=True, timeout=10)

    def start(self, args: list[str]) -> None:
        command = " ".join([sys.executable, "-m", "p2pcards", *args])
        shell = f"cd {REPO} && {command}; echo EXITED $?; sleep 600"
        started = self._tmux("new-session", "-d", "-x", str(self.columns), "-y", str(self.rows),
                             shell)
        assert started.returncode == 0, started.stderr

    def keys(self, *keys: str) -> None:
        self._tmux("send-keys", *keys)

    def screen(self, joined: bool = False) -> str:
        """The visible pane; ``joined`` rejoins lines the terminal wrapped at its
        width (``-J``), for text printed after the full-screen table closed,
        where a long path decides where a phrase is cut."""
        return self._tmux("capture-pane", "-p", *(["-J"] if joined else [])).stdout

    def kill(self) -> None:
        self._tmux("kill-server")

    def wait_for(self, found: Callable[[str], bool], what: str, timeout: float = 20.0,
                 joined: bool = False) -> str:
        def shown() -> str | None:
            text = self.screen(joined)
            return text if found(text) else None
        return eventually(shown, timeout, what=what, describe=lambda: self.screen(joined))


@pytest.fixture
def tmux(tmp_path: Path) -> Iterator[Tmux]:
    terminal = Tmux(tmp_path)
    try:
        yield terminal
    finally:
        terminal.kill()


def _status(text: str) -> str:
    """The status line: the first line under the action bar that says whose turn it is."""
    for line in text.split("\n"):
        stripped = line.strip()
        if stripped.startswith(("Your turn", "Waiting for", "Not accepted", "MATCH OVER",
                                "Match over")):
            return stripped
    return ""


def _next_move(text: str, card: int) -> list[str] | None:
    """The keys a simple player presses on this screen, or None (nothing to do yet).

    He bids 1 when he may, names hearts, and plays the ``card``-th card from
    the left (the screen refuses one that does not follow suit; he then tries
    the next).
    """
    if "any key: back to the table" in text:
        return ["Enter"]  # a hand's summary waits for a key (against bots)
    if "MATCH OVER" in text and " q  leave" in text:
        return ["q"]
    status = _status(text)
    if "YOUR TURN" not in text:
        return None
    if status.startswith("Your turn to bid"):
        return ["1"] if " 1-6  bid" in text else ["p"]
    if status.startswith("Your turn: you won the bidding"):
        return ["h"]
    # "cannot pass now": a bid key pressed on a screen drawn just before the
    # bidding ended (a loaded machine); the play of the cards is his turn now.
    if status.startswith(("Your turn to lead", "Your turn: follow",
                          "Not accepted: you must follow", "Not accepted: you cannot pass now")):
        return ["Home"] + ["Right"] * (card % 6) + ["Enter"]
    return None


def play_to_the_end(tmux: Tmux, first: str) -> tuple[list[str], list[str], str]:
    """Play by keys until the end box shows; the screens seen and the keys pressed."""
    moves: list[str] = []
    screens: list[str] = []
    card = 0
    end = time.monotonic() + MATCH_BOUND
    text = first
    while not ("MATCH OVER" in text and " q  leave" in text):
        assert "EXITED" not in text, f"the program ended early:\n{text}"
        assert time.monotonic() < end, f"the match did not end:\n{text}"
        keys = _next_move(text, card)
        if keys is None:
            time.sleep(0.1)
            text = tmux.screen()
            continue
        screens.append(text)
        before = text
        tmux.keys(*keys)
        moves.append(" ".join(keys))
        text = tmux.wait_for(lambda t, b=before: t != b, "the screen to change", timeout=20)  # type: ignore[misc]
        if keys[-1] == "Enter":
            card = card + 1 if "Not accepted: you must follow" in text else 0
    return screens, moves, text


def test_play_topper_by_keys_to_the_end_of_the_match(tmux: Tmux) -> None:
    # Heuristic bots, first to 5: hands are scored (and summed up) before the match ends.
    tmux.start(["play", "topper", "--bot-kind", "heuristic", "--pace", "0", "--seed", "5",
                "--target", "5", "--name", "Tess"])
    first = tmux.wait_for(lambda t: "YOUR TURN" in t, "the first decision", timeout=30)
    assert "TOPPER" in first and "You (Tess)" in first and "score 0/5" in first
    assert "proof verified" in first and "first to 5" in first
    screens, moves, ending = play_to_the_end(tmux, first)
    assert "★ winner" in ending and "point" in ending and " n  a new table" in ending
    assert any("Big Jack" in shown for shown in screens)
    assert any(m.endswith("Enter") for m in moves) and any(m in ("1", "p") for m in moves)
    # Each scored hand's summary stayed up until a key: scores with their changes
    # (a match the first hand decides goes straight to the end box).
    if any("hand 2 " in shown for shown in screens):
        assert any(re.search(r"Hand \d scored", shown) and "Scores: " in shown
                   and "any key: back to the table" in shown for shown in screens)
    tmux.keys("q")
    done = tmux.wait_for(lambda t: "EXITED" in t, "the program to exit", timeout=30,
                         joined=True)
    assert "Match over:" in done and "EXITED 0" in done
    assert "p2pcards verify" in done


def test_a_new_table_after_the_match_then_ctrl_c_leaves_it(tmux: Tmux) -> None:
    tmux.start(["play", "topper", "--pace", "0", "--seed", "8", "--target", "1", "--name", "Nia"])
    first = tmux.wait_for(lambda t: "YOUR TURN" in t, "the first decision", timeout=30)
    play_to_the_end(tmux, first)
    tmux.keys("n")
    again = tmux.wait_for(lambda t: "YOUR TURN" in t and "MATCH OVER" not in t,
                          "a decision at the new table", timeout=30)
    assert "TOPPER · no clock · hand 1 " in again and "score 0/1" in again  # a solo table: no clock
    tmux.keys("C-c")
    done = tmux.wait_for(lambda t: "EXITED" in t, "the program to exit", timeout=30,
                         joined=True)
    assert "You left the table; the other players were told." in done and "EXITED 0" in done


def test_leaving_bluff_with_q_tells_the_others_and_exits_cleanly(tmux: Tmux) -> None:
    tmux.start(["play", "bluff", "--seed", "4", "--deals", "1", "--name", "Lou"])
    shown = tmux.wait_for(lambda t: "YOUR TURN" in t, "the first decision", timeout=30)
    assert "BLUFF" in shown and "chips" in shown and "Safe box" in shown
    tmux.keys("q")
    asked = tmux.wait_for(lambda t: "Leave the table?" in t, "the leave question")
    assert "y  leave" in asked
    tmux.keys("y")
    done = tmux.wait_for(lambda t: "EXITED" in t, "the program to exit", timeout=30,
                         joined=True)
    assert "You left the table; the other players were told." in done
    assert "EXITED 0" in done
    # The record the exit text points to verifies: it ends with your signed leave.
    transcript = done.split("p2pcards verify ")[1].split()[0]
    checked = subprocess.run([sys.executable, "-m", "p2pcards", "verify", transcript],
                             env=tmux.env, capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stdout
    assert "Table ended at deal 1: You (seat " in checked.stdout
    assert ") left the table." in checked.stdout


def test_leaving_a_host_lobby_is_quick_and_exits_0(tmux: Tmux) -> None:
    tmux.start(["host", "bluff", "--no-advertise", "--bind", "127.0.0.1", "--bots", "1",
                "--name", "Hal"])
    lobby = tmux.wait_for(lambda t: "2 of 4 joined" in t, "the lobby with a bot", timeout=30)
    assert "(bot)" in lobby and "--connect 127.0.0.1:" in tmux.screen(joined=True)
    tmux.keys("q")
    tmux.wait_for(lambda t: "Leave the table?" in t, "the leave question")
    tmux.keys("y")
    done = tmux.wait_for(lambda t: "EXITED" in t, "the program to exit", timeout=30,
                         joined=True)
    assert "You left before the table started; nothing was played." in done
    assert "EXITED 0" in done


def _at_rest(tmux: Tmux, what: str, timeout: float = 60.0) -> str:
    """The screen once it is this person's turn and two captures a moment apart agree."""
    end = time.monotonic() + timeout
    last = ""
    while time.monotonic() < end:
        text = tmux.screen()
        if "YOUR TURN" in text and text == last:
            return text
        last = text
        time.sleep(0.5)
    raise AssertionError(f"timed out waiting for {what}:\n{last}")


def _kill_9(tmux: Tmux) -> None:
    """SIGKILL the p2pcards process in the pane (a crash: no goodbye, no clean-up)."""
    shell = tmux._tmux("list-panes", "-F", "#{pane_pid}").stdout.split()[0]
    children = subprocess.run(["pgrep", "-P", shell], capture_output=True, text=True,
                              timeout=10).stdout.split()
    for pid in children:
        os.kill(int(pid), 9)
    tmux.wait_for(lambda t: "EXITED 137" in t, "the killed program's exit", timeout=30)


def test_resume_after_kill_9_shows_the_screen_as_it_was(tmp_path: Path) -> None:
    """Board, hand, status line and the log's last lines after ``resume`` are those
    the person saw before the crash (issue 22: not the lobby, not "Shuffling: 0 of 4")."""
    before_terminal = Tmux(tmp_path, 120, 40)
    try:
        before_terminal.start(["play", "bluff", "--pace", "0", "--seed", "7", "--name", "Me"])
        # The person's first turn, as the bots left it (where it falls depends on the
        # seats drawn, and so on this home's fresh key: any turn will do).
        before = _at_rest(before_terminal, "the first turn")
        _kill_9(before_terminal)
    finally:
        before_terminal.kill()
    after_terminal = Tmux(tmp_path, 120, 40)
    try:
        after_terminal.start(["resume", "--pace", "0", "--seed", "7"])
        after = _at_rest(after_terminal, "the resumed turn")
    finally:
        after_terminal.kill()
    def parts(screen: str) -> tuple[str, list[str]]:
        """The table (board, hand, status line) and the log from the key commitments on
        (the log's lobby lines before them say who joined when: not in a record)."""
        table, _, log = screen.partition("─" * 20)
        lines = [line.strip() for line in log.split("\n") if line.strip()]
        first = next((i for i, line in enumerate(lines) if line.startswith("✓ All four")), 0)
        return table, lines[first:]

    assert parts(after) == parts(before)
    assert "Shuffling: 0" not in after and "dealt. Your hand:" in after
