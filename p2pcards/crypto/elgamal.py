"""ElGamal over the joint key: ciphertexts, the unmasked initial deck, and cards as points.

A card with code ``m`` (``0..51``, see :mod:`p2pcards.cards`) is the point
``M = hash_to_point(TAG_CARD; u64(m))``, so nobody knows a discrete log
between two cards or between a card and a generator. A ciphertext under the
joint key ``Y`` is ``(c1, c2) = (r·G, M + r·Y)``; decrypting needs every
seat's share ``x_i·c1``, since ``Y = Σ x_i·G``.

The initial deck is ``(identity, M)`` for each card, in the order given: the
one place where the identity is a legitimate ciphertext component. Any
ciphertext that arrives from the wire has two non-identity points.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from p2pcards.crypto.errors import CryptoError, InvalidEncoding, describe
from p2pcards.crypto.group import G, Point, Scalar
from p2pcards.crypto.hashing import TAG_CARD, hash_to_point, u64
from p2pcards.crypto.wire import MAX_DECK_SIZE, expect_list
from p2pcards.wiremap import WireValue

#: Card codes the deck knows (the encoding of :mod:`p2pcards.cards`).
CARD_CODES = range(52)


def _check_code(code: WireValue) -> int:
    if isinstance(code, bool) or not isinstance(code, int) or code not in CARD_CODES:
        raise InvalidEncoding(f"card code must be an integer in 0..51, got {describe(code)}")
    return code


@lru_cache(maxsize=len(CARD_CODES))
def card_point(code: int) -> Point:
    """``hash_to_point(TAG_CARD; u64(code))``."""
    return hash_to_point(TAG_CARD, u64(_check_code(code)))


class CardMap:
    """The cards of one deck, from codes to points and back."""

    def __init__(self, codes: Iterable[int]) -> None:
        codes = tuple(_check_code(c) for c in codes)
        if len(set(codes)) != len(codes) or not codes:
            raise InvalidEncoding("a deck's card codes must be distinct and not empty")
        self._codes = codes
        self._points = {code: card_point(code) for code in codes}
        self._by_point = {p.to_bytes(): code for code, p in self._points.items()}

    @property
    def codes(self) -> tuple[int, ...]:
        return self._codes

    def point(self, code: int) -> Point:
        if code not in self._points:
            raise InvalidEncoding(f"card code {describe(code)} is not in this deck")
        return self._points[code]

    def code_of(self, point: Point) -> int | None:
        """The code of ``point``, or ``None`` when it is not one of this deck's cards."""
        return self._by_point.get(point.to_bytes())

    def __len__(self) -> int:
        return len(self._codes)

    def __contains__(self, code: object) -> bool:
        return code in self._points

    def __repr__(self) -> str:
        return f"CardMap({len(self._codes)} cards)"


@dataclass(frozen=True)
class Ciphertext:
    """``(c1, c2) = (r·G, M + r·Y)``."""

    c1: Point
    c2: Point

    def reencrypt(self, r: Scalar, joint_key: Point) -> Ciphertext:
        """``(c1 + r·G, c2 + r·Y)``: the same card, unlinkable to the old ciphertext."""
        return Ciphertext(self.c1 + r * G, self.c2 + r * joint_key)

    def to_wire(self) -> list[bytes]:
        return [self.c1.to_bytes(), self.c2.to_bytes()]

    @classmethod
    def from_wire(cls, obj: object, seat: int | None = None, what: str = "ciphertext") -> Ciphertext:
        """Both points validated; neither may be the identity."""
        c1, c2 = expect_list(obj, what, seat, length=2)
        try:
            return cls(Point.from_bytes(c1, what=what, seat=seat),
                       Point.from_bytes(c2, what=what, seat=seat))
        except CryptoError:  # decoded again for an error that names the half (names cost)
            return cls(Point.from_bytes(c1, what=f"{what}.c1", seat=seat),
                       Point.from_bytes(c2, what=f"{what}.c2", seat=seat))

    def __repr__(self) -> str:
        return "Ciphertext(<hidden>)"


def initial_deck(codes: Iterable[int]) -> list[Ciphertext]:
    """The unmasked deck ``(identity, M_code)`` in the given order: the first shuffle's input."""
    cards = CardMap(codes)
    return [Ciphertext(Point.identity(), cards.point(code)) for code in cards.codes]


def deck_to_wire(deck: Sequence[Ciphertext]) -> list[list[bytes]]:
    return [ct.to_wire() for ct in deck]


def deck_from_wire(obj: object, seat: int | None = None, what: str = "deck") -> list[Ciphertext]:
    """A masked deck from the wire: 1..MAX_DECK_SIZE ciphertexts, every point validated."""
    items = expect_list(obj, what, seat, lo=1, hi=MAX_DECK_SIZE)
    try:
        return [Ciphertext.from_wire(item, seat, what) for item in items]
    except CryptoError:  # decoded again for an error that names the card (names cost)
        return [Ciphertext.from_wire(item, seat, f"{what}[{i}]") for i, item in enumerate(items)]
