"""The p2pcards command, run as a user would run it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BOUND = 180


def run_cli(args: list[str], home: Path, timeout: float = BOUND) -> subprocess.CompletedProcess:
    env = {**os.environ, "XDG_CONFIG_HOME": str(home / "config"), "XDG_STATE_HOME": str(home / "state")}
    return subprocess.run([sys.executable, "-m", "p2pcards", *args], env=env, capture_output=True,
                          text=True, timeout=timeout)


def test_whoami_creates_one_identity_and_keeps_it(tmp_path):
    first = run_cli(["whoami", "--name", "Zoe"], tmp_path)
    second = run_cli(["whoami"], tmp_path)
    assert first.returncode == 0 and first.stdout == second.stdout
    name, fingerprint = second.stdout.split()
    assert name == "Zoe" and len(fingerprint) == 14


def test_play_with_a_bot_in_my_seat_finishes_and_its_transcript_verifies(tmp_path):
    played = run_cli(["play", "topper", "--bot", "heuristic", "--target", "3", "--name", "Me"], tmp_path)
    assert played.returncode == 0, played.stderr
    assert "Match over:" in played.stdout
    transcript = played.stdout.split("p2pcards verify ")[1].strip()
    checked = run_cli(["verify", transcript], tmp_path)
    assert checked.returncode == 0, checked.stdout
    assert "OK: every signature, proof and rule checks." in checked.stdout
    assert "shuffle proofs" in checked.stdout


def test_verify_reports_a_damaged_transcript(tmp_path):
    played = run_cli(["play", "topper", "--bot", "random", "--target", "2"], tmp_path)
    transcript = Path(played.stdout.split("p2pcards verify ")[1].strip())
    data = bytearray(transcript.read_bytes())
    data[len(data) // 2] ^= 0xFF
    transcript.write_bytes(bytes(data))
    checked = run_cli(["verify", str(transcript)], tmp_path)
    assert checked.returncode == 1 and "FAILED" in checked.stdout


def test_verify_without_a_transcript_says_so(tmp_path):
    checked = run_cli(["verify", str(tmp_path / "nothing")], tmp_path)
    assert checked.returncode == 2 and "no transcript" in checked.stderr


def test_unknown_game_is_refused_with_usage(tmp_path):
    result = run_cli(["play", "poker"], tmp_path)
    assert result.returncode == 2 and "invalid choice" in result.stderr


def test_saved_lists_the_tables_played_here(tmp_path):
    run_cli(["play", "topper", "--bot", "random", "--target", "2"], tmp_path)
    listed = run_cli(["saved"], tmp_path)
    assert listed.returncode == 0 and "relay" in listed.stdout
