"""Records you can find: ``saved`` prints for each table the commands that take it
up, and ``verify``, ``replay`` and ``resume`` take its session id or a unique start
of it (your own record of the table), through the real command."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.app.test_cli import BOUND, run_cli


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """A home holding one finished solo Topper match: (home, its row in saved --json)."""
    home = tmp_path_factory.mktemp("records")
    done = run_cli(["play", "topper", "--bot", "random", "--target", "1", "--name", "Ida"], home)
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in run_cli(["saved", "--json"], home).stdout.splitlines()]
    assert len(rows) == 1
    return home, rows[0]


def _copy_session(home: Path, row: dict[str, Any], new_id: str) -> Path:
    """A second saved table: the same records under another session id."""
    session_dir = Path(row["path"]).parent
    copy = session_dir.parent / new_id
    shutil.copytree(session_dir, copy)
    return copy


@pytest.mark.slow
def test_saved_shows_your_record_its_neighbours_and_the_commands_that_take_it_up(
        played: tuple[Path, dict[str, Any]]) -> None:
    home, row = played
    listed = run_cli(["saved"], home).stdout.splitlines()
    short = row["session"][:12]
    at = next(index for index, line in enumerate(listed) if "record: " in line)
    # Which of the session folder's records is yours, and what else it holds.
    shown = listed[at].split("record: ")[1]
    assert shown == row["path"] or (shown.startswith("~") and row["path"].endswith(shown[1:]))
    whose = listed[at + 1].strip()
    assert whose.startswith("(yours; its session's folder also holds: ") and "relay" in whose
    assert whose.count("bot ") == 3
    check = listed[at + 2]
    assert check.strip().startswith("check it: ") and check.endswith(f"p2pcards verify {short} "
                                                                      f"(replay takes the same id)")
    assert "resume" not in check  # a finished table is not resumed
    assert row["others"].count("relay") == 1 and len(row["others"]) == 4
    assert row["commands"]["verify"].endswith(f"p2pcards verify {short}")
    # The command ``saved`` prints runs as printed.
    checked = subprocess.run(shlex.split(row["commands"]["verify"]), capture_output=True,
                             text=True, timeout=BOUND, env=_env(home))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "(you)" in checked.stdout


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_STATE_HOME": str(home / "state")}


@pytest.mark.slow
def test_verify_replay_and_resume_take_a_session_ids_start_meaning_your_own_record(
        played: tuple[Path, dict[str, Any]]) -> None:
    home, row = played
    prefix = row["session"][:6]
    checked = run_cli(["verify", prefix], home)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "OK: every signature, proof and rule checks." in checked.stdout
    # Your own record, not a bot's nor the relay's: it knows which seat is you.
    assert any("Ida" in line and "(you)" in line for line in checked.stdout.splitlines())
    # A whole session's folder (several records, no transcript of its own) means yours too.
    whole = run_cli(["verify", str(Path(row["path"]).parent)], home)
    assert whole.returncode == 0 and "(you)" in whole.stdout, whole.stdout + whole.stderr
    replayed = run_cli(["replay", "--plain", prefix.upper()], home)
    assert replayed.returncode == 0, replayed.stderr
    assert "with Ida's own hand" in replayed.stdout.splitlines()[0]
    resumed = run_cli(["resume", "--plain", prefix], home, timeout=60)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.startswith('Your table "Ida\'s table" is over')


@pytest.mark.slow
def test_an_unknown_or_ambiguous_session_id_is_one_sentence_naming_the_matches(played: tuple[Path, dict[str, Any]],
                                                                               tmp_path: Path) -> None:
    home, row = played
    unknown = run_cli(["verify", "0" * 9], home, timeout=30)
    assert unknown.returncode == 2 and unknown.stdout == ""
    assert "no file or folder '000000000', and no saved table's session id starts with it" \
        in unknown.stderr
    assert len(unknown.stderr.strip().splitlines()) == 1
    session = row["session"]
    twin = session[:4] + ("0" if session[4] != "0" else "1") + session[5:]
    copy = _copy_session(home, row, twin)
    try:
        for command in (["verify"], ["replay", "--plain"], ["resume", "--plain"]):
            clash = run_cli([*command, session[:4]], home, timeout=60)
            assert clash.returncode == 2, (command, clash.stdout, clash.stderr)
            said = clash.stderr.strip()
            assert len(said.splitlines()) == 1 and "Traceback" not in said
            # Both candidates named by the id they are typed by, and what to do.
            assert session[:12] in said and twin[:12] in said and "type more of the id" in said
        # One character more tells them apart.
        assert run_cli(["verify", session[:5]], home).returncode == 0
    finally:
        shutil.rmtree(copy)


def test_a_session_without_your_seat_stands_for_its_relays_record(played: tuple[Path, dict[str, Any]],
                                                                  tmp_path: Path) -> None:
    home, row = played
    # Someone else's home holds a copy of the table: the relay's record is the one read.
    other = tmp_path / "other"
    target = other / "state" / "p2pcards" / "tables" / row["session"]
    shutil.copytree(Path(row["path"]).parent, target)
    shutil.rmtree(target / Path(row["path"]).name)
    checked = run_cli(["verify", row["session"][:8]], other)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "(you)" not in checked.stdout and "OK: every signature" in checked.stdout
