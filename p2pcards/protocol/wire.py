"""Strict msgpack: the only way bytes from a peer become Python values.

Everything a peer sends is decoded here, with hard limits on sizes and
nesting, no extension types, string map keys only and no duplicate keys, so
that a hostile sender can neither exhaust memory nor smuggle two meanings
into one signed payload. Any failure is a :class:`MalformedWire`.
"""

from __future__ import annotations

import msgpack

from p2pcards.protocol.errors import MalformedWire
from p2pcards.wiremap import WireMap, WireValue

#: Limits for one decoded object. A 52-card shuffle proof is the largest
#: legitimate message (a few hundred 32-byte strings); these leave room.
MAX_BYTES = 256 * 1024
MAX_STR = 256
MAX_BIN = 64 * 1024
MAX_ARRAY = 1024
MAX_MAP = 32


def _no_ext(code: int, data: bytes) -> WireValue:
    raise MalformedWire(f"msgpack extension type {code} is not allowed")


def _unique_pairs(pairs: list[tuple[WireValue, WireValue]]) -> WireMap:
    out: WireMap = {}
    for key, value in pairs:
        if not isinstance(key, str):
            raise MalformedWire(f"map key must be a string, got {type(key).__name__}")
        if key in out:
            raise MalformedWire(f"duplicate map key {key!r}")
        out[key] = value
    return out


def unpack(data: bytes, *, max_bytes: int = MAX_BYTES) -> WireValue:
    """Decode one msgpack object from ``data`` (which must hold exactly one)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise MalformedWire(f"expected bytes, got {type(data).__name__}")
    if len(data) > max_bytes:
        raise MalformedWire(f"{len(data)} bytes exceeds the limit of {max_bytes}")
    try:
        return msgpack.unpackb(
            bytes(data),
            raw=False,
            use_list=True,
            strict_map_key=True,
            object_pairs_hook=_unique_pairs,
            ext_hook=_no_ext,
            max_str_len=MAX_STR,
            max_bin_len=MAX_BIN,
            max_array_len=MAX_ARRAY,
            max_map_len=MAX_MAP,
            max_ext_len=0,
        )
    except MalformedWire:
        raise
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:
        raise MalformedWire(f"not valid msgpack: {type(exc).__name__}: {exc}") from None


def pack(obj: object) -> bytes:
    """Encode with the project's fixed options (bin for bytes, str for text)."""
    packed: bytes = msgpack.packb(obj, use_bin_type=True)
    return packed
