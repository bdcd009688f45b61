"""The mental-poker deck's error vocabulary.

Every refusal names *which seat* supplied the offending value (when the
caller told us: ``seat=None`` means unknown) and *what* failed, with a stable
``code`` that the protocol can put into a verdict. Messages never carry a
secret: no scalar, no share point, no card point, no byte of either.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from p2pcards.errors import P2PCardsError


def describe(value: object) -> str:
    """A value for an error message: an integer as itself, anything else only by
    its type and length, so a secret passed by mistake never lands in a message."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, (bytes, bytearray, str, list, tuple)):
        return f"{type(value).__name__} of length {len(value)}"
    return type(value).__name__


class CryptoError(P2PCardsError, ValueError):
    """Base of every error of :mod:`p2pcards.crypto`."""

    #: Stable identifier of what failed, e.g. ``"crypto.proof"``.
    code: ClassVar[str] = "crypto"

    def __init__(self, detail: str, *, seat: int | None = None) -> None:
        self.seat = seat
        self.detail = detail
        who = "" if seat is None else f"seat {seat}: "
        super().__init__(f"{who}{detail} [{self.code}]")


class InvalidEncoding(CryptoError):
    """Wire data of the wrong type, length or shape (before any curve check)."""

    code = "crypto.encoding"


class InvalidPoint(CryptoError):
    """Thirty-two bytes that are not an acceptable group element here.

    ``reason`` is one of :data:`NON_CANONICAL`, :data:`NOT_IN_GROUP` (off the
    curve, or of small or mixed order) and :data:`IDENTITY` (the neutral
    element where a real point is required).
    """

    code = "crypto.point"

    NON_CANONICAL: ClassVar[str] = "non-canonical"
    NOT_IN_GROUP: ClassVar[str] = "not in the prime-order group"
    IDENTITY: ClassVar[str] = "identity"

    def __init__(self, what: str, reason: str, *, seat: int | None = None) -> None:
        self.what = what
        self.reason = reason
        super().__init__(f"{what}: {reason} point", seat=seat)


class InvalidScalar(CryptoError):
    """Thirty-two bytes that are not an acceptable scalar here.

    ``reason`` is :data:`NON_CANONICAL` (not reduced below the group order)
    or :data:`ZERO` (zero where it is not meant).
    """

    code = "crypto.scalar"

    NON_CANONICAL: ClassVar[str] = "non-canonical"
    ZERO: ClassVar[str] = "zero"

    def __init__(self, what: str, reason: str, *, seat: int | None = None) -> None:
        self.what = what
        self.reason = reason
        super().__init__(f"{what}: {reason} scalar", seat=seat)


class ProofInvalid(CryptoError):
    """A zero-knowledge proof that does not verify.

    ``proof`` names the kind (:data:`KEY_SHARE`, :data:`SHUFFLE`,
    :data:`DECRYPTION_SHARE`), ``check`` the first equation or shape test that
    failed (e.g. ``"t4"``, ``"t_hat[7]"``, ``"deck size"``), and ``seat`` the
    prover, who is to blame.
    """

    code = "crypto.proof"

    KEY_SHARE: ClassVar[str] = "key-share"
    SHUFFLE: ClassVar[str] = "shuffle"
    DECRYPTION_SHARE: ClassVar[str] = "decryption-share"

    def __init__(self, proof: str, check: str, *, seat: int | None = None,
                 slot: int | None = None) -> None:
        self.proof = proof
        self.check = check
        self.slot = slot
        where = "" if slot is None else f" for slot {slot}"
        super().__init__(f"{proof} proof{where} fails check {check!r}", seat=seat)


class NotReEncrypted(CryptoError):
    """A shuffle output ciphertext that equals an input ciphertext.

    A seat that only permutes (re-encryption by zero) can still prove a
    "shuffle", but every other seat could then follow each card through it.
    ``index`` is the first such output position; ``seat`` the shuffler.
    """

    code = "crypto.not-re-encrypted"

    def __init__(self, index: int, *, seat: int | None = None) -> None:
        self.index = index
        super().__init__(f"output deck[{index}] equals an input ciphertext (not re-encrypted)",
                         seat=seat)


class CommitmentMismatch(CryptoError):
    """A revealed value that is not the one the seat committed to earlier.

    ``what`` names the commitment (``"key share"``, ``"draw nonce"``).
    """

    code = "crypto.commitment"

    def __init__(self, what: str, *, seat: int | None = None) -> None:
        self.what = what
        super().__init__(f"revealed {what} does not match its commitment", seat=seat)


class NotACard(CryptoError):
    """A decryption that is not one of the deck's cards.

    ``seats`` are the seats whose decryption shares were combined, the only
    ones that can have caused it when the deck's shuffles were verified: a
    share that passed :func:`p2pcards.crypto.shares.verify_share` cannot, so
    the culprit is the seat whose share was combined without that check.
    ``seat`` is set when the caller names the one seat at fault.
    """

    code = "crypto.not-a-card"

    def __init__(self, seats: Iterable[int], *, slot: int | None = None,
                 seat: int | None = None) -> None:
        self.seats = tuple(seats)
        self.slot = slot
        where = "a card" if slot is None else f"slot {slot}"
        names = ", ".join(str(s) for s in self.seats) or "none"
        super().__init__(
            f"{where} does not decrypt to a card of this deck with the shares of seats {names}",
            seat=seat)
