"""The prime-order group of edwards25519, as two immutable types over libsodium.

Why a layer of our own: libsodium's ``crypto_core_ed25519_*`` and
``crypto_scalarmult_ed25519_*_noclamp`` work on raw 32-byte strings and
refuse some legitimate inputs (the identity, a zero scalar) by raising. Here
a :class:`Point` is always a canonical element of the prime-order subgroup
and a :class:`Scalar` is always reduced, so every value that reaches
libsodium is valid, and the identity and zero are handled explicitly:

* :meth:`Point.from_bytes` validates bytes from outside and refuses the
  identity; :meth:`Point.from_bytes_or_identity` and :meth:`Point.identity`
  are the separate doors where the identity is legitimate (a deck's unmasked
  cards). Arithmetic may produce the identity; callers that must refuse it
  ask :attr:`Point.is_identity`.
* :meth:`Scalar.from_bytes` refuses non-canonical encodings and zero;
  :meth:`Scalar.from_bytes_or_zero` and :meth:`Scalar.zero` are the doors
  for zero.

Every group operation bumps a counter in :data:`OPS`, so benchmarks can
report how many of each they cost. Multiplying :data:`G` takes libsodium's
fixed-base path (about five times cheaper) automatically.

Reprs hide values: a scalar may be a key, a point may be a card.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

import nacl.utils

from p2pcards.crypto import sodium
from p2pcards.crypto.errors import CryptoError, InvalidEncoding, InvalidPoint, InvalidScalar
from p2pcards.crypto.validity import DEFERRAL as DEFERRAL
from p2pcards.crypto.validity import OPS as OPS
from p2pcards.crypto.validity import VALID_POINTS as VALID_POINTS
from p2pcards.crypto.validity import deferring_validation as deferring_validation
from p2pcards.crypto.validity import pending_points as pending_points

#: The order of the prime-order subgroup (and of the scalar field).
ORDER = 2**252 + 27742317777372353535851937790883648493
_FIELD_PRIME = 2**255 - 19
_LOW_255 = (1 << 255) - 1

#: A source of random bytes: ``rng(n)`` returns ``n`` bytes.
Rng = Callable[[int], bytes]

_IDENTITY_BYTES = b"\x01" + bytes(31)
_ZERO_BYTES = bytes(32)
_ONE_BYTES = b"\x01" + bytes(31)

_add = sodium.add
_sub = sodium.sub
_is_valid = sodium.is_valid_point
_mul = sodium.scalarmult
_mul_base = sodium.scalarmult_base
_s_add = sodium.scalar_add
_s_sub = sodium.scalar_sub
_s_mul = sodium.scalar_mul
_s_neg = sodium.scalar_negate
_s_reduce = sodium.scalar_reduce


def default_rng(n: int) -> bytes:
    """The operating system's randomness, through libsodium."""
    return nacl.utils.random(n)


def _expect_bytes(data: object, what: str, seat: int | None) -> bytes:
    if not isinstance(data, bytes) or len(data) != 32:
        kind = type(data).__name__
        size = f" of length {len(data)}" if isinstance(data, (bytes, bytearray)) else ""
        raise InvalidEncoding(f"{what}: expected 32 bytes, got {kind}{size}", seat=seat)
    return data


class Scalar:
    """An integer modulo :data:`ORDER`, held as its canonical 32-byte little-endian encoding."""

    __slots__ = ("_b",)
    _b: bytes

    def __init__(self) -> None:
        raise TypeError("build a Scalar with from_bytes, from_bytes_or_zero, from_int, "
                        "from_digest, zero, one or random_scalar")

    @classmethod
    def _wrap(cls, b: bytes) -> Scalar:
        s = object.__new__(cls)
        object.__setattr__(s, "_b", b)
        return s

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Scalar is immutable")

    # -- constructors -------------------------------------------------------

    @classmethod
    def from_bytes(cls, data: object, *, what: str = "scalar", seat: int | None = None) -> Scalar:
        """Decode a scalar from outside: canonical and non-zero, or an error naming ``what``."""
        s = cls.from_bytes_or_zero(data, what=what, seat=seat)
        if s.is_zero:
            raise InvalidScalar(what, InvalidScalar.ZERO, seat=seat)
        return s

    @classmethod
    def from_bytes_or_zero(cls, data: object, *, what: str = "scalar",
                           seat: int | None = None) -> Scalar:
        """Decode a scalar where zero is legitimate; still refuses non-canonical bytes."""
        raw = _expect_bytes(data, what, seat)
        # Canonical iff reducing it changes nothing; libsodium does the comparison in
        # constant time, since a saved secret key is decoded here too.
        if not sodium.equal(_s_reduce(raw + _ZERO_BYTES), raw):
            raise InvalidScalar(what, InvalidScalar.NON_CANONICAL, seat=seat)
        return cls._wrap(raw)

    @classmethod
    def from_int(cls, value: int) -> Scalar:
        """A public integer reduced modulo the order (constants, indices; never a secret)."""
        return cls._wrap((value % ORDER).to_bytes(32, "little"))

    @classmethod
    def from_digest(cls, digest: bytes) -> Scalar:
        """Reduce a 64-byte hash output modulo the order (uniform up to 2^-259)."""
        if len(digest) != 64:
            raise InvalidEncoding(f"a digest to reduce must be 64 bytes, got {len(digest)}")
        return cls._wrap(_s_reduce(digest))

    @classmethod
    def zero(cls) -> Scalar:
        return cls._wrap(_ZERO_BYTES)

    @classmethod
    def one(cls) -> Scalar:
        return cls._wrap(_ONE_BYTES)

    # -- properties ----------------------------------------------------------

    @property
    def is_zero(self) -> bool:
        return self._b == _ZERO_BYTES

    def to_bytes(self) -> bytes:
        return self._b

    __bytes__ = to_bytes
    to_wire = to_bytes

    @classmethod
    def from_wire(cls, obj: object, seat: int | None = None) -> Scalar:
        """The wire form is the 32 bytes; as :meth:`from_bytes` (zero refused)."""
        return cls.from_bytes(obj, seat=seat)

    # -- arithmetic (libsodium's scalar functions, for secrets and public values alike) --

    def __add__(self, other: Scalar) -> Scalar:
        if not isinstance(other, Scalar):
            return NotImplemented
        return Scalar._wrap(_s_add(self._b, other._b))

    def __sub__(self, other: Scalar) -> Scalar:
        if not isinstance(other, Scalar):
            return NotImplemented
        return Scalar._wrap(_s_sub(self._b, other._b))

    def __mul__(self, other: Scalar) -> Scalar:
        if isinstance(other, Scalar):
            return Scalar._wrap(_s_mul(self._b, other._b))
        return NotImplemented

    def __neg__(self) -> Scalar:
        return Scalar._wrap(_s_neg(self._b))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Scalar):
            return NotImplemented
        return sodium.equal(self._b, other._b)

    # Not hashable, as a class defining __eq__ alone; typeshed types __hash__ as a method.
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return "Scalar(<hidden>)"


def random_scalar(rng: Rng | None = None) -> Scalar:
    """A uniformly random non-zero scalar: 64 random bytes reduced modulo the order."""
    draw = default_rng if rng is None else rng
    for _ in range(8):
        s = Scalar.from_digest(draw(64))
        if not s.is_zero:
            return s
    raise CryptoError("the random generator produced zero eight times in a row")


def sum_scalars(scalars: Iterable[Scalar]) -> Scalar:
    total = Scalar.zero()
    for s in scalars:
        total = total + s
    return total


class Point:
    """An element of the prime-order subgroup, held as its canonical 32-byte encoding."""

    __slots__ = ("_b",)
    _b: bytes

    def __init__(self) -> None:
        raise TypeError("build a Point with from_bytes, from_bytes_or_identity or identity")

    @classmethod
    def _wrap(cls, b: bytes) -> Point:
        p = object.__new__(cls)
        object.__setattr__(p, "_b", b)
        return p

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("Point is immutable")

    # -- constructors -------------------------------------------------------

    @classmethod
    def from_bytes(cls, data: object, *, what: str = "point", seat: int | None = None) -> Point:
        """Decode and validate a point from outside; the identity is refused."""
        p = cls.from_bytes_or_identity(data, what=what, seat=seat)
        if p.is_identity:
            raise InvalidPoint(what, InvalidPoint.IDENTITY, seat=seat)
        return p

    @classmethod
    def from_bytes_or_identity(cls, data: object, *, what: str = "point",
                               seat: int | None = None) -> Point:
        """Decode and validate a point where the identity is legitimate."""
        raw = _expect_bytes(data, what, seat)
        if int.from_bytes(raw, "little") & _LOW_255 >= _FIELD_PRIME:
            raise InvalidPoint(what, InvalidPoint.NON_CANONICAL, seat=seat)
        if raw == _IDENTITY_BYTES or raw in VALID_POINTS:
            return cls._wrap(raw)
        pending = pending_points()
        if pending is not None:
            pending.add(raw)
            return cls._wrap(raw)
        OPS.validate += 1
        if not _is_valid(raw):
            # libsodium also refuses the non-canonical encodings of small-order
            # points (the sign bit set on x = 0); those have small order anyway.
            raise InvalidPoint(what, InvalidPoint.NOT_IN_GROUP, seat=seat)
        VALID_POINTS.add(raw)
        return cls._wrap(raw)

    @classmethod
    def identity(cls) -> Point:
        return cls._wrap(_IDENTITY_BYTES)

    # -- properties ----------------------------------------------------------

    @property
    def is_identity(self) -> bool:
        return self._b == _IDENTITY_BYTES

    def to_bytes(self) -> bytes:
        return self._b

    __bytes__ = to_bytes
    to_wire = to_bytes

    @classmethod
    def from_wire(cls, obj: object, seat: int | None = None) -> Point:
        """The wire form is the 32 bytes; as :meth:`from_bytes` (identity refused)."""
        return cls.from_bytes(obj, seat=seat)

    # -- arithmetic ----------------------------------------------------------

    def __add__(self, other: Point) -> Point:
        if not isinstance(other, Point):
            return NotImplemented
        if self._b == _IDENTITY_BYTES:
            return other
        if other._b == _IDENTITY_BYTES:
            return self
        OPS.add += 1
        return Point._wrap(_add(self._b, other._b))

    def __sub__(self, other: Point) -> Point:
        if not isinstance(other, Point):
            return NotImplemented
        if other._b == _IDENTITY_BYTES:
            return self
        OPS.add += 1
        return Point._wrap(_sub(self._b, other._b))

    def __neg__(self) -> Point:
        return Point.identity() - self

    def __rmul__(self, scalar: Scalar) -> Point:
        if not isinstance(scalar, Scalar):
            return NotImplemented
        return self.times(scalar)

    def times(self, scalar: Scalar) -> Point:
        """``scalar · self``, with the identity and zero handled before libsodium sees them.

        libsodium refuses a zero scalar, the identity as input and the identity as
        result; for a point of the prime-order subgroup and a reduced non-zero
        scalar the result is never the identity, so these two checks are all. ``G``
        takes libsodium's fixed-base path.
        """
        factor = scalar.to_bytes()
        if factor == _ZERO_BYTES or self._b == _IDENTITY_BYTES:
            return Point.identity()
        if self._b == _G_BYTES:
            OPS.scalarmult_base += 1
            return Point._wrap(_mul_base(factor))
        OPS.scalarmult += 1
        product = _mul(factor, self._b)  # refuses an invalid point: see PendingPoints
        pending = pending_points()
        if pending is not None:
            pending.multiplied(self._b)
        return Point._wrap(product)

    @classmethod
    def weighted_sum(cls, terms: Mapping[Point, int]) -> Point:
        """``Σ k·P`` over ``terms`` (point -> public integer ``k``, taken modulo the order).

        For batch verification (:mod:`p2pcards.crypto.batch`), whose coefficients are
        public integers (challenges, responses, the verifier's random weights): they
        are reduced with Python's integers, then multiplied by libsodium. A zero
        coefficient or the identity adds nothing; ``G`` takes the fixed-base path.
        """
        pending = pending_points()
        total = _IDENTITY_BYTES
        for point, k in terms.items():
            k %= ORDER
            raw = point.to_bytes()
            if k == 0 or raw == _IDENTITY_BYTES:
                continue
            if raw == _G_BYTES:
                OPS.scalarmult_base += 1
                product = _mul_base(k.to_bytes(32, "little"))
            else:
                OPS.scalarmult += 1
                product = _mul(k.to_bytes(32, "little"), raw)
                if pending is not None:
                    pending.multiplied(raw)
            if total == _IDENTITY_BYTES:
                total = product
            else:
                OPS.add += 1
                total = _add(total, product)
        return cls._wrap(total)

    __mul__ = __rmul__

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Point):
            return NotImplemented
        return self._b == other._b

    def __hash__(self) -> int:
        return hash(self._b)

    def __repr__(self) -> str:
        if self._b == _IDENTITY_BYTES:
            return "Point(identity)"
        if self._b == _G_BYTES:
            return "Point(G)"
        return "Point(<hidden>)"


def scalar_mul(scalar: Scalar, point: Point) -> Point:
    """``scalar · point`` (:meth:`Point.times`)."""
    return point.times(scalar)


def base_mul(scalar: Scalar) -> Point:
    """``scalar · G`` through libsodium's fixed-base multiplication."""
    return G.times(scalar)


def sum_points(points: Iterable[Point]) -> Point:
    total = Point.identity()
    for p in points:
        total = total + p
    return total


def weighted_sum(terms: Mapping[Point, int]) -> Point:
    """``Σ k·P`` over ``terms`` (point -> public integer ``k``): :meth:`Point.weighted_sum`."""
    return Point.weighted_sum(terms)


def linear_combination(scalars: Iterable[Scalar], points: Iterable[Point]) -> Point:
    """``Σ s_i · P_i`` (one multiplication per term: libsodium has no multi-scalar product)."""
    total = Point.identity()
    for s, p in zip(scalars, points, strict=True):
        total = total + scalar_mul(s, p)
    return total


_G_BYTES = _mul_base(_ONE_BYTES)

#: The standard base point of edwards25519.
G = Point.from_bytes(_G_BYTES)

