"""A saved record the system will not let us read (here a file that is a folder,
as root reads everything else): ``verify``, ``replay`` and ``saved`` name the file
and say why in words, never an OSError's ``[Errno …]`` nor a traceback."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from p2pcards.cli import main
from p2pcards.net.saved_tables import why_unreadable
from p2pcards.net.storage import load_or_create_identity, tables_dir
from tests.app.test_resume_unreached import _free_port, _sit_and_crash


@pytest.fixture
def record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Path:
    """The folder of this home's one saved record (a joined table, in play)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    identity = load_or_create_identity("Ivo")
    root = tables_dir()
    root.mkdir(parents=True)
    asyncio.run(_sit_and_crash(identity, _free_port(), root, tmp_path / "host"))
    assert main(["saved", "--json"]) == 0
    (row,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    return Path(row["path"])


def _unreadable(path: Path) -> None:
    """Make ``path`` a file no ``open()`` can read: a folder in its place."""
    path.unlink()
    path.mkdir()


def _said(capsys: pytest.CaptureFixture[str]) -> str:
    said = capsys.readouterr()
    assert "Errno" not in said.out + said.err and "Traceback" not in said.err
    return said.err


@pytest.mark.parametrize("command", [["verify"], ["replay", "--plain"]])
def test_verify_and_replay_of_an_unreadable_transcript_name_it(
        record: Path, capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    _unreadable(record / "transcript")
    assert main([*command, str(record)]) == 2
    assert _said(capsys) == f"p2pcards: cannot read {record / 'transcript'}: is a directory\n"


def test_verify_of_an_unreadable_verdict_names_it(record: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (record / "verdict").mkdir()
    assert main(["verify", str(record)]) == 2
    assert _said(capsys) == f"p2pcards: cannot read {record / 'verdict'}: is a directory\n"


def test_saved_says_which_record_it_left_out_and_why(record: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _unreadable(record / "meta")
    assert main(["saved"]) == 0
    said = capsys.readouterr()
    assert said.out == "No saved tables.\n"
    assert said.err == (f"p2pcards: cannot read {record / 'meta'}: is a directory; "
                        f"that table is left out of this list\n")


def test_why_unreadable_says_permission_denied_in_words(tmp_path: Path) -> None:
    error = PermissionError(13, "Permission denied", str(tmp_path / "meta"))
    assert why_unreadable(error, tmp_path) == f"cannot read {tmp_path / 'meta'}: permission denied"
