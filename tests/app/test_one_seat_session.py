"""A session that meets its own key's messages written elsewhere (a second
process for the same seat, here an identity copied to another folder) ends
at once with a result naming nobody, having signed nothing after it knew."""

from __future__ import annotations

import asyncio

from p2pcards.app import TableOptions, seeded_identity, start_hosted_table
from p2pcards.bots.agent import BotAgent, make_bot_factory
from p2pcards.net.peer import PeerSession
from p2pcards.protocol import games
from p2pcards.rules.topper import TopperConfig

from .polling import until


def _bot(seed: int) -> BotAgent:
    return BotAgent(make_bot_factory("topper", "heuristic"), seed)


async def _second_process_for_one_seat(tmp_path):
    config = games.by_name("topper").config_to_wire(TopperConfig(target_score=3))
    options = TableOptions(game="topper", config=config, seed=5, deadline=30,
                           journal_root=tmp_path / "host")
    hosted = await start_hosted_table(seeded_identity(5, "me", "Me"), _bot(1), options, bots=2)
    try:
        seat = seeded_identity(5, "x", "Xan")
        first = PeerSession(seat, _bot(2), hosted.host.local_connector(seat),
                            journal_root=tmp_path / "first")
        playing = asyncio.create_task(first.run())
        await until(lambda: first.table is not None and first.table.next_position > 8)
        second = PeerSession(seat, _bot(3), hosted.host.local_connector(seat),
                             journal_root=tmp_path / "second")
        result = await asyncio.wait_for(second.run(), 60)
        playing.cancel()
        await asyncio.gather(playing, return_exceptions=True)
        return second, result
    finally:
        await hosted.close(grace=0, linger=0)


def test_a_second_process_for_a_seat_stops_naming_nobody(tmp_path):
    second, result = asyncio.run(_second_process_for_one_seat(tmp_path))
    assert result.verdict is None and result.outcome is None
    assert "another process is playing this seat" in result.reason
    table = second.table
    assert table is not None and table.elsewhere is not None and table.verdict is None
    # What it saved ends where it stopped: nothing signed after it knew.
    assert second.journal is not None
    assert len(second.journal.read_messages()) <= table.elsewhere.position + 1
