"""Storage: XDG paths, the identity file, and atomically saved tables."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from p2pcards.net import storage
from p2pcards.net.storage import (
    CorruptIdentityFile,
    NoSavedTable,
    TableStore,
    config_dir,
    identity_path,
    list_tables,
    load_or_create_identity,
    load_table,
    save_table,
    state_dir,
    write_atomically,
)


@pytest.fixture
def xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_xdg_variables_choose_the_directories(xdg: Path) -> None:
    assert config_dir() == xdg / "config" / "p2pcards"
    assert state_dir() == xdg / "state" / "p2pcards"


def test_usual_defaults_without_xdg_variables(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", "relative/paths/are/ignored")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert config_dir() == tmp_path / ".config" / "p2pcards"
    assert state_dir() == tmp_path / ".local" / "state" / "p2pcards"


def test_identity_is_created_once_and_loaded_after(xdg: Path) -> None:
    created = load_or_create_identity("alice")
    loaded = load_or_create_identity()
    assert loaded.public_key == created.public_key
    assert loaded.name == "alice"
    assert identity_path().is_file()


def test_identity_file_is_private(xdg: Path) -> None:
    load_or_create_identity("alice")
    assert mode(identity_path()) == 0o600
    assert mode(identity_path().parent) == 0o700


def test_identity_file_holds_the_seed_and_the_name(xdg: Path) -> None:
    identity = load_or_create_identity("Zoë")
    text = identity_path().read_text(encoding="utf-8")
    assert bytes(identity.signing_key).hex() in text and "Zoë" in text


def test_new_name_is_saved_and_the_key_kept(xdg: Path) -> None:
    first = load_or_create_identity("alice")
    renamed = load_or_create_identity("alicia")
    assert renamed.public_key == first.public_key and renamed.name == "alicia"
    assert load_or_create_identity().name == "alicia"


def test_explicit_path(tmp_path: Path) -> None:
    path = tmp_path / "keys" / "me.json"
    identity = load_or_create_identity("bob", path=path)
    assert load_or_create_identity(path=path).public_key == identity.public_key
    assert mode(path) == 0o600


def test_loose_permissions_are_tightened(xdg: Path) -> None:
    load_or_create_identity("alice")
    os.chmod(identity_path(), 0o644)
    load_or_create_identity()
    assert mode(identity_path()) == 0o600


@pytest.mark.parametrize("content", [b"", b"not json", b'{"format": 1}', b'{"format": 1, "seed": "00", "name": "x"}',
                                     b'{"format": 99, "seed": "' + b"00" * 32 + b'", "name": "x"}'])
def test_corrupt_identity_file_is_reported_and_left_alone(xdg: Path, content: bytes) -> None:
    path = identity_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(content)
    with pytest.raises(CorruptIdentityFile):
        load_or_create_identity()
    assert path.read_bytes() == content


def test_corrupt_identity_message_does_not_echo_the_file(xdg: Path) -> None:
    path = identity_path()
    path.parent.mkdir(parents=True)
    seed = "ab" * 32
    path.write_text('{"format": 1, "seed": "' + seed + '", "name": 7}')
    with pytest.raises(CorruptIdentityFile) as caught:
        load_or_create_identity()
    assert seed not in str(caught.value)


# --- saved tables -------------------------------------------------------------------------


def test_table_round_trip_and_listing(xdg: Path) -> None:
    save_table("00ff" * 8, b"\x00state one")
    save_table("ABCD", b"state two")
    assert load_table("00ff" * 8) == b"\x00state one"
    assert load_table("abcd") == b"state two"
    assert list_tables() == sorted(["00ff" * 8, "abcd"])
    assert mode(state_dir() / "tables" / "abcd.table") == 0o600


def test_saving_again_replaces(xdg: Path) -> None:
    save_table("abcd", b"old")
    save_table("abcd", b"new")
    assert load_table("abcd") == b"new"


def test_missing_table_is_a_precise_error(xdg: Path) -> None:
    with pytest.raises(NoSavedTable) as caught:
        load_table("abcd")
    assert caught.value.session_hex == "abcd"


@pytest.mark.parametrize("bad", ["", "abc", "../../etc/passwd", "zz", "ab/cd", "ab" * 65])
def test_session_ids_must_be_hex(xdg: Path, bad: str) -> None:
    with pytest.raises(ValueError):
        save_table(bad, b"x")


def test_delete(tmp_path: Path) -> None:
    store = TableStore(tmp_path / "tables")
    store.save("abcd", b"x")
    store.delete("abcd")
    store.delete("abcd")  # deleting what is gone is fine
    assert store.sessions() == []


def test_failed_write_leaves_the_old_file_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = TableStore(tmp_path / "tables")
    store.save("abcd", b"the complete old state")

    def crash(fd: int) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(storage.os, "fsync", crash)  # the crash comes after the new bytes were written
    with pytest.raises(OSError):
        store.save("abcd", b"the new state that never landed")
    monkeypatch.undo()
    assert store.load("abcd") == b"the complete old state"
    assert [p.name for p in (tmp_path / "tables").iterdir()] == ["abcd.table"]  # no temp file left


def test_leftover_temp_file_of_a_crash_is_not_listed(tmp_path: Path) -> None:
    store = TableStore(tmp_path / "tables")
    store.save("abcd", b"x")
    (tmp_path / "tables" / ".tmp-abc123").write_bytes(b"half")
    assert store.sessions() == ["abcd"]


def test_write_atomically_never_shows_a_partial_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The target is only ever renamed over: at the moment of the rename the temp file is complete."""
    target = tmp_path / "blob"
    write_atomically(target, b"A" * 1000)
    seen: list[bytes] = []
    real_replace = os.replace

    def spy(src: str, dst: str) -> None:
        seen.append(Path(src).read_bytes())
        seen.append(Path(dst).read_bytes())
        real_replace(src, dst)

    monkeypatch.setattr(storage.os, "replace", spy)
    write_atomically(target, b"B" * 2000)
    assert seen == [b"B" * 2000, b"A" * 1000]
    assert target.read_bytes() == b"B" * 2000
