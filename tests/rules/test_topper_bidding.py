"""Topper deals and bidding: who bids when, what a bid may be, throw-ins, who names trump.

Also the refusals that do not depend on the cards: turn, phase, malformed
actions and deals, actions after the end. Every refusal is checked for its
exact class, seat and rule id, and for leaving the state as it was.
"""

from collections.abc import Iterator
from typing import Any

import pytest

from p2pcards.cards import Card, Rank, Suit
from p2pcards.rules.errors import BadAction, MatchOver, NotYourTurn, RuleError, WrongPhase
from p2pcards.rules.topper import (
    BadDeal,
    BadTrumpSuit,
    Bid,
    BiddingWon,
    BidMade,
    BidNotHigher,
    BidOutOfRange,
    BidPassed,
    ConfigError,
    HandDealt,
    NameTrump,
    NotTheBidder,
    PassBid,
    Phase,
    Play,
    ThrownIn,
    TopperConfig,
    TopperState,
    TrumpNamed,
    faces_for_hands,
)

HANDS = (
    "JS JC AS KS AH 9D",
    "QS 10S 9S KH QH 9C",
    "AC KC QC 10C 9H 10D",
    "AD KD QD JD JH 10H",
)


def hands(*texts: str) -> list[list[Card]]:
    return [[Card.parse(t) for t in h.split()] for h in texts]


def dealt(dealer: int = 3, config: TopperConfig | None = None) -> TopperState:
    state = TopperState.new(config or TopperConfig(), dealer)
    state.deal(faces_for_hands(hands(*HANDS)))
    return state


def phase_of(state: TopperState) -> Phase:
    """The phase now (read through a call: mypy keeps an earlier assert's narrowing
    of ``state.phase`` across ``apply``, which changes it)."""
    return state.phase


def refused(state: TopperState, action: object, cls: type[RuleError], seat: int | None, rule: str) -> RuleError:
    """Assert ``action`` (perhaps no action at all) is refused exactly so, by check
    and by apply, with no change."""
    before = state.copy()
    with pytest.raises(cls) as checked:
        state.check(action)  # anything may arrive
    with pytest.raises(cls) as applied:
        state.apply(action)
    assert type(applied.value) is cls and type(checked.value) is cls
    assert applied.value.seat == seat
    assert applied.value.rule == rule
    assert state == before
    return applied.value


def test_new_match_awaits_first_deal_with_the_drawn_dealer() -> None:
    state = TopperState.new(TopperConfig(), 2)
    assert state.phase is Phase.DEAL and state.awaiting_deal
    assert state.dealer == 2 and state.to_act is None and state.outcome is None
    assert state.scores == (0, 0, 0, 0)


def test_slot_p_goes_to_seat_p_mod_4() -> None:
    state = dealt()
    faces = faces_for_hands(hands(*HANDS))
    for seat in range(4):
        assert state.hand(seat) == tuple((p, faces[p]) for p in range(seat, 24, 4))


def test_bidding_starts_left_of_dealer() -> None:
    state = TopperState.new(TopperConfig(), 2)
    events = state.deal(faces_for_hands(hands(*HANDS)))
    assert events == (HandDealt(hand=1, first=3, dealer=2),)
    assert state.phase is Phase.BIDDING and state.to_act == 3


def test_bidding_goes_once_around_the_table_clockwise() -> None:
    state = dealt(dealer=1)
    order = []
    for _ in range(3):
        assert state.to_act is not None
        order.append(state.to_act)
        state.apply(PassBid(state.to_act))
    assert state.to_act is not None
    order.append(state.to_act)
    assert order == [2, 3, 0, 1]  # the dealer bids last


def test_bid_must_be_strictly_higher() -> None:
    state = dealt(dealer=3)
    state.apply(Bid(0, 2))
    refused(state, Bid(1, 2), BidNotHigher, 1, "topper.bid-not-higher")
    refused(state, Bid(1, 1), BidNotHigher, 1, "topper.bid-not-higher")
    assert state.apply(Bid(1, 3)) == (BidMade(1, 3),)
    assert state.high_bid == 3 and state.bidder == 1


@pytest.mark.parametrize("tricks", [0, 7, -1, True, 2.0, "3", None])
def test_bid_outside_one_to_six_is_out_of_range(tricks: object) -> None:
    state = dealt(dealer=3)
    refused(state, Bid(0, tricks), BidOutOfRange, 0, "topper.bid-range")  # type: ignore[arg-type]


def test_bid_range_follows_config() -> None:
    state = dealt(dealer=3, config=TopperConfig(min_bid=2, max_bid=4))
    refused(state, Bid(0, 1), BidOutOfRange, 0, "topper.bid-range")
    refused(state, Bid(0, 5), BidOutOfRange, 0, "topper.bid-range")
    assert tuple(state.legal_actions()) == (PassBid(0), Bid(0, 2), Bid(0, 3), Bid(0, 4))


def test_legal_bids_are_pass_and_every_higher_bid() -> None:
    state = dealt(dealer=3)
    assert tuple(state.legal_actions()) == (PassBid(0),) + tuple(Bid(0, t) for t in range(1, 7))
    state.apply(Bid(0, 4))
    assert tuple(state.legal_actions()) == (PassBid(1), Bid(1, 5), Bid(1, 6))


def test_all_four_pass_throws_in_and_next_dealer_deals() -> None:
    state = dealt(dealer=3)
    for seat in (0, 1, 2):
        assert state.apply(PassBid(seat)) == (BidPassed(seat),)
    events = state.apply(PassBid(3))
    assert events == (BidPassed(3), ThrownIn(hand=1, dealer=3, next_dealer=0))
    assert state.phase is Phase.DEAL and state.awaiting_deal and state.to_act is None
    assert state.dealer == 0
    assert state.scores == (0, 0, 0, 0) and state.hands_scored == 0


def test_thrown_in_cards_leave_play_unseen() -> None:
    state = dealt(dealer=3)
    for seat in (0, 1, 2, 3):
        state.apply(PassBid(seat))
    assert state.hand_sizes == (0, 0, 0, 0)
    assert all(state.hand(s) == () for s in range(4))
    assert state.played_cards == ()


def test_after_throw_in_bidding_starts_left_of_the_new_dealer() -> None:
    state = dealt(dealer=3)
    for seat in (0, 1, 2, 3):
        state.apply(PassBid(seat))
    events = state.deal(faces_for_hands(hands(*HANDS)))
    assert events == (HandDealt(hand=2, first=1, dealer=0),)
    assert state.to_act == 1 and state.bids == ()


def test_highest_bidder_names_trump_and_leads() -> None:
    state = dealt(dealer=3)
    state.apply(Bid(0, 1))
    state.apply(Bid(1, 2))
    state.apply(PassBid(2))
    assert state.apply(PassBid(3)) == (BidPassed(3), BiddingWon(1, 2))
    assert state.phase is Phase.TRUMP and state.to_act == 1
    assert tuple(state.legal_actions()) == tuple(NameTrump(1, s) for s in Suit)
    assert state.apply(NameTrump(1, Suit.HEARTS)) == (
        TrumpNamed(1, Suit.HEARTS, Card(Rank.JACK, Suit.DIAMONDS)),)
    assert phase_of(state) is Phase.PLAY and state.trump is Suit.HEARTS and state.to_act == 1


def test_dealer_may_outbid_last() -> None:
    state = dealt(dealer=3)
    state.apply(Bid(0, 1))
    state.apply(PassBid(1))
    state.apply(Bid(2, 3))
    state.apply(Bid(3, 4))
    assert state.bidder == 3 and state.phase is Phase.TRUMP and state.to_act == 3


def test_bidding_closes_at_once_on_the_maximum_bid() -> None:
    state = dealt(dealer=3)
    state.apply(PassBid(0))
    assert state.apply(Bid(1, 6)) == (BidMade(1, 6), BiddingWon(1, 6))
    assert state.phase is Phase.TRUMP and state.to_act == 1
    assert state.bids == ((0, None), (1, 6))


def test_trump_named_by_a_seat_that_is_not_the_bidder_is_refused() -> None:
    state = dealt(dealer=3)
    state.apply(Bid(0, 2))
    for seat in (1, 2, 3):
        state.apply(PassBid(seat))
    err = refused(state, NameTrump(2, Suit.SPADES), NotTheBidder, 2, "topper.trump-not-bidder")
    assert isinstance(err, NotYourTurn)


@pytest.mark.parametrize("suit", [3, "S", None, Rank.ACE])
def test_trump_must_be_one_of_the_four_suits(suit: object) -> None:
    state = dealt(dealer=3)
    state.apply(Bid(0, 2))
    for seat in (1, 2, 3):
        state.apply(PassBid(seat))
    refused(state, NameTrump(0, suit), BadTrumpSuit, 0, "topper.trump-suit")  # type: ignore[arg-type]


def test_bid_out_of_turn_is_refused() -> None:
    state = dealt(dealer=3)
    refused(state, Bid(2, 1), NotYourTurn, 2, "turn")
    refused(state, PassBid(1), NotYourTurn, 1, "turn")


def test_actions_of_another_phase_are_refused() -> None:
    state = dealt(dealer=3)
    refused(state, NameTrump(0, Suit.SPADES), WrongPhase, 0, "phase")
    refused(state, Play(0, 0, Card.parse("JS")), WrongPhase, 0, "phase")
    state.apply(Bid(0, 2))
    for seat in (1, 2, 3):
        state.apply(PassBid(seat))
    refused(state, Bid(0, 3), WrongPhase, 0, "phase")
    state.apply(NameTrump(0, Suit.SPADES))
    refused(state, PassBid(0), WrongPhase, 0, "phase")
    refused(state, NameTrump(0, Suit.CLUBS), WrongPhase, 0, "phase")


def test_action_before_the_deal_is_wrong_phase() -> None:
    state = TopperState.new(TopperConfig(), 0)
    refused(state, PassBid(1), WrongPhase, 1, "phase")


def test_deal_when_none_is_awaited_is_wrong_phase() -> None:
    state = dealt()
    before = state.copy()
    with pytest.raises(WrongPhase) as err:
        state.deal(faces_for_hands(hands(*HANDS)))
    assert err.value.seat is None and err.value.rule == "deal.not-awaited"
    assert state == before


def _bad_deals() -> Iterator[object]:
    good = faces_for_hands(hands(*HANDS))
    yield good[:23]
    yield good + [None]
    yield [good[0]] + good[:-1]  # a card twice
    yield good[:5] + ["QS"] + good[6:]
    yield good[:5] + [Card.parse("2C")] + good[6:]
    yield "JS" * 24
    yield None


@pytest.mark.parametrize("faces", list(_bad_deals()))
def test_malformed_deal_is_refused(faces: object) -> None:
    state = TopperState.new(TopperConfig(), 0)
    before = state.copy()
    with pytest.raises(BadDeal) as err:
        state.deal(faces)  # type: ignore[arg-type]
    assert err.value.seat is None and err.value.rule == "deal.bad"
    assert state == before


def test_deal_of_unknown_faces_is_accepted() -> None:
    state = TopperState.new(TopperConfig(), 0)
    state.deal([None] * 24)
    assert state.phase is Phase.BIDDING
    assert all(face is None for s in range(4) for _, face in state.hand(s))


def test_something_that_is_not_an_action_is_malformed() -> None:
    state = dealt(dealer=3)
    refused(state, object(), BadAction, None, "action.malformed")
    refused(state, ("bid", 0, 1), BadAction, None, "action.malformed")


@pytest.mark.parametrize("seat", [4, -1, None, "0", True])
def test_action_from_no_seat_is_malformed(seat: object) -> None:
    state = dealt(dealer=3)
    refused(state, PassBid(seat), BadAction, None, "action.malformed")  # type: ignore[arg-type]


def test_actions_and_deals_after_the_match_are_refused() -> None:
    state = TopperState.new(TopperConfig(deal_limit=1), 0)
    state.deal(faces_for_hands(hands(*HANDS)))
    for seat in (1, 2, 3, 0):
        state.apply(PassBid(seat))
    assert state.phase is Phase.MATCH_OVER
    refused(state, PassBid(1), MatchOver, 1, "match.over")
    with pytest.raises(MatchOver) as err:
        state.deal(faces_for_hands(hands(*HANDS)))
    assert err.value.seat is None
    assert tuple(state.legal_actions()) == ()


@pytest.mark.parametrize("kwargs", [
    dict(seats=1), dict(hand_size=0), dict(hand_size=5), dict(min_bid=0), dict(max_bid=7),
    dict(min_bid=4, max_bid=3), dict(target_score=0), dict(deal_limit=0), dict(deal_limit=2.5),
    dict(deck=tuple(Card.parse(c) for c in ["AS"] * 24)),
])
def test_unplayable_config_is_refused(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        TopperConfig(**kwargs)


def test_config_defaults_follow_the_rules() -> None:
    cfg = TopperConfig()
    assert (cfg.target_score, cfg.seats, cfg.hand_size, cfg.min_bid, cfg.max_bid) == (21, 4, 6, 1, 6)
    assert len(cfg.deck) == 24 and {c.rank for c in cfg.deck} == {
        Rank.NINE, Rank.TEN, Rank.JACK, Rank.QUEEN, Rank.KING, Rank.ACE}
    assert cfg.deal_limit == 100 and cfg.max_steps_per_deal == 30


@pytest.mark.parametrize("dealer", [4, -1, None])
def test_new_match_needs_a_dealer_at_the_table(dealer: int | None) -> None:
    with pytest.raises(ConfigError):
        TopperState.new(TopperConfig(), dealer)  # type: ignore[arg-type]  # None among them
