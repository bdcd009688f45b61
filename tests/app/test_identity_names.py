"""An identity that cannot break: names are checked where they are set, and a
damaged name is reported, never replaced, and repaired with the key kept."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BOUND = 60


def run_cli(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(home / "config"),
           "XDG_STATE_HOME": str(home / "state")}
    return subprocess.run([sys.executable, "-m", "p2pcards", *args], env=env,
                          capture_output=True, text=True, timeout=BOUND)


def identity_file(home: Path) -> Path:
    return home / "config" / "p2pcards" / "identity.json"


@pytest.mark.parametrize("name, says", [
    ("", "a name cannot be empty"),
    ("   ", "a name cannot be empty"),
    ("x" * 33, "a name is at most 32 characters, not 33"),
    ("Eve\x1b[2J", "a name cannot hold the control character U+001B"),
    ("Bob\nAlice", "a name cannot hold the control character U+000A"),
])
def test_a_name_the_others_would_refuse_is_a_sentence_and_nothing_is_saved(tmp_path: Path, name: str,
                                                                          says: str) -> None:
    first = run_cli(["whoami", "--name", "Zoe"], tmp_path)
    before = identity_file(tmp_path).read_bytes()
    refused = run_cli(["whoami", "--name", name], tmp_path)
    assert refused.returncode == 2 and says in refused.stderr
    assert "Traceback" not in refused.stderr and refused.stdout == ""
    assert identity_file(tmp_path).read_bytes() == before
    assert run_cli(["whoami"], tmp_path).stdout == first.stdout  # still works, unchanged


def test_a_table_command_refuses_an_empty_name_before_anything_starts(tmp_path: Path) -> None:
    refused = run_cli(["play", "topper", "--bot", "random", "--name", ""], tmp_path)
    assert refused.returncode == 2 and "a name cannot be empty" in refused.stderr
    assert not (tmp_path / "state").exists() and not identity_file(tmp_path).exists()


@pytest.mark.slow
def test_a_damaged_name_is_reported_and_whoami_name_repairs_it_keeping_the_key(tmp_path: Path) -> None:
    made = run_cli(["whoami", "--name", "Zoe"], tmp_path)
    fingerprint = made.stdout.split()[1]
    path = identity_file(tmp_path)
    record = json.loads(path.read_text())
    record["name"] = ""  # what an older version saved for `whoami --name ""`
    path.write_text(json.dumps(record))
    damaged = path.read_bytes()

    for command in (["whoami"], ["saved"]):
        reported = run_cli(command, tmp_path)
        assert reported.returncode == 1 and "Traceback" not in reported.stderr
        assert "p2pcards whoami --name NAME (your key is kept)" in reported.stderr
        assert path.read_bytes() == damaged  # never silently replaced

    repaired = run_cli(["whoami", "--name", "Zoe"], tmp_path)
    assert repaired.returncode == 0, repaired.stderr
    assert repaired.stdout.split() == ["Zoe", fingerprint]
    assert json.loads(path.read_text())["seed"] == record["seed"]
    assert run_cli(["saved"], tmp_path).returncode == 0


def test_a_file_whose_key_is_damaged_is_never_replaced_even_when_a_name_is_given(tmp_path: Path) -> None:
    path = identity_file(tmp_path)
    path.parent.mkdir(parents=True)
    path.write_text('{"format": 1, "seed": "00", "name": "Zoe"}')
    refused = run_cli(["whoami", "--name", "Ann"], tmp_path)
    assert refused.returncode == 1 and "the seed is not 32 bytes of hex" in refused.stderr
    assert path.read_text() == '{"format": 1, "seed": "00", "name": "Zoe"}'
