"""A spectator's ``sync`` is answered once per transcript message; more closes it (finding 5).

A spectator hears every message as the relay stores it, so an honest one asks
for the transcript only after a gap. Eight flooding spectators once halved the
table's pace: here a second ``sync`` before the chain grows closes the link,
and a player's ``sync`` is answered as before.
"""

from __future__ import annotations

import pytest

from p2pcards.protocol import frames
from p2pcards.protocol.envelope import PROTOCOL_VERSION, seal
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.relay import SPECTATOR_SYNCS_PER_MESSAGE, Close, Relay, Send
from p2pcards.protocol.relay import Output as RelayOutput
from tests.protocol.test_relay_peers import _table

SPECTATOR = 9


@pytest.fixture
def ids() -> list[Identity]:
    return [Identity.generate(f"p{i}") for i in range(4)]


def _watching(ids: list[Identity]) -> Relay:
    relay, _ = _table(ids, {})
    relay.connected(SPECTATOR, Identity.generate("fan").public_key)
    relay.frame(SPECTATOR, frames.encode("hello", {"v": PROTOCOL_VERSION, "name": "fan", "sid": b"",
                                                    "have": 0, "bot": 0, "watch": 1}))
    assert relay.spectating(SPECTATOR)
    return relay


def _grow(relay: Relay, ids: list[Identity]) -> None:
    """One more stored message (the relay judges no rule: any player's signed next message)."""
    player = len(relay.messages) % 4
    identity = next(i for i in ids if i.public_key == relay._player_keys[player])
    msg = seal(identity, session=relay.session, position=len(relay.messages),
               prev=relay.messages[-1].digest, player=player, type="commit",
               body={"key": bytes(32), "draw": bytes(32)})
    link = ids.index(identity) + 1
    relay.frame(link, frames.encode("msg", msg.raw))


def _sync(relay: Relay, link: int, have: int = 0) -> list[RelayOutput]:
    return relay.frame(link, frames.encode("sync", {"have": have}))


def _answers(outputs: list[RelayOutput]) -> int:
    return sum(1 for out in outputs if isinstance(out, Send) and frames.decode(out.frame).kind == "msg")


def test_a_spectators_sync_is_answered_once_per_transcript_message(ids: list[Identity]) -> None:
    relay = _watching(ids)
    for grown in range(3):
        assert SPECTATOR_SYNCS_PER_MESSAGE == 1
        assert _answers(_sync(relay, SPECTATOR)) == len(relay.messages), grown
        _grow(relay, ids)
    assert relay.spectating(SPECTATOR)


def test_a_spectator_asking_again_before_the_chain_grows_is_closed(ids: list[Identity]) -> None:
    relay = _watching(ids)
    _grow(relay, ids)
    assert _answers(_sync(relay, SPECTATOR)) == 2
    again = _sync(relay, SPECTATOR)
    assert _answers(again) == 0
    closes = [out for out in again if isinstance(out, Close)]
    assert [c.link for c in closes] == [SPECTATOR] and "spectator" in closes[0].reason
    rejects = [frames.decode(out.frame) for out in again if isinstance(out, Send)]
    assert [r.kind for r in rejects] == ["reject"]


def test_a_players_sync_is_answered_every_time(ids: list[Identity]) -> None:
    relay = _watching(ids)
    _grow(relay, ids)
    for _ in range(5):
        outputs = _sync(relay, 2)
        assert _answers(outputs) == 2 and not any(isinstance(o, Close) for o in outputs)


def test_a_spectator_closed_for_flooding_is_refused_when_it_dials_again(ids: list[Identity]) -> None:
    relay = _watching(ids)
    key = relay.links[SPECTATOR].public_key
    _sync(relay, SPECTATOR)
    _sync(relay, SPECTATOR)
    relay.disconnected(SPECTATOR)
    again = relay.connected(SPECTATOR + 1, key)
    assert [type(out) for out in again] == [Send, Close] and isinstance(again[1], Close)
    assert "flooding" in again[1].reason
    other = relay.connected(SPECTATOR + 2, Identity.generate("another fan").public_key)
    assert other == []  # another spectator is still welcome
