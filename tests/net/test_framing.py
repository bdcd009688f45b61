"""Length-prefixed framing: round trips, limits enforced early, hostile bytes."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pcards.net.framing import (
    HEADER_SIZE,
    MAX_FRAME,
    FrameDecoder,
    FrameError,
    FrameTooLarge,
    TruncatedFrame,
    encode_frame,
)


def test_round_trip_of_several_frames_in_one_chunk() -> None:
    payloads = [b"", b"a", b"hello world", bytes(range(256)) * 10]
    stream = b"".join(encode_frame(p) for p in payloads)
    assert FrameDecoder().feed(stream) == payloads


def test_header_is_four_byte_big_endian_length() -> None:
    assert encode_frame(b"abc") == b"\x00\x00\x00\x03abc"


def test_frame_split_into_single_bytes() -> None:
    payloads = [b"first", b"", b"second frame"]
    decoder = FrameDecoder()
    out: list[bytes] = []
    for byte in b"".join(encode_frame(p) for p in payloads):
        out += decoder.feed(bytes([byte]))
    assert out == payloads
    assert not decoder.in_frame


def test_oversized_header_rejected_before_body_arrives() -> None:
    decoder = FrameDecoder(max_frame=1000)
    with pytest.raises(FrameTooLarge) as caught:
        decoder.feed(struct.pack(">I", 1001))  # the header alone, no body yet
    assert (caught.value.size, caught.value.limit) == (1001, 1000)
    assert decoder.buffered == 0


def test_default_limit_is_256_kib() -> None:
    assert MAX_FRAME == 256 * 1024
    assert FrameDecoder().feed(encode_frame(bytes(MAX_FRAME))) == [bytes(MAX_FRAME)]
    with pytest.raises(FrameTooLarge):
        FrameDecoder().feed(struct.pack(">I", MAX_FRAME + 1))


def test_limit_is_configurable_per_decoder() -> None:
    small, large = FrameDecoder(max_frame=8), FrameDecoder(max_frame=16)
    frame = encode_frame(bytes(12), max_frame=16)
    assert large.feed(frame) == [bytes(12)]
    with pytest.raises(FrameTooLarge):
        small.feed(frame)


def test_encoder_refuses_payload_over_limit() -> None:
    with pytest.raises(FrameTooLarge):
        encode_frame(bytes(11), max_frame=10)


def test_decoder_stays_broken_after_an_error() -> None:
    decoder = FrameDecoder(max_frame=4)
    with pytest.raises(FrameTooLarge):
        decoder.feed(struct.pack(">I", 5))
    with pytest.raises(FrameTooLarge):
        decoder.feed(encode_frame(b"ok"))


def test_never_holds_more_than_the_frame_in_progress() -> None:
    decoder = FrameDecoder(max_frame=100)
    stream = encode_frame(bytes(100)) * 3 + encode_frame(bytes(100))[:50]
    frames = decoder.feed(stream)
    assert len(frames) == 3
    assert decoder.buffered == 50 - HEADER_SIZE


def test_end_of_stream_inside_a_frame_is_truncation() -> None:
    decoder = FrameDecoder()
    decoder.feed(encode_frame(b"abcdef")[:7])
    with pytest.raises(TruncatedFrame):
        decoder.end_of_stream()


def test_end_of_stream_between_frames_is_clean() -> None:
    decoder = FrameDecoder()
    decoder.feed(encode_frame(b"abc"))
    decoder.end_of_stream()  # must not raise
    assert not decoder.in_frame


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=64), max_size=20), st.integers(min_value=0, max_value=64))
def test_random_bytes_raise_only_frame_errors(chunks: list[bytes], limit: int) -> None:
    decoder = FrameDecoder(max_frame=limit)
    try:
        for chunk in chunks:
            for frame in decoder.feed(chunk):
                assert len(frame) <= limit
        decoder.end_of_stream()
    except FrameError:
        pass


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=300), max_size=10), st.data())
def test_any_chunking_yields_the_same_frames(payloads: list[bytes], data: st.DataObject) -> None:
    stream = b"".join(encode_frame(p) for p in payloads)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=20)))
    decoder = FrameDecoder()
    out: list[bytes] = []
    previous = 0
    for cut in [*cuts, len(stream)]:
        out += decoder.feed(stream[previous:cut])
        previous = cut
    assert out == payloads


def test_frames_taken_one_at_a_time_are_each_held_to_the_limit_in_force_when_read() -> None:
    small, large = encode_frame(b"hi"), encode_frame(bytes(50))
    decoder = FrameDecoder(max_frame=8)
    assert decoder.feed(small + large + small[:3], most=1) == [b"hi"]
    assert decoder.unread
    decoder.max_frame = 100  # the handshake is over: the link's limit
    assert decoder.feed(b"", most=1) == [bytes(50)]
    assert decoder.feed(b"", most=1) == [] and decoder.in_frame and not decoder.unread
    assert decoder.feed(small[3:]) == [b"hi"]


def test_the_same_bytes_fed_at_once_are_held_to_the_old_limit() -> None:
    decoder = FrameDecoder(max_frame=8)
    with pytest.raises(FrameTooLarge):
        decoder.feed(encode_frame(b"hi") + encode_frame(bytes(50)))
