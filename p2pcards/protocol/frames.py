"""The frames peers exchange over a link, around the signed transcript.

A frame is the msgpack array ``[kind, body]``. Lobby frames (``hello``,
``lobby``, ``reject``) travel before a transcript exists and are protected
by the authenticated link only; ``msg`` and ``alert`` carry signed messages
that every peer checks itself; ``sync`` asks the other end for transcript
messages from an index on (after a reconnect, or a gap); ``ping``/``pong``
let a player whose deadline ran out tell a silent writer from a silent host.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from p2pcards.protocol import wire
from p2pcards.protocol.errors import MalformedMessage
from p2pcards.protocol.schema import Bin, Int, IntMap, ListOf, Struct, Text, Tuple, validate

MAX_NAME = 32
MAX_PLAYERS = 4

NAME = Text(MAX_NAME, 1)

FRAME_SHAPES = {
    "hello": Struct({
        "v": Int(0, 255),
        "name": NAME,
        "sid": Bin(lo=0, hi=32),
        "have": Int(0, 2**31 - 1),
        "bot": Int(0, 1),
    }),
    "lobby": Struct({
        "game": Text(16, 1),
        "table": Text(MAX_NAME, 1),
        "config": IntMap(),
        "players": ListOf(Tuple((Bin(32), NAME, Int(0, 1))), 0, MAX_PLAYERS),
    }),
    "reject": Struct({"reason": Text(200, 1)}),
    "msg": Bin(lo=1, hi=wire.MAX_BIN),
    "alert": Bin(lo=1, hi=wire.MAX_BIN),
    "sync": Struct({"have": Int(0, 2**31 - 1)}),
    "ping": Struct({"n": Int(0, 2**31 - 1)}),
    "pong": Struct({"n": Int(0, 2**31 - 1)}),
}


@dataclass(frozen=True)
class Frame:
    kind: str
    body: Any


def encode(kind: str, body: Any) -> bytes:
    if kind not in FRAME_SHAPES:
        raise ValueError(f"unknown frame kind {kind!r}")
    return wire.pack([kind, body])


def decode(data: bytes) -> Frame:
    """Decode and shape-check one frame; raises MalformedWire or MalformedMessage."""
    obj = wire.unpack(data)
    if not isinstance(obj, list) or len(obj) != 2 or not isinstance(obj[0], str):
        raise MalformedMessage("frame: expected [kind, body]")
    kind, body = obj
    shape = FRAME_SHAPES.get(kind)
    if shape is None:
        raise MalformedMessage(f"frame: unknown kind {kind[:24]!r}")
    return Frame(kind, validate(shape, body, f"frame {kind}"))
