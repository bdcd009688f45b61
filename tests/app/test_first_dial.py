"""A first dial: a host that cut the handshake (admission) is tried again for a
moment; a host where nobody listens is reported at once."""

from __future__ import annotations

import asyncio

from p2pcards.app import TableOptions, seeded_identity, start_hosted_table
from p2pcards.bots.agent import BotAgent, make_bot_factory
from p2pcards.net.errors import NetError
from p2pcards.net.peer import PeerSession
from p2pcards.protocol import games
from p2pcards.rules.topper import TopperConfig


def _options(tmp_path) -> TableOptions:
    config = games.by_name("topper").config_to_wire(TopperConfig(target_score=3))
    return TableOptions(game="topper", config=config, seed=8, journal_root=tmp_path)


def _joiner(hosted, failures: list[BaseException]) -> PeerSession:
    identity = seeded_identity(8, "late", "Late")
    dial = hosted.host.local_connector(identity)

    async def connect():
        if failures:
            raise failures.pop(0)
        return await dial()
    return PeerSession(identity, BotAgent(make_bot_factory("topper", "heuristic"), 8), connect)


def test_a_joiner_whose_first_handshakes_were_cut_joins_a_moment_later(tmp_path):
    async def run():
        me = seeded_identity(8, "me", "Me")
        hosted = await start_hosted_table(
            me, BotAgent(make_bot_factory("topper", "heuristic"), 8), _options(tmp_path), bots=2)
        failures: list[BaseException] = [NetError("connection reset during the handshake"),
                                         ConnectionResetError("reset by peer")]
        joiner = _joiner(hosted, failures)
        try:
            result = await asyncio.wait_for(joiner.run(), 60)
            return failures, result
        finally:
            await hosted.close(grace=5)
    failures, result = asyncio.run(run())
    assert failures == []
    assert result.verdict is None and result.outcome is not None  # it played the match


def test_a_host_where_nobody_listens_is_reported_at_once(tmp_path):
    async def run():
        me = seeded_identity(8, "me", "Me")
        hosted = await start_hosted_table(
            me, BotAgent(make_bot_factory("topper", "heuristic"), 8), _options(tmp_path), bots=2)
        failures: list[BaseException] = [ConnectionRefusedError("connection refused")] * 5
        joiner = _joiner(hosted, failures)
        try:
            return failures, await asyncio.wait_for(joiner.run(), 60)
        finally:
            await hosted.close(grace=0.1)
    failures, result = asyncio.run(run())
    assert len(failures) == 4  # one dial, no retry
    assert result.outcome is None and "cannot reach the host" in result.reason
