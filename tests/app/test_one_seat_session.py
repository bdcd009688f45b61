"""A session that meets its own key's messages written elsewhere (a second
process for the same seat, here an identity copied to another folder) ends
at once with a result naming nobody, having signed nothing after it knew."""

from __future__ import annotations

import asyncio
from pathlib import Path

from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.net.peer import PeerSession
from p2pcards.net.session_events import SessionResult
from tests.support import until

from .hosted import hosted_topper, topper_bot


async def _second_process_for_one_seat(tmp_path: Path) -> tuple[PeerSession, SessionResult]:
    async with hosted_topper(tmp_path, 5) as hosted:
        seat = seeded_identity(5, "x", "Xan")
        first = PeerSession(seat, topper_bot(2), hosted.host.local_connector(seat),
                            journal_root=tmp_path / "first")
        playing = asyncio.create_task(first.run())
        await until(lambda: first.table is not None and first.table.next_position > 8)
        second = PeerSession(seat, topper_bot(3), hosted.host.local_connector(seat),
                             journal_root=tmp_path / "second")
        result = await asyncio.wait_for(second.run(), 60)
        playing.cancel()
        await asyncio.gather(playing, return_exceptions=True)
        return second, result


def test_a_second_process_for_a_seat_stops_naming_nobody(tmp_path: Path) -> None:
    second, result = asyncio.run(_second_process_for_one_seat(tmp_path))
    assert result.verdict is None and result.outcome is None
    assert "another process is playing this seat" in result.reason
    table = second.table
    assert table is not None and table.elsewhere is not None and table.verdict is None
    # What it saved ends where it stopped: nothing signed after it knew.
    assert second.journal is not None
    assert len(second.journal.read_messages()) <= table.elsewhere.position + 1
