"""Connections over loopback TCP: traffic, limits and the server's defences."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections.abc import AsyncIterator, Callable

import pytest

from p2pcards.net.connection import Connection, Limits, Server, connect, serve
from p2pcards.net.errors import (
    ConnectionClosed,
    FrameTimeout,
    FrameTooLarge,
    HandshakeTimeout,
    TamperedFrame,
    UnexpectedPeer,
)
from p2pcards.net.framing import FrameDecoder, encode_frame
from p2pcards.net.link import HANDSHAKE_MAX_FRAME, LinkHandshake, Role, SecureChannel
from p2pcards.protocol.identity import Identity
from tests.support import until

pytestmark = pytest.mark.asyncio

BOUND = 10.0  # seconds: every wait in these tests ends by itself within this
FAST = Limits(handshake_timeout=2.0, frame_timeout=2.0)


@contextlib.asynccontextmanager
async def running_server(
    identity: Identity, limits: Limits = FAST,
) -> AsyncIterator[tuple[Server, asyncio.Queue[Connection]]]:
    """A server whose accepted connections queue up for the test; all are closed at the end."""
    accepted: asyncio.Queue[Connection] = asyncio.Queue()
    owned: list[Connection] = []

    def on_connection(conn: Connection) -> None:
        owned.append(conn)
        accepted.put_nowait(conn)

    server = await serve("127.0.0.1", 0, identity, on_connection, limits)
    try:
        yield server, accepted
    finally:
        server.close()
        await server.wait_closed()
        for conn in owned:
            await conn.aclose()


async def shut(writer: asyncio.StreamWriter) -> None:
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()


async def accepted_one(accepted: asyncio.Queue[Connection]) -> Connection:
    return await asyncio.wait_for(accepted.get(), BOUND)


async def raw_handshake(
    port: int, identity: Identity, local_host: str | None = None,
    then: Callable[[SecureChannel], bytes] | None = None,
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, SecureChannel]:
    """A hand-driven client: the real handshake, then the test writes whatever bytes it
    likes (``then``'s, in the same write as the handshake's last message)."""
    local_addr = (local_host, 0) if local_host else None
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=local_addr)
    handshake = LinkHandshake(identity, Role.INITIATOR)
    writer.write(encode_frame(handshake.start() or b""))
    decoder, frames = FrameDecoder(), list[bytes]()
    while not frames:
        chunk = await asyncio.wait_for(reader.read(4096), BOUND)
        assert chunk, "server closed during the handshake"
        frames = decoder.feed(chunk)
    last = encode_frame(handshake.receive(frames[0]) or b"")
    writer.write(last + (then(handshake.channel()) if then is not None else b""))
    await writer.drain()
    return reader, writer, handshake.channel()


async def closed_by_server(reader: asyncio.StreamReader) -> bool:
    """True once the server has closed or reset this raw socket."""
    try:
        return await asyncio.wait_for(reader.read(1), BOUND) == b""
    except ConnectionResetError:
        return True


# --- traffic ---------------------------------------------------------------------------


async def test_send_and_recv_both_ways_many_frames(alice: Identity, bob: Identity) -> None:
    async with running_server(bob) as (server, accepted):
        client = await connect("127.0.0.1", server.port, alice, expected_peer=bob.fingerprint)
        served = await accepted_one(accepted)
        messages = [os.urandom(n % 700) for n in range(400)]

        async def pump(sender: Connection) -> None:
            for message in messages:
                await sender.send(message)

        async def drain(receiver: Connection) -> list[bytes]:
            return [await receiver.recv() for _ in messages]

        async with asyncio.timeout(BOUND):
            _, _, to_bob, to_alice = await asyncio.gather(pump(client), pump(served), drain(served), drain(client))
        assert to_bob == messages and to_alice == messages
        await client.aclose()


async def test_both_ends_learn_identity_and_address(alice: Identity, bob: Identity) -> None:
    async with running_server(bob) as (server, accepted):
        client = await connect("127.0.0.1", server.port, alice)
        served = await accepted_one(accepted)
        assert client.peer_public_key == bob.public_key and client.peer_fingerprint == bob.fingerprint
        assert served.peer_public_key == alice.public_key and served.peer_fingerprint == alice.fingerprint
        assert client.remote_address == ("127.0.0.1", server.port)
        assert served.remote_address[0] == "127.0.0.1"
        await client.aclose()


async def test_largest_payload_fits_and_one_more_byte_is_refused_locally(alice: Identity, bob: Identity) -> None:
    async with running_server(bob) as (server, accepted):
        client = await connect("127.0.0.1", server.port, alice)
        served = await accepted_one(accepted)
        biggest = os.urandom(client.max_payload)
        await client.send(biggest)
        assert await asyncio.wait_for(served.recv(), BOUND) == biggest
        with pytest.raises(FrameTooLarge):
            await client.send(bytes(client.max_payload + 1))
        await client.send(b"still open")  # a refused local send leaves the link usable
        assert await asyncio.wait_for(served.recv(), BOUND) == b"still open"
        await client.aclose()


async def test_wrong_pinned_identity_fails_to_connect(alice: Identity, bob: Identity) -> None:
    async with running_server(bob) as (server, _):
        with pytest.raises(UnexpectedPeer):
            await connect("127.0.0.1", server.port, alice, expected_peer=Identity.generate().fingerprint)


async def test_nothing_listening_raises_os_error(alice: Identity) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free_port = probe.getsockname()[1]
    with pytest.raises(OSError):
        await connect("127.0.0.1", free_port, alice, timeout=BOUND)


async def test_serve_binds_a_given_port(bob: Identity) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        chosen = probe.getsockname()[1]
    server = await serve("127.0.0.1", chosen, bob, lambda conn: None)
    try:
        assert server.port == chosen
    finally:
        server.close()


async def test_silent_server_gives_handshake_timeout(alice: Identity) -> None:
    held: list[asyncio.StreamWriter] = []
    silent = await asyncio.start_server(lambda r, w: held.append(w), "127.0.0.1", 0)
    port = silent.sockets[0].getsockname()[1]
    try:
        with pytest.raises(HandshakeTimeout):
            await connect("127.0.0.1", port, alice, timeout=0.3)
    finally:
        silent.close()
        for writer in held:
            await shut(writer)


# --- closing -------------------------------------------------------------------------------


async def test_peer_close_is_seen_as_closed_by_peer(alice: Identity, bob: Identity) -> None:
    async with running_server(bob) as (server, accepted):
        client = await connect("127.0.0.1", server.port, alice)
        served = await accepted_one(accepted)
        await client.aclose()
        with pytest.raises(ConnectionClosed) as caught:
            await asyncio.wait_for(served.recv(), BOUND)
        assert caught.value.by_peer
        assert served.closed


async def test_local_close_wakes_a_pending_recv(alice: Identity, bob: Identity) -> None:
    async with running_server(bob) as (server, accepted):
        client = await connect("127.0.0.1", server.port, alice)
        await accepted_one(accepted)
        pending = asyncio.create_task(client.recv())
        await until(client._recv_lock.locked, what="the recv to be waiting for a frame")
        await client.aclose()
        with pytest.raises(ConnectionClosed) as caught:
            await asyncio.wait_for(pending, BOUND)
        assert not caught.value.by_peer
        with pytest.raises(ConnectionClosed):
            await client.send(b"after close")


# --- defences ------------------------------------------------------------------------------


async def test_oversized_frame_closes_the_link_with_frame_too_large(alice: Identity, bob: Identity) -> None:
    async with running_server(bob, Limits(max_frame=1024)) as (server, accepted):
        client = await connect("127.0.0.1", server.port, alice)  # the client allows 256 KiB
        served = await accepted_one(accepted)
        await client.send(bytes(4000))
        with pytest.raises(FrameTooLarge) as caught:
            await asyncio.wait_for(served.recv(), BOUND)
        assert caught.value.limit == 1024
        assert served.closed
        with pytest.raises(ConnectionClosed) as after:
            await asyncio.wait_for(client.recv(), BOUND)
        assert after.value.by_peer


async def test_oversized_header_is_refused_before_its_body(alice: Identity, bob: Identity) -> None:
    async with running_server(bob, Limits(max_frame=1024)) as (server, accepted):
        _, writer, _ = await raw_handshake(server.port, alice)
        served = await accepted_one(accepted)
        writer.write((10**6).to_bytes(4, "big"))  # announces 1 MB; no body is ever sent
        await writer.drain()
        with pytest.raises(FrameTooLarge):
            await asyncio.wait_for(served.recv(), BOUND)
        await shut(writer)


async def test_a_first_frame_read_with_the_handshakes_last_message_is_held_to_the_links_limit(
        alice: Identity, bob: Identity) -> None:
    """A dialler sends its first frame right after the handshake; a busy responder
    reads both in one go. That frame, larger than any handshake message, is the
    link's (under load every direct link failed here with FrameTooLarge)."""
    first = b"hello, table " * 100
    assert len(first) > HANDSHAKE_MAX_FRAME
    async with running_server(bob) as (server, accepted):
        _, writer, _ = await raw_handshake(
            server.port, alice, then=lambda channel: encode_frame(channel.seal(first)))
        served = await accepted_one(accepted)
        assert await asyncio.wait_for(served.recv(), BOUND) == first
        await shut(writer)


async def test_slow_trickling_sender_is_cut_off(alice: Identity, bob: Identity) -> None:
    async with running_server(bob, Limits(frame_timeout=0.3)) as (server, accepted):
        _, writer, channel = await raw_handshake(server.port, alice)
        served = await accepted_one(accepted)
        frame = encode_frame(channel.seal(b"x" * 100))

        async def trickle() -> None:
            for byte in frame:  # one byte every 50 ms: the frame would take 6 s
                writer.write(bytes([byte]))
                await writer.drain()
                await asyncio.sleep(0.05)

        trickler = asyncio.create_task(trickle())
        try:
            with pytest.raises(FrameTimeout):
                await asyncio.wait_for(served.recv(), BOUND)
            assert served.closed
        finally:
            trickler.cancel()
            with contextlib.suppress(asyncio.CancelledError, ConnectionError):
                await trickler
            await shut(writer)


async def test_a_frame_begun_behind_a_whole_one_in_one_chunk_keeps_its_deadline(
        alice: Identity, bob: Identity) -> None:
    """A whole frame and the first bytes of the next arrive in one write, then
    nothing: the begun frame is cut off at the frame deadline, not waited on as idle."""
    async with running_server(bob, Limits(frame_timeout=0.3)) as (server, accepted):
        _, writer, channel = await raw_handshake(server.port, alice)
        served = await accepted_one(accepted)
        writer.write(encode_frame(channel.seal(b"whole")) + encode_frame(channel.seal(b"begun"))[:3])
        await writer.drain()
        assert await asyncio.wait_for(served.recv(), BOUND) == b"whole"
        with pytest.raises(FrameTimeout):
            await asyncio.wait_for(served.recv(), BOUND)
        await shut(writer)


async def test_idle_link_is_allowed_beyond_the_frame_deadline(alice: Identity, bob: Identity) -> None:
    async with running_server(bob, Limits(frame_timeout=0.2)) as (server, accepted):
        client = await connect("127.0.0.1", server.port, alice)
        served = await accepted_one(accepted)
        receiving = asyncio.create_task(served.recv())
        await asyncio.sleep(0.5)  # idle for more than the frame deadline
        await client.send(b"after a pause")
        assert await asyncio.wait_for(receiving, BOUND) == b"after a pause"
        await client.aclose()


async def test_tampered_frame_over_tcp_closes_the_link(alice: Identity, bob: Identity) -> None:
    async with running_server(bob) as (server, accepted):
        _, writer, channel = await raw_handshake(server.port, alice)
        served = await accepted_one(accepted)
        sealed = bytearray(channel.seal(b"raise 5"))
        sealed[-1] ^= 1
        writer.write(encode_frame(bytes(sealed)))
        await writer.drain()
        with pytest.raises(TamperedFrame):
            await asyncio.wait_for(served.recv(), BOUND)
        with pytest.raises(ConnectionClosed) as later:
            await served.recv()
        assert isinstance(later.value.__cause__, TamperedFrame)
        await shut(writer)


async def test_client_that_never_handshakes_is_dropped_at_the_deadline(bob: Identity) -> None:
    async with running_server(bob, Limits(handshake_timeout=0.3)) as (server, _):
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        await until(lambda: server.active_connections == 1)
        assert await closed_by_server(reader)
        await until(lambda: server.active_connections == 0)
        await shut(writer)


async def test_flood_from_one_address_does_not_starve_another(alice: Identity, bob: Identity) -> None:
    limits = Limits(handshake_timeout=BOUND, max_per_address=3)
    async with running_server(bob, limits) as (server, accepted):
        flood = []
        for _ in range(3):
            flood.append(await asyncio.open_connection("127.0.0.1", server.port, local_addr=("127.0.0.2", 0)))
        await until(lambda: server.connections_from("127.0.0.2") == 3)
        extra_reader, extra_writer = await asyncio.open_connection(
            "127.0.0.1", server.port, local_addr=("127.0.0.2", 0)
        )
        assert await closed_by_server(extra_reader)  # the fourth from the same address is refused
        client = await connect("127.0.0.1", server.port, alice, local_host="127.0.0.1")
        served = await accepted_one(accepted)
        await client.send(b"I got in")
        assert await asyncio.wait_for(served.recv(), BOUND) == b"I got in"
        assert server.connections_from("127.0.0.2") == 3
        await client.aclose()
        await shut(extra_writer)
        for _, writer in flood:
            await shut(writer)


async def test_full_strangers_budget_evicts_the_oldest_stranger(bob: Identity) -> None:
    """Strangers cannot keep a newcomer out: with every place taken, the oldest goes."""
    limits = Limits(handshake_timeout=BOUND, max_connections=2, max_per_address=10)
    async with running_server(bob, limits) as (server, _):
        held = [await asyncio.open_connection("127.0.0.1", server.port, local_addr=(f"127.0.0.{n}", 0)) for n in (2, 3)]
        await until(lambda: server.strangers == 2)
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port, local_addr=("127.0.0.4", 0))
        assert await closed_by_server(held[0][0])  # the oldest was evicted
        await until(lambda: server.connections_from("127.0.0.4") == 1)
        assert server.strangers == 2 and server.connections_from("127.0.0.3") == 1
        assert server.budget.evicted == 1
        for _, held_writer in held:
            await shut(held_writer)
        await shut(writer)
        await until(lambda: server.active_connections == 0)


async def test_admitted_connection_leaves_the_strangers_budget(alice: Identity, bob: Identity) -> None:
    """A connection its owner vouched for is never evicted by newer strangers."""
    limits = Limits(handshake_timeout=BOUND, max_connections=1, max_per_address=10)
    async with running_server(bob, limits) as (server, accepted):
        client = await connect("127.0.0.1", server.port, alice)
        served = await accepted_one(accepted)
        assert server.strangers == 1
        served.admit()
        assert server.strangers == 0 and server.active_connections == 1
        flood = [await asyncio.open_connection("127.0.0.1", server.port, local_addr=(f"127.0.0.{n}", 0))
                 for n in (2, 3)]
        assert await closed_by_server(flood[0][0])  # strangers evict each other only
        await client.send(b"still here")
        assert await asyncio.wait_for(served.recv(), BOUND) == b"still here"
        await client.aclose()
        for _, writer in flood:
            await shut(writer)


async def test_handshake_rate_is_limited_per_address(alice: Identity, bob: Identity) -> None:
    """Beyond its burst an address is refused at once; another address is not."""
    limits = Limits(handshake_timeout=BOUND, handshake_rate=0.001, handshake_burst=2, max_per_address=10)
    async with running_server(bob, limits) as (server, accepted):
        for _ in range(2):
            conn = await connect("127.0.0.1", server.port, alice, local_host="127.0.0.2")
            await accepted_one(accepted)
            await conn.aclose()
        with pytest.raises((ConnectionClosed, OSError)):
            await connect("127.0.0.1", server.port, alice, local_host="127.0.0.2", timeout=BOUND)
        assert server.budget.refused_rate == 1
        other = await connect("127.0.0.1", server.port, alice, local_host="127.0.0.3")
        await accepted_one(accepted)
        await other.aclose()


@pytest.mark.parametrize(
    "garbage",
    [
        b"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
        b"\xff\xff\xff\xff",  # a 4 GB handshake frame
        encode_frame(b"p2pc\x09" + bytes(64)),  # a future version
        encode_frame(os.urandom(69)),
        encode_frame(b""),
    ],
    # Named, not shown: random bytes in a test's id differ between pytest-xdist's
    # workers, which then refuse to run the suite.
    ids=["http", "huge-length", "future-version", "random-69-bytes", "empty"],
)
async def test_malformed_handshake_does_not_crash_the_server(alice: Identity, bob: Identity, garbage: bytes) -> None:
    async with running_server(bob) as (server, accepted):
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(garbage)
        await writer.drain()
        assert await closed_by_server(reader)
        await shut(writer)
        assert accepted.empty()
        client = await connect("127.0.0.1", server.port, alice)
        served = await accepted_one(accepted)
        await client.send(b"server still fine")
        assert await asyncio.wait_for(served.recv(), BOUND) == b"server still fine"
        await client.aclose()


async def test_failing_on_connection_closes_that_connection_only(alice: Identity, bob: Identity) -> None:
    calls: list[Connection] = []

    async def on_connection(conn: Connection) -> None:
        calls.append(conn)
        if len(calls) == 1:
            raise RuntimeError("the owner failed")

    server = await serve("127.0.0.1", 0, bob, on_connection, FAST)
    try:
        first = await connect("127.0.0.1", server.port, alice)
        with pytest.raises(ConnectionClosed):
            await asyncio.wait_for(first.recv(), BOUND)
        second = await connect("127.0.0.1", server.port, alice)
        await until(lambda: len(calls) == 2)
        await second.send(b"hello")
        assert await asyncio.wait_for(calls[1].recv(), BOUND) == b"hello"
        await second.aclose()
        await calls[1].aclose()
    finally:
        server.close()
        await server.wait_closed()
