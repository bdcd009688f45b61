"""Topper's card order under trump: the Big and Little Jack, plain suits, trick winners."""

import pytest

from p2pcards.cards import Card, Suit
from p2pcards.rules.topper.order import big_jack, effective_suit, is_trump, little_jack, trick_power, trick_winner_index


def cards(text: str) -> list[Card]:
    return [Card.parse(t) for t in text.split()]


@pytest.mark.parametrize("trump, jack", [
    (Suit.SPADES, "JC"), (Suit.CLUBS, "JS"), (Suit.HEARTS, "JD"), (Suit.DIAMONDS, "JH"),
])
def test_little_jack_is_the_jack_of_the_same_colour(trump: Suit, jack: str) -> None:
    assert little_jack(trump) == Card.parse(jack)
    assert big_jack(trump) == Card(Card.parse(jack).rank, trump)


def test_little_jack_belongs_to_trump_suit() -> None:
    assert effective_suit(Card.parse("JC"), Suit.SPADES) == Suit.SPADES
    assert is_trump(Card.parse("JC"), Suit.SPADES)


def test_other_jacks_keep_their_printed_suit() -> None:
    assert effective_suit(Card.parse("JH"), Suit.SPADES) == Suit.HEARTS
    assert effective_suit(Card.parse("JD"), Suit.SPADES) == Suit.DIAMONDS
    assert effective_suit(Card.parse("JC"), None) == Suit.CLUBS


def test_trump_order_is_big_jack_little_jack_a_k_q_10_9() -> None:
    order = cards("JS JC AS KS QS 10S 9S")
    powers = [trick_power(c, Suit.SPADES, Suit.HEARTS) for c in order]
    assert powers == sorted(powers, reverse=True)
    assert len(set(powers)) == len(powers)


def test_plain_suit_order_is_a_k_q_j_10_9() -> None:
    order = cards("AH KH QH JH 10H 9H")
    powers = [trick_power(c, Suit.SPADES, Suit.HEARTS) for c in order]
    assert powers == sorted(powers, reverse=True)
    assert len(set(powers)) == len(powers)


def test_lowest_trump_beats_highest_card_of_led_suit() -> None:
    assert trick_winner_index(cards("AH 9S KH QH"), Suit.SPADES) == 1


def test_highest_trump_wins_when_several_trumps_are_played() -> None:
    assert trick_winner_index(cards("AH AS JC KS"), Suit.SPADES) == 2
    assert trick_winner_index(cards("JC AS JS KS"), Suit.SPADES) == 2


def test_without_trump_highest_card_of_led_suit_wins() -> None:
    assert trick_winner_index(cards("10H AD KH 9H"), Suit.SPADES) == 2


def test_card_of_another_plain_suit_cannot_win() -> None:
    assert trick_power(Card.parse("AD"), Suit.SPADES, Suit.HEARTS) == 0
    assert trick_winner_index(cards("9H AD AC KD"), Suit.SPADES) == 0


def test_little_jack_led_makes_a_trump_trick() -> None:
    # The Jack of clubs led with spades trump: a club does not follow, a spade does.
    assert trick_winner_index(cards("JC AC 9S KC"), Suit.SPADES) == 0
    assert trick_winner_index(cards("JC AC JS KC"), Suit.SPADES) == 2


def test_jack_of_printed_suit_led_is_not_little_jack_when_trump_differs() -> None:
    # Hearts trump: the Jack of clubs is a plain club and ranks between Q and 10.
    assert trick_winner_index(cards("JC 10C QC 9C"), Suit.HEARTS) == 2
