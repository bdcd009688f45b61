"""Joint key setup by commit-then-reveal, each share with a Schnorr proof of knowledge.

Why both steps: the commitment stops a seat from choosing its share after
seeing the others' (the "rogue key" ``X_r = T - Σ X_others`` that would hand
it the joint key), and the proof of knowledge stops it even if commitments
were skipped, since nobody can prove knowledge of the discrete log of such a
share. The proof is bound to the session and the seat so it cannot be
copied from another table or another seat.

Flow for each seat ``i``: publish ``key_commitment(ctx_i, X_i)``; once all
commitments are in, publish ``X_i`` and ``prove_key_share``; every seat runs
:func:`verify_key_commitment` and :func:`verify_key_share` on every other
seat, then :func:`joint_public_key`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from p2pcards.crypto.context import ProofContext
from p2pcards.crypto.errors import (
    CommitmentMismatch,
    CryptoError,
    InvalidEncoding,
    InvalidPoint,
    InvalidScalar,
    ProofInvalid,
)
from p2pcards.crypto.group import G, Point, Rng, Scalar, base_mul, random_scalar, sum_points
from p2pcards.crypto.hashing import TAG_KEY_COMMIT, TAG_KEY_SCHNORR, digest32, hash_to_scalar
from p2pcards.crypto.wire import expect_list
from p2pcards.wiremap import WireValue

COMMITMENT_BYTES = 32


@dataclass(frozen=True)
class KeyShare:
    """One seat's share ``x`` of the decryption key and its public part ``X = x·G``."""

    secret: Scalar = field(repr=False)
    public: Point

    @classmethod
    def generate(cls, rng: Rng | None = None) -> KeyShare:
        return cls.from_secret(random_scalar(rng))

    @classmethod
    def from_secret(cls, secret: Scalar) -> KeyShare:
        if secret.is_zero:
            raise InvalidScalar("key share", InvalidScalar.ZERO)
        return cls(secret, base_mul(secret))

    @classmethod
    def from_secret_bytes(cls, data: object) -> KeyShare:
        """Restore a share saved with :meth:`secret_bytes` (canonical, non-zero)."""
        return cls.from_secret(Scalar.from_bytes(data, what="key share"))

    def secret_bytes(self) -> bytes:
        """The 32-byte secret, for this peer's own saved state only: never send or log it."""
        return self.secret.to_bytes()

    def __repr__(self) -> str:
        return f"KeyShare(public={self.public.to_bytes()[:4].hex()}…)"


@dataclass(frozen=True)
class SchnorrProof:
    """Proof of knowledge of ``x`` with ``X = x·G``: challenge ``c`` and response ``s``."""

    challenge: Scalar
    response: Scalar

    def to_wire(self) -> list[bytes]:
        return [self.challenge.to_bytes(), self.response.to_bytes()]

    @classmethod
    def from_wire(cls, obj: object, seat: int | None = None) -> SchnorrProof:
        c, s = expect_list(obj, "key-share proof", seat, length=2)
        return cls(Scalar.from_bytes(c, what="key-share proof challenge", seat=seat),
                   Scalar.from_bytes(s, what="key-share proof response", seat=seat))


def public_from_wire(obj: object, seat: int | None = None) -> Point:
    """A public key share from the wire (validated, never the identity)."""
    return Point.from_bytes(obj, what="public key share", seat=seat)


def key_commitment(ctx: ProofContext, public: Point) -> bytes:
    """``H32(TAG_KEY_COMMIT; session, seat, deck, X)``: what a seat publishes first."""
    return digest32(TAG_KEY_COMMIT, *ctx.fields(), public.to_bytes())


def verify_key_commitment(commitment: WireValue, ctx: ProofContext, public: Point) -> None:
    """Raise :class:`CommitmentMismatch` (naming ``ctx.seat``) unless ``public`` was committed."""
    if not isinstance(commitment, bytes) or len(commitment) != COMMITMENT_BYTES:
        raise InvalidEncoding(f"key commitment: expected {COMMITMENT_BYTES} bytes", seat=ctx.seat)
    if key_commitment(ctx, public) != commitment:
        raise CommitmentMismatch("key share", seat=ctx.seat)


def _challenge(ctx: ProofContext, public: Point, nonce_point: Point) -> Scalar:
    return hash_to_scalar(TAG_KEY_SCHNORR, *ctx.fields(), G.to_bytes(), public.to_bytes(),
                          nonce_point.to_bytes())


def prove_key_share(share: KeyShare, ctx: ProofContext, rng: Rng | None = None) -> SchnorrProof:
    """Schnorr proof: ``R = k·G``, ``c = H(ctx, G, X, R)``, ``s = k + c·x``."""
    for _ in range(8):
        k = random_scalar(rng)
        c = _challenge(ctx, share.public, base_mul(k))
        s = k + c * share.secret
        if not s.is_zero and not c.is_zero:
            return SchnorrProof(c, s)
    raise CryptoError("could not produce a non-zero key-share proof (random source broken?)")


def verify_key_share(public: Point, proof: SchnorrProof, ctx: ProofContext) -> None:
    """Check the proof of ``ctx.seat``'s share: ``c == H(ctx, G, X, s·G - c·X)``.

    Raises :class:`InvalidPoint` for the identity as a share and
    :class:`ProofInvalid` (check ``"challenge"``) for a proof that fails.
    """
    if public.is_identity:
        raise InvalidPoint("public key share", InvalidPoint.IDENTITY, seat=ctx.seat)
    if proof.challenge.is_zero or proof.response.is_zero:
        raise InvalidScalar("key-share proof", InvalidScalar.ZERO, seat=ctx.seat)
    nonce_point = base_mul(proof.response) - proof.challenge * public
    if _challenge(ctx, public, nonce_point) != proof.challenge:
        raise ProofInvalid(ProofInvalid.KEY_SHARE, "challenge", seat=ctx.seat)


def joint_public_key(publics: Iterable[Point]) -> Point:
    """The sum of every seat's (verified) share; the identity is refused."""
    shares = list(publics)
    if not shares:
        raise InvalidEncoding("joint key: no key shares")
    for i, p in enumerate(shares):
        if p.is_identity:
            raise InvalidPoint("public key share", InvalidPoint.IDENTITY, seat=i)
    joint = sum_points(shares)
    if joint.is_identity:
        raise InvalidPoint("joint public key", InvalidPoint.IDENTITY)
    return joint
