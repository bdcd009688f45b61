"""One error path: every way a command can fail is one sentence and an exit status.

Run through the real command (a subprocess) where it is the command's
behaviour; Ctrl-C is raised in-process as a real SIGINT, so ``asyncio.run``
handles it exactly as it does for a person's key press.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from p2pcards import cli
from p2pcards.app import front

BOUND = 60


def _env(home: Path) -> dict[str, str]:
    return {**os.environ, "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_STATE_HOME": str(home / "state")}


def run_cli(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "p2pcards", *args], env=_env(home),
                          capture_output=True, text=True, timeout=BOUND)


def run_into_closed_pipe(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    """The command with its stdout a pipe whose reader has already gone, as
    ``p2pcards ... | head -1`` is once ``head`` has its line."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run([sys.executable, "-m", "p2pcards", *args], env=_env(home),
                              stdout=write_end, stderr=subprocess.PIPE, text=True, timeout=BOUND)
    finally:
        os.close(write_end)


@pytest.mark.parametrize("args, says", [
    (["play", "bluff", "--price", "0"], "argument --price: the table price is a whole number "
                                        "from 1 to 1,000,000, not 0"),
    (["host", "bluff", "--price", "-5"], "argument --price: the table price is a whole number "
                                         "from 1 to 1,000,000, not -5"),
    (["play", "bluff", "--chips", "0"], "argument --chips: the starting stack is a whole number "
                                        "from 1 to 1,000,000, not 0"),
    (["play", "topper", "--target", "0"], "argument --target: the target score is a whole "
                                          "number from 1 to 1,000,000, not 0"),
    (["host", "topper", "--deals", "-1"], "argument --deals: the number of deals is a whole "
                                          "number from 0 to 1,000,000, not -1"),
    (["play", "bluff", "--price", "ten"], "argument --price: the table price is a whole "
                                          "number, not 'ten'"),
])
def test_a_table_setting_out_of_range_is_a_sentence_naming_its_option(tmp_path: Path, args: list[str],
                                                                      says: str) -> None:
    result = run_cli(args, tmp_path)
    assert result.returncode == 2 and says in result.stderr
    assert "Traceback" not in result.stderr and "table_price" not in result.stderr


@pytest.mark.parametrize("args", [["saved"], ["whoami"],
                                  ["tables", "--timeout", "0.2", "--interface", "127.0.0.1"]])
def test_a_reader_that_stopped_reading_ends_the_command_quietly(tmp_path: Path, args: list[str]) -> None:
    result = run_into_closed_pipe(args, tmp_path)
    assert result.stderr == "" and result.returncode == front.EXIT_PIPE


def _interrupted(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                 target: str, argv: list[str], coroutine: bool) -> tuple[int, str]:
    """``main(argv)`` with ``target`` replaced by a Ctrl-C (a real SIGINT) at that point."""
    async def press_ctrl_c(*_args: object, **_kwargs: object) -> None:
        signal.raise_signal(signal.SIGINT)
        import asyncio
        await asyncio.sleep(30)  # cancelled by asyncio.run's handler of the SIGINT

    def press_ctrl_c_now(*_args: object, **_kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(target, press_ctrl_c if coroutine else press_ctrl_c_now)
    code = cli.main(argv)
    return code, capsys.readouterr().err


def test_ctrl_c_while_listing_tables_is_a_quiet_exit(monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    code, err = _interrupted(monkeypatch, capsys, "p2pcards.net.discovery.browse_tables",
                             ["tables", "--timeout", "5"], coroutine=True)
    assert code == cli.EXIT_INTERRUPTED and "Left the table" not in err and "Traceback" not in err


def test_ctrl_c_while_join_looks_for_tables_leaves_no_table(monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    code, err = _interrupted(monkeypatch, capsys, "p2pcards.net.discovery.browse_tables",
                             ["join", "--plain", "--name", "Ann"], coroutine=True)
    assert code == cli.EXIT_INTERRUPTED and "Left the table" not in err


def test_ctrl_c_while_verifying_is_a_quiet_exit(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                                                tmp_path: Path) -> None:
    saved = tmp_path / "transcript"
    saved.write_bytes(b"\x00\x00\x00\x01x")  # one record: verify is reached, then interrupted
    code, err = _interrupted(monkeypatch, capsys, "p2pcards.protocol.verify.verify_transcript",
                             ["verify", str(saved)], coroutine=False)
    assert code == cli.EXIT_INTERRUPTED and "Left the table" not in err and err == ""


def test_a_project_error_is_one_sentence_not_a_traceback(tmp_path: Path) -> None:
    identity = tmp_path / "config" / "p2pcards" / "identity.json"
    identity.parent.mkdir(parents=True)
    identity.write_text("not json")
    result = run_cli(["saved"], tmp_path)
    assert result.returncode == cli.EXIT_ERROR and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        f"p2pcards: identity file {identity} is unusable: not JSON"]
    assert identity.read_text() == "not json"  # reported, never replaced


def _bad_files(home: Path) -> dict[str, str]:
    """Files a person might hand to a command, none of them a usable record."""
    garbage = home / "garbage.bin"
    garbage.write_bytes(b"not a transcript at all")
    record = home / "record.bin"
    record.write_bytes(b"\x00\x00\x00\x05hello")  # one well-framed record, not a signed message
    empty = home / "empty-dir"
    empty.mkdir()
    damaged = home / "state" / "p2pcards" / "tables" / ("ab" * 32) / "ffff-0000-1111"
    damaged.mkdir(parents=True)
    (damaged / "meta").write_bytes(b"\xc1 not msgpack")
    return {"garbage": str(garbage), "record": str(record), "empty": str(empty)}


@pytest.mark.parametrize("args, says, code", [
    (["verify", "{garbage}"], "is not a p2pcards transcript", 2),
    (["verify", "{record}"], "is not a p2pcards transcript", 2),
    (["verify", "{empty}"], "no transcript at", 2),
    (["replay", "--plain", "{garbage}"], "is not a p2pcards transcript", 2),
    (["replay", "--speed", "0", "{record}"], "--speed is moves per second, 0.1 to 50, not 0", 2),
    (["saved"], "", 0),  # another record's damaged meta lists as nothing, not an error
    (["resume", "zzz"], "no saved table of yours has a session id starting with 'zzz'", 2),
    (["verify", "abab"], "no transcript at", 2),  # a session id standing for a damaged record
    (["verify", "cdcd"], "no saved table's session id starts with it", 2),
    (["join", "--connect", "nohost"], "--connect wants HOST:PORT", 2),
    (["tables", "--timeout", "abc"], "expected a number of seconds, not 'abc'", 2),
    (["host", "topper", "--pauses", "-1"], "each player may have 0 to", 2),
    (["host", "topper", "--table", "den\x1b[2J"], "argument --table: a name cannot hold the "
                                                  "control character U+001B", 2),
    (["host", "topper", "--table", "x" * 33], "argument --table: a name is at most 32", 2),
])
def test_bad_invocations_and_bad_files_are_one_sentence_never_a_traceback(tmp_path: Path, args: list[str], says: str,
                                                                           code: int) -> None:
    files = _bad_files(tmp_path)
    result = run_cli([a.format(**files) for a in args], tmp_path)
    assert result.returncode == code and "Traceback" not in result.stderr, result.stderr
    assert says in result.stderr
    # One sentence (argparse prints its usage above it; nothing else is said).
    said = [line for line in result.stderr.splitlines() if line.startswith("p2pcards")]
    assert len(said) == (1 if code else 0), result.stderr


@pytest.mark.parametrize("args", [["play", "topper", "--bot", "random", "--target", "1"],
                                  ["saved"]])
def test_a_state_folder_that_is_a_file_is_one_sentence_not_a_hung_table(tmp_path: Path, args: list[str]) -> None:
    (tmp_path / "state").write_text("a file where the saved tables should go")
    result = run_cli(args, tmp_path)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "cannot keep saved tables in" in result.stderr and "Not a directory" in result.stderr
