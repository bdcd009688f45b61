"""Fuzzing in the suite: every decoder and state machine bytes come in by, fed
hypothesis-made bytes and values and mutations of real recorded traffic.

Only the defined protocol and network errors may escape, and a refused input
leaves the state machine as it was. Modest example counts here (derandomized,
so a run is reproducible); ``scripts/fuzz.py`` runs the same targets for as
long as you like.
"""

from __future__ import annotations

import contextlib
import random
from functools import lru_cache
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pcards.net.errors import FrameError, HandshakeError, SealedFrameError
from p2pcards.net.framing import FrameDecoder
from p2pcards.net.link import LinkHandshake, Role, SecureChannel
from p2pcards.protocol import frames, wire
from p2pcards.protocol.envelope import SignedMessage
from p2pcards.protocol.errors import (
    LocalProtocolError,
    MalformedMessage,
    MalformedWire,
    RemoteProtocolError,
)
from p2pcards.protocol.identity import Identity

from .fuzzing import Corpus, Failure, Mutator, Target, default_corpus, targets

FUZZ = settings(max_examples=250, deadline=None, database=None, derandomize=True,
                suppress_health_check=list(HealthCheck))
FEW = settings(FUZZ, max_examples=80)


@lru_cache(maxsize=1)
def _corpus() -> Corpus:
    return default_corpus()


@lru_cache(maxsize=1)
def _targets() -> dict[str, Target]:
    return {t.name: t for t in targets(_corpus())}


TARGET_NAMES = ["framing", "link-open", "handshake", "wire", "envelope", "frames", "genesis", "table",
                "relay"]


@pytest.mark.parametrize("name", TARGET_NAMES)
@FUZZ
@given(rng=st.randoms(use_true_random=False))
def test_mutated_real_traffic_raises_only_defined_errors(name: str, rng: random.Random) -> None:
    target = _targets()[name]
    target.check(target.make(rng, Mutator(rng, _corpus().everything)))


# -- hypothesis' own bytes and values ------------------------------------------------------------

MSGPACK_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**64 - 1) | st.floats()
    | st.binary(max_size=70) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=6)
    | st.dictionaries(st.text(max_size=8) | st.integers(0, 5), inner, max_size=6),
    max_leaves=30)


def _decoders(data: bytes) -> None:
    for decode in (wire.unpack, SignedMessage.parse, frames.decode):
        with contextlib.suppress(MalformedWire, MalformedMessage):
            decode(data)


@FUZZ
@given(data=st.binary(max_size=3000))
def test_random_bytes_into_the_decoders(data: bytes) -> None:
    _decoders(data)


@FUZZ
@given(value=MSGPACK_VALUES)
def test_any_msgpack_value_into_the_decoders(value: Any) -> None:
    import msgpack
    data = msgpack.packb(value, use_bin_type=True)
    _decoders(data)
    _decoders(msgpack.packb([value, b"\x00" * 64], use_bin_type=True))
    _decoders(msgpack.packb(["msg", data], use_bin_type=True))


@FUZZ
@given(value=MSGPACK_VALUES, kind=st.sampled_from(sorted(frames.FRAME_SHAPES) + ["x"]))
def test_any_value_as_the_body_of_every_frame_kind(value: Any, kind: str) -> None:
    import msgpack
    with contextlib.suppress(MalformedWire, MalformedMessage):
        frames.decode(msgpack.packb([kind, value], use_bin_type=True))


@FEW
@given(data=st.binary(max_size=2000), alert=st.booleans())
def test_random_bytes_into_a_table_in_play(data: bytes, alert: bool) -> None:
    target = _targets()["table"]
    for index in range(len(target.run.__self__.places)):  # type: ignore[attr-defined]
        target.check((index, data, alert))


@FUZZ
@given(data=st.binary(max_size=2000), link=st.sampled_from([1, 2, 9]))
def test_random_bytes_into_the_relay(data: bytes, link: int) -> None:
    _targets()["relay"].check((link, data))


@FUZZ
@given(limit=st.sampled_from([0, 1, 8, 300, 262144]),
       chunks=st.lists(st.binary(max_size=400), max_size=12))
def test_random_chunks_into_the_frame_decoder(limit: int, chunks: list[bytes]) -> None:
    _targets()["framing"].check((limit, chunks))


@FUZZ
@given(payloads=st.lists(st.binary(max_size=300), min_size=1, max_size=6), data=st.data())
def test_frame_decoder_returns_what_was_framed_however_it_is_split(payloads: list[bytes],
                                                                   data: Any) -> None:
    from p2pcards.net.framing import encode_frame
    stream = b"".join(encode_frame(p) for p in payloads)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=10)))
    decoder, out, last = FrameDecoder(), [], 0
    for cut in cuts + [len(stream)]:
        out += decoder.feed(stream[last:cut])
        last = cut
    assert out == payloads and not decoder.in_frame


@FUZZ
@given(data=st.binary(max_size=400))
def test_random_bytes_into_the_link(data: bytes) -> None:
    receiver = SecureChannel(bytes(32), bytes(range(32)), Identity.generate("a").public_key)
    with pytest.raises(SealedFrameError):
        receiver.open(data)
    assert receiver.frames_received == 0
    for role in (Role.RESPONDER, Role.INITIATOR):
        handshake = LinkHandshake(Identity.generate("b"), role)
        handshake.start()
        with pytest.raises(HandshakeError):
            handshake.receive(data)
        assert not handshake.complete


def test_fuzz_targets_catch_an_undefined_exception() -> None:
    """The checker itself: an escaping exception of another kind is a failure."""
    def boom(data: Any) -> None:
        raise KeyError(data)
    target = Target("boom", lambda rng, m: b"", boom, (RemoteProtocolError, LocalProtocolError))
    with pytest.raises(Failure):
        target.check(b"")
    with pytest.raises(FrameError):
        FrameDecoder(4).feed(b"\x00\x00\x01\x00")
