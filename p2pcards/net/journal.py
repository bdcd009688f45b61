"""A table's saved state on disk: an append-only transcript and a small secrets file.

A peer must never lose what was played, nor sign two different messages for
one position after a crash (that would be equivocation). So its own messages
are appended and synced to disk *before* they are sent; others' messages are
appended as they are accepted (a lost tail is fetched again from the host).
A torn last record, from a crash in the middle of a write, is ignored.

Layout under ``<state dir>/tables/<session hex>/<owner>/`` (read back by
:mod:`p2pcards.net.saved_tables`, the one index of it): ``meta`` (msgpack,
mode 0600: who this peer is at the table, its session secrets, where the host
is) and ``transcript`` (records of a 4-byte big-endian length and the raw
signed message). The host's relay also keeps ``notices``: the signed notices
(leaves, alerts) it accepted, in the same record format, never mixed into the
transcript.
"""

from __future__ import annotations

import contextlib
import os
import struct
from pathlib import Path
from typing import BinaryIO

from p2pcards.errors import P2PCardsError
from p2pcards.net.filelock import lock_exclusive, unlock
from p2pcards.net.storage import write_atomically
from p2pcards.protocol import wire
from p2pcards.protocol.verdict import Verdict
from p2pcards.wiremap import WireMap, WireValue

_LEN = struct.Struct(">I")
MAX_RECORD = 16 * 1024 * 1024


def read_records(path: Path) -> list[bytes]:
    """Every complete record of a transcript file, in order; a torn last record is dropped."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        return []
    out, offset = [], 0
    while offset + _LEN.size <= len(data):
        (size,) = _LEN.unpack_from(data, offset)
        if size > MAX_RECORD or offset + _LEN.size + size > len(data):
            break
        out.append(data[offset + _LEN.size: offset + _LEN.size + size])
        offset += _LEN.size + size
    return out


class NoTranscript(P2PCardsError):
    """A path that holds no usable transcript; the message says what is there instead."""


def read_saved_transcript(path: Path) -> tuple[Journal, Path, list[bytes]]:
    """A transcript file, or a saved table's folder, as ``verify`` and ``replay``
    take it: its journal, the transcript's path and its records (at least one)."""
    path = Path(path)
    journal = Journal(path if path.is_dir() else path.parent)
    transcript = journal.transcript_path if path.is_dir() else path
    if not transcript.exists():
        raise NoTranscript(f"no transcript at {transcript}" + (
            " (a saved table's folder holds one named 'transcript'; see p2pcards saved)"
            if path.is_dir() else ""))
    messages = read_records(transcript)
    if not messages:
        size = transcript.stat().st_size
        raise NoTranscript(f"{transcript} is empty: the table never started" if size == 0 else
                           f"{transcript} is not a p2pcards transcript (no signed message in it)")
    return journal, transcript, messages


class JournalInUse(P2PCardsError):
    """Another process is playing this seat from the same saved table.

    Two processes writing for one seat would sign two different messages for
    one position, and the others would blame this player for equivocation.
    """


class SeatAlreadySaved(P2PCardsError):
    """This folder already holds this seat's session secrets, which are never
    overwritten: a fresh key share for a seat that already wrote with another
    would make it sign a second version of its messages (equivocation). The
    table goes on from the saved secrets (``p2pcards resume``)."""

    def __init__(self, directory: Path) -> None:
        super().__init__(f"{directory} already holds this seat's secrets for this table; "
                         f"they are never overwritten (the seat goes on from them: resume it)")
        self.directory = directory


class Journal:
    """The saved state of one participant (or of the host's relay) at one table."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self._fh: BinaryIO | None = None
        self._lock_fd: int | None = None

    def claim(self) -> None:
        """Hold this journal for this process until :meth:`release` (or the process ends);
        raise :class:`JournalInUse` if another process holds it."""
        if self._lock_fd is not None:
            return
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(self.directory / "lock", os.O_RDWR | os.O_CREAT, 0o600)
        if not lock_exclusive(fd):  # flock on POSIX, msvcrt.locking on Windows
            os.close(fd)
            raise JournalInUse(f"{self.directory} is in use by another p2pcards process")
        self._lock_fd = fd

    def release(self) -> None:
        if self._lock_fd is not None:
            with contextlib.suppress(OSError):
                unlock(self._lock_fd)
            os.close(self._lock_fd)
            self._lock_fd = None

    @property
    def meta_path(self) -> Path:
        return self.directory / "meta"

    @property
    def transcript_path(self) -> Path:
        return self.directory / "transcript"

    def exists(self) -> bool:
        return self.meta_path.exists()

    def write_meta(self, meta: WireMap) -> None:
        """Replace the meta file atomically (temp file, fsync, rename), mode 0600.
        A seat's secrets are written once: raises :class:`SeatAlreadySaved` rather
        than replace a meta file that holds some (a fresh start over a saved seat)."""
        if self.meta_path.exists() and self._saved_secrets() is not None:
            raise SeatAlreadySaved(self.directory)
        write_atomically(self.meta_path, wire.pack(meta))

    def _saved_secrets(self) -> WireValue:
        """The secrets the meta file holds (None: none); an unreadable file counts as
        holding some, so it is never overwritten either."""
        try:
            return self.read_meta().get("secrets")
        except (OSError, ValueError, P2PCardsError):
            return b"unreadable"

    def read_meta(self) -> WireMap:
        meta = wire.unpack(self.meta_path.read_bytes(), max_bytes=MAX_RECORD)
        if not isinstance(meta, dict):
            raise ValueError(f"{self.meta_path}: not a meta map")
        return meta

    @property
    def verdict_path(self) -> Path:
        return self.directory / "verdict"

    def write_verdict(self, verdict_wire: WireMap) -> None:
        """Keep the verdict that ended the table, with its evidence, beside the transcript."""
        write_atomically(self.verdict_path, wire.pack(verdict_wire))

    def read_verdict(self) -> WireMap | None:
        try:
            verdict: WireMap = wire.unpack(self.verdict_path.read_bytes(), max_bytes=MAX_RECORD)
            return verdict
        except FileNotFoundError:
            return None

    def saved_verdict(self) -> Verdict | None:
        """The verdict saved beside the transcript, read as one (None: none saved);
        one that cannot be read raises (OSError, ProtocolError, ValueError, TypeError)."""
        saved = self.read_verdict()
        return Verdict.from_wire(saved) if saved is not None else None

    @property
    def result_path(self) -> Path:
        return self.directory / "result"

    def write_result(self, result: WireMap) -> None:
        """Keep how the match ended (the winners' names), so a list of saved tables
        can say so without replaying every proof."""
        write_atomically(self.result_path, wire.pack(result))

    def read_result(self) -> WireMap | None:
        try:
            result = wire.unpack(self.result_path.read_bytes(), max_bytes=MAX_RECORD)
        except FileNotFoundError:
            return None
        return result if isinstance(result, dict) else None

    def append(self, raw: bytes, sync: bool = False) -> None:
        """Add one transcript message; ``sync`` waits until it is on disk."""
        if self._fh is None:
            self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            self._fh = open(self.transcript_path, "ab")  # noqa: SIM115 - kept open for appends
        self._fh.write(_LEN.pack(len(raw)) + raw)
        self._fh.flush()
        if sync:
            os.fsync(self._fh.fileno())

    @property
    def notices_path(self) -> Path:
        return self.directory / "notices"

    def append_notice(self, raw: bytes) -> None:
        """Keep one signed notice beside the transcript (synced: it may be evidence)."""
        self.directory.mkdir(parents=True, exist_ok=True, mode=0o700)
        with open(self.notices_path, "ab") as fh:
            fh.write(_LEN.pack(len(raw)) + raw)
            fh.flush()
            os.fsync(fh.fileno())

    def read_notices(self) -> list[bytes]:
        return read_records(self.notices_path)

    def rewrite(self, messages: list[bytes]) -> None:
        """Replace the transcript (used after resuming past a torn tail)."""
        self.close()
        write_atomically(self.transcript_path, b"".join(_LEN.pack(len(raw)) + raw for raw in messages))

    def read_messages(self) -> list[bytes]:
        return read_records(self.transcript_path)

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None
