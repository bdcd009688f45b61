"""Strangers trying to starve a table: silent links, pings, late keys, floods.

Loopback only: strangers dial from 127.0.0.1 and 127.0.0.3-6, the remote
player from 127.0.0.2 ("another machine"). The defences are tightened
(``TIGHT``) so that the tests need not wait for the default deadlines; no
test asserts a time, only what happened.
"""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from p2pcards.net.connection import Connection, Limits, connect
from p2pcards.net.errors import NetError
from p2pcards.protocol import frames
from p2pcards.protocol.envelope import PROTOCOL_VERSION, SignedMessage
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.relay import PINGS_PER_MESSAGE
from tests.support.typed import present

from .harness import recording
from .netbench import NetTable, Tampered, on_message

pytestmark = pytest.mark.asyncio

LOOPBACK = "127.0.0.1"
PLAYER_ADDRESS = "127.0.0.2"
STRANGER_ADDRESSES = ("127.0.0.1", "127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6")
TIGHT = Limits(handshake_timeout=1.0, frame_timeout=0.4, hello_timeout=1.0,
               max_connections=8, max_per_address=4, handshake_rate=20.0, handshake_burst=8)
BOUND = 10.0


def _hello(name: str, sid: bytes = b"", have: int = 0) -> bytes:
    return frames.encode("hello", {"v": PROTOCOL_VERSION, "name": name, "sid": sid, "have": have, "bot": 0})


async def _heard(connection: Connection, within: float) -> tuple[list[str], bool]:
    """The kinds of the frames received within ``within`` seconds, and whether the link closed."""
    kinds: list[str] = []
    try:
        async with asyncio.timeout(within):
            while True:
                kinds.append(frames.decode(await connection.recv()).kind)
    except TimeoutError:
        return kinds, False
    except NetError:
        return kinds, True


async def _finish_as_recorded(net: NetTable) -> None:
    results = await net.results(timeout=90)
    rec = recording("topper")
    for p in range(4):
        assert results[p].outcome == rec.outcome, results[p]
        assert net.transcript(p) == rec.transcript


class SilentFlood:
    """Strangers from several addresses holding as many silent, handshaken links
    as the host lets them, redialling each one the host closes (bounded)."""

    def __init__(self, port: int, per_address: int = 4, max_dials: int = 2000) -> None:
        self.port = port
        self.per_address = per_address
        self.dials_left = max_dials
        self.held = 0
        self.peak = 0
        self.tasks: list[asyncio.Task[None]] = []

    def start(self) -> SilentFlood:
        loop = asyncio.get_running_loop()
        self.tasks = [loop.create_task(self._hold(address)) for address in STRANGER_ADDRESSES
                      for _ in range(self.per_address)]
        return self

    async def _hold(self, address: str) -> None:
        while self.dials_left > 0:
            self.dials_left -= 1
            try:
                connection = await connect(LOOPBACK, self.port, Identity.generate("lurker"),
                                           timeout=2.0, local_host=address)
            except (NetError, OSError):
                await asyncio.sleep(0.05)
                continue
            self.held += 1
            self.peak = max(self.peak, self.held)
            try:
                with contextlib.suppress(NetError):
                    while True:
                        await connection.recv()
            finally:
                self.held -= 1
                connection.close()

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


async def test_unseated_link_is_closed_after_its_hello_deadline() -> None:
    net = NetTable("topper", limits=TIGHT)
    await net.start_host(LOOPBACK)
    try:
        stranger = await net.link_to_host(Identity.generate("mute"))
        kinds, closed = await _heard(stranger, BOUND)
        assert closed, "a link that never said hello was kept"
        assert kinds == ["reject"]
        assert net.host._links == {} and net.host.relay.links == {}
    finally:
        await net.close()


async def test_ping_from_an_unseated_link_gets_no_pong() -> None:
    net = NetTable("topper", limits=TIGHT)
    await net.start(LOOPBACK)
    try:
        await net._until(lambda: net.host.relay.started, BOUND)
        stranger = await net.link_to_host(net.identities[1])  # even a player's key
        for n in range(50):
            await stranger.send(frames.encode("ping", {"n": n}))
        kinds, closed = await _heard(stranger, BOUND)
        assert "pong" not in kinds and closed, kinds
        await _finish_as_recorded(net)
    finally:
        await net.close()


async def test_seated_players_ping_flood_is_answered_only_a_few_times() -> None:
    net = NetTable("topper", limits=TIGHT)
    await net.start_host(LOOPBACK)
    try:
        lone = await net.link_to_host(Identity.generate("lonely"))
        await lone.send(_hello("lonely"))
        for n in range(100):
            await lone.send(frames.encode("ping", {"n": n}))
        kinds, closed = await _heard(lone, 1.5)
        assert not closed and kinds.count("pong") == PINGS_PER_MESSAGE, kinds
        await lone.aclose()
    finally:
        await net.close()


async def test_stranger_key_after_the_genesis_hears_nothing_and_gets_no_seat() -> None:
    """After the genesis a stranger may only be a spectator: silent, it hears nothing
    and is closed when its hello is overdue; asking for a seat, it is refused."""
    net = NetTable("topper", limits=Limits(hello_timeout=1.0))
    await net.start(LOOPBACK)
    try:
        await net._until(lambda: net.host.relay.started, BOUND)
        late = Identity.generate("late")
        silent = await net.link_to_host(late)
        kinds, closed = await _heard(silent, BOUND)  # it says nothing, and hears nothing
        assert kinds == ["reject"] and closed  # "no hello in time"
        seeker = await net.link_to_host(late)
        await seeker.send(frames.encode("hello", {"v": PROTOCOL_VERSION, "name": "late",
                                                  "sid": b"", "have": 0, "bot": 0}))
        kinds, closed = await _heard(seeker, BOUND)
        assert kinds == ["reject"] and closed
        assert all(info.public_key != late.public_key for info in net.host.relay.links.values())
        await _finish_as_recorded(net)
    finally:
        await net.close()


async def test_seated_player_reconnects_while_strangers_hold_every_link_they_can() -> None:
    """Player 3 plays over TCP from its own address; its link is cut after a
    message of every stage while strangers keep every stranger's place taken;
    it reconnects each time and the match ends as recorded."""
    net = NetTable("topper", limits=TIGHT)
    await net.start_host(LOOPBACK)
    flood = SilentFlood(present(net.host.tcp_port)).start()

    _player_3_from_its_own_address(net)
    stages = {"commit", "open", "shuffle", "shares", "bid", "play"}
    net.set_policy(3, on_message(lambda m: m.player == 3 and _stage_once(m, stages), _cut_after, once=False))
    try:
        await net._until(lambda: flood.held >= TIGHT.max_connections, BOUND)
        await net.start_seats()
        await _finish_as_recorded(net)
        assert len(net.seats[3].connections) >= 5, "the link was not cut at every stage"
        assert flood.peak >= TIGHT.max_connections
    finally:
        await flood.stop()
        await net.close()


def _player_3_from_its_own_address(net: NetTable) -> None:
    """Player 3 dials the host over TCP from another loopback address than the flood's."""
    async def from_elsewhere() -> Connection:
        return await net.link_to_host(net.identities[3], net.identities[0].public_key,
                             local_host=PLAYER_ADDRESS)
    net.connectors[3] = from_elsewhere


def _stage_once(msg: SignedMessage, stages: set[str]) -> bool:
    if msg.type in stages:
        stages.discard(msg.type)
        return True
    return False


def _cut_after(frame: bytes, msg: SignedMessage, conn: Tampered) -> list[bytes]:
    """Send the frame, then drop the link (the session reconnects)."""
    async def cut() -> None:
        await asyncio.sleep(0)
        conn.inner.close()
    conn.tasks.append(asyncio.get_running_loop().create_task(cut()))
    return [frame]


async def test_player_joins_a_lobby_during_a_flood_of_silent_links() -> None:
    net = NetTable("topper", limits=TIGHT)
    await net.start_host(LOOPBACK)
    flood = SilentFlood(present(net.host.tcp_port)).start()

    _player_3_from_its_own_address(net)
    try:
        await net._until(lambda: flood.held >= TIGHT.max_connections, BOUND)
        await net.start_seats()
        await _finish_as_recorded(net)
        assert net.host.relay.session is not None
    finally:
        await flood.stop()
        await net.close()


async def test_one_links_flood_does_not_hold_up_another_links_frame() -> None:
    """A seated link pipelines a flood of valid frames; a frame another link sends
    afterwards is handled while the flood is still being read (each link is read
    one frame per turn and paced), not after all of it."""
    paced = Limits(hello_timeout=5.0, link_frame_rate=50.0, link_frame_burst=10)
    net = NetTable("topper", limits=paced)
    await net.start_host(LOOPBACK)
    try:
        flooder = await net.link_to_host(Identity.generate("flooder"))
        other = await net.link_to_host(Identity.generate("other"),
                              local_host=PLAYER_ADDRESS)
        for link, name in ((flooder, "flooder"), (other, "other")):
            await link.send(_hello(name))
        await net._until(lambda: len(net.host.lobby.players) == 3, BOUND)
        seated = len(net.host_received)
        for n in range(200):
            await flooder.send(frames.encode("ping", {"n": n}))
        await net._until(lambda: len(net.host_received) > seated + 20, BOUND)
        await other.send(frames.encode("ping", {"n": 999}))
        await net._until(lambda: any(data == frames.encode("ping", {"n": 999})
                                     for _, data in net.host_received), BOUND)
        handled = [data for _, data in net.host_received[seated:]]
        flood_left = 200 - sum(1 for d in handled if d != frames.encode("ping", {"n": 999}))
        assert flood_left > 0, "the other link's frame waited for the whole flood"
        await flooder.aclose()
        await other.aclose()
    finally:
        await net.close()
