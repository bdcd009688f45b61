"""A first dial: a host that cut the handshake (admission) is tried again for a
moment; a host where nobody listens is reported at once."""

from __future__ import annotations

import asyncio
from pathlib import Path

from p2pcards.app.hosted import HostedTable, TableOptions, start_hosted_table
from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.bots.agent import BotAgent, make_bot_factory
from p2pcards.net.connection import Connection
from p2pcards.net.errors import NetError
from p2pcards.net.peer import PeerSession
from p2pcards.net.session_events import SessionResult
from p2pcards.protocol import game_wire
from p2pcards.rules.topper import TopperConfig


def _options(tmp_path: Path) -> TableOptions:
    config = game_wire.by_name("topper").config_to_wire(TopperConfig(target_score=3))
    return TableOptions(game="topper", config=config, seed=8, journal_root=tmp_path)


def _joiner(hosted: HostedTable, failures: list[BaseException]) -> PeerSession:
    identity = seeded_identity(8, "late", "Late")
    dial = hosted.host.local_connector(identity)

    async def connect() -> Connection:
        if failures:
            raise failures.pop(0)
        return await dial()
    return PeerSession(identity, BotAgent(make_bot_factory("topper", "heuristic"), 8), connect)


def test_a_joiner_whose_first_handshakes_were_cut_joins_a_moment_later(tmp_path: Path) -> None:
    async def run() -> tuple[list[BaseException], SessionResult]:
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


def test_a_host_where_nobody_listens_is_reported_at_once(tmp_path: Path) -> None:
    async def run() -> tuple[list[BaseException], SessionResult]:
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


def test_what_was_written_between_the_hello_and_the_link_going_up_reaches_the_host() -> None:
    """The hello names how many messages this peer holds; a message written before
    the table task takes the new link (a resumed player's first move, a reconnect)
    is sent on it as soon as it does: the host would never ask for it."""
    from p2pcards.app._direct import direct_table
    from p2pcards.protocol import frames

    table = direct_table("topper", seed=8)
    for _ in range(5):
        table.step()
    me = table.tables[1]

    class Link:
        closed = False

        def __init__(self) -> None:
            self.sent: list[bytes] = []

        async def send(self, frame: bytes) -> None:
            self.sent.append(frame)

    session = PeerSession(table.identities[1], BotAgent(make_bot_factory("topper", "heuristic"), 8),
                          connector=None)  # type: ignore[arg-type]  # never dials
    session.table = me
    link = Link()
    said_in_hello = 3
    asyncio.run(session.routing.item(("up", link, said_in_hello)))  # type: ignore[arg-type]
    assert [frames.decode(f).body for f in link.sent] == me.transcript()[said_in_hello:]
    assert link.sent  # there was something to send
