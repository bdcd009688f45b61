"""What happened in a Topper match, as data: events returned by ``deal``/``apply``, and the outcome.

``HandDealt``, ``MatchEnded``, ``Termination`` and the ``Outcome`` base are
the ones both games share (:mod:`p2pcards.rules.shared`), re-exported here.

Events carry only public facts (bids, trump, face-up cards, scores), so a
front end can show them and a transcript can log them without leaking a hand.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2pcards.cards import Card, Suit
from p2pcards.rules.shared import HandDealt, MatchEnded, Outcome
from p2pcards.rules.shared import Termination as Termination


@dataclass(frozen=True, slots=True)
class BidMade:
    seat: int
    tricks: int


@dataclass(frozen=True, slots=True)
class BidPassed:
    seat: int


@dataclass(frozen=True, slots=True)
class BiddingWon:
    """Bidding is over: ``bidder`` holds the highest bid and must name trump."""

    bidder: int
    tricks: int


@dataclass(frozen=True, slots=True)
class ThrownIn:
    """Every seat passed: the cards are collected unseen and ``next_dealer`` deals anew."""

    hand: int
    dealer: int
    next_dealer: int


@dataclass(frozen=True, slots=True)
class TrumpNamed:
    seat: int
    suit: Suit
    #: The Jack of the same colour that now belongs to trump.
    little_jack: Card


@dataclass(frozen=True, slots=True)
class CardPlayed:
    seat: int
    slot: int
    card: Card
    #: 0-based index of the trick within the hand.
    trick: int


@dataclass(frozen=True, slots=True)
class ShowedVoid:
    """``seat`` did not follow ``suit``: from now on it is known to hold none of it this hand."""

    seat: int
    suit: Suit
    trick: int
    card: Card


@dataclass(frozen=True, slots=True)
class TrickWon:
    trick: int
    winner: int
    #: ``(seat, card)`` in the order played; the first is the lead.
    plays: tuple[tuple[int, Card], ...]


@dataclass(frozen=True, slots=True)
class HandScored:
    """The six tricks are played and scored."""

    hand: int
    bidder: int
    bid: int
    #: Tricks taken, per seat.
    tricks: tuple[int, ...]
    #: Whether the bidder took at least the tricks he bid.
    made: bool
    #: Points each seat gained (or, for a bidder who fell short, lost) this hand.
    changes: tuple[int, ...]
    #: Match scores after this hand.
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TieContinues:
    """Several seats share the highest score at or above the target and the bidder is not one of them.

    No one wins yet; another hand is played.
    """

    seats: tuple[int, ...]
    score: int


@dataclass(frozen=True, slots=True)
class TopperOutcome(Outcome):
    """How a Topper match ended: the final ``scores`` after ``hands`` hands scored
    (thrown-in deals not counted)."""

    scores: tuple[int, ...]
    hands: int

    @property
    def standings(self) -> tuple[int, ...]:
        return self.scores


TopperEvent = (
    HandDealt |
    BidMade |
    BidPassed |
    BiddingWon |
    ThrownIn |
    TrumpNamed |
    CardPlayed |
    ShowedVoid |
    TrickWon |
    HandScored |
    TieContinues |
    MatchEnded
)

__all__ = [
    "HandDealt", "BidMade", "BidPassed", "BiddingWon", "ThrownIn", "TrumpNamed", "CardPlayed",
    "ShowedVoid", "TrickWon", "HandScored", "TieContinues", "Termination", "TopperOutcome",
    "MatchEnded", "TopperEvent",
]
