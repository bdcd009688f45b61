"""Topper's own refusals, each with a stable rule id the protocol can put in a blame.

The generic ones (wrong phase, out of turn, a slot not held, a face that
contradicts what is known, the match over, a malformed action) are the
classes of :mod:`p2pcards.rules.errors`; the ones here are the rules that
only Topper has. No message ever names a card that is not face up.
"""

from __future__ import annotations

from p2pcards.cards import Card, Suit
from p2pcards.rules.errors import BadAction, NotYourTurn, RuleError

# BadDeal, ConfigError, DealNotAwaited and FacesUnknown are one class for both
# games (rules.errors), re-exported here.
from p2pcards.rules.errors import BadDeal as BadDeal
from p2pcards.rules.errors import ConfigError as ConfigError
from p2pcards.rules.errors import DealNotAwaited as DealNotAwaited
from p2pcards.rules.errors import FacesUnknown as FacesUnknown


class BidOutOfRange(BadAction):
    """A bid of fewer tricks than the minimum bid or more than the maximum (1..6)."""

    rule = "topper.bid-range"


class BidNotHigher(RuleError):
    """A bid not strictly higher than the highest bid already made this hand."""

    rule = "topper.bid-not-higher"


class NotTheBidder(NotYourTurn):
    """Trump named by a seat other than the highest bidder."""

    rule = "topper.trump-not-bidder"


class BadTrumpSuit(BadAction):
    """Trump named as something that is not one of the four suits."""

    rule = "topper.trump-suit"


class CardNotInDeck(BadAction):
    """A card played, or dealt, that the Topper deck does not contain (e.g. a 7)."""

    rule = "topper.card-not-in-deck"


class FollowSuit(RuleError):
    """A card that does not follow the led suit from a seat known to hold one that does.

    Raised by an engine that knows the seat's hand (the seat's own client, a
    full simulation); honest clients never offer such a card.
    """

    rule = "topper.follow-suit"

    def __init__(self, seat: int, card: Card, led: Suit) -> None:
        self.card = card
        self.led = led
        super().__init__(seat, f"must follow {led.name.lower()}: {card} does not, and the hand holds one that does")


class Renege(RuleError):
    """Proof that a seat did not follow suit while able, earlier in this hand.

    Raised by an engine that did not know the seat's hand when it failed to
    follow (a peer's referee): the seat then showed void in a suit, and now
    plays a card of that very suit. All cards of a hand are played, so every
    renege is proven by the end of the hand it happened in. The play that
    proves it is refused, like any other refused action.
    """

    rule = "topper.renege"

    def __init__(self, seat: int, suit: Suit, trick: int, void_card: Card, proof: Card) -> None:
        self.suit = suit
        #: Index (0-based) of the trick in which the seat did not follow.
        self.trick = trick
        #: The card the seat played then instead of following.
        self.void_card = void_card
        #: The card of that suit the seat plays now, proving it held one then.
        self.proof = proof
        super().__init__(
            seat,
            f"reneged in trick {trick + 1}: played {void_card} on a {suit.name.lower()[:-1]} lead, "
            f"yet held {proof}, a {suit.name.lower()[:-1]}, which it plays now",
        )
