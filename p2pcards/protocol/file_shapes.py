"""The files a table leaves on disk, as shapes: what ``verify`` and ``replay`` may read.

A saved table's folder (PROTOCOL.md §10) holds ``transcript`` (records of a
4-byte big-endian length and one signed message), ``verdict`` (msgpack, the
verdict shape of an ``alert``), ``meta`` (msgpack: who this participant is),
``result`` (msgpack: the winners' names), and for the relay ``notices``
(records, like the transcript). These shapes are written out in
``protocol/schemas.json`` beside the message shapes, and a test holds every
file the program writes to them. ``verify`` reads only ``transcript`` and
``verdict``, and, given the folder, ``meta`` for nothing but which player "you"
are (ignored when absent or unreadable; never read given a transcript file);
``replay`` reads ``meta`` for your own hand.

The relay's folder holds a ``verdict`` only as :func:`relay_keeps_verdict` says.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2pcards.protocol.schema import Bin, Bool, Int, IntMap, ListOf, OneOf, Shape, Struct, Text
from p2pcards.protocol.verdict import VERDICT_SHAPE, Verdict
from p2pcards.wiremap import WireMap

_SECRETS = Struct({"key": Bin(32), "draw": Bin(32)})

#: A player's own folder: its index, name and session secrets; where its host is
#: (a joiner), or which seat of the hosting process it is (a host's seat or bot).
SEAT_META_SHAPE = Struct(
    {"v": Int(1, 1), "player": Int(0, 3), "name": Text(64), "bots": ListOf(Int(0, 1), 4, 4),
     "secrets": _SECRETS},
    optional={
        "host": Text(255), "port": Int(0, 65535), "pin": OneOf((Text(64), Bin(32))),
        "hosted": Bool(), "rng_label": Text(64),
        "bot_key": Bin(32), "bot_kind": Text(32, 1), "bot_level": Text(32), "bot_seed": Int(0, 2**64 - 1),
    })

#: The host's relay folder: the table it hosts and where it listens.
RELAY_META_SHAPE = Struct({
    "v": Int(1, 1), "game": Text(16, 1), "config": IntMap(), "table": Text(64),
    "tcp_host": Text(255), "tcp_port": Int(0, 65535), "spectators": Int(0, 64),
})

#: How a finished match ended, for the list of saved tables (never checked by ``verify``).
RESULT_SHAPE = Struct({"winners": ListOf(Text(64), 0, 4)})

RECORDS = ("records, each a 4-byte big-endian length (at most 16 MiB) and that many bytes; "
           "a file cut inside its last record, or any bytes after the last whole one, is "
           "reported by verify as a failure (PROTOCOL.md §10)")

FILES: dict[str, Shape] = {
    "verdict": VERDICT_SHAPE,
    "meta (a seat)": SEAT_META_SHAPE,
    "meta (the relay)": RELAY_META_SHAPE,
    "result": RESULT_SHAPE,
}


def describe() -> WireMap:
    """The saved files for ``schemas.json``."""
    return {
        "transcript": RECORDS + "; record i is the signed message at position i",
        "notices": RECORDS + "; each a signed notice the relay accepted (the relay only)",
        **{f"{name}": {"encoding": "msgpack", "shape": shape.describe()} for name, shape in FILES.items()},
    }


def relay_keeps_verdict(relay: Sequence[bytes], seat: Sequence[bytes], verdict: Verdict) -> bool:
    """Whether the host's relay folder keeps its own seat's ``verdict`` beside the
    relay's chain (PROTOCOL.md §10), so that ``verify`` of that folder describes the end.

    The relay judges nothing and keeps relaying after the host's seat ended (§9),
    so its chain may run past the seat's: a verdict goes beside it only where it
    fits exactly as it fitted the seat's own transcript, when the relay's chain
    (``relay``) is that transcript (``seat``), or that and the one message the
    verdict has as evidence (a message the seats refused, which the relay stored).
    Any other chain would make ``verify`` refuse an honest verdict."""
    if list(relay) == list(seat):
        return True
    return (len(relay) == len(seat) + 1 and list(relay[:-1]) == list(seat)
            and relay[-1] in verdict.evidence)
