"""The README's two commands are Python scripts that a POSIX shell hands over to Python,
checked out with LF line endings everywhere."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
COMMANDS = ("play", "test")


@pytest.mark.parametrize("name", COMMANDS)
def test_each_command_is_python_behind_a_line_a_shell_runs(name: str) -> None:
    source = (REPO / "scripts" / name).read_bytes()
    assert b"\r" not in source
    lines = source.decode("utf-8").splitlines()
    assert lines[0] == "#!/usr/bin/env python3"
    assert lines[1].startswith("''''exec \"${PYTHON:-python3}\" \"$0\" \"$@\"")
    ast.parse(source)  # and the whole file is Python (py scripts\test on Windows)


@pytest.mark.skipif(not (REPO / ".venv" / ".p2pcards-installed").exists(),
                    reason="runs the scripts against this checkout's .venv, which scripts/test makes")
@pytest.mark.parametrize("launcher", ["sh", "python"])
def test_play_runs_from_a_shell_and_from_python(launcher: str) -> None:
    if launcher == "sh" and shutil.which("sh") is None:
        pytest.skip("no POSIX shell here (Windows): py scripts\\play is the command there")
    argv = ["sh"] if launcher == "sh" else [sys.executable]
    done = subprocess.run([*argv, str(REPO / "scripts" / "play"), "topper", "--help"],
                          capture_output=True, text=True, timeout=120, cwd=REPO / "tests")
    assert done.returncode == 0, done.stderr
    assert "usage: p2pcards play" in done.stdout


@pytest.mark.skipif(shutil.which("git") is None or not (REPO / ".git").exists(),
                    reason="needs this repository's git checkout")
def test_git_checks_the_scripts_out_with_lf_on_every_platform() -> None:
    files = ["scripts/play", "scripts/test", ".ci/run", "protocol/schemas.json"]
    shown = subprocess.run(["git", "check-attr", "eol", "--", *files], cwd=REPO,
                           capture_output=True, text=True, timeout=30)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines() == [f"{name}: eol: lf" for name in files]
