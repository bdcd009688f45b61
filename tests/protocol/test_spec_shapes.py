"""The reader of protocol/schemas.json (``spec_shapes``) against the vectors, and
what it refuses.

Why: the saved-tables tests lean on this reader; it must accept every vector
message, refuse exactly the malformed vectors the shapes decide (a Bluff rank
1 by the shape's ``except``: ``message.malformed``, issue 25 point 1), take
the verdicts and notices a player writes byte for byte, and refuse a message
that breaks its written shape or signs in another domain.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack
import pytest

from p2pcards.app.insecure_seed import seeded_identity

from . import spec_shapes

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors"


def _vector(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((VECTORS / name).read_text())
    return data


def _messages(name: str) -> list[bytes]:
    return [bytes.fromhex(m) for m in _vector(name)["messages"]]


@pytest.mark.parametrize("name", ["table-bluff.json", "table-topper.json"])
def test_every_message_of_a_table_vector_fits_the_written_shapes(name: str) -> None:
    raw = _messages(name)
    game, keys = spec_shapes.genesis(raw[0])
    assert keys == [bytes.fromhex(k) for k in _vector(name)["player_public_keys"]]
    for i, message in enumerate(raw[1:], 1):
        assert spec_shapes.message(message, game, keys, f"message {i}")["n"] == i


#: Which malformed vectors the written shapes refuse by themselves; the others are
#: refused by the step of PROTOCOL.md §8 that counts shares against revealed slots.
BY_SHAPE = {"bluff discard naming rank 1": True, "bluff discard with a float stake": True,
            "bluff discard naming rank 15": True, "bluff show with no share": True,
            "bluff show with one share too many": False}


def test_the_shapes_refuse_the_malformed_vectors_they_decide_and_accept_the_rule_breaches() -> None:
    game, keys = spec_shapes.genesis(_messages("table-bluff.json")[0])
    verdicts = _vector("verdicts.json")
    assert {case["case"] for case in verdicts["malformed"]} == set(BY_SHAPE)
    for case in verdicts["malformed"]:
        assert case["rule"] == "message.malformed"
        if BY_SHAPE[case["case"]]:
            with pytest.raises(spec_shapes.Misfit):
                spec_shapes.message(bytes.fromhex(case["message"]), game, keys, case["case"])
        else:
            spec_shapes.message(bytes.fromhex(case["message"]), game, keys, case["case"])
    for case in verdicts["several"]:  # well-shaped messages that break rules
        spec_shapes.message(bytes.fromhex(case["message"]), game, keys, case["case"])


def test_the_verdicts_and_notices_a_player_writes_fit_the_written_shapes() -> None:
    _, keys = spec_shapes.genesis(_messages("table-bluff.json")[0])
    for case in _vector("verdicts.json")["written"]:
        verdict = spec_shapes.unpack(bytes.fromhex(case["verdict_file"]))
        spec_shapes.check(spec_shapes.SAVED["verdict"]["shape"], verdict, case["case"])
        assert (verdict["rule"], verdict["players"], verdict["position"]) == \
            (case["rule"], case["players"], case["position"])
        notice = spec_shapes.notice(bytes.fromhex(case["notice"]), keys, case["case"])
        assert notice["type"] == ("leave" if case["case"] == "leave" else "alert")
        assert notice["from"] == case["writer"]


def _resigned(body_of: Callable[[Any], Any], *,
              tag: bytes = spec_shapes.MESSAGE_TAG) -> tuple[bytes, str, list[bytes]]:
    """The Topper vector's last message with another body, signed again by its writer
    over ``tag`` and the new payload."""
    raw = _messages("table-topper.json")
    game, keys = spec_shapes.genesis(raw[0])
    payload = spec_shapes.unpack(spec_shapes.unpack(raw[-1])[0])
    identity = seeded_identity(_vector("table-topper.json")["seed"], f"p{payload['from']}",
                               f"P{payload['from']}")
    assert identity.public_key == keys[payload["from"]]
    packed = msgpack.packb({**payload, "body": body_of(payload["body"])})
    return msgpack.packb([packed, identity.sign(tag + packed)]), game, keys


def test_the_reader_refuses_what_the_spec_does_not_describe() -> None:
    raw, game, keys = _resigned(lambda body: body)
    spec_shapes.message(raw, game, keys, "the same body")  # the writer's key: accepted
    raw, game, keys = _resigned(lambda body: {**body, "extra": 1})
    with pytest.raises(spec_shapes.Misfit, match="unexpected"):
        spec_shapes.message(raw, game, keys, "an extra field")
    raw, game, keys = _resigned(lambda body: body, tag=spec_shapes.NOTICE_TAG)
    with pytest.raises(spec_shapes.Misfit, match="signature"):
        spec_shapes.message(raw, game, keys, "signed as a notice")
    meta = {"v": 1, "player": 0, "name": "Ona", "bots": [0, 0, 0, 0],
            "secrets": {"key": bytes(32), "draw": bytes(32)}}
    spec_shapes.check(spec_shapes.SAVED["meta (a seat)"]["shape"], meta, "meta")
    with pytest.raises(spec_shapes.Misfit, match="unexpected"):
        spec_shapes.check(spec_shapes.SAVED["meta (a seat)"]["shape"], {**meta, "hand": [1]}, "meta")
    with pytest.raises(spec_shapes.Misfit, match="no reader"):
        spec_shapes.check({"float": True}, 1.0, "a shape the reader does not know")
    with pytest.raises(spec_shapes.Misfit, match="not one msgpack object"):
        spec_shapes.unpack(msgpack.packb(1) + b"\xc1")
