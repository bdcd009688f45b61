"""The host's relay: lobby, genesis, store-and-forward, sync, refusals."""

from __future__ import annotations

import pytest

from p2pcards.app._direct import DirectTable, direct_table
from p2pcards.protocol import frames
from p2pcards.protocol.envelope import PROTOCOL_VERSION, seal_notice
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.lobby import Lobby, TableFull
from p2pcards.protocol.relay import (
    MAX_NOTICES_PER_PLAYER,
    Broadcast,
    Close,
    LobbyChanged,
    Persist,
    PersistNotice,
    Relay,
    Send,
    TableStarted,
)
from p2pcards.protocol.relay import Output as RelayOutput
from p2pcards.protocol.table import Table
from p2pcards.protocol.verdict import Verdict


def hello(name: str, sid: bytes = b"", have: int = 0, bot: int = 0) -> bytes:
    return frames.encode("hello", {"v": PROTOCOL_VERSION, "name": name, "sid": sid,
                                   "have": have, "bot": bot})


def full_relay(ids: list[Identity]) -> tuple[Relay, list[RelayOutput]]:
    relay = Relay(Lobby(ids[0], "topper", {"target": 3, "deals": 100}, "den"), bytes(32))
    outputs: list[RelayOutput] = []
    for link, identity in enumerate(ids, start=1):
        relay.connected(link, identity.public_key)
        outputs += relay.frame(link, hello(identity.name))
    return relay, outputs


@pytest.fixture
def ids() -> list[Identity]:
    return [Identity.generate(f"p{i}") for i in range(4)]


def test_fourth_player_starts_the_table_with_a_persisted_genesis(ids: list[Identity]) -> None:
    relay, outputs = full_relay(ids)
    assert relay.started
    kinds = [type(o) for o in outputs]
    assert TableStarted in kinds and Persist in kinds
    genesis = next(o for o in outputs if isinstance(o, Persist)).raw
    table = Table(genesis, ids[2])
    assert [p.public_key for p in table.players] == [i.public_key for i in ids]


def test_lobby_changes_are_broadcast_with_the_free_seats(ids: list[Identity]) -> None:
    _relay, outputs = full_relay(ids)
    free = [o.free_seats for o in outputs if isinstance(o, LobbyChanged)]
    assert free == [3, 2, 1, 0]
    assert any(isinstance(o, Broadcast) and frames.decode(o.frame).kind == "lobby" for o in outputs)


def test_fifth_player_is_rejected_and_its_link_closed(ids: list[Identity]) -> None:
    """After the genesis a fifth key that asks for a seat is turned away and closed."""
    relay, _ = full_relay(ids)
    assert relay.connected(9, Identity.generate("late").public_key) == []  # may be a spectator
    out = relay.frame(9, hello("late"))
    assert isinstance(out[0], Send) and frames.decode(out[0].frame).kind == "reject"
    assert "started without you" in frames.decode(out[0].frame).body["reason"]
    assert isinstance(out[-1], Close)
    assert not relay.hears(9)


def test_a_table_without_spectators_turns_a_fifth_key_away_as_soon_as_its_link_is_up(ids: list[Identity]) -> None:
    relay = Relay(Lobby(ids[0], "topper", {"target": 3, "deals": 100}, "den"), bytes(32),
                  max_spectators=0)
    for link, identity in enumerate(ids, start=1):
        relay.connected(link, identity.public_key)
        relay.frame(link, hello(identity.name))
    out = relay.connected(9, Identity.generate("late").public_key)
    assert isinstance(out[0], Send) and frames.decode(out[0].frame).kind == "reject"
    assert isinstance(out[-1], Close)
    assert 9 not in relay.links and relay.frame(9, hello("late")) == []


def test_lobby_refuses_a_fifth_seat(ids: list[Identity]) -> None:
    lobby = Lobby(ids[0], "bluff", {}, "den")
    for identity in ids[1:]:
        lobby.join(identity.public_key, identity.name)
    with pytest.raises(TableFull):
        lobby.join(Identity.generate("x").public_key, "x")


def test_player_leaving_the_lobby_frees_its_seat(ids: list[Identity]) -> None:
    relay = Relay(Lobby(ids[0], "topper", {}, "den"))
    relay.connected(2, ids[1].public_key)
    relay.frame(2, hello("p1"))
    out = relay.disconnected(2)
    assert [o.free_seats for o in out if isinstance(o, LobbyChanged)] == [3]


def test_message_extending_the_chain_is_stored_then_forwarded_to_the_others() -> None:
    table = direct_table("topper", seed=31)
    relay = Relay.resume(Lobby(table.identities[0], "topper", {}, "den"), [table.genesis])
    for link in range(1, 5):
        relay.connected(link, table.identities[link - 1].public_key)
        assert relay.session is not None
        relay.frame(link, hello(f"p{link}", sid=relay.session, have=1))  # seated: may relay
    raw = table.write()
    out = relay.frame(1, frames.encode("msg", raw))
    assert isinstance(out[0], Persist) and out[0].raw == raw
    assert isinstance(out[1], Broadcast) and out[1].exclude == 1
    assert relay.frame(1, frames.encode("msg", raw)) == []  # a duplicate is dropped


def test_message_ahead_of_the_chain_makes_the_relay_ask_for_the_gap() -> None:
    table = direct_table("topper", seed=32)
    relay = Relay.resume(Lobby(table.identities[0], "topper", {}, "den"), [table.genesis])
    relay.connected(1, table.identities[0].public_key)
    assert relay.session is not None
    relay.frame(1, hello("p0", sid=relay.session, have=1))  # seated: may relay
    table.deliver(table.write(), exclude=0)
    second = table.write()
    out = relay.frame(1, frames.encode("msg", second))
    assert len(out) == 1 and isinstance(out[0], Send) and frames.decode(out[0].frame).body == {"have": 1}


def test_reconnecting_player_gets_the_messages_it_lacks() -> None:
    table = direct_table("topper", seed=33)
    lobby = Lobby(table.identities[0], "topper", {}, "den")
    for _ in range(3):
        table.step()
    relay = Relay.resume(lobby, table.tables[0].transcript())
    relay.connected(7, table.identities[2].public_key)
    out = relay.frame(7, hello("P2", sid=table.tables[0].session, have=2))
    sent = [frames.decode(o.frame).body for o in out if isinstance(o, Send)]
    assert sent == table.tables[0].transcript()[2:]


def test_garbage_frame_gets_a_reject_and_closes_only_that_link(ids: list[Identity]) -> None:
    relay, _ = full_relay(ids)
    out = relay.frame(2, b"\xc1not msgpack")
    assert isinstance(out[-1], Close) and out[-1].link == 2


# -- notices: kept beside the chain, never in it --------------------------------------------


def _relay_in_play(seed: int) -> tuple[DirectTable, Relay]:
    table = direct_table("topper", seed=seed)
    for _ in range(5):
        table.step()
    relay = Relay.resume(Lobby(table.identities[0], "topper", {}, "den"), table.tables[0].transcript())
    held = len(table.tables[0].transcript())
    for link in range(1, 5):
        relay.connected(link, table.identities[link - 1].public_key)
        assert relay.session is not None
        relay.frame(link, hello(f"P{link - 1}", sid=relay.session, have=held))  # seated
    return table, relay


def test_an_alert_is_kept_persisted_broadcast_once_and_handed_to_a_returning_player() -> None:
    table, relay = _relay_in_play(34)
    table.tables[1].declare_deadline_missed()
    alert = table.tables[1].alert()
    out = relay.frame(2, frames.encode("alert", alert))
    assert isinstance(out[0], PersistNotice) and out[0].raw == alert
    assert isinstance(out[1], Broadcast) and frames.decode(out[1].frame).body == alert
    assert relay.frame(3, frames.encode("alert", alert)) == []  # the same notice again
    assert [n.raw for n in relay.notices] == [alert]
    relay.connected(9, table.identities[3].public_key)
    assert relay.session is not None
    out = relay.frame(9, hello("P3", sid=relay.session, have=1))
    sent = [f for f in (frames.decode(o.frame) for o in out if isinstance(o, Send))
            if f.kind != "presence"]
    assert [f.kind for f in sent][-1] == "alert" and sent[-1].body == alert
    assert [f.body for f in sent if f.kind == "msg"] == table.tables[0].transcript()[1:]


def test_notices_are_bounded_per_player() -> None:
    table, relay = _relay_in_play(35)
    ref = table.tables[0]
    kept = 0
    for n in range(MAX_NOTICES_PER_PLAYER + 3):
        verdict = Verdict("deadline", (0,), n + 1, f"claim {n}")
        raw = seal_notice(table.identities[2], session=ref.session, position=ref.next_position,
                          prev=ref.head, player=2, type="alert", body=verdict.to_wire()).raw
        kept += bool(relay.frame(3, frames.encode("alert", raw)))
    assert kept == MAX_NOTICES_PER_PLAYER == len(relay.notices)


def test_a_notice_sent_as_a_transcript_message_is_refused_and_never_stored() -> None:
    """Even an honest relay: a player re-sending another's leave as ``msg``."""
    table, relay = _relay_in_play(36)
    leave = table.tables[2].leave()
    before = [m.raw for m in relay.messages]
    out = relay.frame(2, frames.encode("msg", leave))
    assert not any(isinstance(o, (Persist, PersistNotice, Broadcast)) for o in out)
    assert isinstance(out[-1], Close) and [m.raw for m in relay.messages] == before
    assert relay.notices == []


def test_a_resumed_relay_rebuilds_its_notices_and_skips_bad_ones() -> None:
    table, relay = _relay_in_play(37)
    leave = table.tables[3].leave()
    relay.frame(4, frames.encode("alert", leave))
    forged = bytearray(leave)
    forged[-1] ^= 1
    again = Relay.resume(Lobby(table.identities[0], "topper", {}, "den"),
                         [m.raw for m in relay.messages], [leave, bytes(forged), leave])
    assert [n.raw for n in again.notices] == [leave]
