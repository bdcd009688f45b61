"""The frames peers exchange over a link, around the signed transcript.

A frame is the msgpack array ``[kind, body]``. Lobby frames (``hello``,
``lobby``, ``reject``) travel before a transcript exists and are protected
by the authenticated link only; ``msg`` and ``alert`` carry signed messages
that every peer checks itself; ``sync`` asks the other end for transcript
messages from an index on (after a reconnect, or a gap); ``ping``/``pong``
let a player whose deadline ran out tell a silent writer from a silent host.

Players also link to each other directly (``p2pcards.net.mesh``): a player
lists where it listens in its ``hello`` (``addrs``), and the host hands the
table's addresses to every seated player in a ``peers`` frame. Addresses are
unsigned hints: the link handshake pins the dialled player's key, so a wrong
address only fails to link. The host is not their only source: each player
also announces its own, signed, on the LAN (``p2pcards.protocol.announce``).
A ``presence`` frame tells the seated players which of them the host has a
link to (advisory: it never blames anyone).
On a direct link only ``hello`` (first), ``msg``, ``alert``, ``sync``,
``ping``, ``pong`` and ``talk`` are used.

``talk`` carries a signed chat line (``p2pcards.protocol.talk``): beside
the game, never in the transcript.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from p2pcards.protocol import wire
from p2pcards.protocol.errors import MalformedMessage
from p2pcards.protocol.schema import (
    Bin,
    Int,
    IntMap,
    ListOf,
    Shape,
    Struct,
    Text,
    Tuple,
    _fail,
    validate,
)
from p2pcards.protocol.talk import MAX_TALK_FRAME
from p2pcards.rules.seats import SEATS
from p2pcards.wiremap import WireMap, WireValue

MAX_NAME = 32
MAX_PLAYERS = SEATS
#: Addresses one player may list (e.g. one per interface and family).
MAX_ADDRS = 4
#: Longest address text: an IPv6 literal with a zone (``fe80::1%eth0``).
MAX_ADDR_TEXT = 64

NAME = Text(MAX_NAME, 1)


class IPText(Text):
    """An IP address literal (v4 or v6, a v6 zone allowed), never a host name:
    a peer never makes this one resolve a name someone else chose."""

    def describe(self) -> dict[str, object]:
        return {"ip": [self.min_len, self.max_len]}

    def check(self, value: object, path: str) -> str:
        text = super().check(value, path)
        try:
            ipaddress.ip_address(text.split("%", 1)[0])
        except ValueError:
            raise _fail(path, "an IP address literal", value) from None
        return text


#: Where a player listens for direct links: ``[ip, port]``.
ADDR = Tuple((IPText(MAX_ADDR_TEXT, 2), Int(1, 65535)))
ADDRS = ListOf(ADDR, 0, MAX_ADDRS)


class _WithOptional(Shape):
    """A map with exactly these keys, some of which may be left out (then they
    take their default): ``addrs`` is optional in ``hello`` so that a peer
    without direct links (an in-process seat, an older client) says nothing."""

    def __init__(self, fields: dict[str, Shape], optional: dict[str, tuple[Shape, WireValue]]) -> None:
        self.required = Struct(fields)
        self.optional = optional

    def describe(self) -> dict[str, object]:
        described = self.required.describe()
        described["optional"] = {k: shape.describe() for k, (shape, _) in self.optional.items()}
        return described

    def check(self, value: object, path: str) -> WireMap:
        if not isinstance(value, dict):
            return self.required.check(value, path)
        present = {k: value[k] for k in self.optional if k in value}
        rest = {k: v for k, v in value.items() if k not in self.optional}
        checked = self.required.check(rest, path)
        for key, (shape, default) in self.optional.items():
            checked[key] = shape.check(present[key], f"{path}.{key}") if key in present else default
        return checked


FRAME_SHAPES = {
    "hello": _WithOptional({
        "v": Int(0, 255),
        "name": NAME,
        "sid": Bin(lo=0, hi=32),
        "have": Int(0, 2**31 - 1),
        "bot": Int(0, 1),
    }, {"addrs": (ADDRS, []), "watch": (Int(0, 1), 0)}),
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
    "peers": Struct({"players": ListOf(Tuple((Bin(32), ADDRS)), 0, MAX_PLAYERS)}),
    "presence": Struct({"linked": ListOf(Int(0, 1), 0, MAX_PLAYERS)}),
    # A signed chat line (``p2pcards.protocol.talk``): outside the transcript.
    "talk": Bin(lo=1, hi=MAX_TALK_FRAME),
    # A signed end-box choice after OVER (``p2pcards.protocol.again``): outside the transcript.
    "again": Bin(lo=1, hi=512),
    # The host's word on who took a seat freed at the end box (``p2pcards.protocol.seat_fill``):
    # unsigned, outside the transcript; the rematch's genesis is what binds.
    "fill": Struct({
        "v": Int(0, 255),
        "sid": Bin(32),
        "final": Bin(32),
        "from": Int(0, SEATS - 1),
        "seat": Int(0, SEATS - 1),
        "key": Bin(32),
        "name": NAME,
        "bot": Int(0, 1),
    }),
    # The host's word on its end box (``p2pcards.protocol.end_box``): seconds until it
    # closes, and how it ended (0: still open). Unsigned, outside the transcript.
    "endbox": Struct({
        "left": Int(0, 3600),
        "end": Int(0, 3),
    }),
}


@dataclass(frozen=True)
class Frame:
    kind: str
    body: WireValue


def encode(kind: str, body: WireValue) -> bytes:
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
