"""RULES.md "Which rule when several are broken", for Topper's engine: an action
that breaks several rules gets the first id in the documented order (a verdict is
confirmed only on an exact id, so every implementation must pick the same one).
Bluff's order is pinned on the wire by protocol/vectors/verdicts.json ('several').
"""

from __future__ import annotations

import pytest

from p2pcards.cards import Card, Suit
from p2pcards.rules.errors import RuleError
from p2pcards.rules.topper import (
    Bid,
    NameTrump,
    PassBid,
    Play,
    TopperConfig,
    TopperState,
    faces_for_hands,
)

HANDS = ("JS JC AS KS AH 9D", "QS 10S 9S KH QH 9C", "AC KC QC 10C 9H 10D", "AD KD QD JD JH 10H")


def _dealt() -> TopperState:
    """Dealer 3: seat 0 bids first."""
    state = TopperState.new(TopperConfig(), 3)
    state.deal(faces_for_hands([[Card.parse(t) for t in h.split()] for h in HANDS]))
    return state


def _rule(state: TopperState, action: object) -> str:
    with pytest.raises(RuleError) as refused:
        state.check(action)
    return refused.value.rule


def test_phase_comes_before_turn_and_the_actions_own_checks() -> None:
    state = _dealt()
    # Seat 2 is not to act, plays in the bidding, a slot of another seat.
    assert _rule(state, Play(2, 1, Card.parse("QS"))) == "phase"


def test_turn_comes_before_a_bids_range() -> None:
    state = _dealt()
    assert _rule(state, Bid(1, 9)) == "turn"


def test_a_bids_range_comes_before_topping_the_high_bid() -> None:
    state = _dealt()
    state.apply(Bid(0, 3))
    assert _rule(state, Bid(1, 0)) == "topper.bid-range"


def test_trump_by_another_seat_is_not_the_bidder_before_its_suit() -> None:
    state = _dealt()
    state.apply(Bid(0, 2))
    for seat in (1, 2, 3):
        state.apply(PassBid(seat))
    assert _rule(state, NameTrump(1, Suit.SPADES)) == "topper.trump-not-bidder"


def test_a_play_of_a_slot_not_held_comes_before_what_the_card_is() -> None:
    state = _dealt()
    state.apply(Bid(0, 2))
    for seat in (1, 2, 3):
        state.apply(PassBid(seat))
    state.apply(NameTrump(0, Suit.SPADES))
    leader = state.to_act
    assert leader is not None
    # A slot of another seat, with a card of another seat's hand.
    other = (leader + 1) % 4
    assert _rule(state, Play(leader, other, Card.parse("AD"))) == "card.not-held"
