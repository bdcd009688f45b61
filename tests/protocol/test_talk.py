"""Table talk, sans-IO: signed chat lines bound to a session and a counter,
checked by every player and by the host's relay, outside the transcript."""

from __future__ import annotations

import pytest

from p2pcards.protocol import frames, wire
from p2pcards.protocol.envelope import SignedMessage, SignedNotice
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.lobby import Lobby
from p2pcards.protocol.relay import Broadcast, Close, Dropped, Relay, Send
from p2pcards.protocol.talk import (
    MAX_TALK_BYTES,
    MAX_TALK_CHARS,
    RATE_LINES,
    RATE_WINDOW,
    TALK_TAG,
    SignedTalk,
    TalkBook,
    TalkDropped,
    TalkLine,
    TalkRefused,
    clip,
    seal_talk,
)
from tests.protocol.test_relay import full_relay

SID = bytes(range(32))
OTHER_SID = bytes(32)


@pytest.fixture
def ids() -> list[Identity]:
    return [Identity.generate(f"p{i}") for i in range(4)]


def books(ids: list[Identity], session: bytes = SID) -> list[TalkBook]:
    keys = [i.public_key for i in ids]
    return [TalkBook(session, keys, me) for me in range(len(ids))]


def test_a_line_written_by_one_player_is_shown_by_another(ids: list[Identity]) -> None:
    alice, bob = books(ids)[:2]
    signed = alice.write(ids[0], "gg", now=0.0, wall_ms=1000)
    assert bob.receive(signed.raw, now=0.1) == TalkLine(0, "gg")
    assert signed.counter == 1000


def test_a_copy_is_shown_once(ids: list[Identity]) -> None:
    alice, bob = books(ids)[:2]
    raw = alice.write(ids[0], "nice", now=0.0).raw
    assert bob.receive(raw, now=0.0) is not None
    assert bob.receive(raw, now=0.1) is None  # the same line by another path


def test_a_line_signed_by_another_identity_is_dropped(ids: list[Identity]) -> None:
    """The host (or anyone) cannot speak for a player: its key does not sign for him."""
    bob = books(ids)[1]
    forged = seal_talk(ids[3], session=SID, player=0, counter=5, text="I resign")
    with pytest.raises(TalkDropped, match="signature is not player 0's"):
        bob.receive(forged.raw, now=0.0)
    assert bob.last == {}


def test_an_altered_text_is_dropped(ids: list[Identity]) -> None:
    alice, bob = books(ids)[:2]
    signed = alice.write(ids[0], "well played", now=0.0, wall_ms=7)
    payload = wire.pack({"v": 2, "sid": SID, "from": 0, "n": 7, "text": "you cheat"})
    with pytest.raises(TalkDropped, match="forged or altered"):
        bob.receive(wire.pack([payload, signed.signature]), now=0.0)


def test_an_old_counter_is_dropped_as_a_replay(ids: list[Identity]) -> None:
    alice, bob = books(ids)[:2]
    first = alice.write(ids[0], "first", now=0.0, wall_ms=10)
    second = alice.write(ids[0], "second", now=0.1, wall_ms=20)
    assert bob.receive(second.raw, now=0.2) is not None
    with pytest.raises(TalkDropped, match="replayed or late .*counter 10, last seen 20"):
        bob.receive(first.raw, now=0.3)


def test_counters_keep_rising_when_the_clock_does_not(ids: list[Identity]) -> None:
    alice = books(ids)[0]
    a = alice.write(ids[0], "a", now=0.0, wall_ms=50)
    b = alice.write(ids[0], "b", now=0.1, wall_ms=40)  # the wall clock stepped back
    assert b.counter == a.counter + 1


def test_a_line_of_another_table_is_dropped(ids: list[Identity]) -> None:
    bob = books(ids)[1]
    elsewhere = books(ids, OTHER_SID)[0].write(ids[0], "gg", now=0.0)
    with pytest.raises(TalkDropped, match="another table"):
        bob.receive(elsewhere.raw, now=0.0)


def test_flooding_is_limited_per_sender_and_recovers(ids: list[Identity]) -> None:
    bob = books(ids)[1]
    lines = [seal_talk(ids[0], session=SID, player=0, counter=n, text=f"line {n}")
             for n in range(1, RATE_LINES + 3)]
    shown = [bob.receive(line.raw, now=0.01 * i) for i, line in enumerate(lines[:RATE_LINES])]
    assert all(isinstance(line, TalkLine) for line in shown)
    with pytest.raises(TalkDropped, match="too fast"):
        bob.receive(lines[RATE_LINES].raw, now=0.5)
    # Another sender is not held up by the first one's flood.
    other = seal_talk(ids[2], session=SID, player=2, counter=1, text="hi")
    assert bob.receive(other.raw, now=0.6) == TalkLine(2, "hi")
    # After the window the flooding sender may talk again.
    assert bob.receive(lines[RATE_LINES + 1].raw, now=RATE_WINDOW + 1) is not None


def test_own_lines_are_refused_beyond_the_rate_and_when_empty(ids: list[Identity]) -> None:
    alice = books(ids)[0]
    for i in range(RATE_LINES):
        alice.write(ids[0], f"l{i}", now=0.0)
    with pytest.raises(TalkRefused, match="at most"):
        alice.write(ids[0], "one more", now=1.0)
    with pytest.raises(TalkRefused, match="empty"):
        alice.write(ids[0], " \x1b\u202e ", now=RATE_WINDOW + 1)


@pytest.mark.parametrize("raw", [b"", b"\xc1", wire.pack([b"x", b"y"]), wire.pack(["a", 1])])
def test_malformed_bytes_are_dropped_with_a_reason(ids: list[Identity], raw: bytes) -> None:
    with pytest.raises(TalkDropped, match="malformed chat line"):
        books(ids)[1].receive(raw, now=0.0)


def test_the_wire_refuses_control_and_bidi_characters_in_a_line(ids: list[Identity]) -> None:
    payload = wire.pack({"v": 2, "sid": SID, "from": 0, "n": 1, "text": "ok\u202eevil"})
    raw = wire.pack([payload, ids[0].sign(TALK_TAG + payload)])
    with pytest.raises(TalkDropped, match="U\\+202E"):
        books(ids)[1].receive(raw, now=0.0)


def test_clip_cleans_and_bounds_a_line() -> None:
    assert clip("a\x1b[31mb\u202ec\n d") == "a [31mb c d"
    assert len(clip("x" * 500)) == MAX_TALK_CHARS
    wide = clip("漢" * 150)
    assert len(wide.encode()) <= MAX_TALK_BYTES and wide.startswith("漢")


def test_a_chat_line_is_neither_a_message_nor_a_notice(ids: list[Identity]) -> None:
    """Its own signing domain: no one can pass a chat line off as a move or a notice."""
    signed = seal_talk(ids[0], session=SID, player=0, counter=1, text="gg")
    for kind in (SignedMessage, SignedNotice):
        with pytest.raises(ProtocolError):
            kind.parse(signed.raw)
    assert SignedTalk.parse(signed.raw) == signed


# -- the host's relay ------------------------------------------------------------------------

def _talk_frame(identity: Identity, session: bytes, player: int, counter: int, text: str) -> bytes:
    return frames.encode("talk", seal_talk(identity, session=session, player=player,
                                           counter=counter, text=text).raw)


def test_the_relay_forwards_a_line_to_every_other_seated_link(ids: list[Identity]) -> None:
    relay, _ = full_relay(ids)
    assert relay.session is not None
    out = relay.frame(2, _talk_frame(ids[1], relay.session, 1, 1, "gg"))
    assert len(out) == 1 and isinstance(out[0], Broadcast) and out[0].exclude == 2
    assert frames.decode(out[0].frame).kind == "talk"
    assert len(relay.messages) == 1  # the genesis only: chat is never stored


def test_the_relay_drops_bad_lines_without_closing_the_link(ids: list[Identity]) -> None:
    relay, _ = full_relay(ids)
    sid = relay.session
    assert sid is not None
    cases = {
        "of player 0": _talk_frame(ids[0], sid, 0, 1, "someone else's line"),
        "another table": _talk_frame(ids[1], OTHER_SID, 1, 1, "replayed"),
        "signature": _talk_frame(ids[0], sid, 1, 1, "forged by another key"),
    }
    for reason, frame in cases.items():
        out = relay.frame(2, frame)
        assert len(out) == 1 and isinstance(out[0], Dropped), reason
        assert reason in out[0].reason
        assert not any(isinstance(o, (Close, Send)) for o in out)
    assert relay.seated(2)


def test_the_relay_drops_a_replay_and_a_flood(ids: list[Identity]) -> None:
    clock = [0.0]
    relay = Relay(Lobby(ids[0], "topper", {"target": 3, "deals": 100}, "den"), bytes(32),
                  clock=lambda: clock[0])
    from tests.protocol.test_relay import hello
    for link, identity in enumerate(ids, start=1):
        relay.connected(link, identity.public_key)
        relay.frame(link, hello(identity.name))
    sid = relay.session
    assert sid is not None
    first = _talk_frame(ids[1], sid, 1, 100, "one")
    assert isinstance(relay.frame(2, first)[0], Broadcast)
    assert relay.frame(2, first) == []  # the same bytes: a copy, silently
    old = _talk_frame(ids[1], sid, 1, 99, "older")
    dropped = relay.frame(2, old)[0]
    assert isinstance(dropped, Dropped) and "replayed" in dropped.reason
    results = [relay.frame(2, _talk_frame(ids[1], sid, 1, 101 + i, f"x{i}"))[0]
               for i in range(RATE_LINES)]
    assert [type(r) for r in results] == [Broadcast] * (RATE_LINES - 1) + [Dropped]
    assert isinstance(results[-1], Dropped) and "too fast" in results[-1].reason
    clock[0] = RATE_WINDOW + 1
    assert isinstance(relay.frame(2, _talk_frame(ids[1], sid, 1, 200, "later"))[0], Broadcast)


def test_the_relay_drops_a_line_before_the_table_started(ids: list[Identity]) -> None:
    relay = Relay(Lobby(ids[0], "topper", {}, "den"))
    from tests.protocol.test_relay import hello
    relay.connected(2, ids[1].public_key)
    relay.frame(2, hello("p1"))
    out = relay.frame(2, _talk_frame(ids[1], SID, 1, 1, "hello?"))
    assert len(out) == 1 and isinstance(out[0], Dropped) and "before the table started" in out[0].reason
