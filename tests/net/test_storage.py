"""Storage: XDG paths, the identity file, and atomically saved tables."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from p2pcards.net.storage import (
    CorruptIdentityFile,
    config_dir,
    identity_path,
    load_or_create_identity,
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


# --- atomic writes ---------------------------------------------------------------------


def test_failed_write_leaves_the_old_file_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "state" / "meta"
    write_atomically(target, b"the complete old state")

    def crash(fd: int) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", crash)  # the crash comes after the new bytes were written
    with pytest.raises(OSError):
        write_atomically(target, b"the new state that never landed")
    monkeypatch.undo()
    assert target.read_bytes() == b"the complete old state"
    assert [p.name for p in target.parent.iterdir()] == ["meta"]  # no temp file left


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

    monkeypatch.setattr(os, "replace", spy)
    write_atomically(target, b"B" * 2000)
    assert seen == [b"B" * 2000, b"A" * 1000]
    assert target.read_bytes() == b"B" * 2000
