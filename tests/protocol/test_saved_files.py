"""The files a table leaves fit the shapes in protocol/schemas.json, and ``verify``
judges every file beside a transcript without a traceback (issue 25).

One real ``p2pcards play`` match writes a seat's folder for you and for each
bot, and the relay's; every ``meta``, ``result`` and record must fit its
written shape, read from schemas.json itself (``spec_shapes``; the tables
ended by each kind of verdict are in ``test_saved_tables``). Then ``verify``
is given damaged neighbours: a ``meta`` that is missing or not msgpack is
ignored, a ``verdict`` that is not one is refused in one sentence, and a
transcript cut inside its last record or with bytes after it fails with that
reason.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from p2pcards.protocol import wire
from p2pcards.protocol.file_shapes import SEAT_META_SHAPE
from p2pcards.protocol.schema import validate

from . import spec_shapes


def _cli(args: list[str], home: Path, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(home / "config"), "XDG_STATE_HOME": str(home / "state")}
    return subprocess.run([sys.executable, "-m", "p2pcards", *args], env=env, capture_output=True,
                          text=True, timeout=timeout)


SHORT = {"topper": ("--target", "1"), "bluff": ("--deals", "1")}  # the shortest matches: the same files


def _play(home: Path, game: str) -> tuple[Path, Path]:
    done = _cli(["play", game, "--bot", "random", *SHORT[game], "--name", "Ona"], home)
    assert done.returncode == 0, done.stderr
    [table] = list((home / "state" / "p2pcards" / "tables").iterdir())
    return home, table


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(home, the folder of the table's saved files) after one solo Topper match."""
    return _play(tmp_path_factory.mktemp("saved-files"), "topper")


@pytest.mark.parametrize("game", ["topper", "bluff"])
def test_every_file_a_match_writes_fits_its_written_shape(played: tuple[Path, Path], tmp_path: Path, game: str) -> None:
    """Read as another implementation reads protocol/schemas.json (``spec_shapes``):
    the folders ``play`` writes for your seat, the bots' and the relay's."""
    _, table = played if game == "topper" else _play(tmp_path, game)
    folders = sorted(p for p in table.iterdir() if p.is_dir())
    assert len(folders) == 5 and sum(f.name == "relay" for f in folders) == 1
    for folder in folders:
        read = spec_shapes.folder(folder)
        assert read["relay"] is (folder.name == "relay") and read["game"] == game
        assert (folder / "result").exists() is (folder.name != "relay")
        assert read["verdict"] is None and len(read["messages"]) > 10


def _copy(played: tuple[Path, Path], tmp_path: Path, *, meta: bytes | None, tail: bytes = b"",
          cut: int = 0, verdict: bytes | None = None) -> Path:
    """Your folder copied, with its meta replaced (None: removed) and the transcript damaged."""
    _, table = played
    mine = next(f for f in table.iterdir() if f.is_dir() and f.name != "relay" and
                validate(SEAT_META_SHAPE, wire.unpack((f / "meta").read_bytes(), max_bytes=1 << 20),
                         "meta").get("rng_label") == "seat0")
    folder = tmp_path / "copy"
    folder.mkdir(parents=True)
    data = (mine / "transcript").read_bytes()
    (folder / "transcript").write_bytes((data[:-cut] if cut else data) + tail)
    if meta is not None:
        (folder / "meta").write_bytes(meta)
    if verdict is not None:
        (folder / "verdict").write_bytes(verdict)
    return folder


@pytest.mark.parametrize("meta", [None, b"\xc1 not msgpack", wire.pack([1, 2]), wire.pack({"player": 9})],
                         ids=["absent", "not msgpack", "not a map", "another shape"])
def test_verify_ignores_a_meta_it_cannot_use(played: tuple[Path, Path], tmp_path: Path, meta: bytes | None) -> None:
    home, _ = played
    checked = _cli(["verify", str(_copy(played, tmp_path, meta=meta))], home)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "Traceback" not in checked.stderr and "OK: every signature" in checked.stdout
    assert "(you)" not in checked.stdout


def test_verify_refuses_a_verdict_file_that_is_not_a_verdict_in_one_sentence(
        played: tuple[Path, Path], tmp_path: Path) -> None:
    home, _ = played
    for content in (b"\xc1", wire.pack({"rule": "left"})):
        folder = _copy(played, tmp_path / str(len(content)), meta=None, verdict=content)
        checked = _cli(["verify", str(folder)], home)
        assert checked.returncode == 2 and "is not a saved verdict" in checked.stderr
        assert "Traceback" not in checked.stderr and checked.stdout == ""


@pytest.mark.parametrize("cut, tail, says", [
    (3, b"", "bytes that are not a whole record"),
    (0, b"\x00\x00\x00\x09abc", "7 bytes that are not a whole record"),
    (0, b"junk", "4 bytes that are not a whole record"),
], ids=["cut inside the last record", "a record cut short appended", "garbage appended"])
def test_a_transcript_with_bytes_after_its_last_whole_record_fails_with_that_reason(
        played: tuple[Path, Path], tmp_path: Path, cut: int, tail: bytes, says: str) -> None:
    home, _ = played
    checked = _cli(["verify", str(_copy(played, tmp_path, meta=None, cut=cut, tail=tail))], home)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert says in checked.stdout and "FAILED" in checked.stdout and "Traceback" not in checked.stderr


@pytest.mark.parametrize("meta", [b"\xc1 not msgpack", wire.pack({"player": 9})], ids=["garbage", "another shape"])
def test_verify_of_a_transcript_file_never_reads_the_meta_beside_it(
        played: tuple[Path, Path], tmp_path: Path, meta: bytes) -> None:
    home, _ = played
    with_meta = _copy(played, tmp_path / "with", meta=meta)
    without = _copy(played, tmp_path / "without", meta=None)
    results = [_cli(["verify", "--json", str(folder / "transcript")], home) for folder in (with_meta, without)]
    assert [r.returncode for r in results] == [0, 0] and "Traceback" not in results[0].stderr + results[1].stderr
    assert results[0].stdout == results[1].stdout and results[0].stderr == results[1].stderr


def test_verify_of_your_folder_names_you_from_its_meta(played: tuple[Path, Path], tmp_path: Path) -> None:
    home, _ = played
    folder = _copy(played, tmp_path, meta=None)
    _, table = played
    for seat in table.iterdir():
        if (seat / "transcript").read_bytes() == (folder / "transcript").read_bytes() and seat.name != "relay":
            (folder / "meta").write_bytes((seat / "meta").read_bytes())
            break
    assert "(you)" in _cli(["verify", str(folder)], home).stdout
    assert "(you)" not in _cli(["verify", str(folder / "transcript")], home).stdout


@pytest.mark.parametrize("pin, pinned", [(None, False), (bytes(range(32)), True)],
                         ids=["--connect: no key to pin", "found on the LAN: its host key"])
def test_a_joiners_meta_saves_the_pin_it_dialled_with_and_none_without_a_key(pin: bytes | None, pinned: bool) -> None:
    """SECURITY.md, "The first dial with --connect" (issue 25 point 9): an address typed
    by hand comes with no key, so the saved meta holds ``pin: ""`` and neither a
    reconnect nor ``resume`` pins one; a table found by discovery keeps its host key."""
    from p2pcards.app.joined import joining_session
    from p2pcards.protocol.identity import Identity
    session = joining_session(Identity.generate("Jo"), None, "127.0.0.1", 4711,  # type: ignore[arg-type]  # no play
                              expected_peer=pin)
    assert session.meta == {"host": "127.0.0.1", "port": 4711, "pin": pin if pinned else ""}
    meta = {**session.meta, "v": 1, "player": 1, "name": "Jo", "bots": [0, 0, 0, 0],
            "secrets": {"key": bytes(32), "draw": bytes(32)}}
    spec_shapes.check(spec_shapes.SAVED["meta (a seat)"]["shape"], meta, "meta")
