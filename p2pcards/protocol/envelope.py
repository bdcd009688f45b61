"""Signed transcript messages and signed notices: what is signed, hashed, read.

A transcript message on the wire is the msgpack array ``[payload, sig]``.
``payload`` is the msgpack map ``{v, sid, n, prev, from, type, body}`` kept as
the exact bytes received: the signature and the chain hash cover those bytes,
so no re-encoding question can ever arise. ``sig`` is Ed25519 over
``SIGN_TAG || payload`` by the key of player ``from``. The genesis message
(``n = 0``) carries no ``sid``; the session id is the hash of its payload.

A *notice* (``leave``, ``alert``) has the same layout but is signed under its
own tag, ``NOTICE_TAG``: a notice never verifies as a transcript message nor
the reverse, so nobody can re-send a player's notice as a message it wrote
into the chain (and have it blamed for it). As a second guard a transcript
message may not carry a notice type, and a notice may carry only those.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nacl.encoding import RawEncoder
from nacl.exceptions import BadSignatureError
from nacl.hash import blake2b
from nacl.signing import VerifyKey

from p2pcards.protocol import wire
from p2pcards.protocol.errors import BadSignature, MalformedMessage
from p2pcards.protocol.identity import Signer
from p2pcards.protocol.schema import Bin, Int, Shape, Struct, Text, Tuple, validate
from p2pcards.wiremap import WireMap

PROTOCOL_VERSION = 2
SIGN_TAG = b"p2pcards/msg/v2\x00"
MSG_PERSON = b"p2pcards-msg-v2"
SID_PERSON = b"p2pcards-sid-v2"
NOTICE_TAG = b"p2pcards/notice/v2\x00"
NOTICE_PERSON = b"p2pcards-ntc-v2"
#: The notice types; a transcript message of one of these types is malformed.
NOTICE_TYPES = frozenset({"leave", "alert"})
MAX_POSITION = 2**31 - 1
GENESIS_PREV = bytes(32)


def message_digest(payload: bytes) -> bytes:
    """The chain hash of a message: BLAKE2b-256 of its payload bytes."""
    return blake2b(payload, digest_size=32, person=MSG_PERSON, encoder=RawEncoder)


def notice_digest(payload: bytes) -> bytes:
    """A notice's identity (for deduplication): BLAKE2b-256 under the notice person tag."""
    return blake2b(payload, digest_size=32, person=NOTICE_PERSON, encoder=RawEncoder)


def session_id_of(genesis_payload: bytes) -> bytes:
    """A table's session id: BLAKE2b-256 of the genesis payload, another person tag."""
    return blake2b(genesis_payload, digest_size=32, person=SID_PERSON, encoder=RawEncoder)


_OUTER = Tuple((Bin(lo=1, hi=wire.MAX_BIN), Bin(64)))
_HEADER = {
    "v": Int(PROTOCOL_VERSION, PROTOCOL_VERSION),
    "n": Int(0, MAX_POSITION),
    "prev": Bin(32),
    "from": Int(0, 3),
    "type": Text(24, 1),
}


@dataclass(frozen=True)
class SignedMessage:
    """One transcript message, parsed but not yet trusted (see :meth:`verify`)."""

    raw: bytes = field(repr=False)
    payload: bytes = field(repr=False)
    signature: bytes = field(repr=False)
    session: bytes | None
    position: int
    prev: bytes = field(repr=False)
    player: int
    type: str
    body: WireMap = field(repr=False)
    digest: bytes = field(repr=False)

    @classmethod
    def parse(cls, raw: bytes) -> SignedMessage:
        """Decode the envelope's shape; raises MalformedWire/MalformedMessage.

        A notice type is refused here: a notice is never a transcript message."""
        payload, signature, checked = _parse_envelope(raw, "message")
        if checked["type"] in NOTICE_TYPES:
            raise MalformedMessage(f"a {checked['type']!r} notice is not a transcript message",
                                   position=checked["n"])
        return cls(
            raw=bytes(raw), payload=payload, signature=signature,
            session=checked.get("sid"), position=checked["n"], prev=checked["prev"],
            player=checked["from"], type=checked["type"], body=checked["body"],
            digest=message_digest(payload),
        )

    def verify(self, public_key: bytes) -> None:
        """Raise :class:`BadSignature` unless ``public_key`` signed this payload."""
        _verify(SIGN_TAG, self, public_key, "message")


class KeptMessage:
    """A message already accepted into the chain, as kept for the rest of the
    match: its raw bytes and the header fields the chain consults, no parsed
    body (which costs several times the bytes). ``body`` and ``parse()`` decode
    the bytes again when asked (rarely: evidence, tests)."""

    __slots__ = ("raw", "digest", "prev", "position", "player", "type")

    def __init__(self, msg: SignedMessage) -> None:
        self.raw = msg.raw
        self.digest = msg.digest
        self.prev = msg.prev
        self.position = msg.position
        self.player = msg.player
        self.type = msg.type

    def parse(self) -> SignedMessage:
        return SignedMessage.parse(self.raw)

    @property
    def body(self) -> WireMap:
        return self.parse().body

    def verify(self, public_key: bytes) -> None:
        self.parse().verify(public_key)

    def __repr__(self) -> str:
        return f"KeptMessage(position={self.position}, player={self.player}, type={self.type!r})"


@dataclass(frozen=True)
class SignedNotice:
    """A signed notice outside the chain (``leave``, ``alert``), not yet trusted.

    ``position`` and ``prev`` are the sender's next position and last digest when
    it signed: they date the notice, they do not place it in the chain."""

    raw: bytes = field(repr=False)
    payload: bytes = field(repr=False)
    signature: bytes = field(repr=False)
    session: bytes
    position: int
    prev: bytes = field(repr=False)
    player: int
    type: str
    body: WireMap = field(repr=False)
    digest: bytes = field(repr=False)

    @classmethod
    def parse(cls, raw: bytes) -> SignedNotice:
        """Decode a notice; raises MalformedWire/MalformedMessage (a transcript
        message's type, or a notice without a session, is malformed here)."""
        payload, signature, checked = _parse_envelope(raw, "notice")
        if checked["type"] not in NOTICE_TYPES:
            raise MalformedMessage(f"a notice of unknown type {checked['type'][:24]!r}",
                                   player=checked["from"])
        if checked["n"] == 0:
            raise MalformedMessage("a notice must name a session (position 0 is the genesis)")
        return cls(
            raw=bytes(raw), payload=payload, signature=signature,
            session=checked["sid"], position=checked["n"], prev=checked["prev"],
            player=checked["from"], type=checked["type"], body=checked["body"],
            digest=notice_digest(payload),
        )

    def verify(self, public_key: bytes) -> None:
        """Raise :class:`BadSignature` unless ``public_key`` signed this notice."""
        _verify(NOTICE_TAG, self, public_key, "notice")


def _verify(tag: bytes, signed: SignedMessage | SignedNotice, public_key: bytes, what: str) -> None:
    """One check for both domains; only the tag (and the word in the error) differs."""
    try:
        VerifyKey(public_key).verify(tag + signed.payload, signed.signature)
    except (BadSignatureError, ValueError, TypeError):
        raise BadSignature(
            f"signature of a {signed.type!r} {what} does not verify for player {signed.player}",
            position=signed.position) from None


def _parse_envelope(raw: bytes, what: str) -> tuple[bytes, bytes, WireMap]:
    """The shared layout of messages and notices: ``[payload, sig]`` and the header."""
    payload, signature = validate(_OUTER, wire.unpack(raw), what)
    fields = wire.unpack(payload)
    if not isinstance(fields, dict):
        raise MalformedMessage("payload: expected a map")
    return payload, signature, validate(payload_shape(fields.get("n") != 0), fields, "payload")


def payload_shape(with_session: bool = True) -> Struct:
    """What a signed payload holds: the header, the session id (in every message
    but the genesis, which makes it) and a body, checked later by its type."""
    shape = dict(_HEADER)
    if with_session:
        shape["sid"] = Bin(32)
    shape["body"] = _AnyMap()
    return Struct(shape)


class _AnyMap(Shape):
    """The body is checked later against its type's own schema."""

    def describe(self) -> dict[str, object]:
        return {"map": "the body of the message's type (see the catalogue)"}

    def check(self, value: object, path: str) -> WireMap:
        if not isinstance(value, dict):
            raise MalformedMessage(f"{path}: expected a map")
        return value


def _payload(session: bytes | None, position: int, prev: bytes, player: int, type: str,
             body: WireMap) -> bytes:
    fields: WireMap = {"v": PROTOCOL_VERSION}
    if position != 0:
        if session is None:
            raise ValueError("only the genesis message has no session id")
        fields["sid"] = session
    fields.update({"n": position, "prev": prev, "from": player, "type": type, "body": body})
    return wire.pack(fields)


def seal(identity: Signer, *, session: bytes | None, position: int, prev: bytes,
         player: int, type: str, body: WireMap) -> SignedMessage:
    """Build and sign a transcript message; the result parses back to an equal message."""
    payload = _payload(session, position, prev, player, type, body)
    signature = identity.sign(SIGN_TAG + payload)
    return SignedMessage.parse(wire.pack([payload, signature]))


def seal_notice(identity: Signer, *, session: bytes, position: int, prev: bytes,
                player: int, type: str, body: WireMap) -> SignedNotice:
    """Build and sign a notice under the notice tag; it never verifies as a message."""
    payload = _payload(session, position, prev, player, type, body)
    signature = identity.sign(NOTICE_TAG + payload)
    return SignedNotice.parse(wire.pack([payload, signature]))
