"""Where a peer keeps its identity key and its tables' saved state (XDG paths).

The identity file holds the 32-byte Ed25519 seed, so it is created 0600 in a
0700 directory and never rewritten in place. Saved tables let a peer that
dropped resume; every write goes to a temporary file that is fsynced and
renamed over the old one, so a crash leaves either the old or the new file,
never half of one. A corrupt identity file is reported, never replaced:
silently making a new key would change who the player is.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from pathlib import Path

from nacl.signing import SigningKey

from p2pcards.protocol.identity import Identity

__all__ = [
    "CorruptIdentityFile",
    "StorageError",
    "config_dir",
    "identity_path",
    "load_or_create_identity",
    "state_dir",
    "write_atomically",
]

APP = "p2pcards"
IDENTITY_FILE = "identity.json"
IDENTITY_FORMAT = 1
DEFAULT_NAME = "player"
_TEMP_PREFIX = ".tmp-"


class StorageError(Exception):
    """Saved data could not be read or written."""


class CorruptIdentityFile(StorageError):
    """The identity file exists but does not hold a valid identity (it is left untouched)."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"identity file {path} is unusable: {reason}")
        self.path = path


def _xdg(variable: str, fallback: str) -> Path:
    value = os.environ.get(variable, "")
    base = Path(value) if value and Path(value).is_absolute() else Path.home() / fallback
    return base / APP


def config_dir() -> Path:
    """``$XDG_CONFIG_HOME/p2pcards`` (default ``~/.config/p2pcards``)."""
    return _xdg("XDG_CONFIG_HOME", ".config")


def state_dir() -> Path:
    """``$XDG_STATE_HOME/p2pcards`` (default ``~/.local/state/p2pcards``)."""
    return _xdg("XDG_STATE_HOME", ".local/state")


def identity_path() -> Path:
    return config_dir() / IDENTITY_FILE


def _private_dir(path: Path) -> None:
    path.mkdir(mode=0o700, parents=True, exist_ok=True)


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
        os.replace(temp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp_name)
        raise
    dir_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


# --- identity --------------------------------------------------------------------------


def _encode_identity(identity: Identity) -> bytes:
    record = {
        "format": IDENTITY_FORMAT,
        "seed": bytes(identity.signing_key).hex(),
        "name": identity.name,
    }
    return (json.dumps(record, ensure_ascii=False, indent=1) + "\n").encode("utf-8")


def _decode_identity(path: Path, data: bytes) -> Identity:
    try:
        record = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise CorruptIdentityFile(path, "not JSON") from None
    if not isinstance(record, dict) or record.get("format") != IDENTITY_FORMAT:
        raise CorruptIdentityFile(path, "unknown format")
    seed_hex, name = record.get("seed"), record.get("name")
    if not isinstance(seed_hex, str) or not re.fullmatch(r"[0-9a-f]{64}", seed_hex):
        raise CorruptIdentityFile(path, "the seed is not 32 bytes of hex")
    if not isinstance(name, str) or not name:
        raise CorruptIdentityFile(path, "the name is missing")
    return Identity(SigningKey(bytes.fromhex(seed_hex)), name)


def load_or_create_identity(name: str | None = None, path: Path | str | None = None) -> Identity:
    """This peer's identity, created on first use.

    ``name`` replaces the stored display name (and is saved); the key never
    changes once created. ``path`` defaults to ``identity_path()``.
    """
    target = Path(path) if path is not None else identity_path()
    try:
        data = target.read_bytes()
    except FileNotFoundError:
        identity = Identity.generate(name or DEFAULT_NAME)
        write_atomically(target, _encode_identity(identity))
        return identity
    except OSError as error:
        raise StorageError(f"cannot read identity file {target}: {error.strerror}") from None
    if target.stat().st_mode & 0o077:
        os.chmod(target, 0o600)  # a seed readable by others is tightened, not trusted as is
    identity = _decode_identity(target, data)
    if name is not None and name != identity.name:
        identity = Identity(identity.signing_key, name)
        write_atomically(target, _encode_identity(identity))
    return identity


# --- saved tables ------------------------------------------------------------------------
