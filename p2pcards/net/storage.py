"""Where a peer keeps its identity key and its tables' saved state.

Each platform's own place (platformdirs): XDG on Linux and the BSDs,
``~/Library/Application Support`` on macOS, ``%LOCALAPPDATA%`` on Windows;
``$XDG_CONFIG_HOME`` and ``$XDG_STATE_HOME``, when set, win everywhere. Earlier
versions used the XDG defaults on every platform: an identity or saved tables found
only there are moved to the new place (or used where they are when the move
fails), never left behind for a new key to replace.

The identity file holds the 32-byte Ed25519 seed, so it is created 0600 in a
0700 directory and never rewritten in place. Saved tables let a peer that
dropped resume; every write goes to a temporary file that is fsynced and
renamed over the old one, so a crash leaves either the old or the new file,
never half of one. A corrupt identity file is reported, never replaced:
silently making a new key would change who the player is. A display name is
checked where it is set (:func:`check_name`), so none that the wire refuses is
ever saved; a file whose key is sound but whose name is damaged is repaired by
giving a new name (``p2pcards whoami --name``), the key kept.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

from nacl.signing import SigningKey

from p2pcards.errors import P2PCardsError
from p2pcards.protocol.frames import MAX_NAME
from p2pcards.protocol.identity import Identity
from p2pcards.untrusted_text import unsafe_character

__all__ = [
    "CorruptIdentityFile",
    "DamagedIdentityName",
    "InvalidName",
    "StorageError",
    "check_name",
    "config_dir",
    "identity_path",
    "legacy_config_dir",
    "legacy_state_dir",
    "load_or_create_identity",
    "state_dir",
    "tables_dir",
    "write_atomically",
]

APP = "p2pcards"
IDENTITY_FILE = "identity.json"
TABLES = "tables"
IDENTITY_FORMAT = 1
DEFAULT_NAME = "player"
_TEMP_PREFIX = ".tmp-"


class StorageError(P2PCardsError):
    """Saved data could not be read or written."""


class CorruptIdentityFile(StorageError):
    """The identity file exists but does not hold a valid identity (it is left untouched)."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"identity file {path} is unusable: {reason}")
        self.path = path


#: The platform whose conventions choose the folders (``sys.platform``; tests set others).
PLATFORM = sys.platform


class DamagedIdentityName(CorruptIdentityFile):
    """The identity file's key is sound but its name is not: giving a new name
    (``p2pcards whoami --name NAME``) repairs it and keeps the key."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(path, f"{reason}; give it a name with: p2pcards whoami --name NAME "
                               f"(your key is kept)")


class InvalidName(P2PCardsError, ValueError):
    """A display name that cannot be used: the other players' software refuses it."""


def check_name(name: str) -> str:
    """``name`` without surrounding spaces, as every player's table will show it;
    raises :class:`InvalidName` (one sentence) for a name the wire refuses."""
    if not isinstance(name, str):
        raise InvalidName(f"a name is text, not {type(name).__name__}")
    name = name.strip()
    if not name:
        raise InvalidName("a name cannot be empty")
    if len(name) > MAX_NAME:
        raise InvalidName(f"a name is at most {MAX_NAME} characters, not {len(name)}")
    bad = unsafe_character(name)
    if bad is not None:
        raise InvalidName(f"a name cannot hold the control character U+{ord(bad):04X}")
    return name


def _xdg(variable: str, fallback: str) -> Path:
    """The XDG folder: ``$variable/p2pcards`` when it is an absolute path, else ``~/fallback/p2pcards``."""
    value = os.environ.get(variable, "")
    base = Path(value) if value and Path(value).is_absolute() else Path.home() / fallback
    return base / APP


def _xdg_is_set(variable: str) -> bool:
    value = os.environ.get(variable, "")
    return bool(value) and Path(value).is_absolute()


def _native(kind: str) -> Path | None:
    """The platform's own folder for ``kind`` ("config" or "state") where it is not XDG."""
    if PLATFORM == "win32":
        from platformdirs.windows import Windows
        # Local, not roaming: a key copied to a second machine could sit at two tables at once.
        windows = Windows(APP, appauthor=False, roaming=False)
        return Path(windows.user_config_dir if kind == "config" else windows.user_state_dir)
    if PLATFORM == "darwin":
        from platformdirs.macos import MacOS
        mac = MacOS(APP)
        return Path(mac.user_config_dir if kind == "config" else mac.user_state_dir)
    return None


def _place(variable: str, fallback: str, kind: str) -> Path:
    if _xdg_is_set(variable):
        return _xdg(variable, fallback)
    native = _native(kind)
    return native if native is not None else _xdg(variable, fallback)


def config_dir() -> Path:
    """Where the identity lives: ``$XDG_CONFIG_HOME/p2pcards`` when set, else the
    platform's own (``~/.config/p2pcards`` on Linux, ``~/Library/Application
    Support/p2pcards`` on macOS, ``%LOCALAPPDATA%\\p2pcards`` on Windows)."""
    return _place("XDG_CONFIG_HOME", ".config", "config")


def state_dir() -> Path:
    """Where saved tables live: ``$XDG_STATE_HOME/p2pcards`` when set, else the
    platform's own (``~/.local/state/p2pcards`` on Linux, the same folder as
    :func:`config_dir` on macOS and Windows)."""
    return _place("XDG_STATE_HOME", ".local/state", "state")


def legacy_config_dir() -> Path:
    """Where every platform kept the identity in earlier versions (the XDG default)."""
    return _xdg("XDG_CONFIG_HOME", ".config")


def legacy_state_dir() -> Path:
    """Where every platform kept saved tables in earlier versions (the XDG default)."""
    return _xdg("XDG_STATE_HOME", ".local/state")


def _moved_here(new: Path, old: Path) -> Path:
    """``new``, after moving ``old`` there when only ``old`` exists; ``old`` itself
    when the move fails (another volume, a file held open): found, never lost."""
    if new == old or new.exists() or not old.exists():
        return new
    try:
        _private_dir(new.parent)
        os.replace(old, new)
    except OSError:
        return old
    return new


def identity_path() -> Path:
    """The identity file (moved from the old XDG place if only that one has it)."""
    return _moved_here(config_dir() / IDENTITY_FILE, legacy_config_dir() / IDENTITY_FILE)


def tables_dir() -> Path:
    """The folder of saved tables (moved from the old XDG place if only that one has them)."""
    return _moved_here(state_dir() / TABLES, legacy_state_dir() / TABLES)


def _private_dir(path: Path) -> None:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)


#: How often, and how long apart, a rename refused with PermissionError is tried
#: again: Windows refuses to rename over a file another process holds open
#: (an antivirus or indexer reading it), for a moment. Under 2 s in all.
RENAME_TRIES = 8
RENAME_PAUSE = 0.02


def _replace(source: str, target: Path) -> None:
    """``os.replace``, tried again for a moment while the target is held open elsewhere."""
    for attempt in range(RENAME_TRIES):
        try:
            os.replace(source, target)
            return
        except PermissionError:
            if attempt == RENAME_TRIES - 1:
                raise
            time.sleep(RENAME_PAUSE * 2 ** min(attempt, 5))


def _fsync_directory(directory: Path) -> None:
    """Make a rename in ``directory`` durable, where the OS lets a directory be opened:
    Windows refuses (PermissionError) and NTFS journals the rename itself."""
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def write_atomically(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` (mode 0600): temp file, fsync, rename, fsync directory."""
    directory = path.parent
    _private_dir(directory)
    fd, temp_name = tempfile.mkstemp(prefix=_TEMP_PREFIX, dir=directory)  # created 0600
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        _replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise
    _fsync_directory(directory)


# --- identity --------------------------------------------------------------------------


def _encode_identity(identity: Identity) -> bytes:
    record = {
        "format": IDENTITY_FORMAT,
        "seed": bytes(identity.signing_key).hex(),
        "name": identity.name,
    }
    return (json.dumps(record, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def _decode_identity(path: Path, data: bytes, new_name: str | None = None) -> Identity:
    """The identity a file holds; ``new_name`` (already checked) stands in for a
    damaged name, so that giving a name repairs the file with its key kept."""
    try:
        record = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise CorruptIdentityFile(path, "not JSON") from None
    if not isinstance(record, dict) or record.get("format") != IDENTITY_FORMAT:
        raise CorruptIdentityFile(path, "unknown format")
    seed_hex, name = record.get("seed"), record.get("name")
    if not isinstance(seed_hex, str) or not re.fullmatch(r"[0-9a-f]{64}", seed_hex):
        raise CorruptIdentityFile(path, "the seed is not 32 bytes of hex")
    key = SigningKey(bytes.fromhex(seed_hex))
    if new_name is not None:
        return Identity(key, new_name)
    if not isinstance(name, str) or not name:
        raise DamagedIdentityName(path, "the name is missing")
    try:
        return Identity(key, check_name(name))
    except InvalidName as error:
        raise DamagedIdentityName(path, f"its name cannot be used ({error})") from None


def load_or_create_identity(name: str | None = None, path: Path | str | None = None) -> Identity:
    """This peer's identity, created on first use.

    ``name`` replaces the stored display name (and is saved), after
    :func:`check_name` (raises :class:`InvalidName`, saving nothing); the key
    never changes once created, and a damaged name is repaired by giving one.
    ``path`` defaults to ``identity_path()``.
    """
    if name is not None:
        name = check_name(name)
    target = Path(path) if path is not None else identity_path()
    try:
        data = target.read_bytes()
    except FileNotFoundError:
        identity = Identity.generate(name or DEFAULT_NAME)
        write_atomically(target, _encode_identity(identity))
        return identity
    except OSError as error:
        raise StorageError(f"cannot read identity file {target}: {error.strerror}") from None
    if os.name == "posix" and target.stat().st_mode & 0o077:
        # A seed readable by others is tightened, not trusted as is. (On Windows
        # the mode bits mean only read-only or not: the folder's ACL protects it.)
        os.chmod(target, 0o600)
    identity = _decode_identity(target, data, name)
    if name is not None and name != _stored_name(data):
        write_atomically(target, _encode_identity(identity))  # the same key, the new name
    return identity


def _stored_name(data: bytes) -> object:
    """The name field of an identity file :func:`_decode_identity` read, whatever it holds."""
    return json.loads(data.decode("utf-8")).get("name")


# --- saved tables ------------------------------------------------------------------------
