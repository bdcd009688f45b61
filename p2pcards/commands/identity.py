"""Who runs a command and where its saved tables live: the identity file (made on
first use, named after the login) and the saved tables' root, each refused in one
sentence when unusable."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from p2pcards.commands import UserError

if TYPE_CHECKING:
    from p2pcards.protocol.identity import Identity
from p2pcards.errors import P2PCardsError


def my_identity(args: argparse.Namespace) -> Identity:
    """This person's identity; ``--name`` renames it (a name the others' software
    would refuse is one sentence), and a first identity is named after the login."""
    name = getattr(args, "name", None)
    if name is None and not os.path.exists(_identity_path()):
        name = _login_name()
    return named_identity(name)


def named_identity(name: str | None) -> Identity:
    """The identity file's identity (made if need be), renamed to ``name`` if given."""
    from p2pcards.net.failing import LocalFailure
    from p2pcards.net.storage import InvalidName, load_or_create_identity
    try:
        return load_or_create_identity(name)
    except InvalidName as error:
        raise UserError(f"--name {name!r}: {error}") from None
    except OSError as error:  # a folder the system refuses: which file, why, what to try
        raise LocalFailure(f"making or reading your identity file {_identity_path()}", error) from None


def _login_name() -> str:
    """The login name as a first identity's name, when it is a usable one."""
    from p2pcards.net.storage import DEFAULT_NAME, InvalidName, check_name
    try:
        return check_name(_user_name()[:32])
    except InvalidName:
        return DEFAULT_NAME


def _user_name() -> str:
    """The account's name as the first display name (``USER``, or ``USERNAME`` on Windows)."""
    import getpass
    try:
        return getpass.getuser() or "player"
    except (ImportError, KeyError, OSError):  # no variable set, and no pwd (Windows)
        return "player"


def _identity_path() -> Path:
    from p2pcards.net.storage import identity_path
    return identity_path()


def journal_root() -> Path:
    """Where saved tables live, made if need be: a place that cannot hold them is
    one sentence before any table starts (not a table that hangs at its genesis)."""
    from p2pcards.net.storage import state_dir, tables_dir
    try:
        root = tables_dir()
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as error:
        raise UserError(f"cannot keep saved tables in {state_dir()}: "
                        f"{error.strerror or error}") from None
    return root


def known_fingerprint() -> str | None:
    """This person's fingerprint if an identity exists; reading a record makes none."""
    if not _identity_path().exists():
        return None
    try:
        return named_identity(None).fingerprint
    except P2PCardsError:  # an unusable identity file: verify still reads the record
        return None
