"""A crash on an output error is never a signed leave for anyone.

``p2pcards play bluff --plain | head -5``: the host's own seat dies on the
broken pipe. Its bots are stopped as its process winds down, which is no
decision of theirs: the record holds no leave, no verdict, and ``resume``
plays the table to its end with nobody named.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BOUND = 180


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_STATE_HOME": str(home / "state")}


def _into_head(home: Path, args: list[str], lines: int) -> str:
    """Run ``p2pcards ARGS | head -LINES``; what the command wrote on stderr."""
    with subprocess.Popen(
            [sys.executable, "-m", "p2pcards", *args], env=_env(home),
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True) as command:
        assert command.stdout is not None and command.stderr is not None
        try:
            head = [command.stdout.readline() for _ in range(lines)]  # what `head` reads
            command.stdout.close()  # ... and then it exits
            command.wait(timeout=BOUND)
            errors = command.stderr.read()
        finally:
            if command.poll() is None:
                command.kill()
    assert all(head), head
    return errors


def test_play_into_a_closed_pipe_signs_no_leave_and_resumes_with_nobody_named(tmp_path: Path) -> None:
    errors = _into_head(tmp_path, ["play", "bluff", "--plain", "--name", "Me", "--deals", "1",
                                   "--pace", "0"], 5)
    assert errors == "", errors

    tables = tmp_path / "state" / "p2pcards" / "tables"
    (session,) = list(tables.iterdir())
    assert sorted(p.name for p in session.glob("*/verdict")) == []  # nobody's table ended
    assert not (session / "relay" / "notices").exists()  # no leave, no alert was signed

    resumed = subprocess.run(
        [sys.executable, "-m", "p2pcards", "resume", "--plain", "--bot", "heuristic",
         "--pace", "0"], env=_env(tmp_path), stdin=subprocess.DEVNULL, capture_output=True,
        text=True, timeout=BOUND)
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "Match over:" in resumed.stdout and "left the table" not in resumed.stdout
    assert "Table ended" not in resumed.stdout


def test_hosting_into_a_closed_pipe_ends_quietly_signing_nothing(tmp_path: Path) -> None:
    errors = _into_head(tmp_path, ["host", "bluff", "--plain", "--bots", "3", "--bot",
                                   "heuristic", "--no-advertise", "--bind", "127.0.0.1",
                                   "--deals", "1", "--pace", "0"], 2)
    assert errors == "", errors  # not "cannot host on ...", not a traceback
    tables = tmp_path / "state" / "p2pcards" / "tables"
    assert not list(tables.glob("*/*/verdict")) and not list(tables.glob("*/relay/notices"))
