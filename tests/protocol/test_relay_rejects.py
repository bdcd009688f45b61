"""Every frame PROTOCOL.md §9 says the relay answers with ``reject`` and a closed link.

Each case is one frame on a seated player's link (or, before the genesis, a
lobby member's): the relay must send that link a ``reject`` whose reason ends
with the rule id §9 names where it names one, close that link and only it,
and persist nothing.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from p2pcards.protocol import frames
from p2pcards.protocol.envelope import PROTOCOL_VERSION, seal, seal_notice
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.lobby import Lobby
from p2pcards.protocol.relay import Close, Persist, PersistNotice, Relay, Send
from p2pcards.protocol.relay import Output as RelayOutput


def _hello(name: str, sid: bytes = b"", v: int = PROTOCOL_VERSION) -> bytes:
    return frames.encode("hello", {"v": v, "name": name, "sid": sid, "have": 0, "bot": 0})


def _ids() -> list[Identity]:
    return [Identity.generate(f"p{i}") for i in range(4)]


def _relay(ids: list[Identity], players: int) -> Relay:
    relay = Relay(Lobby(ids[0], "topper", {"target": 3, "deals": 100}, "den"), bytes(32))
    for link, identity in enumerate(ids[:players], start=1):
        relay.connected(link, identity.public_key)
        relay.frame(link, _hello(identity.name))
    return relay


def _message(relay: Relay, signer: Identity, session: bytes | None = None) -> bytes:
    """Player 1's next message (a ``commit``), signed by ``signer`` for ``session``."""
    held = relay.messages
    return seal(signer, session=relay.session if session is None else session,
                position=len(held), prev=held[-1].digest, player=1, type="commit",
                body={"key": bytes(32), "draw": bytes(32)}).raw


def _notice(relay: Relay, signer: Identity, session: bytes | None = None) -> bytes:
    held = relay.messages
    assert relay.session is not None
    return seal_notice(signer, session=relay.session if session is None else session,
                       position=len(held), prev=held[-1].digest, player=1, type="leave",
                       body={}).raw


#: (case, frame on link 2 of a started table built from the four ids, rule id or None)
AFTER_GENESIS: list[tuple[str, Callable[[Relay, list[Identity]], bytes], str | None]] = [
    ("msg signed by another key", lambda r, ids: frames.encode("msg", _message(r, ids[2])),
     "message.signature"),
    ("msg of another session",
     lambda r, ids: frames.encode("msg", _message(r, ids[1], bytes([7]) * 32)),
     "message.session"),
    ("alert signed by another key", lambda r, ids: frames.encode("alert", _notice(r, ids[2])),
     "message.signature"),
    ("alert of another session",
     lambda r, ids: frames.encode("alert", _notice(r, ids[1], bytes([7]) * 32)),
     "message.session"),
    ("a second hello", lambda r, ids: _hello("p1", r.session or b""), "message.malformed"),
    ("lobby", lambda r, ids: frames.encode("lobby", {"game": "topper", "table": "den",
                                                     "config": {}, "players": []}),
     "message.malformed"),
    ("reject", lambda r, ids: frames.encode("reject", {"reason": "no"}), "message.malformed"),
    ("peers", lambda r, ids: frames.encode("peers", {"players": []}), "message.malformed"),
    ("presence", lambda r, ids: frames.encode("presence", {"linked": []}), "message.malformed"),
    ("pong", lambda r, ids: frames.encode("pong", {"n": 1}), "message.malformed"),
]


def _assert_rejected_and_closed(out: list[RelayOutput], link: int, rule: str | None) -> None:
    sends = [o for o in out if isinstance(o, Send) and o.link == link]
    assert sends, "no reject sent"
    frame = frames.decode(sends[-1].frame)
    assert frame.kind == "reject"
    if rule is not None:
        assert frame.body["reason"].endswith(f"[{rule}]")
    assert [o.link for o in out if isinstance(o, Close)] == [link]
    assert not any(isinstance(o, (Persist, PersistNotice)) for o in out)


@pytest.mark.parametrize(("case", "build", "rule"), AFTER_GENESIS, ids=[c[0] for c in AFTER_GENESIS])
def test_after_the_genesis_the_relay_rejects(
        case: str, build: Callable[[Relay, list[Identity]], bytes], rule: str | None) -> None:
    ids = _ids()
    relay = _relay(ids, 4)
    assert relay.started
    held = len(relay.messages)
    _assert_rejected_and_closed(relay.frame(2, build(relay, ids)), 2, rule)
    assert len(relay.messages) == held


def test_a_hello_of_another_version_is_rejected() -> None:
    ids = _ids()
    relay = _relay(ids, 4)
    relay.connected(9, ids[1].public_key)
    out = relay.frame(9, _hello("p1", relay.session or b"", v=PROTOCOL_VERSION + 1))
    _assert_rejected_and_closed(out, 9, "message.malformed")


def test_a_players_hello_with_another_tables_sid_is_rejected() -> None:
    ids = _ids()
    relay = _relay(ids, 4)
    relay.connected(9, ids[1].public_key)
    _assert_rejected_and_closed(relay.frame(9, _hello("p1", bytes([7]) * 32)), 9,
                                "message.malformed")


def test_before_the_genesis_msg_alert_and_a_resuming_hello_are_rejected() -> None:
    ids = _ids()
    relay = _relay(ids, 2)
    assert not relay.started
    for frame in (frames.encode("msg", b"\x01"), frames.encode("alert", b"\x01")):
        _assert_rejected_and_closed(relay.frame(2, frame), 2, "message.malformed")
        relay.disconnected(2)
        relay.connected(2, ids[1].public_key)
        relay.frame(2, _hello("p1"))
    relay.connected(9, ids[2].public_key)
    out = relay.frame(9, _hello("p2", bytes([7]) * 32))
    _assert_rejected_and_closed(out, 9, None)
    reason = frames.decode(next(o for o in out if isinstance(o, Send)).frame).body["reason"]
    assert reason == "this host holds no table with that session"
