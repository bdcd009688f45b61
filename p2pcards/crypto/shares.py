"""Decryption shares with Chaum–Pedersen proofs: private dealing and public reveal.

A card ``(c1, c2)`` under ``Y = Σ X_i`` opens as ``M = c2 - Σ x_i·c1``. Each
seat's *share* is ``D_i = x_i·c1``, published with a DLEQ proof that
``log_G X_i = log_c1 D_i`` (so a seat cannot lie about its share without
being caught and named).

* Private dealing: for a card owned by seat ``o``, every other seat
  publishes :func:`make_share`; ``o`` checks them with :func:`verify_share`,
  adds its own :func:`decryption_point` in private, and learns the card with
  :func:`recover_code`. Nobody else can: ``o``'s share is never published.
* Public reveal: ``o`` publishes its share with a proof too; then everyone
  can check it and recover the card.

Each proof is bound to the context (session, prover seat, deck) and to the
card's ``slot`` in the deck, and hashes the whole ciphertext.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from p2pcards.crypto.context import ProofContext
from p2pcards.crypto.elgamal import CardMap, Ciphertext
from p2pcards.crypto.errors import (
    CryptoError,
    InvalidEncoding,
    InvalidPoint,
    InvalidScalar,
    NotACard,
    ProofInvalid,
    describe,
)
from p2pcards.crypto.group import G, Point, Rng, Scalar, base_mul, random_scalar, sum_points
from p2pcards.crypto.hashing import TAG_SHARE_DLEQ, hash_to_scalar, u64
from p2pcards.crypto.keys import KeyShare
from p2pcards.crypto.wire import expect_list
from p2pcards.wiremap import WireValue

_MAX_SLOT = (1 << 32) - 1


@dataclass(frozen=True)
class DleqProof:
    """Chaum–Pedersen proof that ``log_G X = log_c1 D``: challenge ``c``, response ``s``."""

    challenge: Scalar
    response: Scalar


@dataclass(frozen=True)
class DecryptionShare:
    """``D = x·c1`` and its proof. A seat's own share stays private until a reveal.

    ``proof`` is ``None`` only for a share made with ``with_proof=False``: an
    owner's private share, which is never published.
    """

    point: Point
    proof: DleqProof | None

    def to_wire(self) -> list[bytes]:
        """``[D, c, s]``."""
        if self.proof is None:
            raise CryptoError("a private decryption share has no proof and is never published")
        return [self.point.to_bytes(), self.proof.challenge.to_bytes(),
                self.proof.response.to_bytes()]

    @classmethod
    def from_wire(cls, obj: object, seat: int | None = None) -> DecryptionShare:
        d, c, s = expect_list(obj, "decryption share", seat, length=3)
        return cls(Point.from_bytes(d, what="decryption share", seat=seat),
                   DleqProof(Scalar.from_bytes(c, what="decryption share challenge", seat=seat),
                             Scalar.from_bytes(s, what="decryption share response", seat=seat)))

    def __repr__(self) -> str:
        return "DecryptionShare(<hidden>)"


def _check_slot(slot: WireValue) -> int:
    if isinstance(slot, bool) or not isinstance(slot, int) or not 0 <= slot <= _MAX_SLOT:
        raise InvalidEncoding(f"slot must be an integer in 0..{_MAX_SLOT}, got {describe(slot)}")
    return slot


def _check_c1(ciphertext: Ciphertext, seat: int | None) -> None:
    if ciphertext.c1.is_identity:
        raise InvalidPoint("ciphertext c1 (an unmasked card)", InvalidPoint.IDENTITY, seat=seat)


def _challenge(ctx: ProofContext, slot: int, public: Point, ciphertext: Ciphertext,
               share: Point, a: Point, b: Point) -> Scalar:
    return hash_to_scalar(TAG_SHARE_DLEQ, *ctx.fields(), u64(slot), G.to_bytes(),
                          public.to_bytes(), ciphertext.c1.to_bytes(), ciphertext.c2.to_bytes(),
                          share.to_bytes(), a.to_bytes(), b.to_bytes())


def decryption_point(key_share: KeyShare, ciphertext: Ciphertext) -> Point:
    """``x·c1`` without a proof: the owner's private share during dealing (never publish it)."""
    _check_c1(ciphertext, None)
    return key_share.secret * ciphertext.c1


def make_share(key_share: KeyShare, ciphertext: Ciphertext, ctx: ProofContext, slot: int,
               rng: Rng | None = None, *, with_proof: bool = True) -> DecryptionShare:
    """``D = x·c1`` with ``A = k·G``, ``B = k·c1``, ``c = H(ctx, slot, G, X, c1, c2, D, A, B)``,
    ``s = k + c·x``. ``with_proof=False`` skips the proof (an owner's private
    share, as :func:`decryption_point`)."""
    _check_slot(slot)
    _check_c1(ciphertext, ctx.seat)
    point = key_share.secret * ciphertext.c1
    if not with_proof:
        return DecryptionShare(point, None)
    for _ in range(8):
        k = random_scalar(rng)
        c = _challenge(ctx, slot, key_share.public, ciphertext, point,
                       base_mul(k), k * ciphertext.c1)
        s = k + c * key_share.secret
        if not s.is_zero and not c.is_zero:
            return DecryptionShare(point, DleqProof(c, s))
    raise CryptoError("could not produce a non-zero response")


def verify_share(public: Point, ciphertext: Ciphertext, share: DecryptionShare,
                 ctx: ProofContext, slot: int) -> None:
    """Check seat ``ctx.seat``'s share of the card at ``slot``: recompute
    ``A = s·G - c·X``, ``B = s·c1 - c·D`` and compare the challenge.

    Raises :class:`ProofInvalid` (kind ``"decryption-share"``, naming the seat
    and the slot) when it fails.
    """
    _check_slot(slot)
    seat = ctx.seat
    _check_c1(ciphertext, None)
    if public.is_identity:
        raise InvalidPoint("public key share", InvalidPoint.IDENTITY, seat=seat)
    if share.point.is_identity:
        raise InvalidPoint("decryption share", InvalidPoint.IDENTITY, seat=seat)
    if share.proof is None:
        raise ProofInvalid(ProofInvalid.DECRYPTION_SHARE, "no proof", seat=seat, slot=slot)
    c, s = share.proof.challenge, share.proof.response
    if c.is_zero or s.is_zero:
        raise InvalidScalar("decryption share proof", InvalidScalar.ZERO, seat=seat)
    a = base_mul(s) - c * public
    b = s * ciphertext.c1 - c * share.point
    if _challenge(ctx, slot, public, ciphertext, share.point, a, b) != c:
        raise ProofInvalid(ProofInvalid.DECRYPTION_SHARE, "challenge", seat=seat, slot=slot)


def recover_code(ciphertext: Ciphertext,
                 share_points: Mapping[int, Point] | Sequence[Point],
                 card_map: CardMap, *, slot: int | None = None) -> int:
    """The card code of ``c2 - Σ D_i``, given every seat's share point.

    ``share_points`` maps seat to share (a sequence is taken in seat order).
    Raises :class:`NotACard` naming the seats whose shares were combined when
    the result is not one of ``card_map``'s cards.
    """
    shares = dict(share_points) if isinstance(share_points, Mapping) else dict(enumerate(share_points))
    if not shares:
        raise InvalidEncoding("no decryption shares to combine")
    _check_c1(ciphertext, None)
    code = card_map.code_of(ciphertext.c2 - sum_points(shares.values()))
    if code is None:
        raise NotACard(sorted(shares), slot=slot)
    return code
