"""Cards, ranks, suits and the two decks, with a stable integer encoding.

Every layer speaks of a card by its *code*, an integer in ``0..51``:
``code = 4 * (rank - 2) + suit``. The code is what the protocol puts on the
wire and what the mental-poker deck maps to a curve point, so it must never
change. Topper's 24-card deck is the subset of ranks 9..A, in code order.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from p2pcards.errors import P2PCardsError


class Suit(enum.IntEnum):
    """The four suits, numbered as in the wire encoding."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def symbol(self) -> str:
        return "♣♦♥♠"[self]

    @property
    def letter(self) -> str:
        return "CDHS"[self]

    @property
    def is_red(self) -> bool:
        return self in (Suit.DIAMONDS, Suit.HEARTS)

    @property
    def partner(self) -> Suit:
        """The other suit of the same colour (Topper's Little Jack suit)."""
        return {Suit.CLUBS: Suit.SPADES, Suit.SPADES: Suit.CLUBS,
                Suit.DIAMONDS: Suit.HEARTS, Suit.HEARTS: Suit.DIAMONDS}[self]

    @classmethod
    def parse(cls, text: str) -> Suit:
        """Read a suit from a letter, a symbol or a name (any case)."""
        t = text.strip().upper()
        for suit in cls:
            if t in (suit.letter, suit.symbol, suit.name, suit.name[:-1]):
                return suit
        raise CardParseError(f"not a suit: {text!r} (use C, D, H, S or ♣ ♦ ♥ ♠)")


class Rank(enum.IntEnum):
    """Ranks 2..14; Ace is high."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14

    @property
    def label(self) -> str:
        return {10: "10", 11: "J", 12: "Q", 13: "K", 14: "A"}.get(self.value, str(self.value))

    @classmethod
    def parse(cls, text: str) -> Rank:
        """Read a rank from ``2..10``, ``T``, ``J``, ``Q``, ``K``, ``A`` or a name."""
        t = text.strip().upper()
        aliases = {"T": 10, "J": 11, "Q": 12, "K": 13, "A": 14}
        if t in aliases:
            return cls(aliases[t])
        if t.isdigit() and 2 <= int(t) <= 14:
            return cls(int(t))
        for rank in cls:
            if t == rank.name:
                return rank
        raise CardParseError(f"not a rank: {text!r} (use 2..10, J, Q, K or A)")


class CardParseError(P2PCardsError, ValueError):
    """Text that does not name a card, rank or suit."""


@dataclass(frozen=True, order=True, slots=True)
class Card:
    """A playing card. Ordered by code (rank first, then suit)."""

    rank: Rank
    suit: Suit

    @property
    def code(self) -> int:
        return 4 * (self.rank - 2) + self.suit

    @staticmethod
    def from_code(code: int) -> Card:
        if not isinstance(code, int) or isinstance(code, bool) or not 0 <= code < 52:
            raise CardParseError(f"card code out of range 0..51: {code!r}")
        return _BY_CODE[code]

    @staticmethod
    def parse(text: str) -> Card:
        """Read ``"QS"``, ``"10h"``, ``"Th"``, ``"Q♠"`` and the like."""
        t = text.strip()
        if len(t) < 2:
            raise CardParseError(f"not a card: {text!r} (write rank then suit, e.g. QS or 10♥)")
        return Card(Rank.parse(t[:-1]), Suit.parse(t[-1]))

    def __str__(self) -> str:
        return f"{self.rank.label}{self.suit.symbol}"

    @property
    def ascii(self) -> str:
        return f"{self.rank.label}{self.suit.letter}"

    def __repr__(self) -> str:
        return f"Card({self.ascii})"


_BY_CODE: tuple[Card, ...] = tuple(
    Card(Rank(2 + code // 4), Suit(code % 4)) for code in range(52)
)

#: The 52-card deck (Bluff), in code order.
FULL_DECK: tuple[Card, ...] = _BY_CODE

#: The 24-card deck (Topper: 9, 10, J, Q, K, A of each suit), in code order.
TOPPER_DECK: tuple[Card, ...] = tuple(c for c in _BY_CODE if c.rank >= Rank.NINE)
