"""The relay's ``presence`` frames: who has a link to the host, told to everyone."""

from __future__ import annotations

import pytest

from p2pcards.protocol import frames
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.relay import Broadcast, Send
from p2pcards.protocol.relay import Output as RelayOutput
from tests.protocol.test_relay_peers import _table, hello


@pytest.fixture
def ids() -> list[Identity]:
    return [Identity.generate(f"p{i}") for i in range(4)]


def _presence_in(outputs: list[RelayOutput]) -> list[tuple[object, list[int]]]:
    found: list[tuple[object, list[int]]] = []
    for out in outputs:
        if isinstance(out, (Send, Broadcast)):
            frame = frames.decode(out.frame)
            if frame.kind == "presence":
                linked = frame.body["linked"]
                assert isinstance(linked, list) and all(isinstance(n, int) for n in linked)
                found.append((out, [n for n in linked if isinstance(n, int)]))
    return found


def test_the_genesis_is_followed_by_everyone_linked(ids: list[Identity]) -> None:
    relay, outputs = _table(ids, {})
    [(out, linked)] = _presence_in(outputs)
    assert isinstance(out, Broadcast) and linked == [1, 1, 1, 1]


def test_a_dropped_player_is_told_to_everyone_and_so_is_its_return(ids: list[Identity]) -> None:
    relay, _ = _table(ids, {})
    [(out, linked)] = _presence_in(relay.disconnected(3))  # link 3 is player 2
    assert isinstance(out, Broadcast) and linked == [1, 1, 0, 1]
    relay.connected(9, ids[2].public_key)
    assert relay.session is not None
    back = relay.frame(9, hello("p2", sid=relay.session, have=1))
    [(out, linked)] = _presence_in(back)
    assert isinstance(out, Broadcast) and linked == [1, 1, 1, 1]


def test_a_player_linked_twice_stays_present_when_one_link_closes(ids: list[Identity]) -> None:
    relay, _ = _table(ids, {})
    relay.connected(9, ids[1].public_key)
    assert relay.session is not None
    again = relay.frame(9, hello("p1", sid=relay.session, have=1))
    [(out, linked)] = _presence_in(again)  # nothing changed: told to the newcomer alone
    assert isinstance(out, Send) and out.link == 9 and linked == [1, 1, 1, 1]
    assert _presence_in(relay.disconnected(2)) == []  # its other link is still up


def test_a_stranger_or_a_lobby_link_never_changes_presence(ids: list[Identity]) -> None:
    relay, _ = _table(ids, {})
    stranger = Identity.generate("x")
    assert _presence_in(relay.connected(20, stranger.public_key)) == []
    assert _presence_in(relay.disconnected(20)) == []
    assert relay.presence() == [1, 1, 1, 1]
