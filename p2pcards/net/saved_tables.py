"""The index of saved tables: the folder layout the journal writes, read back.

Every record a machine keeps lives at ``<tables dir>/<session hex>/<owner>/``
(see :mod:`p2pcards.net.journal`): the owner is a seat's key fingerprint, or
``relay`` for the host's. This module is the one place that knows it, so the
command line asks "which sessions, which records, whose seat" and never walks
the folders itself.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from p2pcards.errors import P2PCardsError
from p2pcards.wiremap import WireMap

#: The folder of a session's records that is the host's relay, not a seat.
RELAY = "relay"

#: A note in the relay's folder: a resume of the host found that its table ended
#: while it was away. It writes no verdict (its record names nobody), so this note
#: is how ``saved`` knows the table ended.
ENDED_AWAY = "ended_away"


def session_id(record: Path) -> str:
    """The session id a record belongs to: the name of its session's folder."""
    return Path(record).parent.name


def session_folder(record: Path) -> Path:
    """The folder of the session a record belongs to (its other seats, its relay)."""
    return Path(record).parent


def record_folder(root: Path, session: bytes, owner: str) -> Path:
    """Where the record of ``owner`` (a fingerprint, or :data:`RELAY`) at ``session`` is kept."""
    return Path(root) / session.hex() / owner


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


def why_unreadable(error: OSError, path: Path) -> str:
    """A saved file the system would not let us read, in words (never an OSError's
    ``[Errno …]`` text): which file, and why."""
    name = error.filename if error.filename is not None else path
    why = (error.strerror or type(error).__name__).lower()
    return f"cannot read {name}: {why}"


def own_records(root: Path, fingerprint: str) -> list[Path]:
    """Every record folder of the seat with this key, readable or not (to say which
    ones :func:`own_seats` left out)."""
    return [folder / fingerprint for folder in session_folders(root)
            if is_record(folder / fingerprint)]


def why_left_out(record: Path) -> str:
    """Why a record cannot be listed, in words: the file the system would not let
    us read and why, or that it is not what p2pcards writes."""
    from p2pcards.net.journal import Journal
    journal = Journal(record)
    for path in (journal.meta_path, journal.transcript_path):
        try:
            with open(path, "rb") as readable:
                readable.read(1)
        except FileNotFoundError:
            continue
        except OSError as error:
            return why_unreadable(error, path)
    return f"{record} holds no meta and transcript p2pcards can read (damaged?)"


def note_ended_away(session_dir: Path, sentence: str) -> None:
    """Keep, beside the relay's record, what a resume of the host learnt: the table
    ended while it was away (a note only: nothing to verify, no one named)."""
    with contextlib.suppress(OSError):  # a note that cannot be written: saved says less
        (Path(session_dir) / RELAY / ENDED_AWAY).write_text(sentence + "\n", encoding="utf-8")


def ended_away(session_dir: Path) -> bool:
    """Whether a resume of the host found that this table ended while it was away."""
    return (Path(session_dir) / RELAY / ENDED_AWAY).is_file()
