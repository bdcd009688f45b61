"""The in-memory transport: the same handshake, sealing and failures as TCP, plus faults."""

from __future__ import annotations

import asyncio

import pytest

from p2pcards.net.connection import Connection
from p2pcards.net.errors import (
    ConnectionClosed,
    FrameTooLarge,
    OutOfOrderFrame,
    ReplayedFrame,
    TamperedFrame,
    UnexpectedPeer,
)
from p2pcards.net.memory import MemoryNetwork, MemoryWire, memory_pair
from p2pcards.protocol.identity import Identity

pytestmark = pytest.mark.asyncio

BOUND = 5.0


async def recv(conn: Connection) -> bytes:
    return await asyncio.wait_for(conn.recv(), BOUND)


async def test_pair_runs_the_handshake_and_learns_identities(alice: Identity, bob: Identity) -> None:
    a, b = await memory_pair(alice, bob, expect_b=bob.fingerprint, expect_a=alice.public_key)
    assert type(a) is Connection and type(b) is Connection  # the TCP class, over another transport
    assert a.peer_public_key == bob.public_key and b.peer_fingerprint == alice.fingerprint


async def test_send_and_recv_both_ways_many_frames(alice: Identity, bob: Identity) -> None:
    a, b = await memory_pair(alice, bob)
    messages = [bytes([n % 256]) * n for n in range(300)]
    for message in messages:
        await a.send(message)
        await b.send(message[::-1])
    assert [await recv(b) for _ in messages] == messages
    assert [await recv(a) for _ in messages] == [m[::-1] for m in messages]


@pytest.mark.parametrize("pinned_side", ["a", "b"])
async def test_wrong_pinned_identity_fails(alice: Identity, bob: Identity, pinned_side: str) -> None:
    stranger = Identity.generate().fingerprint
    pins = {"expect_b": stranger} if pinned_side == "a" else {"expect_a": stranger}
    with pytest.raises(UnexpectedPeer):
        await asyncio.wait_for(memory_pair(alice, bob, **pins), BOUND)  # type: ignore[arg-type]


async def test_closing_one_side_is_seen_by_the_other(alice: Identity, bob: Identity) -> None:
    a, b = await memory_pair(alice, bob)
    await a.send(b"last words")
    a.close()
    assert await recv(b) == b"last words"  # what was sent before the close still arrives
    with pytest.raises(ConnectionClosed) as caught:
        await recv(b)
    assert caught.value.by_peer
    with pytest.raises(ConnectionClosed) as mine:
        await recv(a)
    assert not mine.value.by_peer


async def test_send_to_a_closed_peer_fails(alice: Identity, bob: Identity) -> None:
    a, b = await memory_pair(alice, bob)
    b.close()
    with pytest.raises(ConnectionClosed):
        await a.send(b"anyone there?")


async def test_cut_wire_drops_both_ends(alice: Identity, bob: Identity) -> None:
    wire = MemoryWire()
    a, b = await memory_pair(alice, bob, wire=wire)
    wire.cut()
    for end in (a, b):
        with pytest.raises(ConnectionClosed) as caught:
            await recv(end)
        assert caught.value.by_peer


async def test_dropped_frame_makes_the_next_one_out_of_order(alice: Identity, bob: Identity) -> None:
    wire = MemoryWire()
    a, b = await memory_pair(alice, bob, wire=wire)
    wire.drop_next("a")
    await a.send(b"lost")
    await a.send(b"next")
    with pytest.raises(OutOfOrderFrame):
        await recv(b)
    assert b.closed


async def test_duplicated_frame_is_a_replay(alice: Identity, bob: Identity) -> None:
    wire = MemoryWire()
    a, b = await memory_pair(alice, bob, wire=wire)
    wire.intercept("a", lambda frame: [frame, frame])
    await a.send(b"once")
    assert await recv(b) == b"once"
    with pytest.raises(ReplayedFrame):
        await recv(b)


async def test_reordered_frames_are_rejected(alice: Identity, bob: Identity) -> None:
    wire = MemoryWire()
    a, b = await memory_pair(alice, bob, wire=wire)
    held: list[bytes] = []

    def swap(frame: bytes) -> list[bytes]:
        if not held:
            held.append(frame)
            return []
        return [frame, held.pop()]

    wire.intercept("a", swap)
    await a.send(b"first")
    await a.send(b"second")
    with pytest.raises(OutOfOrderFrame):
        await recv(b)


async def test_tampered_frame_is_rejected_and_closes(alice: Identity, bob: Identity) -> None:
    wire = MemoryWire()
    a, b = await memory_pair(alice, bob, wire=wire)
    wire.intercept("b", lambda frame: [frame[:-1] + bytes([frame[-1] ^ 0x80])])
    await b.send(b"fold")
    with pytest.raises(TamperedFrame):
        await recv(a)
    with pytest.raises(ConnectionClosed):
        await a.send(b"after the fault")


async def test_oversized_frame_is_rejected_like_tcp(alice: Identity, bob: Identity) -> None:
    wire = MemoryWire()
    a, b = await memory_pair(alice, bob, wire=wire, max_frame=1024)
    with pytest.raises(FrameTooLarge):
        await a.send(bytes(a.max_payload + 1))  # refused locally, link still usable
    await a.send(b"fits")
    assert await recv(b) == b"fits"
    wire.intercept("a", lambda frame: [frame + bytes(2000)])
    await a.send(b"inflated on the wire")
    with pytest.raises(FrameTooLarge):
        await recv(b)
    assert b.closed


# --- a memory network with the TCP signatures -----------------------------------------


async def test_star_of_four_peers_in_one_process() -> None:
    network = MemoryNetwork()
    host, *guests = [Identity.generate(name) for name in ("host", "g1", "g2", "g3")]
    seats: list[Connection] = []
    everyone_in = asyncio.Event()

    async def on_connection(conn: Connection) -> None:
        seats.append(conn)
        if len(seats) == len(guests):
            everyone_in.set()

    server = await network.serve("table.local", 0, host, on_connection)
    links = [await network.connect("table.local", server.port, guest, expected_peer=host.fingerprint)
             for guest in guests]
    await asyncio.wait_for(everyone_in.wait(), BOUND)
    assert {seat.peer_fingerprint for seat in seats} == {guest.fingerprint for guest in guests}

    # The host relays what one guest says to every other seat.
    await links[0].send(b"deal me in")
    sender = next(seat for seat in seats if seat.peer_fingerprint == guests[0].fingerprint)
    message = await recv(sender)
    for seat in seats:
        if seat is not sender:
            await seat.send(message)
    assert [await recv(link) for link in links[1:]] == [b"deal me in"] * 2


async def test_memory_network_refuses_unknown_and_closed_listeners(alice: Identity, bob: Identity) -> None:
    network = MemoryNetwork()
    with pytest.raises(ConnectionRefusedError):
        await network.connect("nowhere", 1, alice)
    server = await network.serve("here", 0, bob, lambda conn: None)
    server.close()
    with pytest.raises(ConnectionRefusedError):
        await network.connect("here", server.port, alice)


async def test_memory_network_pin_mismatch(alice: Identity, bob: Identity) -> None:
    network = MemoryNetwork()
    server = await network.serve("here", 0, bob, lambda conn: None)
    with pytest.raises(UnexpectedPeer):
        await network.connect("here", server.port, alice, expected_peer=Identity.generate().public_key)


async def test_memory_network_wires_allow_faults(alice: Identity, bob: Identity) -> None:
    network = MemoryNetwork()
    accepted: asyncio.Queue[Connection] = asyncio.Queue()
    server = await network.serve("here", 0, bob, accepted.put)
    client = await network.connect("here", server.port, alice)
    served = await asyncio.wait_for(accepted.get(), BOUND)
    network.wires[-1].cut()
    with pytest.raises(ConnectionClosed):
        await recv(served)
    with pytest.raises(ConnectionClosed):
        await client.send(b"gone")


async def test_connection_repr_and_errors_hold_no_secrets(alice: Identity, bob: Identity) -> None:
    wire = MemoryWire()
    a, b = await memory_pair(alice, bob, wire=wire)
    wire.intercept("a", lambda frame: [frame[:-1] + bytes([frame[-1] ^ 1])])
    await a.send(b"the queen of spades")
    with pytest.raises(TamperedFrame) as caught:
        await recv(b)
    texts = [repr(a), repr(b), str(caught.value), repr(caught.value)]
    secrets = [bytes(alice.signing_key), bytes(bob.signing_key)]
    for text in texts:
        assert "queen" not in text
        for secret in secrets:
            assert secret.hex() not in text and repr(secret)[2:-1] not in text
    assert alice.fingerprint in repr(b) and bob.fingerprint in repr(a)
