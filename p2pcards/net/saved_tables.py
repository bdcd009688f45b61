"""The index of saved tables: the folder layout the journal writes, read back.

Every record a machine keeps lives at ``<tables dir>/<session hex>/<owner>/``
(see :mod:`p2pcards.net.journal`): the owner is a seat's key fingerprint, or
``relay`` for the host's. This module is the one place that knows it, so the
command line asks "which sessions, which records, whose seat" and never walks
the folders itself.
"""

from __future__ import annotations

from pathlib import Path

from p2pcards.errors import P2PCardsError
from p2pcards.wiremap import WireMap

#: The folder of a session's records that is the host's relay, not a seat.
RELAY = "relay"


def session_id(record: Path) -> str:
    """The session id a record belongs to: the name of its session's folder."""
    return Path(record).parent.name


def session_folder(record: Path) -> Path:
    """The folder of the session a record belongs to (its other seats, its relay)."""
    return Path(record).parent


def seat_record(root: Path, session: str, owner: str) -> Path:
    """Where the record of ``owner`` (a fingerprint, or :data:`RELAY`) at ``session`` lives."""
    return Path(root) / session / owner


def is_record(directory: Path) -> bool:
    """Whether a folder is a record: it holds a transcript or a meta file."""
    return directory.is_dir() and ((directory / "transcript").exists()
                                   or (directory / "meta").exists())


def is_session_folder(path: Path) -> bool:
    """Whether a folder is a whole session's (its records below it), not one record."""
    return path.is_dir() and not (path / "transcript").exists() and bool(records_in(path))


def records_in(session_dir: Path) -> list[Path]:
    """The records of one session folder, by name."""
    if not session_dir.is_dir():
        return []
    return sorted(d for d in session_dir.iterdir() if is_record(d))


def session_folders(root: Path) -> list[Path]:
    """Every session folder under the saved tables' root."""
    if not root.is_dir():
        return []
    return sorted(d for d in root.iterdir() if d.is_dir() and records_in(d))


def sessions_matching(root: Path, prefix: str) -> list[Path]:
    """The session folders whose id starts with ``prefix`` (case does not matter)."""
    prefix = prefix.lower()
    return [d for d in session_folders(root) if d.name.startswith(prefix)]


def read_meta(record: Path) -> WireMap | None:
    """A record's meta, or None where it is missing or damaged (it reads as nothing)."""
    from p2pcards.net.journal import Journal
    try:
        return Journal(record).read_meta()
    except (OSError, ValueError, P2PCardsError):
        return None


def own_seats(root: Path, fingerprint: str) -> list[tuple[Path, WireMap]]:
    """Every record of the seat with this key (not its bots' nor its relay's), with
    its meta, by session id; a record whose meta cannot be read is left out."""
    seats = []
    for folder in session_folders(root):
        record = folder / fingerprint
        meta = read_meta(record) if record.is_dir() else None
        if meta is not None:
            seats.append((record, meta))
    return seats
