"""Direct links between players (``Mesh``) over loopback TCP: one link per pair,
strangers and other tables closed at once, frames delivered in order."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Callable

import pytest

from p2pcards.net import addresses
from p2pcards.net import mesh as mesh_module
from p2pcards.net.connection import connect
from p2pcards.net.errors import NetError
from p2pcards.net.mesh import Mesh
from p2pcards.protocol import frames
from p2pcards.protocol.envelope import PROTOCOL_VERSION
from p2pcards.protocol.identity import Identity
from p2pcards.wiremap import WireMap
from tests.support import until

pytestmark = pytest.mark.asyncio

BOUND = 10.0  # seconds: every wait in these tests ends by itself within this
SID = bytes(range(32))
LOOPBACK = "127.0.0.1"


class Player:
    """One player's mesh and what it was handed."""

    def __init__(self, identity: Identity, sid: bytes = SID) -> None:
        self.identity = identity
        self.sid = sid
        self.got: asyncio.Queue[tuple[int, bytes]] = asyncio.Queue()
        self.changes = 0
        self.mesh = Mesh(identity, self._deliver, self._hello, on_change=self._changed)

    async def _deliver(self, player: int, data: bytes) -> None:
        await self.got.put((player, data))

    def _hello(self) -> WireMap:
        return {"v": PROTOCOL_VERSION, "name": self.identity.name, "sid": self.sid, "have": 1,
                "bot": 0, "addrs": self.mesh.addrs}

    def _changed(self) -> None:
        self.changes += 1


@contextlib.asynccontextmanager
async def players(count: int, listen: Callable[[int], bool] = lambda i: True,
                  sid_of: Callable[[int], bytes] = lambda i: SID,
                  host: str = LOOPBACK) -> AsyncIterator[list[Player]]:
    """``count`` players of one table (keys in player order), listening on loopback."""
    ids = [Identity.generate(f"p{i}") for i in range(count)]
    group = [Player(identity, sid_of(i)) for i, identity in enumerate(ids)]
    keys = [identity.public_key for identity in ids]
    try:
        for i, player in enumerate(group):
            if listen(i):
                await player.mesh.listen(host)
            player.mesh.set_table(player.sid, keys, i)
        yield group
    finally:
        for player in group:
            await player.mesh.close()


def introduce(group: list[Player]) -> None:
    """What the host's ``peers`` frame does: every player learns every address."""
    listing = [[p.identity.public_key, p.mesh.addrs] for p in group]
    for player in group:
        player.mesh.set_peers(listing)


async def dialled_twice(mesh: Mesh, player: int) -> None:
    """Wait until ``mesh`` starts a second dial to ``player``: dials run one after the
    other, so its first attempt (hello and all) has ended without a link."""
    stamps: set[float] = set()

    def twice() -> bool:
        stamp = mesh._last_dial.get(player)
        if stamp is not None:
            stamps.add(stamp)
        return len(stamps) >= 2
    await until(twice, BOUND, what=f"a second dial to player {player}")


async def test_two_players_link_once_and_frames_flow_both_ways() -> None:
    async with players(2) as (a, b):
        introduce([a, b])
        await until(lambda: a.mesh.linked() == {1} and b.mesh.linked() == {0})
        a.mesh.send(1, frames.encode("ping", {"n": 1}))
        b.mesh.send(0, frames.encode("ping", {"n": 2}))
        assert await asyncio.wait_for(b.got.get(), BOUND) == (0, frames.encode("ping", {"n": 1}))
        assert await asyncio.wait_for(a.got.get(), BOUND) == (1, frames.encode("ping", {"n": 2}))


async def test_both_directions_dialled_at_once_leave_one_link_dialled_by_the_lower_index(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mesh_module, "HIGHER_WAITS", 0.0)  # both dial at the same moment
    async with players(2) as (a, b):
        introduce([a, b])
        # Whichever link came up first, both ends settle on the one player 0 dialled, and
        # a link dialled by the lower index is never replaced (the mesh's rule).
        await until(lambda: 1 in a.mesh._links and a.mesh._links[1].dialled_by == 0
                    and 0 in b.mesh._links and b.mesh._links[0].dialled_by == 0)
        assert a.mesh.linked() == {1} and b.mesh.linked() == {0}
        # The kept link is the same one at both ends: a frame crosses it.
        a.mesh.send(1, frames.encode("sync", {"have": 3}))
        assert await asyncio.wait_for(b.got.get(), BOUND) == (0, frames.encode("sync", {"have": 3}))


async def test_a_pair_links_in_whichever_direction_works() -> None:
    """Player 1 does not listen (a firewall): player 1 dials player 0 instead."""
    async with players(2, listen=lambda i: i == 0) as (a, b):
        assert b.mesh.addrs == []
        introduce([a, b])
        await until(lambda: a.mesh.linked() == {1} and b.mesh.linked() == {0})
        assert a.mesh._links[1].dialled_by == 1


async def test_a_pair_where_neither_listens_stays_unlinked() -> None:
    async with players(2, listen=lambda i: False) as (a, b):
        introduce([a, b])
        # Nobody has an address to dial, so no dial loop starts: nothing can link later.
        assert a.mesh._dialers == {} and b.mesh._dialers == {}
        assert a.mesh.linked() == set() and b.mesh.linked() == set()


async def test_a_strangers_key_is_closed_at_once() -> None:
    async with players(2) as (a, _b):
        stranger = Identity.generate("stranger")
        host, port = a.mesh.addrs[0]
        conn = await connect(host, port, stranger, timeout=BOUND)
        with pytest.raises(NetError):
            async with asyncio.timeout(BOUND):
                await conn.send(frames.encode("hello", {"v": PROTOCOL_VERSION, "name": "x",
                                                        "sid": SID, "have": 0, "bot": 0}))
                await conn.recv()
        conn.close()
        assert a.mesh.refused == 1
        assert a.mesh.linked() == set() and a.got.empty()


async def test_a_player_of_another_table_is_closed() -> None:
    """The right key, but a hello for another session: no link."""
    async with players(2, sid_of=lambda i: SID if i == 0 else bytes(32)) as (a, b):
        introduce([a, b])
        # Each side's second dial proves its first (and the other side's answer) ended.
        await dialled_twice(a.mesh, 1)
        await dialled_twice(b.mesh, 0)
        assert a.mesh.linked() == set() and b.mesh.linked() == set()
        assert a.got.empty() and b.got.empty()


async def test_a_frame_before_hello_closes_the_link() -> None:
    async with players(2) as (a, b):
        host, port = a.mesh.addrs[0]
        conn = await connect(host, port, b.identity, timeout=BOUND)
        with pytest.raises(NetError):
            async with asyncio.timeout(BOUND):
                await conn.send(frames.encode("ping", {"n": 1}))
                await conn.recv()
        conn.close()
        assert a.mesh.linked() == set() and a.got.empty()


async def test_a_broken_link_is_dialled_again() -> None:
    async with players(2) as (a, b):
        introduce([a, b])
        await until(lambda: a.mesh.linked() == {1} and b.mesh.linked() == {0})
        a.mesh._links[1].connection.close()
        await until(lambda: 1 not in a.mesh.linked())
        await until(lambda: a.mesh.linked() == {1} and b.mesh.linked() == {0})
        a.mesh.send(1, frames.encode("ping", {"n": 9}))
        assert await asyncio.wait_for(b.got.get(), BOUND) == (0, frames.encode("ping", {"n": 9}))


async def test_a_pair_whose_dials_all_failed_for_a_round_links_after_a_rest(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A laptop too busy to answer for a while (every dial fails, both ways, for a
    whole round) still gets its direct link once it answers again."""
    monkeypatch.setattr(mesh_module, "REST_AFTER_ROUND", 0.2)
    monkeypatch.setattr(mesh_module, "FIRST_BACKOFF", 0.01)
    busy = True
    dials = 0

    async def flaky_connect(*args: object, **kwargs: object) -> object:
        nonlocal dials
        dials += 1
        if busy:
            raise OSError("connection timed out")
        return await connect(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(mesh_module, "connect", flaky_connect)
    async with players(2) as (a, b):
        for player in (a, b):
            player.mesh.max_dials = 2
        introduce([a, b])
        # Both ends have used up a round (two dials each) and rest.
        await until(lambda: dials >= 4, BOUND, what="a round of failed dials from each end")
        busy = False
        await until(lambda: a.mesh.linked() == {1} and b.mesh.linked() == {0}, BOUND,
                    what="the direct link after the rest")


async def test_four_players_form_every_pair_once() -> None:
    async with players(4) as group:
        introduce(group)
        await until(lambda: all(p.mesh.linked() == {0, 1, 2, 3} - {i} for i, p in enumerate(group)))
        group[2].mesh.broadcast(frames.encode("ping", {"n": 5}))
        for i in (0, 1, 3):
            assert await asyncio.wait_for(group[i].got.get(), BOUND) == (2, frames.encode("ping", {"n": 5}))


async def test_what_is_queued_is_sent_before_the_mesh_closes() -> None:
    """A final alert queued as the table ends still reaches the linked players."""
    async with players(2) as (a, b):
        introduce([a, b])
        await until(lambda: a.mesh.linked() == {1} and b.mesh.linked() == {0})
        last = frames.encode("alert", b"\x01" * 2000)
        for n in range(50):
            a.mesh.send(1, frames.encode("ping", {"n": n}))
        a.mesh.send(1, last)
        await a.mesh.close()
        got = [await asyncio.wait_for(b.got.get(), BOUND) for _ in range(51)]
        assert got[-1] == (0, last)


async def test_only_lan_addresses_are_dialled() -> None:
    dialable = addresses.dialable
    for lan in ("10.1.2.3", "192.168.0.7", "172.16.4.4", "127.0.0.1", "::1", "fe80::1%eth0",
                "fd12:3456::9", "169.254.3.3"):
        assert dialable(lan), lan
    for far in ("8.8.8.8", "2001:4860::8888", "224.0.0.251", "0.0.0.0", "laptop.local", "::"):
        assert not dialable(far), far
    # A public address next to this player's own is its LAN.
    assert dialable("93.184.216.9", own="93.184.216.5")
    assert not dialable("93.184.217.9", own="93.184.216.5")
    assert dialable("2a00:1450:1:2::9", own="2a00:1450:1:2::5")
    assert not dialable("2a00:1450:1:3::9", own="2a00:1450:1:2::5")


async def test_a_link_local_address_is_dialled_through_this_players_own_interface() -> None:
    zone = addresses.in_own_zone
    assert zone("fe80::9%eth0", own="fe80::5%wlan0") == "fe80::9%wlan0"
    assert zone("fe80::9%eth0", own="10.0.0.5") == "fe80::9%eth0"
    assert zone("10.0.0.9", own="fe80::5%wlan0") == "10.0.0.9"


async def test_players_link_over_ipv6_loopback() -> None:
    if not socket.has_ipv6:
        pytest.skip("no IPv6 here")
    async with players(2, host="::1") as (a, b):
        if not a.mesh.addrs:
            pytest.skip("cannot listen on ::1 here")
        introduce([a, b])
        await until(lambda: a.mesh.linked() == {1} and b.mesh.linked() == {0})
        b.mesh.send(0, frames.encode("ping", {"n": 6}))
        assert await asyncio.wait_for(a.got.get(), BOUND) == (1, frames.encode("ping", {"n": 6}))


async def test_a_player_also_listens_on_the_other_addresses_of_its_link() -> None:
    from p2pcards.net.addresses import LocalAddress

    mine = [LocalAddress("lo", "127.0.0.1", 8), LocalAddress("lo", "::1", 128),
            LocalAddress("eth0", "10.0.0.5", 24), LocalAddress("eth0", "fe80::5%eth0", 64),
            LocalAddress("eth0", "fd00::5", 64), LocalAddress("wg0", "fd99::5", 64)]
    same = addresses.same_link
    # Its own interface's others, routable IPv6 first, link-local last; never another interface's.
    assert same("10.0.0.5", mine) == ["fd00::5", "fe80::5%eth0"]
    assert same("fe80::5%eth0", mine) == ["fd00::5", "10.0.0.5"]
    assert same("127.0.0.1", mine) == [] and same("10.9.9.9", mine) == [] and same("laptop", mine) == []
