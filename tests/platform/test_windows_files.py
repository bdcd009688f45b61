"""Windows' file rules, simulated: a lock without fcntl, no directory fsync, a held file."""

from __future__ import annotations

import os
import types
from pathlib import Path

import pytest

from p2pcards.net import filelock, storage
from p2pcards.net.journal import Journal, JournalInUse
from p2pcards.net.storage import StorageError, write_atomically


def fake_msvcrt() -> types.ModuleType:
    """``msvcrt.locking`` as Windows does it: one handle holds a byte range; another
    handle's non-blocking lock raises OSError (EACCES) until it is unlocked."""
    module = types.ModuleType("msvcrt")
    held: dict[tuple[int, int], int] = {}

    def locking(fd: int, mode: int, nbytes: int) -> None:
        info = os.fstat(fd)
        key = (info.st_dev, info.st_ino)
        if mode == module.LK_UNLCK:
            if held.get(key) != fd:
                raise OSError(13, "Permission denied")
            del held[key]
        elif key in held and held[key] != fd:
            raise OSError(13, "Permission denied")
        else:
            held[key] = fd

    module.LK_UNLCK, module.LK_LOCK, module.LK_NBLCK = 0, 1, 2  # type: ignore[attr-defined]
    module.locking = locking  # type: ignore[attr-defined]
    return module


@pytest.fixture
def windows_locks(monkeypatch: pytest.MonkeyPatch) -> None:
    msvcrt = fake_msvcrt()
    monkeypatch.setattr(filelock, "_module", lambda name: msvcrt if name == "msvcrt" else None)


def test_without_fcntl_a_journal_is_locked_with_msvcrt(tmp_path: Path, windows_locks: None) -> None:
    first, second = Journal(tmp_path / "t"), Journal(tmp_path / "t")
    first.claim()
    with pytest.raises(JournalInUse):
        second.claim()
    first.release()
    second.claim()  # given back: the next process (or handle) may take it
    second.release()


def test_a_second_process_cannot_claim_a_held_journal(tmp_path: Path) -> None:
    import subprocess
    import sys
    journal = Journal(tmp_path / "t")
    journal.claim()
    code = ("import sys; from pathlib import Path; from p2pcards.net.journal import Journal, JournalInUse\n"
            "try:\n    Journal(Path(sys.argv[1])).claim()\nexcept JournalInUse:\n    sys.exit(7)\n")
    other = subprocess.run([sys.executable, "-c", code, str(tmp_path / "t")], timeout=60)
    journal.release()
    assert other.returncode == 7


def test_a_platform_without_any_lock_says_so(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(filelock, "_module", lambda name: None)
    with pytest.raises(StorageError, match="neither fcntl nor msvcrt"):
        Journal(tmp_path / "t").claim()


def test_a_directory_that_cannot_be_opened_is_not_fsynced(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real_open = os.open

    def windows_open(path: object, flags: int, *args: object) -> int:
        if os.path.isdir(path):  # type: ignore[arg-type]
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, flags, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", windows_open)
    target = tmp_path / "state" / "meta"
    write_atomically(target, b"one")
    write_atomically(target, b"two")
    assert target.read_bytes() == b"two"


def test_a_rename_over_a_held_file_is_tried_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "meta"
    write_atomically(target, b"old")
    real_replace = os.replace
    refusals: list[str] = []

    def held_once(source: str, dest: str) -> None:
        if not refusals:
            refusals.append(str(dest))
            raise PermissionError(13, "Access is denied", dest)
        real_replace(source, dest)

    monkeypatch.setattr(os, "replace", held_once)
    monkeypatch.setattr(storage, "RENAME_PAUSE", 0.0)
    write_atomically(target, b"new")
    assert refusals == [str(target)] and target.read_bytes() == b"new"
    assert [p.name for p in tmp_path.iterdir()] == ["meta"]


def test_a_file_held_for_good_fails_after_a_bounded_number_of_tries(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "meta"
    write_atomically(target, b"old")
    tries: list[str] = []

    def always_held(source: str, dest: str) -> None:
        tries.append(dest)
        raise PermissionError(13, "Access is denied", dest)

    monkeypatch.setattr(os, "replace", always_held)
    monkeypatch.setattr(storage, "RENAME_PAUSE", 0.0)
    with pytest.raises(PermissionError):
        write_atomically(target, b"new")
    assert len(tries) == storage.RENAME_TRIES
    assert target.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["meta"]
