"""Through the real command: a person plays ``p2pcards play --plain`` against bots,
the process is killed (``kill -9``) mid-deal, and ``p2pcards resume`` shows the
same log and the same history (the cards the calls showed) as before the kill."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

BOUND = 120.0
PROMPT = "Your command (help lists them):"
SEED = "5"


class _Person:
    """A ``p2pcards`` process in plain mode, with a test typing its commands."""

    def __init__(self, home: Path, *args: str) -> None:
        env = {**os.environ, "XDG_CONFIG_HOME": str(home / "config"),
               "XDG_STATE_HOME": str(home / "state"), "P2PCARDS_INSECURE_SEED": "1"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "p2pcards", *args], env=env, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def prompt(self, after: int) -> int:
        """Wait for a prompt past line ``after``; its index."""
        end = time.monotonic() + BOUND
        while time.monotonic() < end:
            for index in range(after, len(self.lines)):
                if self.lines[index] == PROMPT:
                    return index
            if self.process.poll() is not None and not self._reader.is_alive():
                break
            time.sleep(0.02)
        raise AssertionError(f"no prompt; last lines: {self.lines[-8:]}")

    def type(self, command: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()

    def history(self, after: int) -> list[str]:
        """Type ``history``; the lines it printed."""
        self.type("history")
        shown = self.prompt(after + 1)
        return self.lines[after + 1:shown]

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=30)
        self._reader.join(timeout=10)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()


def _choices(lines: list[str], prompt: int) -> str:
    """The commands a decision at ``prompt`` offers (from its "Your choices" block)."""
    start = max(i for i in range(prompt) if lines[i] == "Your choices:")
    return "\n".join(lines[start:prompt])


def _event_lines(lines: list[str]) -> list[str]:
    """What the printer said of the table from the players' key commitments on:
    without the person's screens of the table, its choices, prompts and answers,
    and the lines of ``history`` (what the person asked for, not the log)."""
    out, in_block = [], False
    first = next((i for i, line in enumerate(lines) if line.startswith("✓")), len(lines))
    for line in lines[first:]:
        if line.startswith(("BLUFF - deal", "Scoreboard:")):
            in_block = True
        if not in_block and line != PROMPT and not line.startswith(("Not accepted:", "You have")):
            out.append(line)
        if line == PROMPT:
            in_block = False
    return out


@pytest.mark.slow
def test_resume_after_kill_9_shows_the_log_and_the_history_as_before(tmp_path: Path) -> None:
    person = _Person(tmp_path, "play", "bluff", "--plain", "--name", "Me", "--pace", "0",
                     "--seed", SEED, "--deals", "3", "--no-bell")
    try:
        at, called, tries = 0, False, 0
        for _ in range(60):  # bounded: a few of the person's turns
            at = person.prompt(at)
            choices = _choices(person.lines, at)
            if called and any("shown" in line for line in person.history(at)):
                at = person.prompt(at + 1)
                break
            rejected = person.lines[at - 1].startswith("Not accepted")
            tries = tries + 1 if rejected else 0
            if "challenge (c" in choices and not rejected:
                command, called = "c", True
            else:
                command = ["p", "d 1", "d 1 as 2"][tries % 3]
            person.type(command)
            at += 1
        else:
            raise AssertionError("no call showed cards in the person's first turns")
        before = person.history(at)
        log_before = _event_lines(person.lines)
    finally:
        person.kill()

    resumed = _Person(tmp_path, "resume", "--plain", "--seed", SEED, "--no-bell")
    try:
        at = resumed.prompt(0)
        after = resumed.history(at)
        log_after = _event_lines(resumed.lines)
    finally:
        resumed.kill()

    assert resumed.lines[0].startswith("Resuming your table")
    assert log_after == log_before
    assert after == before
    assert any("shown" in line for line in after), after
    assert not any("dropped; reconnecting" in line for line in resumed.lines)
