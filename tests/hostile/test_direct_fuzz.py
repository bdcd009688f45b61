"""Whatever another player sends on a direct link, an honest peer neither crashes
nor changes its table: hypothesis-made frames and mutations of real ones."""

from __future__ import annotations

import asyncio
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pcards.net.peer import PeerSession
from p2pcards.protocol import frames, wire
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_records import Stage
from tests.support.typed import present

from .harness import Bench

FUZZ = settings(max_examples=150, deadline=None, database=None, derandomize=True,
                suppress_health_check=list(HealthCheck))


class _FakeMesh:
    """Records what the peer would send on its direct links."""

    def __init__(self) -> None:
        self.sent: list[tuple[Any, bytes]] = []

    def send(self, player: int, frame: bytes) -> None:
        self.sent.append((player, frame))

    def broadcast(self, frame: bytes, exclude: Any = None, *, also_exclude: Any = None) -> None:
        self.sent.append(("all", frame))

    def linked(self) -> set[int]:
        return {1, 2}

    def is_linked(self, player: Any) -> bool:
        return player in (1, 2)


_BENCH = Bench("topper")
_BENCH.run(until=lambda bench: bench.tables[0].next_position >= 6)
_REAL = _BENCH.tables[3].transcript()


def _session() -> PeerSession:
    session = PeerSession(_BENCH.identities[3], agent=None, connector=None,  # type: ignore[arg-type]  # never plays
                          direct=True)
    table = Table(_REAL[0], _BENCH.identities[3])
    for raw in _REAL[1:]:
        table.receive(raw, saved=True)  # seat 3's own record
    session.table = table
    session.mesh = _FakeMesh()  # type: ignore[assignment]
    return session


def _feed(data: bytes) -> PeerSession:
    session = _session()
    before = present(session.table).next_position

    async def run() -> None:
        await session.routing.direct_frame(1, data)
    asyncio.run(run())
    assert present(session.table).stage is not Stage.ENDED
    assert present(session.table).next_position == before
    return session


KINDS = st.sampled_from(["hello", "msg", "alert", "sync", "ping", "pong", "peers", "lobby", "talk",
                         "reject", "x"])
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2**40, 2**40) | st.binary(max_size=40)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12)


@FUZZ
@given(st.binary(max_size=300))
def test_random_bytes_on_a_direct_link_change_nothing(data: bytes) -> None:
    _feed(data)


@FUZZ
@given(KINDS, VALUES)
def test_random_frames_on_a_direct_link_change_nothing(kind: str, body: Any) -> None:
    _feed(wire.pack([kind, body]))


@FUZZ
@given(st.integers(0, len(_REAL) - 1), st.integers(0, 10_000), st.integers(0, 255),
       st.sampled_from(["msg", "alert"]))
def test_mutated_real_messages_on_a_direct_link_change_nothing(index: int, where: int, byte: int,
                                                               kind: str) -> None:
    raw = bytearray(_REAL[index])
    spot = where % len(raw)
    if raw[spot] == byte:
        byte ^= 1
    raw[spot] = byte
    _feed(frames.encode(kind, bytes(raw)))


def test_a_sync_on_a_direct_link_is_answered_from_the_transcript() -> None:
    session = _feed(frames.encode("sync", {"have": 2}))
    assert [f for p, f in present(session.mesh).sent] == [frames.encode("msg", raw) for raw in _REAL[2:]]  # type: ignore[attr-defined]
    assert all(p == 1 for p, _ in present(session.mesh).sent)  # type: ignore[attr-defined]
    # Beyond our count: nothing but our count (it asks for what we lack; PROTOCOL.md §3).
    session = _feed(frames.encode("sync", {"have": 2**31 - 1}))
    assert present(session.mesh).sent == [(1, frames.encode("sync", {"have": len(_REAL)}))]  # type: ignore[attr-defined]
