"""The relay's address book for direct links: ``hello`` addrs in, ``peers`` frames out."""

from __future__ import annotations

import pytest

from p2pcards.protocol import frames
from p2pcards.protocol.envelope import PROTOCOL_VERSION
from p2pcards.protocol.errors import MalformedMessage
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.lobby import Lobby
from p2pcards.protocol.relay import Broadcast, Close, Relay, Send
from p2pcards.protocol.relay import Output as RelayOutput
from p2pcards.wiremap import WireList, WireMap


def hello(name: str, addrs: WireList | None = None, sid: bytes = b"", have: int = 0) -> bytes:
    body = {"v": PROTOCOL_VERSION, "name": name, "sid": sid, "have": have, "bot": 0}
    if addrs is not None:
        body["addrs"] = addrs
    return frames.encode("hello", body)


@pytest.fixture
def ids() -> list[Identity]:
    return [Identity.generate(f"p{i}") for i in range(4)]


def _peers_in(outputs: list[RelayOutput]) -> list[tuple[object, WireMap]]:
    found: list[tuple[object, WireMap]] = []
    for out in outputs:
        if isinstance(out, (Send, Broadcast)):
            frame = frames.decode(out.frame)
            if frame.kind == "peers":
                found.append((out, frame.body))
    return found


def _table(ids: list[Identity], addrs: dict[int, WireList]) -> tuple[Relay, list[RelayOutput]]:
    relay = Relay(Lobby(ids[0], "topper", {"target": 3, "deals": 100}, "den"), bytes(32))
    outputs: list[RelayOutput] = []
    for link, identity in enumerate(ids, start=1):
        relay.connected(link, identity.public_key)
        outputs += relay.frame(link, hello(identity.name, addrs.get(link - 1)))
    return relay, outputs


def test_genesis_is_followed_by_every_players_addresses_in_player_order(ids: list[Identity]) -> None:
    addrs = {1: [["10.0.0.2", 4001]], 2: [["10.0.0.3", 4002], ["fd00::3", 4002]]}
    relay, outputs = _table(ids, addrs)
    assert relay.started
    [(out, body)] = _peers_in(outputs)
    assert isinstance(out, Broadcast) and out.exclude is None
    keys = [pk for pk, _ in body["players"]]
    assert keys == relay._player_keys
    by_key = {identity.public_key: addrs.get(i, []) for i, identity in enumerate(ids)}
    assert {bytes(pk): a for pk, a in body["players"]} == by_key


def test_a_table_where_nobody_listens_hears_no_peers_frame(ids: list[Identity]) -> None:
    relay, outputs = _table(ids, {})
    assert relay.started
    assert _peers_in(outputs) == []


def test_a_resumed_player_with_a_new_port_makes_the_relay_tell_everyone(ids: list[Identity]) -> None:
    relay, _ = _table(ids, {1: [["10.0.0.2", 4001]]})
    relay.disconnected(2)
    relay.connected(9, ids[1].public_key)
    assert relay.session is not None
    out = relay.frame(9, hello("p1", [["10.0.0.2", 5005]], sid=relay.session, have=1))
    [(sent, body)] = _peers_in(out)
    assert isinstance(sent, Broadcast)
    assert [bytes(ids[1].public_key), [["10.0.0.2", 5005]]] in [[bytes(k), a] for k, a in body["players"]]


def test_a_reconnect_with_the_same_addresses_is_told_them_alone(ids: list[Identity]) -> None:
    relay, _ = _table(ids, {1: [["10.0.0.2", 4001]]})
    relay.disconnected(4)
    relay.connected(9, ids[3].public_key)
    assert relay.session is not None
    out = relay.frame(9, hello("p3", [], sid=relay.session, have=1))
    [(sent, _body)] = _peers_in(out)
    assert isinstance(sent, Send) and sent.link == 9


@pytest.mark.parametrize("addrs", [
    [["laptop.local", 4000]],          # a name, never resolved on a peer's word
    [["10.0.0.2", 0]],                 # no port
    [["10.0.0.2", 70000]],
    [["10.0.0.2", 1]] * 5,             # more than four
    [["10.0.0.2"]],
])
def test_ill_formed_addresses_are_refused(ids: list[Identity], addrs: WireList) -> None:
    relay = Relay(Lobby(ids[0], "topper", {"target": 3, "deals": 100}, "den"), bytes(32))
    relay.connected(1, ids[1].public_key)
    out = relay.frame(1, hello("p1", addrs))
    assert any(isinstance(o, Close) for o in out)
    with pytest.raises(MalformedMessage):
        frames.decode(hello("p1", addrs))


def test_strangers_and_lobby_leavers_leave_no_address_behind(ids: list[Identity]) -> None:
    relay = Relay(Lobby(ids[0], "topper", {"target": 3, "deals": 100}, "den"), bytes(32))
    for n in range(20):
        stranger = Identity.generate(f"s{n}")
        relay.connected(100 + n, stranger.public_key)
        relay.frame(100 + n, hello(f"s{n}", [["10.0.0.9", 4000 + n]]))
        relay.disconnected(100 + n)
    for link, identity in enumerate(ids, start=1):
        relay.connected(link, identity.public_key)
        relay.frame(link, hello(identity.name, [["10.0.0.1", 5000 + link]]))
    assert relay.started
    assert set(relay.addresses) == {identity.public_key for identity in ids}
    out = relay.connected(200, Identity.generate("late").public_key)  # turned away at once
    out += relay.frame(200, hello("late", [["10.0.0.66", 6666]]))
    assert any(isinstance(o, Close) for o in out)
    assert len(relay.addresses) == 4
