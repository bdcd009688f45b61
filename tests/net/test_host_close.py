"""A closed host saves nothing more: a frame its links read just before the close
must not reopen the relay's journal, whose lock it has released (a resumed host
may hold that journal by then)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from p2pcards.net.host import TableHost
from p2pcards.net.journal import Journal
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.relay import Persist, PersistNotice


def test_a_closed_host_writes_nothing_to_the_journal_it_released(tmp_path: Path) -> None:
    async def run() -> tuple[list[bytes], bool]:
        host = TableHost(Identity.generate("Host"), "bluff", {}, "t")
        host.journal = Journal(tmp_path / "relay")
        host.journal.claim()
        host._apply([Persist(b"one")])  # while open: saved
        await host.close()
        host._apply([Persist(b"two"), PersistNotice(b"late")])  # read just before the close
        return host.journal.read_messages(), host.journal.notices_path.exists()

    saved, notices = asyncio.run(run())
    assert saved == [b"one"]
    assert not notices
    # Nothing was left open either: another claim of the same journal succeeds.
    again = Journal(tmp_path / "relay")
    again.claim()
    again.release()
