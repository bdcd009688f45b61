"""The driver keeps an ended table's links and answers for the grace the session
rules give it (``SessionRules.ended``/``lingering``): a direct peer that lacks
the end gets it by sync; the session returns once every linked player said it
holds everything, or when the grace is up. No network: a fake mesh records
what would go on the direct links."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from p2pcards.app._direct import direct_table
from p2pcards.net.peer import PeerSession
from p2pcards.protocol import frames
from p2pcards.protocol.table_records import Stage


class _FakeMesh:
    def __init__(self, linked: set[int]) -> None:
        self.sent: list[tuple[int, bytes]] = []
        self._linked = linked

    def send(self, player: int, frame: bytes) -> None:
        self.sent.append((player, frame))

    def broadcast(self, frame: bytes, exclude: Any = None, *, also_exclude: Any = None) -> None:
        pass

    def linked(self) -> set[int]:
        return set(self._linked)


@pytest.fixture(scope="module")
def ended_match() -> Any:
    match = direct_table("topper", seed=3)
    match.run()
    assert match.tables[1].stage is Stage.OVER
    return match


def _ended_session(match: Any, grace: float) -> tuple[PeerSession, _FakeMesh]:
    session = PeerSession(match.identities[1], agent=None, connector=None)  # type: ignore[arg-type]  # no play
    session.table = match.tables[1]
    session.rules.grace = grace
    mesh = _FakeMesh({2})
    session.mesh = mesh  # type: ignore[assignment]
    session.rules.linked = {2}
    session.inbox.open()
    return session, mesh


def _kinds(mesh: _FakeMesh) -> list[tuple[int, str, Any]]:
    return [(p, frames.decode(f).kind, frames.decode(f).body) for p, f in mesh.sent]


def test_an_ended_session_answers_a_late_peer_and_stops_once_it_holds_the_end(ended_match: Any) -> None:
    count = ended_match.tables[1].next_position

    async def scene() -> list[tuple[int, str, Any]]:
        session, mesh = _ended_session(ended_match, grace=30.0)
        linger = asyncio.create_task(session._linger())
        await asyncio.sleep(0)
        # The late player asks for the last message, then says it holds everything.
        await session.inbox.put(("direct", 2, frames.encode("sync", {"have": count - 1})))
        await session.inbox.put(("direct", 2, frames.encode("sync", {"have": count})))
        await asyncio.wait_for(linger, 5)  # long before the grace
        return _kinds(mesh)
    sent = asyncio.run(scene())
    assert sent[0] == (2, "sync", {"have": count})  # the ended table says what it holds
    assert [(p, k) for p, k, _ in sent[1:]] == [(2, "msg")]  # and hands over the end
    assert sent[1][2] == ended_match.tables[1].transcript()[-1]


def test_an_ended_session_stops_by_itself_when_the_grace_is_up(ended_match: Any) -> None:
    async def scene() -> tuple[bool, bool]:
        session, _ = _ended_session(ended_match, grace=0.2)
        await asyncio.wait_for(session._linger(), 5)  # nobody answers: it returns by itself
        ended_at = session.rules.ended_at
        assert ended_at is not None
        # It did linger: within the grace a linked player not known to hold the end keeps it.
        return session.rules.lingering(ended_at), session.rules.lingering(ended_at + 0.2)
    assert asyncio.run(scene()) == (True, False)
