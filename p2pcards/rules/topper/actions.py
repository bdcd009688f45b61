"""What a seat can do in Topper: bid, pass, name trump, play a card.

Each action names its seat, so the referee can blame precisely. A card is
named by its deal *slot* (the seat's own position in the shuffled deck); the
face comes along with it because playing a card turns it face up, and a
peer learns that face from the cryptography at that very moment.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2pcards.cards import Card, Suit


@dataclass(frozen=True, slots=True)
class Bid:
    """Offer to take at least ``tricks`` tricks with a trump of one's choosing."""

    seat: int
    tricks: int


@dataclass(frozen=True, slots=True)
class PassBid:
    """Decline to bid in this hand's one round of bidding."""

    seat: int


@dataclass(frozen=True, slots=True)
class NameTrump:
    """The highest bidder names the trump suit (and will lead)."""

    seat: int
    suit: Suit


@dataclass(frozen=True, slots=True)
class Play:
    """Play the card dealt at ``slot``, whose face is ``card``, to the current trick."""

    seat: int
    slot: int
    card: Card


TopperAction = Bid | PassBid | NameTrump | Play
