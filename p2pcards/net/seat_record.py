"""One seat's record on disk: every message it holds, saved in order and once
each, and how its table ended.

The record is what makes a crash safe — a message is saved before it is
sent, so this player never signs a position twice — and what ``verify`` and
``resume`` read later. The session (:mod:`p2pcards.net.peer`) only says when.
"""

from __future__ import annotations

from pathlib import Path

from p2pcards.net.journal import Journal
from p2pcards.net.saved_tables import record_folder
from p2pcards.protocol.events import MatchCompleted, TableEnded, TableEvent
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.table import Table
from p2pcards.protocol.verdict import Verdict
from p2pcards.wiremap import WireMap


class SeatRecord:
    """The journal of one seat (none: this session keeps no record)."""

    def __init__(self) -> None:
        self.journal: Journal | None = None
        #: How many of the table's messages the record holds (see :meth:`save_held`).
        self.saved = 0

    def resumed(self, journal: Journal, table: Table) -> None:
        """The table was rebuilt from ``journal``, which now holds exactly its transcript."""
        self.journal, self.saved = journal, len(table.transcript())

    def create(self, root: Path, table: Table, identity: Identity, meta: WireMap,
               bots: dict[bytes, bool], genesis: bytes) -> None:
        """A new record for this seat at ``table`` (claimed: raises
        :class:`~p2pcards.net.journal.JournalInUse` if another process plays it),
        with the meta a resume needs and the genesis."""
        self.journal = Journal(record_folder(root, table.session, identity.fingerprint))
        self.journal.claim()
        # Which players the lobby said are bots (the genesis does not say), so a
        # resumed table still marks them.
        marks = [int(bots.get(p.public_key, False)) for p in table.players]
        self.journal.write_meta({**meta, "v": 1, "player": table.me_player, "name": identity.name,
                                 "bots": marks, "secrets": table.member.secrets.to_wire()})
        self.journal.append(genesis, sync=True)
        self.saved = 1

    def save_held(self, table: Table | None, sync: bool) -> None:
        """Save, in order and once each, every message the table holds beyond what
        the record has. A message accepted just as the session was cancelled (Ctrl-C
        while its check ran in a worker thread) would otherwise be missing from a
        record whose verdict, signed next, is dated after it (``verify`` refuses a
        leave dated past the record's end)."""
        if self.journal is None or table is None:
            return
        held = table.transcript()
        for raw in held[self.saved:]:
            self.journal.append(raw, sync=sync)
        self.saved = len(held)

    def verdict(self, table: Table, verdict: Verdict) -> None:
        """The table ended with ``verdict``: the record reaches its position, then ends with it."""
        if self.journal is not None:
            self.save_held(table, sync=True)
            self.journal.write_verdict(verdict.to_wire())

    def events(self, table: Table | None, events: list[TableEvent]) -> None:
        """What the table's events mean for the record: a verdict, the match's result."""
        if self.journal is None or table is None:
            return
        for event in events:
            if isinstance(event, TableEnded):
                self.verdict(table, event.verdict)
            if isinstance(event, MatchCompleted):
                self.journal.write_result({"winners": [
                    table.players[table.match.player_at_seat[seat]].name
                    for seat in event.outcome.winners]})

    def close(self) -> None:
        if self.journal is not None:
            self.journal.close()  # a later append (a resumed run) opens it again

    def release(self) -> None:
        if self.journal is not None:
            self.journal.release()


__all__ = ["SeatRecord"]
