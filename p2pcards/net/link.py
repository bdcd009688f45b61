"""Link security, sans-IO: a signed ephemeral key exchange, then sealed frames.

Each side sends a fresh X25519 key and its long-term Ed25519 identity key and
signs a hash of the whole handshake, so both ends learn and prove who the
other is, and nobody on the path between them can pose as either, read what
they say or alter it. Afterwards every frame is sealed with XSalsa20-Poly1305
under a per-direction key and a counter bound into the nonce, which makes a
replayed, reordered, dropped-then-resent or altered frame fail. ``protocol/LINK.md`` spells out every
byte computed here.

The objects work on whole frames (the framing layer or an in-memory queue
delivers them) and never touch sockets or clocks. Bad input raises a precise
``LinkError`` and leaves the object's state as it was.
"""

from __future__ import annotations

import enum
import struct
from dataclasses import dataclass

from nacl.bindings import (
    crypto_scalarmult,
    crypto_secretbox_easy,
    crypto_secretbox_open_easy,
)
from nacl.encoding import RawEncoder
from nacl.exceptions import BadSignatureError, CryptoError
from nacl.hash import blake2b
from nacl.public import PrivateKey
from nacl.signing import VerifyKey

from p2pcards.net.errors import (
    BadHandshakeSignature,
    CounterExhausted,
    HandshakeError,
    HandshakeIncomplete,
    MalformedHandshake,
    MalformedSealedFrame,
    OutOfOrderFrame,
    ReplayedFrame,
    TamperedFrame,
    UnexpectedPeer,
    UnsupportedVersion,
    WeakKeyExchange,
)
from p2pcards.protocol.identity import Identity, fingerprint

__all__ = [
    "HANDSHAKE_MAX_FRAME",
    "LINK_VERSION",
    "SEAL_OVERHEAD",
    "LinkHandshake",
    "Role",
    "SecureChannel",
    "handshake_hash",
]

LINK_VERSION = 2
MAGIC = b"p2pc"
PROLOGUE = b"p2pcards link\x00"
HASH_PERSON = b"p2pcards-link-h"
KEY_PERSON = {"initiator": b"p2pcards-i2r", "responder": b"p2pcards-r2i"}
SIGN_LABEL = {"initiator": b"p2pcards-link-v1 initiator signs ", "responder": b"p2pcards-link-v1 responder signs "}

KEY_SIZE = 32
SIGNATURE_SIZE = 64
_COUNTER = struct.Struct(">Q")
_COUNTER_LIMIT = 2**64
_NONCE_PAD = bytes(24 - _COUNTER.size)
MAC_SIZE = 16
SEAL_OVERHEAD = _COUNTER.size + MAC_SIZE

HELLO_SIZE = len(MAGIC) + 1 + KEY_SIZE + KEY_SIZE
REPLY_SIZE = HELLO_SIZE + SIGNATURE_SIZE
FINISH_SIZE = SIGNATURE_SIZE
HANDSHAKE_MAX_FRAME = REPLY_SIZE
"""The largest frame a handshake sends: decoders run with this limit until it completes."""


class Role(enum.Enum):
    """Which end of the link: the initiator dialled, the responder accepted."""

    INITIATOR = "initiator"
    RESPONDER = "responder"

    @property
    def other(self) -> Role:
        return Role.RESPONDER if self is Role.INITIATOR else Role.INITIATOR


class _State(enum.Enum):
    START = "start"  # initiator: nothing sent yet
    AWAIT_HELLO = "await hello"  # responder: waiting for the initiator's hello
    AWAIT_REPLY = "await reply"  # initiator: hello sent
    AWAIT_FINISH = "await finish"  # responder: reply sent
    DONE = "done"
    FAILED = "failed"


def handshake_hash(
    version: int,
    initiator_ephemeral: bytes,
    initiator_identity: bytes,
    responder_ephemeral: bytes,
    responder_identity: bytes,
) -> bytes:
    """BLAKE2b-256 of the prologue (version, both roles) and both ends' four keys."""
    transcript = b"".join(
        (
            PROLOGUE,
            bytes([version]),
            b"initiator\x00responder\x00",
            initiator_ephemeral,
            initiator_identity,
            responder_ephemeral,
            responder_identity,
        )
    )
    return blake2b(transcript, digest_size=32, person=HASH_PERSON, encoder=RawEncoder)


def _direction_key(shared_secret: bytes, transcript_hash: bytes, sender: Role) -> bytes:
    return blake2b(
        transcript_hash, digest_size=32, key=shared_secret, person=KEY_PERSON[sender.value], encoder=RawEncoder
    )


def _normalise_pin(expected_peer: bytes | str | None) -> bytes | str | None:
    if expected_peer is None:
        return None
    if isinstance(expected_peer, (bytes, bytearray)):
        if len(expected_peer) != KEY_SIZE:
            raise ValueError("a pinned public key must be 32 bytes")
        return bytes(expected_peer)
    if isinstance(expected_peer, str):
        return expected_peer.strip().lower()
    raise TypeError("expected_peer must be a 32-byte public key, a fingerprint string, or None")


class SecureChannel:
    """Seals outgoing and opens incoming frames of one established link.

    A sealed frame is an 8-byte big-endian counter followed by the secretbox
    of the payload under the nonce ``16 zero bytes || counter``. Counters run
    from 0 in each direction and must arrive in order; a rejected frame does
    not advance the receive counter.
    """

    def __init__(self, send_key: bytes, receive_key: bytes, peer_public_key: bytes) -> None:
        self._send_key = send_key
        self._receive_key = receive_key
        self._send_counter = 0
        self._receive_counter = 0
        self.peer_public_key = peer_public_key

    @property
    def peer_fingerprint(self) -> str:
        return fingerprint(self.peer_public_key)

    @property
    def frames_received(self) -> int:
        return self._receive_counter

    def seal(self, payload: bytes) -> bytes:
        """The sealed frame for ``payload``; each call uses the next send counter."""
        counter = self._send_counter
        if counter >= _COUNTER_LIMIT:
            raise CounterExhausted("this link sent 2**64 frames; open a new one")
        header = _COUNTER.pack(counter)
        sealed = header + crypto_secretbox_easy(bytes(payload), _NONCE_PAD + header, self._send_key)
        self._send_counter = counter + 1
        return sealed

    def open(self, frame: bytes) -> bytes:
        """The payload of the next sealed frame from the peer, or a precise rejection."""
        expected = self._receive_counter
        if len(frame) < SEAL_OVERHEAD:
            raise MalformedSealedFrame(len(frame), expected)
        header = bytes(frame[: _COUNTER.size])
        (counter,) = _COUNTER.unpack(header)
        if counter < expected:
            raise ReplayedFrame(counter, expected)
        if counter > expected:
            raise OutOfOrderFrame(counter, expected)
        try:
            payload = crypto_secretbox_open_easy(bytes(frame[_COUNTER.size:]), _NONCE_PAD + header, self._receive_key)
        except CryptoError:
            raise TamperedFrame(expected) from None
        self._receive_counter = expected + 1
        return payload

    def __repr__(self) -> str:
        return (
            f"SecureChannel(peer={self.peer_fingerprint}, sent={self._send_counter}, "
            f"received={self._receive_counter})"
        )


@dataclass(frozen=True)
class _Session:
    """What a handshake knows once both hellos are in: who the peer claims to be, and the keys."""

    peer_identity: bytes
    transcript_hash: bytes
    send_key: bytes
    receive_key: bytes


class LinkHandshake:
    """One side of the three-message handshake.

    Initiator: ``start()`` gives the hello; ``receive(reply)`` gives the
    finish message and completes. Responder: ``receive(hello)`` gives the
    reply; ``receive(finish)`` completes. Then ``channel()`` gives the
    ``SecureChannel``. ``expected_peer`` (a 32-byte public key or a
    fingerprint string) pins who the other end must be. Any error moves the
    handshake to a failed state that refuses further input.
    """

    def __init__(self, identity: Identity, role: Role, expected_peer: bytes | str | None = None) -> None:
        self._identity = identity
        self.role = role
        self._pin = _normalise_pin(expected_peer)
        self._ephemeral = PrivateKey.generate()
        self._state = _State.START if role is Role.INITIATOR else _State.AWAIT_HELLO
        self._session: _Session | None = None
        self._channel: SecureChannel | None = None

    # -- public API ---------------------------------------------------------------

    @property
    def complete(self) -> bool:
        return self._state is _State.DONE

    @property
    def peer_public_key(self) -> bytes | None:
        """The peer's identity key once it has proven it (None before that)."""
        return self._channel.peer_public_key if self._channel is not None else None

    def start(self) -> bytes | None:
        """The first message to send: the initiator's hello; nothing for a responder."""
        if self.role is Role.RESPONDER:
            return None
        if self._state is not _State.START:
            raise MalformedHandshake("handshake already started")
        self._state = _State.AWAIT_REPLY
        return self._hello()

    def receive(self, message: bytes) -> bytes | None:
        """Consume the peer's next handshake message; return the message to send back, if any."""
        handler = {
            _State.AWAIT_HELLO: self._on_hello,
            _State.AWAIT_REPLY: self._on_reply,
            _State.AWAIT_FINISH: self._on_finish,
        }.get(self._state)
        if handler is None:
            raise MalformedHandshake(f"no handshake message expected in state {self._state.value!r}")
        try:
            return handler(bytes(message))
        except HandshakeError:
            self._state = _State.FAILED
            self._session = None
            raise

    def channel(self) -> SecureChannel:
        """The sealed channel of a completed handshake (always the same object: one counter pair)."""
        if self._channel is None:
            raise HandshakeIncomplete("the link handshake has not completed")
        return self._channel

    def __repr__(self) -> str:
        return f"LinkHandshake(role={self.role.value}, state={self._state.value}, me={self._identity.fingerprint})"

    # -- steps ----------------------------------------------------------------------

    def _hello(self) -> bytes:
        return MAGIC + bytes([LINK_VERSION]) + bytes(self._ephemeral.public_key) + self._identity.public_key

    def _on_hello(self, message: bytes) -> bytes:
        session = self._open_session(message, HELLO_SIZE)
        self._state = _State.AWAIT_FINISH
        return self._hello() + self._sign(session)

    def _on_reply(self, message: bytes) -> bytes:
        session = self._open_session(message, REPLY_SIZE)
        self._verify(session, message[HELLO_SIZE:])
        self._complete(session)
        return self._sign(session)

    def _on_finish(self, message: bytes) -> None:
        if len(message) != FINISH_SIZE:
            raise MalformedHandshake(f"finish message is {len(message)} bytes, expected {FINISH_SIZE}")
        session = self._session
        if session is None:  # unreachable: AWAIT_FINISH is entered only with a session
            raise MalformedHandshake("finish received before hello")
        self._verify(session, message)
        self._complete(session)
        return None

    # -- helpers --------------------------------------------------------------------

    def _open_session(self, message: bytes, size: int) -> _Session:
        """Check a hello's shape, version and pin; derive the hash and both direction keys."""
        if len(message) < len(MAGIC) + 1 or message[: len(MAGIC)] != MAGIC:
            raise MalformedHandshake("not a p2pcards link handshake")
        version = message[len(MAGIC)]
        if version != LINK_VERSION:
            raise UnsupportedVersion(version, LINK_VERSION)
        if len(message) != size:
            raise MalformedHandshake(f"handshake message is {len(message)} bytes, expected {size}")
        offset = len(MAGIC) + 1
        peer_ephemeral = message[offset: offset + KEY_SIZE]
        peer_identity = message[offset + KEY_SIZE: offset + 2 * KEY_SIZE]
        self._check_pin(peer_identity)

        mine = (bytes(self._ephemeral.public_key), self._identity.public_key)
        theirs = (peer_ephemeral, peer_identity)
        initiator, responder = (mine, theirs) if self.role is Role.INITIATOR else (theirs, mine)
        transcript_hash = handshake_hash(LINK_VERSION, *initiator, *responder)
        try:
            shared = crypto_scalarmult(bytes(self._ephemeral), peer_ephemeral)
        except (CryptoError, RuntimeError):  # libsodium refuses an all-zero result
            shared = bytes(KEY_SIZE)
        if shared == bytes(KEY_SIZE):
            raise WeakKeyExchange("the peer's ephemeral key is a low-order point (all-zero shared secret)")
        self._session = _Session(
            peer_identity=peer_identity,
            transcript_hash=transcript_hash,
            send_key=_direction_key(shared, transcript_hash, self.role),
            receive_key=_direction_key(shared, transcript_hash, self.role.other),
        )
        return self._session

    def _complete(self, session: _Session) -> None:
        self._channel = SecureChannel(session.send_key, session.receive_key, session.peer_identity)
        self._session = None
        self._state = _State.DONE

    def _check_pin(self, peer_identity: bytes) -> None:
        pin = self._pin
        if pin is None:
            return
        got = fingerprint(peer_identity)
        if isinstance(pin, bytes):
            if pin != peer_identity:
                raise UnexpectedPeer(fingerprint(pin), got)
        elif pin != got:
            raise UnexpectedPeer(pin, got)

    def _sign(self, session: _Session) -> bytes:
        return self._identity.sign(SIGN_LABEL[self.role.value] + session.transcript_hash)

    def _verify(self, session: _Session, signature: bytes) -> None:
        signer = self.role.other.value
        try:
            VerifyKey(session.peer_identity).verify(SIGN_LABEL[signer] + session.transcript_hash, signature)
        except (BadSignatureError, CryptoError, ValueError):
            raise BadHandshakeSignature(
                f"the {signer}'s handshake signature does not verify under key {fingerprint(session.peer_identity)}"
            ) from None
