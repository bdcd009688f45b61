"""The frictions a newcomer met (issue 22), through the real command where it is
a command's behaviour: a clock option that would be ignored, a dial to nothing,
a refusal said once, option names that line up, a table number out of range."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.app.test_cli import _Found, run_cli
from tests.support.typed import present


@pytest.mark.parametrize("args", [
    ["join", "--connect", "127.0.0.1:9", "--deadline", "5"],
    ["resume", "--deadline", "30"],
])
def test_join_and_resume_refuse_a_deadline_instead_of_ignoring_it(tmp_path: Path, args: list[str]) -> None:
    done = run_cli(args, tmp_path, timeout=30)
    assert done.returncode == 2 and done.stdout == ""
    assert f"p2pcards: {args[0]} takes no --deadline: the table clock is its host's setting" \
        in done.stderr
    assert "Traceback" not in done.stderr
    assert "--deadline" not in run_cli([args[0], "--help"], tmp_path, timeout=30).stdout
    assert "--deadline" in run_cli(["host", "--help"], tmp_path, timeout=30).stdout


def _free_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.mark.parametrize("command", ["join", "watch"])
def test_connect_to_nothing_says_no_table_answered_there(tmp_path: Path, command: str) -> None:
    port = _free_port()
    done = run_cli([command, "--connect", f"127.0.0.1:{port}", "--plain"], tmp_path, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"p2pcards: no table answered at 127.0.0.1:{port} (nothing accepts connections there): "
        f"check the address and port the host's screen shows, and that its firewall lets them in")
    # Never joined: no table "closed", no errno.
    assert "Table closed" not in done.stdout and "Errno" not in done.stdout + done.stderr


@pytest.fixture
def started_table(tmp_path: Path) -> Iterator[int]:
    """A table whose four seats are taken (the host's own seat and three bots), on loopback."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "host" / "config"),
           "XDG_STATE_HOME": str(tmp_path / "host" / "state")}
    host = subprocess.Popen(
        [sys.executable, "-m", "p2pcards", "host", "topper", "--bots", "3", "--autoplay", "random",
         "--trace", "--no-advertise", "--bind", "127.0.0.1", "--pace", "0.5", "--target", "50"],
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        text=True)
    try:
        assert host.stdout is not None
        for _ in range(200):  # bounded: the listening line comes within the first lines
            line = host.stdout.readline()
            if not line or '"listening"' in line:
                break
        yield json.loads(line)["listening"]
    finally:
        host.kill()
        host.wait(timeout=30)
        present(host.stdout).close()


def test_a_started_table_over_connect_says_its_refusal_once(tmp_path: Path, started_table: int) -> None:
    done = run_cli(["join", "--connect", f"127.0.0.1:{started_table}", "--plain"],
                   tmp_path / "joiner", timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    said = done.stdout + done.stderr
    assert said.count("started without you") == 1, said
    assert "The host refused this player: this table has started without you." in done.stdout


def test_old_option_spellings_still_work_but_the_help_shows_the_lined_up_ones(tmp_path: Path) -> None:
    from p2pcards.commands.options import build_parser
    parser = build_parser()
    old = parser.parse_args(["play", "bluff", "--level", "hard", "--bot", "random"])
    new = parser.parse_args(["play", "bluff", "--bot-level", "hard", "--autoplay", "random"])
    assert (old.bot_level, old.bot) == (new.bot_level, new.bot) == ("hard", "random")
    assert parser.parse_args(["play", "bluff"]).bot_level == "normal"
    hosted = parser.parse_args(["host", "bluff", "--bot-level", "easy", "--autoplay", "heuristic"])
    assert (hosted.bot_level, hosted.bot) == ("easy", "heuristic")
    for command in ("play", "host", "join", "resume"):
        shown = run_cli([command, "--help"], tmp_path, timeout=30).stdout
        assert "--autoplay KIND" in shown and "--bot KIND" not in shown, command
        assert "--level" not in shown.replace("--bot-level", ""), command


def test_join_by_a_number_past_the_list_says_how_many_there_are() -> None:
    from p2pcards.commands import UserError
    from p2pcards.commands.finding import pick_table as _pick_table
    found = [_Found("dup", "aaaa-0000-0000"), _Found("dup", "bbbb-0000-0000")]
    with pytest.raises(UserError) as past:
        _pick_table(found, "9")
    assert str(past.value).startswith("no table number 9: 2 tables found, numbered 1 to 2")
    with pytest.raises(UserError) as unknown:
        _pick_table(found, "Friday")
    assert "is named by its number in p2pcards tables, its name or its host key" \
        in str(unknown.value)
