"""Topper's card order under a trump suit: the two Jacks, suits as played, trick winners.

Kept apart from the state machine because bots, the UI and the referee all
need the same answer to "which suit is this card, really?". Once trump is
named, the Jack of the other suit of the same colour (the Little Jack)
leaves its printed suit and is a trump for every purpose: it follows trump,
a lead of it asks for trump, and it ranks second only to the Jack of trump.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2pcards.cards import Card, Rank, Suit

#: Power of a trump card above every plain card; plain cards rank by their rank.
_TRUMP_BASE = 100
#: The suit of each trump's Little Jack (looked up on every card played, so computed once).
_PARTNER = {suit: suit.partner for suit in Suit}


def big_jack(trump: Suit) -> Card:
    """The Jack of trump, the highest card of the hand."""
    return Card(Rank.JACK, trump)


def little_jack(trump: Suit) -> Card:
    """The Jack of the other suit of trump's colour, second highest trump."""
    return Card(Rank.JACK, trump.partner)


def effective_suit(card: Card, trump: Suit | None) -> Suit:
    """The suit ``card`` belongs to in play: its printed suit, except the Little Jack."""
    if trump is not None and card.rank == Rank.JACK and card.suit == _PARTNER[trump]:
        return trump
    return card.suit


def is_trump(card: Card, trump: Suit | None) -> bool:
    return trump is not None and effective_suit(card, trump) == trump


def trump_strength(card: Card, trump: Suit) -> int:
    """Order within trump: Big Jack, Little Jack, then A K Q 10 9 (higher is stronger).

    ``card`` must be a trump; plain cards get 0.
    """
    if not is_trump(card, trump):
        return 0
    if card.rank == Rank.JACK:
        return _TRUMP_BASE + (Rank.ACE + 2 if card.suit == trump else Rank.ACE + 1)
    return _TRUMP_BASE + int(card.rank)


def trick_power(card: Card, trump: Suit | None, led: Suit) -> int:
    """How strongly ``card`` bids for a trick whose led (effective) suit is ``led``.

    Trumps beat everything; a card of the led suit ranks by its rank
    (A K Q J 10 9); any other card cannot win and has power 0.
    """
    if trump is not None and is_trump(card, trump):
        return trump_strength(card, trump)
    if effective_suit(card, trump) == led:
        return int(card.rank)
    return 0


def trick_winner_index(cards: Sequence[Card], trump: Suit | None) -> int:
    """Index in ``cards`` (in play order) of the card that takes the trick."""
    if not cards:
        raise ValueError("a trick needs at least one card")
    led = effective_suit(cards[0], trump)
    powers = [trick_power(c, trump, led) for c in cards]
    return max(range(len(cards)), key=powers.__getitem__)
