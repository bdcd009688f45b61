"""Attacks on the encoding: bytes that are not msgpack, msgpack of the wrong
shape, sizes over the limits, duplicate keys, deep nesting, false alerts, bad
genesis messages. Nobody can be blamed for bytes nobody signed: they are
dropped and change nothing. A signed notice is another matter."""

from __future__ import annotations

from typing import Any

import msgpack
import pytest

from p2pcards.net.errors import FrameTooLarge
from p2pcards.net.framing import MAX_FRAME, FrameDecoder
from p2pcards.protocol import frames, wire
from p2pcards.protocol.envelope import SIGN_TAG, SignedMessage, seal
from p2pcards.protocol.errors import (
    BadSignature,
    MalformedMessage,
    MalformedWire,
    RemoteProtocolError,
    WrongSession,
)
from p2pcards.protocol.events import Reported
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.lobby import Lobby
from p2pcards.protocol.relay import Close, Relay, Send
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_records import Stage
from p2pcards.protocol.verdict import Verdict

from .harness import Bench, assert_transcripts_valid, assert_untouched, marks, recording


def _real_message() -> bytes:
    rec = recording("topper")
    return rec.transcript[12]


def _junk() -> list[bytes]:
    real = _real_message()
    return [
        b"", b"\xc1", b"\xff" * 40, real[:-1], real[: len(real) // 2], real + b"\x00",
        b"\x93" + real[1:], b"\xdd\xff\xff\xff\xff", b"\xc6\x7f\xff\xff\xff",
    ]


@pytest.mark.parametrize("index", range(9))
def test_bytes_that_are_not_one_msgpack_message_are_dropped(index: int) -> None:
    junk = _junk()[index]
    bench = recording("topper").bench_at(13)
    before = marks(bench)
    results = bench.deliver(junk)
    for who, result in results.items():
        assert isinstance(result.error, (MalformedWire, MalformedMessage)), (who, result.error)
        assert result.error.player is None
    assert marks(bench) == before
    with pytest.raises((MalformedWire, MalformedMessage)):
        frames.decode(junk)


@pytest.mark.parametrize("outer", [
    "a map", "a string", "an integer", "one item", "three items", "text payload",
    "payload not a map", "nil signature",
])
def test_msgpack_of_the_wrong_shape_is_dropped(outer: str) -> None:
    msg = SignedMessage.parse(_real_message())
    raw = wire.pack({
        "a map": {"payload": msg.payload, "sig": msg.signature},
        "a string": "hello",
        "an integer": 5,
        "one item": [msg.payload],
        "three items": [msg.payload, msg.signature, b""],
        "text payload": [msg.payload.decode("latin-1"), msg.signature],
        "payload not a map": [wire.pack([1, 2]), msg.signature],
        "nil signature": [msg.payload, None],
    }[outer])
    bench = recording("topper").bench_at(12)
    before = marks(bench)
    results = bench.deliver(raw)
    for who, result in results.items():
        assert isinstance(result.error, (MalformedWire, MalformedMessage)), (who, result.error)
        assert result.error.player is None
    assert marks(bench) == before


def test_duplicate_keys_in_a_signed_payload_are_refused() -> None:
    """Two ``body`` keys: two meanings under one signature. The decoder refuses
    the payload outright, whoever signed it."""
    bench, step = recording("topper").bench_before(lambda s: s.type == "bid")
    ref = bench.reference
    pairs = [("v", 1), ("sid", ref.session), ("n", ref.next_position), ("prev", ref.head),
             ("from", step.player), ("type", "bid"), ("body", {"tricks": 1}),
             ("body", {"tricks": 6})]
    payload = b"\x88" + b"".join(msgpack.packb(k) + msgpack.packb(v, use_bin_type=True)
                                 for k, v in pairs)
    sig = bench.identities[step.player].sign(SIGN_TAG + payload)
    before = marks(bench)
    results = bench.deliver(wire.pack([payload, sig]), sender=step.player)
    for who in (*bench.honest, "observer"):
        assert isinstance(results[who].error, MalformedWire)
    assert marks(bench) == before


@pytest.mark.parametrize("size", [wire.MAX_BYTES + 1, 1 << 20])
def test_message_larger_than_the_limit_is_refused_before_decoding(size: int) -> None:
    blob = wire.pack([b"\x00" * (size - 20), bytes(64)])
    assert len(blob) > wire.MAX_BYTES
    with pytest.raises(MalformedWire):
        wire.unpack(blob)
    bench = recording("topper").bench_at(12)
    before = marks(bench)
    results = bench.deliver(blob)
    assert all(isinstance(r.error, MalformedWire) for r in results.values())
    assert marks(bench) == before


def test_frame_header_over_the_limit_is_refused_before_its_body() -> None:
    decoder = FrameDecoder()
    with pytest.raises(FrameTooLarge):
        decoder.feed((MAX_FRAME + 1).to_bytes(4, "big"))
    assert decoder.buffered == 0
    with pytest.raises(FrameTooLarge):
        decoder.feed(b"\x00" * 100)  # a broken stream stays broken


def test_oversized_string_and_list_inside_a_signed_body_are_refused() -> None:
    """Over the decoder's per-item limits: dropped before anyone looks at them."""
    bench, step = recording("topper").bench_before(lambda s: s.type == "bid")
    ref = bench.reference
    for body in ({"tricks": "x" * (wire.MAX_STR + 1)}, {"tricks": list(range(wire.MAX_ARRAY + 1))}):
        payload = wire.pack({"v": 2, "sid": ref.session, "n": ref.next_position, "prev": ref.head,
                             "from": step.player, "type": "bid", "body": body})
        raw = wire.pack([payload, bench.identities[step.player].sign(SIGN_TAG + payload)])
        before = marks(bench)
        results = bench.deliver(raw, sender=step.player)
        assert all(isinstance(results[w].error, MalformedWire) for w in bench.honest)
        assert marks(bench) == before


def test_deeply_nested_body_is_refused() -> None:
    bench, step = recording("topper").bench_before(lambda s: s.type == "bid")
    ref = bench.reference
    deep = b"\x91" * 5000 + b"\x00"
    head = wire.pack({"v": 2, "sid": ref.session, "n": ref.next_position, "prev": ref.head,
                      "from": step.player, "type": "bid", "body": 0})
    payload = head[:-1] + deep
    sig = bench.identities[step.player].sign(SIGN_TAG + payload)
    before = marks(bench)
    results = bench.deliver(wire.pack([payload, sig]), sender=step.player)
    assert all(isinstance(results[w].error, (MalformedWire, MalformedMessage))
               for w in bench.honest)
    assert marks(bench) == before


def test_relay_refuses_junk_and_closes_only_that_link() -> None:
    ids = [Identity.generate(f"p{i}") for i in range(4)]
    relay = Relay(Lobby(ids[0], "topper", {}, "den"), bytes(32))
    for link, identity in enumerate(ids, start=1):
        relay.connected(link, identity.public_key)
        relay.frame(link, frames.encode("hello", {"v": 2, "name": identity.name, "sid": b"",
                                                  "have": 0, "bot": 0}))
    assert relay.started
    for junk in _junk():
        out = relay.frame(2, junk)
        assert isinstance(out[0], Send) and frames.decode(out[0].frame).kind == "reject"
        assert isinstance(out[-1], Close) and out[-1].link == 2


# -- notices ------------------------------------------------------------------------------------


def test_false_alert_without_proof_is_only_a_report() -> None:
    """A cheater claims an honest player broke a rule: the others cannot check it,
    so it is advisory: nobody is named, nothing changes, and play goes on to the end."""
    bench, step = recording("topper").bench_before(lambda s: s.type == "bid")
    liar = (step.player + 1) % 4
    bench.set_hostile(liar)
    lie = Verdict("rules.topper.renege", (step.player,), step.position, "made up", ())
    notice = bench.forge("alert", lie.to_wire())
    before = marks(bench)
    for who in (*bench.honest, "observer"):
        events = bench.table_of(who).receive_alert(notice)
        assert events == [Reported(liar, "rules.topper.renege", (step.player,), step.position,
                                   "made up")]
        assert bench.table_of(who).verdict is None
    assert_untouched(bench, before)
    bench.finish()
    assert all(bench.table_of(w).verdict is None for w in (*range(4), "observer"))
    assert bench.reference.stage is Stage.OVER
    assert_transcripts_valid(bench)


def test_alert_with_forged_evidence_proves_nothing() -> None:
    """Evidence of an 'equivocation' by an honest player, with a broken signature."""
    rec = recording("topper")
    bench, step = rec.bench_before(lambda s: s.type == "bid")
    liar = (step.player + 1) % 4
    bench.set_hostile(liar)
    held = SignedMessage.parse(rec.transcript[5])
    fake = wire.pack([wire.pack({"v": 2, "sid": held.session, "n": held.position,
                                 "prev": held.prev, "from": held.player, "type": held.type,
                                 "body": dict(held.body, draw=bytes(32))}), held.signature])
    lie = Verdict("chain.equivocation", (held.player,), 5, "made up", (held.raw, fake))
    notice = bench.forge("alert", lie.to_wire())
    for who in bench.honest:
        events = bench.tables[who].receive_alert(notice)
        assert [type(e) for e in events] == [Reported] and bench.tables[who].verdict is None


def test_alert_signed_for_another_session_is_dropped() -> None:
    bench, step = recording("topper").bench_before(lambda s: s.type == "bid")
    other = Bench("topper", seed=1, genesis_nonce=bytes(32)).reference.session
    notice = bench.forge("leave", {}, session=other)
    for who in bench.honest:
        with pytest.raises(WrongSession):
            bench.tables[who].receive_alert(notice)
        assert bench.tables[who].stage is Stage.PLAY


def test_notice_of_an_unknown_type_or_signed_by_a_stranger_is_dropped() -> None:
    bench, step = recording("topper").bench_before(lambda s: s.type == "bid")
    odd = bench.forge("party", {})
    stranger = bench.forge("leave", {}, identity=Identity.generate("x"))
    for who in bench.honest:
        with pytest.raises(MalformedMessage):
            bench.tables[who].receive_alert(odd)
        with pytest.raises(BadSignature):
            bench.tables[who].receive_alert(stranger)
        assert bench.tables[who].stage is Stage.PLAY


# -- the genesis ------------------------------------------------------------------------------------


def _genesis(signer: Identity, players: list[Any], game: str = "topper", config: dict[str, int] | None = None,
             table: str = "t") -> bytes:
    body = {"game": game, "table": table, "config": config or {}, "nonce": bytes(32),
            "players": players}
    return seal(signer, session=None, position=0, prev=bytes(32), player=0, type="genesis",
                body=body).raw


@pytest.mark.parametrize("case", [
    "same identity twice", "three players", "unknown game", "unknown setting",
    "setting out of range", "signed by a non-host", "control characters in the name",
])
def test_unusable_genesis_is_refused(case: str) -> None:
    ids = [Identity.generate(f"p{i}") for i in range(4)]
    players = [[i.public_key, i.name] for i in ids]
    raw = {
        "same identity twice": lambda: _genesis(ids[0], players[:3] + [players[0]]),
        "three players": lambda: _genesis(ids[0], players[:3]),
        "unknown game": lambda: _genesis(ids[0], players, game="poker"),
        "unknown setting": lambda: _genesis(ids[0], players, config={"jokers": 2}),
        "setting out of range": lambda: _genesis(ids[0], players, config={"target": 0}),
        "signed by a non-host": lambda: _genesis(ids[1], players),
        "control characters in the name": lambda: _genesis(ids[0], players, table="t\x1b[2J"),
    }[case]()
    with pytest.raises(RemoteProtocolError):
        Table(raw, ids[1])
