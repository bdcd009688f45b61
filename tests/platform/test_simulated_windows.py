"""A whole table on a simulated Windows: no POSIX-only modules, Windows' file rules, a
cp1252 or ASCII console. The real command runs in a subprocess, as a person runs it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

WINSIM = Path(__file__).parent / "winsim"
BOUND = 240


def run(args: list[str], home: Path, *, windows: bool = False, encoding: str | None = None,
        timeout: float = BOUND) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(home / "config"),
           "XDG_STATE_HOME": str(home / "state"), "P2PCARDS_WINSIM_LOG": str(home / "winsim.log")}
    env.pop("PYTHONUTF8", None)
    if windows:
        env["PYTHONPATH"] = os.pathsep.join([str(WINSIM), *filter(None, [env.get("PYTHONPATH")])])
    if encoding is not None:
        env["PYTHONIOENCODING"] = encoding
    done = subprocess.run([sys.executable, "-m", "p2pcards", *args], env=env, capture_output=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)
    out_encoding = encoding or "utf-8"
    return subprocess.CompletedProcess(done.args, done.returncode,
                                       done.stdout.decode(out_encoding),
                                       done.stderr.decode(out_encoding))


def transcript_of(played: subprocess.CompletedProcess[str]) -> str:
    """The saved table's folder the exit hint names (``verify FOLDER``)."""
    assert played.returncode == 0, played.stdout + played.stderr
    assert "Match over:" in played.stdout
    return played.stdout.split(" verify ")[1].strip()


@pytest.mark.slow
@pytest.mark.skipif(os.name != "posix", reason="simulates Windows on a POSIX system (os.lockf)")
def test_a_whole_table_plays_verifies_replays_and_is_listed_on_simulated_windows(
        tmp_path: Path) -> None:
    made = run(["whoami", "--name", "Ann"], tmp_path, windows=True)
    assert made.returncode == 0, made.stderr
    # A new name rewrites identity.json: a rename over a file, refused once, then done.
    played = run(["play", "bluff", "--plain", "--bot", "heuristic", "--deals", "1",
                  "--name", "Ann Lee"], tmp_path, windows=True, encoding="cp1252")
    transcript = transcript_of(played)
    log = (tmp_path / "winsim.log").read_text(encoding="utf-8").splitlines()
    # The simulation ran: fcntl was refused, the locks came from msvcrt, a
    # directory was never opened and a held file refused a rename, more than once.
    assert "import fcntl refused" in log and "msvcrt.locking" in log
    assert "directory open refused" in log and "rename over a held file refused" in log
    checked = run(["verify", transcript], tmp_path, windows=True, encoding="cp1252")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "OK: every signature, proof and rule checks." in checked.stdout
    # The exit text's session id stands for the seat's own folder: the hand is shown.
    replayed = run(["replay", "--plain", transcript], tmp_path, windows=True, encoding="cp1252")
    assert replayed.returncode == 0, replayed.stderr
    assert "Outcome: the match is over" in replayed.stdout and "with Ann Lee's own hand" in replayed.stdout
    listed = run(["saved"], tmp_path, windows=True)
    assert listed.returncode == 0, listed.stderr
    assert "bluff" in listed.stdout and "Ann Lee's table" in listed.stdout and "over:" in listed.stdout
    assert run(["whoami"], tmp_path, windows=True).stdout.startswith("Ann Lee ")
    for done in (played, checked, replayed, listed):
        assert "Traceback" not in done.stderr


def first_identity(home: Path) -> None:
    made = run(["whoami", "--name", "Zoë"], home)
    assert made.returncode == 0, made.stderr


@pytest.mark.slow
@pytest.mark.parametrize("encoding", ["cp1252", "ascii"])
def test_every_command_completes_in_a_console_that_cannot_show_the_symbols(
        tmp_path: Path, encoding: str) -> None:
    first_identity(tmp_path)
    played = run(["play", "topper", "--plain", "--target", "1", "--pace", "0"], tmp_path,
                 encoding=encoding)
    # A person's seat in plain mode: stdin is closed, so the person leaves at the first
    # question, after the lobby, the seat draw and the deal have been printed.
    assert "Traceback" not in played.stderr, played.stderr
    assert "Seats drawn" in played.stdout
    transcript = played.stdout.split(" verify ")[1].strip()
    runs = {
        "verify": run(["verify", transcript], tmp_path, encoding=encoding),
        "replay": run(["replay", "--plain", transcript], tmp_path, encoding=encoding),
        "saved": run(["saved"], tmp_path, encoding=encoding),
        "tables": run(["tables", "--timeout", "0.3", "--interface", "127.0.0.1"], tmp_path,
                      encoding=encoding),
        "whoami": run(["whoami"], tmp_path, encoding=encoding),
        "--help": run(["--help"], tmp_path, encoding=encoding),
        "play --help": run(["play", "--help"], tmp_path, encoding=encoding),
    }
    for name, done in runs.items():
        assert done.returncode == 0, (name, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr, (name, done.stderr)
    assert runs["whoami"].stdout.split()[0] == ("Zoë" if encoding == "cp1252" else "Zoe")
    assert "Replay of table" in runs["replay"].stdout
