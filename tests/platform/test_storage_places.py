"""Each platform's own folders (platformdirs), and the move from the pre-0.2 XDG place."""

from __future__ import annotations

from pathlib import Path, PureWindowsPath

import pytest

from p2pcards.net import storage
from p2pcards.net.storage import (
    config_dir,
    identity_path,
    load_or_create_identity,
    state_dir,
    tables_dir,
)

WINDOWS_LOCAL = r"C:\Users\ann\AppData\Local"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home folder with no XDG variable set: each platform's defaults apply."""
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("USERPROFILE", str(tmp_path))  # what Path.home() reads on Windows
    return tmp_path


def test_linux_keeps_the_xdg_defaults(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(storage, "PLATFORM", "linux")
    assert config_dir() == home / ".config" / "p2pcards"
    assert state_dir() == home / ".local" / "state" / "p2pcards"


def test_macos_uses_application_support(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(storage, "PLATFORM", "darwin")
    support = home / "Library" / "Application Support" / "p2pcards"
    assert config_dir() == support
    assert state_dir() == support


def test_windows_uses_local_appdata(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # platformdirs asks Windows for the folder; this override stands in for the answer.
    monkeypatch.setenv("WIN_PD_OVERRIDE_LOCAL_APPDATA", WINDOWS_LOCAL)
    monkeypatch.setattr(storage, "PLATFORM", "win32")
    expected = PureWindowsPath(WINDOWS_LOCAL, "p2pcards")
    assert PureWindowsPath(config_dir()) == expected
    assert PureWindowsPath(state_dir()) == expected


@pytest.mark.parametrize("platform", ["linux", "darwin", "win32"])
def test_xdg_variables_win_on_every_platform(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             platform: str) -> None:
    monkeypatch.setattr(storage, "PLATFORM", platform)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "c"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "s"))
    assert config_dir() == tmp_path / "c" / "p2pcards"
    assert state_dir() == tmp_path / "s" / "p2pcards"


def test_an_identity_at_the_old_xdg_path_is_used_not_replaced(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Before 0.2 a Mac kept its identity in ~/.config/p2pcards, as Linux does.
    monkeypatch.setattr(storage, "PLATFORM", "linux")
    old = load_or_create_identity("Ann")
    old_file = identity_path()
    monkeypatch.setattr(storage, "PLATFORM", "darwin")
    found = load_or_create_identity()
    assert found.public_key == old.public_key and found.name == "Ann"
    assert identity_path() == config_dir() / "identity.json" != old_file
    assert identity_path().is_file() and not old_file.exists()  # moved: one copy of the seed
    assert load_or_create_identity().public_key == old.public_key


def test_an_old_identity_that_cannot_be_moved_is_used_where_it_is(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(storage, "PLATFORM", "linux")
    old = load_or_create_identity("Ann")
    old_file = identity_path()
    monkeypatch.setattr(storage, "PLATFORM", "darwin")

    def refuse(source: object, target: object) -> None:
        raise OSError(18, "Invalid cross-device link")

    monkeypatch.setattr("p2pcards.net.storage.os.replace", refuse)
    assert identity_path() == old_file
    assert load_or_create_identity().public_key == old.public_key


def test_saved_tables_at_the_old_xdg_path_are_moved(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = home / ".local" / "state" / "p2pcards" / "tables"
    (old / "ab12" / "me").mkdir(parents=True)
    (old / "ab12" / "me" / "meta").write_bytes(b"saved")
    monkeypatch.setattr(storage, "PLATFORM", "darwin")
    assert tables_dir() == home / "Library" / "Application Support" / "p2pcards" / "tables"
    assert (tables_dir() / "ab12" / "me" / "meta").read_bytes() == b"saved"
    assert not old.exists()


def test_the_new_place_wins_when_both_have_an_identity(
        home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(storage, "PLATFORM", "darwin")
    new = load_or_create_identity("New")
    monkeypatch.setattr(storage, "PLATFORM", "linux")
    old = load_or_create_identity("Old")
    monkeypatch.setattr(storage, "PLATFORM", "darwin")
    assert load_or_create_identity().public_key == new.public_key != old.public_key
    assert (storage.legacy_config_dir() / "identity.json").is_file()  # left alone
