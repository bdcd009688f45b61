"""Players' signed direct-link announcements over zeroconf on loopback (issue 20,
finding 6): found, checked and handed on; forged, foreign and stale ones ignored
with their reason, never a crash."""

from __future__ import annotations

import asyncio

import pytest
from zeroconf import ServiceInfo
from zeroconf.asyncio import AsyncZeroconf

from p2pcards.net.direct_discovery import (
    CHUNK,
    DIRECT_SERVICE_TYPE,
    DirectAnnouncer,
    announcement_from,
    announcement_instance,
    announcement_properties,
)
from p2pcards.net.mesh import Mesh
from p2pcards.protocol import wire
from p2pcards.protocol.announce import (
    AnnouncementForged,
    AnnouncementIgnored,
    AnnouncementMalformed,
    AnnouncementOtherTable,
    AnnouncementUnseated,
    seal_announcement,
)
from p2pcards.protocol.envelope import PROTOCOL_VERSION
from p2pcards.protocol.identity import Identity
from p2pcards.wiremap import WireList, WireMap
from tests.support import until

LOOPBACK = ["127.0.0.1"]
BOUND = 10.0
SESSION = bytes(range(32))
PLAYERS = [Identity.generate(f"p{i}") for i in range(4)]
KEYS = [p.public_key for p in PLAYERS]


class Heard:
    def __init__(self) -> None:
        self.found: list[tuple[int, list[WireList]]] = []

    def __call__(self, player: int, addrs: list[WireList]) -> None:
        self.found.append((player, addrs))


def test_the_txt_record_carries_the_announcement_exactly() -> None:
    raw = seal_announcement(PLAYERS[1], session=SESSION, counter=7,
                            addrs=[["fd00::1234:5678:9abc:def0", 40000]] * 4).raw
    properties = announcement_properties(raw)
    assert len(properties) > 2  # cut into several pieces
    assert all(len(key) + 1 + len(value) <= 255 for key, value in properties.items())
    assert all(len(value) <= CHUNK for key, value in properties.items())
    assert announcement_from(properties) == raw


@pytest.mark.parametrize("properties", [
    None, {}, {b"v": b"1", b"d0": b"00"}, {b"v": b"2"}, {b"v": b"2", b"d0": b"zz"},
    {b"v": b"2", b"d0": "é".encode()}, {b"v": b"2", **{f"d{i}".encode(): b"00" for i in range(9)}},
])
def test_a_txt_record_that_is_no_announcement_is_malformed(properties: object) -> None:
    with pytest.raises(AnnouncementMalformed):
        DirectAnnouncer(PLAYERS[0], SESSION, KEYS, 0, Heard()).book.check(
            announcement_from(properties))


@pytest.mark.asyncio
async def test_two_players_find_each_others_signed_addresses() -> None:
    one_heard, two_heard = Heard(), Heard()
    one = DirectAnnouncer(PLAYERS[1], SESSION, KEYS, 1, one_heard, interfaces=LOOPBACK)
    two = DirectAnnouncer(PLAYERS[2], SESSION, KEYS, 2, two_heard, interfaces=LOOPBACK)
    try:
        await asyncio.gather(one.start([["127.0.0.1", 41001]]), two.start([["127.0.0.1", 41002]]))
        await until(lambda: bool(one_heard.found) and bool(two_heard.found))
    finally:
        await asyncio.gather(one.stop(), two.stop())
    assert one_heard.found[0] == (2, [["127.0.0.1", 41002]])
    assert two_heard.found[0] == (1, [["127.0.0.1", 41001]])
    assert not any(isinstance(i, AnnouncementUnseated) and "own" not in i.reason
                   for i in one.ignored + two.ignored)


@pytest.mark.asyncio
async def test_a_player_that_does_not_listen_still_finds_the_others() -> None:
    heard = Heard()
    listener = DirectAnnouncer(PLAYERS[1], SESSION, KEYS, 1, Heard(), interfaces=LOOPBACK)
    quiet = DirectAnnouncer(PLAYERS[3], SESSION, KEYS, 3, heard, interfaces=LOOPBACK)
    try:
        await quiet.start([])
        await listener.start([["127.0.0.1", 41003]])
        await until(lambda: bool(heard.found))
    finally:
        await asyncio.gather(listener.stop(), quiet.stop())
    assert heard.found[0] == (1, [["127.0.0.1", 41003]])
    assert quiet.info is None  # announces nothing


async def _register(name: str, properties: dict[bytes, bytes]) -> AsyncZeroconf:
    """An mDNS record made by hand, as anyone on the LAN (the host too) can make one."""
    azc = AsyncZeroconf(interfaces=LOOPBACK)
    info = ServiceInfo(DIRECT_SERVICE_TYPE, name, port=41999, properties=properties,
                       server="forger.local.", parsed_addresses=["127.0.0.1"])
    await (await azc.async_register_service(info, cooperating_responders=True))
    return azc


@pytest.mark.asyncio
async def test_forged_foreign_and_broken_announcements_are_ignored_with_a_reason() -> None:
    """Records named for this table's players (as anyone can name one): a stranger's
    key, another player's words with a stranger's signature, another table's
    session and garbage are each logged with their reason; only the genuine one
    is handed on. A record named for nobody at the table is not even resolved."""
    stranger = Identity.generate("stranger")
    target = ["127.0.0.1", 41666]
    genuine = seal_announcement(PLAYERS[2], session=SESSION, addrs=[["127.0.0.1", 41002]], counter=9)
    forged = wire.pack([genuine.payload, stranger.sign(b"x")])  # player 2's words, not its signature
    records = {
        "unseated": seal_announcement(stranger, session=SESSION, addrs=[target], counter=1).raw,
        "forged": forged,
        "other table": seal_announcement(PLAYERS[3], session=bytes(32), addrs=[target], counter=1).raw,
    }
    heard = Heard()
    me = DirectAnnouncer(PLAYERS[1], SESSION, KEYS, 1, heard, interfaces=LOOPBACK)
    fakes: list[AsyncZeroconf] = []
    try:
        await me.start([])
        for number, raw in enumerate(records.values()):
            name = announcement_instance(SESSION, PLAYERS[3].fingerprint, 42000 + number)
            fakes.append(await _register(name, announcement_properties(raw)))
        fakes.append(await _register(announcement_instance(SESSION, PLAYERS[2].fingerprint, 1),
                                     {b"v": b"2", b"d0": b"not hex"}))
        fakes.append(await _register(announcement_instance(SESSION, stranger.fingerprint, 2),
                                     {b"v": b"1", b"d0": b"00"}))
        fakes.append(await _register(announcement_instance(SESSION, PLAYERS[2].fingerprint, 41002),
                                     announcement_properties(genuine.raw)))
        await until(lambda: len(me.ignored) >= 4 and bool(heard.found))
    finally:
        await me.stop()
        for azc in fakes:
            await azc.async_close()
    kinds = {type(i) for i in me.ignored}
    assert {AnnouncementUnseated, AnnouncementForged, AnnouncementOtherTable,
            AnnouncementMalformed} <= kinds
    assert all(isinstance(i, AnnouncementIgnored) and i.reason for i in me.ignored)
    assert heard.found == [(2, [["127.0.0.1", 41002]])]
    assert not any("version" in i.reason for i in me.ignored)  # the stranger's: never resolved


# -- the mesh dials announced addresses as it dials the host's hints ---------------------


def _mesh(identity: Identity, **options: object) -> Mesh:
    async def deliver(player: int, data: bytes) -> None:
        return None

    def hello() -> WireMap:
        return {"v": PROTOCOL_VERSION, "name": identity.name, "sid": SESSION, "have": 1, "bot": 0}
    return Mesh(identity, deliver, hello, **options)  # type: ignore[arg-type]


@pytest.mark.asyncio
async def test_a_mesh_links_to_an_announced_address_without_any_hint() -> None:
    one, two = _mesh(PLAYERS[1]), _mesh(PLAYERS[2])
    try:
        await two.listen("127.0.0.1")
        for index, mesh in ((1, one), (2, two)):
            mesh.set_table(SESSION, KEYS, index)
        one.set_announced(2, two.addrs)
        await until(lambda: one.is_linked(2) and two.is_linked(1))
    finally:
        await asyncio.gather(one.close(), two.close())


@pytest.mark.asyncio
async def test_signed_addresses_come_before_the_hosts_hints_and_both_are_filtered() -> None:
    one = _mesh(PLAYERS[1])
    try:
        await one.listen("127.0.0.1")
        one.set_table(SESSION, KEYS, 1)
        one.set_peers([[KEYS[2], [["127.0.0.1", 1], ["8.8.8.8", 53]]]])  # a public hint: never
        one.set_announced(2, [["127.0.0.1", 2], ["127.0.0.1", 1]])
        assert one._addresses[2] == [["127.0.0.1", 2], ["127.0.0.1", 1]]
        one.set_peers([[KEYS[2], []]])  # the host takes its hints back: the signed ones stay
        assert one._addresses[2] == [["127.0.0.1", 2], ["127.0.0.1", 1]]
    finally:
        await one.close()


@pytest.mark.asyncio
async def test_a_mesh_with_announce_announces_on_the_interface_it_meets_the_table_on() -> None:
    """Two meshes listening on loopback find each other by their announcements alone."""
    one, two = _mesh(PLAYERS[1], announce=True), _mesh(PLAYERS[2], announce=True)
    try:
        for index, mesh in ((1, one), (2, two)):
            mesh.set_table(SESSION, KEYS, index)
            assert mesh.announcer is None  # nowhere to look yet
            await mesh.listen("127.0.0.1")
        await until(lambda: one.is_linked(2) and two.is_linked(1))
        assert one.announcer is not None and one.announcer.interfaces == LOOPBACK
    finally:
        await asyncio.gather(one.close(), two.close())


@pytest.mark.asyncio
async def test_only_records_named_for_another_player_of_this_table_are_resolved() -> None:
    from zeroconf import ServiceStateChange

    me = DirectAnnouncer(PLAYERS[1], SESSION, KEYS, 1, Heard())
    stranger = Identity.generate("stranger")
    names = {
        "another table": announcement_instance(bytes(32), PLAYERS[2].fingerprint, 1),
        "a stranger": announcement_instance(SESSION, stranger.fingerprint, 1),
        "this player": announcement_instance(SESSION, PLAYERS[1].fingerprint, 1),
        "not ours at all": f"Kitchen [{PLAYERS[2].fingerprint}].{DIRECT_SERVICE_TYPE}",
    }
    for name in names.values():
        me._on_change(None, DIRECT_SERVICE_TYPE, name, ServiceStateChange.Added)  # type: ignore[arg-type]  # never read
    assert me._resolving == set()
    wanted = announcement_instance(SESSION, PLAYERS[3].fingerprint, 1)
    me._on_change(None, DIRECT_SERVICE_TYPE, wanted, ServiceStateChange.Added)  # type: ignore[arg-type]
    assert me._resolving == {wanted}
    await me.stop()


@pytest.mark.asyncio
async def test_without_ipv6_mdns_the_announcer_falls_back_to_ipv4(monkeypatch: pytest.MonkeyPatch) -> None:
    from p2pcards.net import direct_discovery
    from p2pcards.net.discovery import open_mdns

    opened: list[list[str] | None] = []
    real = open_mdns

    def no_ipv6(interfaces: list[str] | None) -> AsyncZeroconf:
        opened.append(interfaces)
        if interfaces and any(":" in i for i in interfaces):
            raise OSError("IPv6 multicast: network unreachable")
        return real(interfaces)

    monkeypatch.setattr(direct_discovery, "open_mdns", no_ipv6)
    me = DirectAnnouncer(PLAYERS[1], SESSION, KEYS, 1, Heard(), interfaces=["127.0.0.1", "::1"])
    try:
        await me.start([["127.0.0.1", 41010]])
        assert opened == [["127.0.0.1", "::1"], ["127.0.0.1"]]
        assert me.info is not None
    finally:
        await me.stop()


@pytest.mark.asyncio
async def test_a_mesh_whose_mdns_cannot_start_says_so_and_still_dials(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    from p2pcards.net import direct_discovery

    def broken(interfaces: list[str] | None) -> AsyncZeroconf:
        raise OSError("no multicast here")

    monkeypatch.setattr(direct_discovery, "open_mdns", broken)
    one, two = _mesh(PLAYERS[1], announce=True), _mesh(PLAYERS[2])
    try:
        await two.listen("127.0.0.1")
        await one.listen("127.0.0.1")
        for index, mesh in ((1, one), (2, two)):
            mesh.set_table(SESSION, KEYS, index)
        await until(lambda: "cannot announce direct links" in caplog.text)
        one.set_peers([[KEYS[2], two.addrs]])  # the host's hints still work
        await until(lambda: one.is_linked(2))
    finally:
        await asyncio.gather(one.close(), two.close())
