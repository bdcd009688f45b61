"""Attacks on the host's sockets while a table plays: trickling, floods, oversized
and junk frames, strangers. Loopback only (127.0.0.1 and 127.0.0.2).

Each runs a whole seeded Topper match over the host while the attacker works
on the side, and checks that the attacker is cut off and that the match ends
exactly as the undisturbed recording.
"""

from __future__ import annotations

import asyncio
import contextlib
import struct
from typing import Any

import pytest

from p2pcards.net.connection import Connection, Limits, connect
from p2pcards.net.framing import FrameDecoder, encode_frame
from p2pcards.net.link import LinkHandshake, Role, SecureChannel
from p2pcards.protocol import frames, wire
from p2pcards.protocol.envelope import PROTOCOL_VERSION
from p2pcards.protocol.identity import Identity
from tests.support.typed import present

from .harness import recording
from .netbench import NetTable

pytestmark = pytest.mark.asyncio

LOOPBACK = "127.0.0.1"
#: A second loopback address: "another machine" for the per-address caps.
OTHER_ADDRESS = "127.0.0.2"
#: Defences tightened so that the tests need not wait for the defaults.
TIGHT = Limits(handshake_timeout=1.0, frame_timeout=0.4, max_per_address=4)


async def _raw_link(port: int, identity: Identity) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, SecureChannel]:
    """A TCP connection that completed the link handshake by hand, so that its
    bytes can then be sent any way at all; returns (reader, writer, channel)."""
    reader, writer = await asyncio.open_connection(LOOPBACK, port)
    handshake = LinkHandshake(identity, Role.INITIATOR)
    writer.write(encode_frame(present(handshake.start())))
    decoder = FrameDecoder()
    async with asyncio.timeout(5):
        while not handshake.complete:
            for frame in decoder.feed(await reader.read(4096)):
                writer.write(encode_frame(present(handshake.receive(frame))))
    await writer.drain()
    return reader, writer, handshake.channel()


async def _closed_by_server(reader: asyncio.StreamReader, within: float) -> bool:
    """True when the server closes (or resets) the connection within ``within`` seconds."""
    try:
        async with asyncio.timeout(within):
            while True:
                if not await reader.read(4096):
                    return True
    except (ConnectionError, OSError):
        return True
    except TimeoutError:
        return False


async def _trickle(writer: asyncio.StreamWriter, data: bytes, pause: float) -> None:
    with contextlib.suppress(ConnectionError, OSError):
        for i in range(len(data)):
            writer.write(data[i:i + 1])
            await writer.drain()
            await asyncio.sleep(pause)


async def _finish_as_recorded(net: NetTable) -> None:
    results = await net.results(timeout=60)
    rec = recording("topper")
    for p in range(4):
        assert results[p].outcome == rec.outcome
        assert net.transcript(p) == rec.transcript


async def test_slow_sender_trickling_bytes_is_cut_off_while_the_table_plays() -> None:
    net = NetTable("topper", limits=TIGHT)
    await net.start_host(LOOPBACK)
    port = present(net.host.tcp_port)
    try:
        # One trickles its handshake, one trickles a frame after a proper handshake.
        r1, w1 = await asyncio.open_connection(LOOPBACK, port)
        hello = encode_frame(present(LinkHandshake(Identity.generate("slow"), Role.INITIATOR).start()))
        r2, w2, channel = await _raw_link(port, Identity.generate("slower"))
        frame = encode_frame(channel.seal(frames.encode("sync", {"have": 0})))
        trickles = [asyncio.create_task(_trickle(w1, hello, 0.2)),
                    asyncio.create_task(_trickle(w2, frame, 0.2))]
        await net.start_seats()
        assert await _closed_by_server(r1, 5.0), "a trickled handshake was not cut off"
        assert await _closed_by_server(r2, 5.0), "a trickled frame was not cut off"
        await _finish_as_recorded(net)
        for task in trickles:
            task.cancel()
        w1.close()
        w2.close()
    finally:
        await net.close()


async def test_connection_flood_from_one_address_leaves_room_for_a_player() -> None:
    """One address fills its share of connections; a player from another
    address still joins and the match is played."""
    net = NetTable("topper", limits=Limits(handshake_timeout=20.0, frame_timeout=0.4,
                                           max_per_address=4))
    await net.start_host(LOOPBACK)
    port = present(net.host.tcp_port)
    flood = [await asyncio.open_connection(LOOPBACK, port) for _ in range(4)]
    extra_reader, extra_writer = await asyncio.open_connection(LOOPBACK, port)
    assert await _closed_by_server(extra_reader, 2.0), "a fifth connection from one address got in"

    async def from_elsewhere() -> Connection:
        return await connect(LOOPBACK, port, net.identities[3], net.identities[0].public_key,
                             local_host=OTHER_ADDRESS)

    net.connectors[3] = from_elsewhere
    try:
        await net.start_seats()
        await _finish_as_recorded(net)
    finally:
        for _, writer in flood:
            writer.close()
        extra_writer.close()
        await net.close()


async def test_oversized_frame_closes_only_that_link() -> None:
    net = NetTable("topper", limits=TIGHT)
    await net.start_host(LOOPBACK)
    try:
        reader, writer, _ = await _raw_link(present(net.host.tcp_port), Identity.generate("big"))
        writer.write(struct.pack(">I", 64 * 1024 * 1024) + bytes(1024))
        await writer.drain()
        assert await _closed_by_server(reader, 5.0)
        await net.start_seats()
        await _finish_as_recorded(net)
        writer.close()
    finally:
        await net.close()


@pytest.mark.parametrize("payload", [
    b"\xc1",                                             # never used in msgpack
    b"\x93\x01\x02",                                     # truncated array
    wire.pack([1, 2, 3]),                                # not [kind, body]
    wire.pack(["msg", b"\x00" * 10]),                    # a msg that is not a message
    wire.pack(["warp", {}]),                             # unknown kind
    wire.pack(["hello", {"v": 99, "name": "x", "sid": b"", "have": 0, "bot": 0}]),
    wire.pack(["hello", {"v": 2, "name": "\x07bell", "sid": b"", "have": 0, "bot": 0}]),
    wire.pack(["lobby", {"game": "bluff", "table": "t", "config": {}, "players": []}]),
    b"\x92\xa3msg\xc5" + b"\xff\xff" + bytes(16),        # bin length beyond the data
])
async def test_junk_frame_to_the_host_closes_only_that_link(payload: bytes) -> None:
    """A stranger's well-sealed but meaningless frames: refused, link closed, table unharmed."""
    net = NetTable("topper", limits=TIGHT)
    await net.start_host(LOOPBACK)
    try:
        stranger = await net.link_to_host(Identity.generate("junk"))
        await stranger.send(payload)
        async with asyncio.timeout(5):
            answer = frames.decode(await stranger.recv())
        assert answer.kind == "reject"
        assert await _closed(stranger)
        await net.start_seats()
        await _finish_as_recorded(net)
    finally:
        await net.close()


async def _closed(connection: Connection) -> bool:
    try:
        async with asyncio.timeout(5):
            await connection.recv()
    except Exception:
        return True
    return False


async def test_stranger_is_refused_once_the_table_started() -> None:
    net = NetTable("topper", limits=TIGHT)
    await net.start(LOOPBACK)
    try:
        await net._until(lambda: net.host.relay.started, 10)
        stranger = await net.link_to_host(Identity.generate("late"))
        await stranger.send(frames.encode("hello", {"v": PROTOCOL_VERSION, "name": "late",
                                                    "sid": b"", "have": 0, "bot": 0}))
        async with asyncio.timeout(5):
            answer = frames.decode(await stranger.recv())
        assert answer.kind == "reject" and "without you" in answer.body["reason"]
        await _finish_as_recorded(net)
    finally:
        await net.close()


@pytest.mark.parametrize("kind,body", [
    ("sync", {"have": 0}),
    ("msg", None),
    ("alert", None),
])
async def test_stranger_that_skips_the_hello_learns_nothing(kind: str, body: dict[str, int] | bytes | None) -> None:
    """A link that never said hello (so was never checked against the players)
    gets no transcript and cannot relay messages to the table."""
    net = NetTable("topper", limits=TIGHT)
    await net.start(LOOPBACK)
    try:
        await net._until(lambda: net.host.relay.started and len(net.host.relay.messages) > 6, 10)
        stranger = await net.link_to_host(Identity.generate("spy"))
        if body is None:
            body = net.host.relay.messages[3].raw
        await stranger.send(frames.encode(kind, body))
        got = []
        with contextlib.suppress(Exception):
            async with asyncio.timeout(1.0):
                while True:
                    got.append(frames.decode(await stranger.recv()))
        assert [f.kind for f in got] in ([], ["reject"]), [f.kind for f in got]
        await _finish_as_recorded(net)
    finally:
        await net.close()


async def test_silent_stranger_on_the_host_hears_nothing_of_the_table() -> None:
    """A stranger that connects (the link handshake needs no invitation) and
    then just listens gets neither the lobby nor any transcript message."""
    # A hello deadline longer than any match: the stranger listens to the end (at 5 s, a
    # loaded machine's match outlasted it and the host's ``reject`` came first).
    net = NetTable("topper", limits=Limits(handshake_timeout=1.0, frame_timeout=0.4, hello_timeout=600.0))
    await net.start_host(LOOPBACK)
    try:
        stranger = await net.link_to_host(Identity.generate("spy"))
        heard: list[Any] = []

        async def listen() -> None:
            with contextlib.suppress(Exception):
                while True:
                    heard.append(frames.decode(await stranger.recv()).kind)

        listener = asyncio.create_task(listen())
        await net.start_seats()
        await _finish_as_recorded(net)
        listener.cancel()
        assert heard == [], heard
    finally:
        await net.close()
