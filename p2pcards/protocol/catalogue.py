"""The message catalogue as data: every frame and message type with its shape.

``protocol/schemas.json`` is this catalogue written out (``scripts/
gen_protocol.py``); a test keeps the two equal, so the file another
implementation reads is always the one the code checks against.
"""

from __future__ import annotations

from p2pcards.protocol import (
    again,
    announce,
    envelope,
    file_shapes,
    frames,
    game_wire,
    lobby,
    table_records,
    talk,
    verdict,
)
from p2pcards.wiremap import WireMap


def catalogue() -> WireMap:
    """Every wire shape, described (see ``schema.Shape.describe``)."""
    payload = envelope.payload_shape()
    transcript = {
        "genesis": lobby.GENESIS_SHAPE.describe(),
        "commit": table_records.COMMIT_SHAPE.describe(),
        "open": table_records.OPEN_SHAPE.describe(),
        "shuffle": table_records.SHUFFLE_SHAPE.describe(),
        "shares": table_records.SHARES_SHAPE.describe(),
        "away": table_records.AWAY_SHAPE.describe(),
        "hint": table_records.HINT_SHAPE.describe(),
    }
    return {
        "version": envelope.PROTOCOL_VERSION,
        "frame": {"encoding": "msgpack [kind, body]", "kinds": {
            kind: shape.describe() for kind, shape in frames.FRAME_SHAPES.items()}},
        "message": {
            "encoding": "msgpack [payload: bin, signature: bin(64)]",
            "payload": payload.describe(),
            "genesis payload": "the same map without 'sid', at n = 0",
            "signed bytes": envelope.SIGN_TAG.decode("ascii").replace("\x00", "\\0") + " || payload",
            "types": transcript,
            "game types": {g.name: {t: shape.describe() for t, shape in g.shapes.items()}
                           for g in game_wire.GAMES.values()},
            "notices": {"alert": verdict.VERDICT_SHAPE.describe(), "leave": {"map": {}}},
        },
        "notice": {
            "encoding": "msgpack [payload: bin, signature: bin(64)], the message payload map "
                        "with 'sid'; type 'leave' or 'alert' only",
            "signed bytes": envelope.NOTICE_TAG.decode("ascii").replace("\x00", "\\0")
                            + " || payload",
            "types": sorted(envelope.NOTICE_TYPES),
            "never": "a transcript message; a transcript message's type is never a notice type",
        },
        "again": {
            "encoding": "msgpack [payload: bin, signature: bin(64)], signed after "
                        "the match ended (PROTOCOL.md §14)",
            "payload": again.CHOICE_SHAPE.describe(),
            "signed bytes": again.AGAIN_TAG.decode("ascii").replace("\x00", "\\0")
                            + " || payload",
            "never": "part of the transcript, a notice or a verdict's evidence",
        },
        "talk": {
            "encoding": "msgpack [payload: bin, signature: bin(64)] in a 'talk' frame",
            "payload": talk.PAYLOAD_SHAPE.describe(),
            "signed bytes": talk.TALK_TAG.decode("ascii").replace("\x00", "\\0") + " || payload",
            "limits": {"characters": talk.MAX_TALK_CHARS, "utf-8 bytes": talk.MAX_TALK_BYTES,
                       "lines per sender": talk.RATE_LINES, "per seconds": talk.RATE_WINDOW},
            "never": "part of the transcript or of a verdict's evidence",
        },
        "direct announcement": {
            "encoding": "msgpack [payload: bin, signature: bin(64)], in a zeroconf TXT record "
                        "as lower-case hex cut into 'd0', 'd1', ... (PROTOCOL.md §12)",
            "payload": announce.PAYLOAD_SHAPE.describe(),
            "signed bytes": announce.ANNOUNCE_TAG.decode("ascii").replace("\x00", "\\0")
                            + " || payload",
            "never": "a transcript message, a notice or a chat line; never blames anyone",
        },
        "saved files": file_shapes.describe(),
        "game configuration defaults": {g.name: g.config_to_wire(g.default_config())
                                        for g in game_wire.GAMES.values()},
    }
