"""The shapes of protocol/schemas.json, read as another implementation reads them.

Why a reader of its own: the saved-files tests must hold what the program
writes to the *written* spec, not to the Python shapes it was generated from
(a drift between the two would go unseen). So this reads the JSON file,
decodes with plain msgpack, checks every shape it describes, and checks each
signature over the signed bytes the spec names, with PyNaCl's plain Ed25519.
It imports nothing of p2pcards. A shape it does not know fails the test: a
new kind of shape in the spec needs a reader here too.
"""

from __future__ import annotations

import ipaddress
import json
from pathlib import Path
from typing import Any

import msgpack
from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey

SPEC: dict[str, Any] = json.loads(
    (Path(__file__).resolve().parents[2] / "protocol" / "schemas.json").read_text())
SAVED = SPEC["saved files"]
MESSAGE = SPEC["message"]
INT_MAP = "map of str(1..24) to int[0, 2^31-1]"

#: The files a saved folder may hold: the spec's saved files and the lock that keeps
#: a second process off a seat, and the relay's heartbeat `alive` (PROTOCOL.md §10).
FOLDER_FILES = {"transcript", "meta", "verdict", "result", "notices", "lock", "alive"}


class Misfit(AssertionError):
    """A value that does not fit its shape in schemas.json (the path says where)."""


def unpack(data: bytes) -> Any:
    try:
        return msgpack.unpackb(data, raw=False, strict_map_key=False)
    except Exception as error:  # noqa: BLE001 - any decoding failure is a misfit
        raise Misfit(f"not one msgpack object: {error}") from None


def _length(value: Any, bounds: list[int], path: str) -> None:
    if not bounds[0] <= len(value) <= bounds[1]:
        raise Misfit(f"{path}: length {len(value)} not in {bounds}")


def _encoded(description: str, value: Any, path: str) -> None:
    """The 'encoded' values: each description names its layout of 32-byte strings."""
    def bins(items: Any, count: int | None) -> None:
        if not isinstance(items, list) or (count is not None and len(items) != count):
            raise Misfit(f"{path}: {description!r}: got {type(items).__name__}")
        for item in items:
            if not isinstance(item, bytes) or len(item) != 32:
                raise Misfit(f"{path}: {description!r}: an item is not 32 bytes")
    if description.startswith("decryption share [D, c, s]: three 32-byte"):
        bins(value, 3)
    elif description.startswith("Schnorr proof [c, s]: two 32-byte"):
        bins(value, 2)
    elif description.startswith("masked deck: one [c1, c2] pair of 32-byte points per card"):
        if not isinstance(value, list) or not value:
            raise Misfit(f"{path}: a masked deck must be a list of cards")
        for card in value:
            bins(card, 2)
    elif description.startswith("shuffle proof: the 14-field list"):
        if not isinstance(value, list) or len(value) != 14:
            raise Misfit(f"{path}: a shuffle proof has 14 fields")
    else:
        raise Misfit(f"{path}: no reader for the encoding {description!r}")


def check(shape: Any, value: Any, path: str) -> None:
    """``value`` fits ``shape`` (one node of schemas.json), or :class:`Misfit`."""
    if not isinstance(shape, dict):
        raise Misfit(f"{path}: the spec describes this only in words ({shape!r})")
    if "map" in shape:
        if not isinstance(value, dict) or not isinstance(shape["map"], dict):
            raise Misfit(f"{path}: expected a map, got {type(value).__name__}")
        required, optional = shape["map"], shape.get("optional", {})
        missing = set(required) - set(value)
        extra = set(value) - set(required) - set(optional)
        if missing or extra:
            raise Misfit(f"{path}: missing {sorted(missing)}, unexpected {sorted(map(str, extra))}")
        for key, item in value.items():
            check(required.get(key, optional.get(key)), item, f"{path}.{key}")
    elif "int" in shape:
        lo, hi = shape["int"]
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi \
                or value in shape.get("except", []):
            raise Misfit(f"{path}: {value!r} is not an integer in {lo}..{hi} except {shape.get('except')}")
    elif "bin" in shape:
        if not isinstance(value, bytes):
            raise Misfit(f"{path}: expected bytes, got {type(value).__name__}")
        size = shape["bin"]
        _length(value, [size, size] if isinstance(size, int) else size, path)
    elif "str" in shape:
        if not isinstance(value, str):
            raise Misfit(f"{path}: expected a string, got {type(value).__name__}")
        _length(value, shape["str"], path)
    elif "ip" in shape:
        if not isinstance(value, str):
            raise Misfit(f"{path}: expected an address string, got {type(value).__name__}")
        _length(value, shape["ip"], path)
        ipaddress.ip_address(value.split("%")[0])
    elif "bool" in shape:
        if not isinstance(value, bool):
            raise Misfit(f"{path}: expected true or false, got {value!r}")
    elif "array" in shape:
        if not isinstance(value, list):
            raise Misfit(f"{path}: expected an array, got {type(value).__name__}")
        _length(value, shape["length"], path)
        for i, item in enumerate(value):
            check(shape["array"], item, f"{path}[{i}]")
    elif "tuple" in shape:
        if not isinstance(value, list) or len(value) != len(shape["tuple"]):
            raise Misfit(f"{path}: expected a {len(shape['tuple'])}-item array")
        for i, (item_shape, item) in enumerate(zip(shape["tuple"], value, strict=True)):
            check(item_shape, item, f"{path}[{i}]")
    elif "one of" in shape:
        for option in shape["one of"]:
            try:
                check(option, value, path)
                return
            except Misfit:
                continue
        raise Misfit(f"{path}: fits none of {shape['one of']}")
    elif INT_MAP in shape:
        if not isinstance(value, dict) or len(value) > shape[INT_MAP]["max entries"]:
            raise Misfit(f"{path}: expected a map of at most {shape[INT_MAP]['max entries']} entries")
        for key, item in value.items():
            check({"str": [1, 24]}, key, f"{path} key")
            check({"int": [0, 2**31 - 1]}, item, f"{path}.{key}")
    elif "encoded" in shape:
        _encoded(shape["encoded"], value, path)
    elif "const" in shape:
        if type(value) is not type(shape["const"]) or value != shape["const"]:
            raise Misfit(f"{path}: expected {shape['const']!r}, got {value!r}")
    else:
        raise Misfit(f"{path}: no reader for the shape {sorted(shape)}")


def _tag(signed_bytes: str) -> bytes:
    """The domain tag of a 'signed bytes' line: 'p2pcards/msg/v2\\0 || payload'."""
    head, rest = signed_bytes.split(" || ")
    assert rest == "payload", signed_bytes
    return head.replace("\\0", "\0").encode("ascii")


MESSAGE_TAG = _tag(MESSAGE["signed bytes"])
NOTICE_TAG = _tag(SPEC["notice"]["signed bytes"])
TALK_TAG = _tag(SPEC["talk"]["signed bytes"])


def _signed(raw: bytes, tag: bytes, keys: list[bytes] | None, path: str) -> dict[str, Any]:
    """The payload map of ``[payload: bin, signature: bin(64)]``, its signature checked."""
    outer = unpack(raw)
    check({"tuple": [{"bin": [1, 1 << 20]}, {"bin": 64}]}, outer, path)
    payload, signature = outer
    body = unpack(payload)
    if not isinstance(body, dict):
        raise Misfit(f"{path}: the payload is not a map")
    if keys is not None:
        signer = body.get("from")
        if not isinstance(signer, int) or not 0 <= signer < len(keys):
            raise Misfit(f"{path}: 'from' names no player")
        try:
            VerifyKey(keys[signer]).verify(tag + payload, signature)
        except BadSignatureError:
            raise Misfit(f"{path}: the signature does not verify over the spec's signed bytes") from None
    return body


def _header(payload: dict[str, Any], with_sid: bool, path: str) -> None:
    header = dict(MESSAGE["payload"]["map"])
    header.pop("body")
    if not with_sid:
        header.pop("sid")
    check({"map": header}, {k: v for k, v in payload.items() if k != "body"}, path)
    if "body" not in payload:
        raise Misfit(f"{path}: missing 'body'")


def genesis(raw: bytes) -> tuple[str, list[bytes]]:
    """Check the genesis (record 0): its game and the players' keys, for the rest."""
    payload = _signed(raw, MESSAGE_TAG, None, "genesis")
    _header(payload, False, "genesis")
    if payload["type"] != "genesis" or payload["n"] != 0:
        raise Misfit("record 0 is not a genesis at n = 0")
    check(MESSAGE["types"]["genesis"], payload["body"], "genesis.body")
    keys = [key for key, _name in payload["body"]["players"]]
    _signed(raw, MESSAGE_TAG, keys, "genesis")  # the host (player 0) signs it
    return payload["body"]["game"], keys


def message(raw: bytes, game: str, keys: list[bytes], path: str) -> dict[str, Any]:
    """A transcript message (not the genesis): header, its type's body, signature."""
    payload = _signed(raw, MESSAGE_TAG, keys, path)
    _header(payload, True, path)
    kind = payload["type"]
    bodies = {**MESSAGE["types"], **MESSAGE["game types"][game]}
    if kind == "genesis" or kind not in bodies:
        raise Misfit(f"{path}: {kind!r} is no {game} transcript message type")
    check(bodies[kind], payload["body"], f"{path}.body")
    return payload


def notice(raw: bytes, keys: list[bytes], path: str) -> dict[str, Any]:
    """A signed notice (leave or alert): never passes as a transcript message."""
    payload = _signed(raw, NOTICE_TAG, keys, path)
    _header(payload, True, path)
    if payload["type"] not in SPEC["notice"]["types"]:
        raise Misfit(f"{path}: {payload['type']!r} is not a notice type")
    check(MESSAGE["notices"][payload["type"]], payload["body"], f"{path}.body")
    return payload


def talk(raw: bytes, keys: list[bytes], path: str) -> None:
    check(SPEC["talk"]["payload"], _signed(raw, TALK_TAG, keys, path), path)


def records(path: Path) -> list[bytes]:
    """The records of a transcript or notices file, every byte accounted for."""
    data, out, offset = path.read_bytes(), [], 0
    while offset < len(data):
        if offset + 4 > len(data):
            raise Misfit(f"{path.name}: {len(data) - offset} bytes after the last whole record")
        size = int.from_bytes(data[offset:offset + 4], "big")
        if size > 16 * 1024 * 1024 or offset + 4 + size > len(data):
            raise Misfit(f"{path.name}: a record runs past the end of the file")
        out.append(data[offset + 4:offset + 4 + size])
        offset += 4 + size
    return out


def frame(data: bytes, game: str | None, keys: list[bytes] | None, path: str) -> str:
    """One frame (``[kind, body]``) and, inside it, the message, notice or talk line."""
    decoded = unpack(data)
    if not isinstance(decoded, list) or len(decoded) != 2 or decoded[0] not in SPEC["frame"]["kinds"]:
        raise Misfit(f"{path}: not a [kind, body] frame of a known kind")
    kind, body = decoded
    assert isinstance(kind, str)  # one of the spec's kinds
    check(SPEC["frame"]["kinds"][kind], body, f"{path}.{kind}")
    if kind == "msg" and keys is not None and game is not None:
        if unpack(unpack(body)[0]).get("type") == "genesis":
            genesis(body)
        else:
            message(body, game, keys, f"{path}.msg")
    elif kind == "alert" and keys is not None:
        notice(body, keys, f"{path}.alert")
    elif kind == "talk" and keys is not None:
        talk(body, keys, f"{path}.talk")
    return kind


def folder(path: Path) -> dict[str, Any]:
    """Every file of one saved folder fits its shape in schemas.json.

    Returns what was read: ``game``, ``keys``, ``messages`` (payloads),
    ``verdict``, ``meta``, ``notices`` (payloads) and ``relay`` (is it the relay's)."""
    names = {p.name for p in path.iterdir()}
    if not names <= FOLDER_FILES or "transcript" not in names or "meta" not in names:
        raise Misfit(f"{path.name}: files {sorted(names)}, the spec names {sorted(FOLDER_FILES)}")
    raw = records(path / "transcript")
    if not raw:
        raise Misfit(f"{path.name}: an empty transcript")
    game, keys = genesis(raw[0])
    messages = [message(r, game, keys, f"{path.name}/transcript[{i}]") for i, r in enumerate(raw[1:], 1)]
    for position, payload in enumerate(messages, 1):
        if payload["n"] != position:
            raise Misfit(f"{path.name}: record {position} holds position {payload['n']}")
    meta = unpack((path / "meta").read_bytes())
    relay = isinstance(meta, dict) and "tcp_port" in meta
    check(SAVED["meta (the relay)" if relay else "meta (a seat)"]["shape"], meta, f"{path.name}/meta")
    out: dict[str, Any] = {"game": game, "keys": keys, "messages": messages, "meta": meta,
                           "relay": relay, "verdict": None, "notices": []}
    if "verdict" in names:
        out["verdict"] = unpack((path / "verdict").read_bytes())
        check(SAVED["verdict"]["shape"], out["verdict"], f"{path.name}/verdict")
        for i, evidence in enumerate(out["verdict"]["evidence"]):
            # Signed by a player, as a message or a notice; its body may break its
            # shape (that can be the very rule the verdict names).
            try:
                _signed(evidence, MESSAGE_TAG, keys, f"{path.name}/verdict.evidence[{i}]")
            except Misfit:
                _signed(evidence, NOTICE_TAG, keys, f"{path.name}/verdict.evidence[{i}]")
    if "result" in names:
        check(SAVED["result"]["shape"], unpack((path / "result").read_bytes()), f"{path.name}/result")
    if "notices" in names:
        if not relay:
            raise Misfit(f"{path.name}: a seat's folder holds notices (the relay only)")
        out["notices"] = [notice(r, keys, f"{path.name}/notices[{i}]")
                          for i, r in enumerate(records(path / "notices"))]
    return out
