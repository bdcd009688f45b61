"""Domain-separated hashing: one framing, one hash, every domain tag in one place.

Why one framing for everything: a compatible implementation in another
language must reproduce every challenge bit for bit, so every hash of this
package is ``SHA-512(frame(tag) || frame(f_1) || ... || frame(f_k))`` with
``frame(x) = u32be(len(x)) || x``. A field is a byte string: a point or
scalar is its 32-byte encoding, an integer is :func:`u64` (8 bytes,
big-endian), a list of points is their encodings concatenated. The framing
makes the input unambiguous; the tag makes each use its own random oracle.

SHA-512 comes from libsodium (``crypto_hash_sha512``), the package's only
primitive.
"""

from __future__ import annotations

from collections.abc import Iterable

import nacl.bindings as _nb

from p2pcards.crypto import sodium
from p2pcards.crypto.errors import CryptoError, InvalidEncoding, describe
from p2pcards.crypto.group import OPS, Point, Scalar

# Domain tags (ASCII). Changing one changes the protocol: bump the version.
TAG_KEY_COMMIT = b"p2pcards/v1/key/commit"
TAG_KEY_SCHNORR = b"p2pcards/v1/key/schnorr"
TAG_DRAW_COMMIT = b"p2pcards/v1/draw/commit"
TAG_DRAW_SEED = b"p2pcards/v1/draw/seed"
TAG_DRAW_STREAM = b"p2pcards/v1/draw/stream"
TAG_CARD = b"p2pcards/v1/card"
TAG_GEN_CHAIN = b"p2pcards/v1/generator/chain"
TAG_GEN_PERM = b"p2pcards/v1/generator/perm"
TAG_SHUFFLE_U = b"p2pcards/v1/shuffle/u"
TAG_SHUFFLE_U_I = b"p2pcards/v1/shuffle/u_i"
TAG_SHUFFLE_C = b"p2pcards/v1/shuffle/c"
TAG_SHARE_DLEQ = b"p2pcards/v1/share/dleq"
TAG_SEEDED_RNG = b"p2pcards/v1/test/seeded-rng"

ALL_TAGS = (TAG_KEY_COMMIT, TAG_KEY_SCHNORR, TAG_DRAW_COMMIT, TAG_DRAW_SEED,
            TAG_DRAW_STREAM, TAG_CARD, TAG_GEN_CHAIN, TAG_GEN_PERM, TAG_SHUFFLE_U,
            TAG_SHUFFLE_U_I, TAG_SHUFFLE_C, TAG_SHARE_DLEQ, TAG_SEEDED_RNG)

_U64_LIMIT = 1 << 64


def u64(value: int) -> bytes:
    """An unsigned integer as 8 big-endian bytes (counts, seats, slots, indices)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < _U64_LIMIT:
        raise InvalidEncoding(f"not an unsigned 64-bit integer: {describe(value)}")
    return value.to_bytes(8, "big")


def frame(field: bytes) -> bytes:
    return len(field).to_bytes(4, "big") + field


def sha512_fields(tag: bytes, *fields: bytes) -> bytes:
    """``SHA-512(frame(tag) || frame(f_1) || ...)``: 64 bytes."""
    parts = [frame(tag)]
    parts.extend(frame(f) for f in fields)
    return sodium.sha512(b"".join(parts))


def digest32(tag: bytes, *fields: bytes) -> bytes:
    """The first 32 bytes of :func:`sha512_fields` (commitments, seeds)."""
    return sha512_fields(tag, *fields)[:32]


def hash_to_scalar(tag: bytes, *fields: bytes) -> Scalar:
    """A Fiat–Shamir challenge: :func:`sha512_fields` reduced modulo the group order."""
    return Scalar.from_digest(sha512_fields(tag, *fields))


def hash_to_point(tag: bytes, *fields: bytes) -> Point:
    """A point nobody knows a discrete logarithm of.

    ``crypto_core_ed25519_from_uniform`` (Elligator 2, then the cofactor
    cleared) of the first 32 bytes of :func:`sha512_fields`.
    """
    OPS.from_uniform += 1
    raw = _nb.crypto_core_ed25519_from_uniform(sha512_fields(tag, *fields)[:32])
    point = Point.from_bytes_or_identity(raw, what="hash-to-curve output")
    if point.is_identity:  # probability about 2^-250; would break independence
        raise CryptoError("hash-to-curve produced the identity")
    return point


def points_bytes(points: Iterable[Point]) -> bytes:
    """Points as one field: their 32-byte encodings concatenated."""
    return b"".join(p.to_bytes() for p in points)
