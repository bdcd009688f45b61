"""The host's relay: lobby, genesis, store-and-forward, sync, refusals."""

from __future__ import annotations

import pytest

from p2pcards.protocol import frames
from p2pcards.protocol.envelope import PROTOCOL_VERSION
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.lobby import Lobby, TableFull
from p2pcards.protocol.relay import (
    Broadcast, Close, LobbyChanged, Persist, Relay, Send, TableStarted,
)
from p2pcards.protocol.table import Table

from p2pcards.direct import direct_table


def hello(name: str, sid: bytes = b"", have: int = 0, bot: int = 0) -> bytes:
    return frames.encode("hello", {"v": PROTOCOL_VERSION, "name": name, "sid": sid,
                                   "have": have, "bot": bot})


def full_relay(ids: list[Identity]) -> tuple[Relay, list]:
    relay = Relay(Lobby(ids[0], "topper", {"target": 3, "deals": 100}, "den"), bytes(32))
    outputs = []
    for link, identity in enumerate(ids, start=1):
        relay.connected(link, identity.public_key)
        outputs += relay.frame(link, hello(identity.name))
    return relay, outputs


@pytest.fixture
def ids() -> list[Identity]:
    return [Identity.generate(f"p{i}") for i in range(4)]


def test_fourth_player_starts_the_table_with_a_persisted_genesis(ids):
    relay, outputs = full_relay(ids)
    assert relay.started
    kinds = [type(o) for o in outputs]
    assert TableStarted in kinds and Persist in kinds
    genesis = next(o for o in outputs if isinstance(o, Persist)).raw
    table = Table(genesis, ids[2])
    assert [p.public_key for p in table.players] == [i.public_key for i in ids]


def test_lobby_changes_are_broadcast_with_the_free_seats(ids):
    _relay, outputs = full_relay(ids)
    free = [o.free_seats for o in outputs if isinstance(o, LobbyChanged)]
    assert free == [3, 2, 1, 0]
    assert any(isinstance(o, Broadcast) and frames.decode(o.frame).kind == "lobby" for o in outputs)


def test_fifth_player_is_rejected_and_its_link_closed(ids):
    """After the genesis a fifth key is turned away as soon as its link is up."""
    relay, _ = full_relay(ids)
    out = relay.connected(9, Identity.generate("late").public_key)
    assert isinstance(out[0], Send) and frames.decode(out[0].frame).kind == "reject"
    assert isinstance(out[-1], Close)
    assert 9 not in relay.links and relay.frame(9, hello("late")) == []


def test_lobby_refuses_a_fifth_seat(ids):
    lobby = Lobby(ids[0], "bluff", {}, "den")
    for identity in ids[1:]:
        lobby.join(identity.public_key, identity.name)
    with pytest.raises(TableFull):
        lobby.join(Identity.generate("x").public_key, "x")


def test_player_leaving_the_lobby_frees_its_seat(ids):
    relay = Relay(Lobby(ids[0], "topper", {}, "den"))
    relay.connected(2, ids[1].public_key)
    relay.frame(2, hello("p1"))
    out = relay.disconnected(2)
    assert [o.free_seats for o in out if isinstance(o, LobbyChanged)] == [3]


def test_message_extending_the_chain_is_stored_then_forwarded_to_the_others():
    table = direct_table("topper", seed=31)
    relay = Relay.resume(Lobby(table.identities[0], "topper", {}, "den"), [table.genesis])
    for link in range(1, 5):
        relay.connected(link, table.identities[link - 1].public_key)
        relay.frame(link, hello(f"p{link}", sid=relay.session, have=1))  # seated: may relay
    raw = table.write()
    out = relay.frame(1, frames.encode("msg", raw))
    assert isinstance(out[0], Persist) and out[0].raw == raw
    assert isinstance(out[1], Broadcast) and out[1].exclude == 1
    assert relay.frame(1, frames.encode("msg", raw)) == []  # a duplicate is dropped


def test_message_ahead_of_the_chain_makes_the_relay_ask_for_the_gap():
    table = direct_table("topper", seed=32)
    relay = Relay.resume(Lobby(table.identities[0], "topper", {}, "den"), [table.genesis])
    relay.connected(1, table.identities[0].public_key)
    relay.frame(1, hello("p0", sid=relay.session, have=1))  # seated: may relay
    table.deliver(table.write(), exclude=0)
    second = table.write()
    out = relay.frame(1, frames.encode("msg", second))
    assert len(out) == 1 and frames.decode(out[0].frame).body == {"have": 1}


def test_reconnecting_player_gets_the_messages_it_lacks():
    table = direct_table("topper", seed=33)
    lobby = Lobby(table.identities[0], "topper", {}, "den")
    for _ in range(3):
        table.step()
    relay = Relay.resume(lobby, table.tables[0].transcript())
    relay.connected(7, table.identities[2].public_key)
    out = relay.frame(7, hello("P2", sid=table.tables[0].session, have=2))
    sent = [frames.decode(o.frame).body for o in out if isinstance(o, Send)]
    assert sent == table.tables[0].transcript()[2:]


def test_garbage_frame_gets_a_reject_and_closes_only_that_link(ids):
    relay, _ = full_relay(ids)
    out = relay.frame(2, b"\xc1not msgpack")
    assert isinstance(out[-1], Close) and out[-1].link == 2
