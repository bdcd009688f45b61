"""Topper scoring and the end of a match: points per trick, the bidder's fall, the target, ties, the deal limit."""

import random
from collections.abc import Callable, Sequence

import pytest

from p2pcards.cards import Card, Suit
from p2pcards.rules.topper import (
    Bid,
    HandDealt,
    HandScored,
    MatchEnded,
    NameTrump,
    PassBid,
    Phase,
    Termination,
    ThrownIn,
    TieContinues,
    TopperConfig,
    TopperEvent,
    TopperState,
    faces_for_hands,
)
from tests.rules.expect import known

STRONG_SEAT_0 = ("JS JC AS KS AH 9D", "QS 10S 9S KH QH 9C",
                 "AC KC QC 10C 9H 10D", "AD KD QD JD JH 10H")


def faces(hand_texts: Sequence[str] = STRONG_SEAT_0) -> list[Card]:
    return known(faces_for_hands([[Card.parse(t) for t in h.split()] for h in hand_texts]))


def play_out(state: TopperState, limit: int = 30) -> list[TopperEvent]:
    """Play the current hand to its end, every seat taking its first legal card."""
    events: list[TopperEvent] = []
    for _ in range(limit):
        if state.phase is not Phase.PLAY:
            return events
        events.extend(state.apply(next(state.legal_actions())))
    raise AssertionError("hand did not end")


def scored_hand(bid: int, config: TopperConfig | None = None,
                dealer: int = 3) -> tuple[TopperState, HandScored, list[TopperEvent]]:
    state = TopperState.new(config or TopperConfig(), dealer)
    state.deal(faces())
    bidder = (dealer + 1) % 4
    state.apply(Bid(bidder, bid))
    while state.phase is Phase.BIDDING:
        assert state.to_act is not None
        state.apply(PassBid(state.to_act))
    state.apply(NameTrump(bidder, Suit.SPADES))
    events = play_out(state)
    return state, next(e for e in events if isinstance(e, HandScored)), events


def test_each_trick_scores_one_point_for_every_non_bidder() -> None:
    _, scored, _ = scored_hand(1)
    assert sum(scored.tricks) == 6
    for seat in (1, 2, 3):
        assert scored.changes[seat] == scored.tricks[seat]


def test_bidder_who_makes_his_bid_scores_every_trick_he_took() -> None:
    state, scored, _ = scored_hand(1)
    assert scored.bidder == 0 and scored.made
    assert scored.tricks[0] > 1  # over-tricks count too
    assert scored.changes[0] == scored.tricks[0]
    assert state.scores == scored.changes == scored.scores


def test_bidder_short_scores_minus_bid() -> None:
    # Seat 1 bids six with QS 10S 9S: the Jacks and the Ace are elsewhere.
    state, scored, _ = scored_hand(6, dealer=0)
    assert scored.bidder == 1 and scored.bid == 6
    assert scored.tricks[1] < 6 and not scored.made
    assert scored.changes[1] == -6 and state.scores[1] == -6
    for seat in (0, 2, 3):
        assert scored.changes[seat] == scored.tricks[seat]


def test_deal_moves_one_seat_left_after_a_scored_hand() -> None:
    state, _, _ = scored_hand(1, dealer=3)
    assert state.phase is Phase.DEAL and state.awaiting_deal and state.dealer == 0
    events = state.deal(faces())
    assert isinstance(events[0], HandDealt)
    assert events[0].first == 1 and events[0].hand == 2


def test_cards_of_the_last_hand_stay_visible_until_the_next_deal() -> None:
    state, _, _ = scored_hand(1)
    assert len(state.tricks) == 6 and len(state.played_cards) == 24
    state.deal(faces())
    assert state.tricks == () and state.played_cards == () and state.tricks_taken == (0, 0, 0, 0)  # type: ignore[comparison-overlap]  # deal() emptied them


def test_no_one_wins_below_the_target() -> None:
    state, scored, events = scored_hand(1)
    assert max(scored.scores) < 21
    assert state.outcome is None and not any(isinstance(e, MatchEnded) for e in events)


def test_first_seat_at_the_target_at_the_end_of_a_hand_wins() -> None:
    state, scored, events = scored_hand(1, config=TopperConfig(target_score=3))
    top = max(scored.scores)
    assert top >= 3 and scored.scores.count(top) == 1
    assert state.phase is Phase.MATCH_OVER and state.to_act is None and not state.awaiting_deal
    outcome = state.outcome
    assert outcome is not None
    assert outcome.termination is Termination.TARGET_REACHED
    assert outcome.winner == scored.scores.index(top) and outcome.winners == (outcome.winner,)
    assert outcome.scores == scored.scores and outcome.hands == 1
    assert events[-1] == MatchEnded(outcome)


# ------------------------------------------------------- searched situations

def first_hand_where(config: TopperConfig, wanted: Callable[[HandScored], bool],
                     seeds: int = 3000) -> tuple[TopperState, HandScored, tuple[TopperEvent, ...]]:
    """Play seeded random matches until a scored hand satisfies ``wanted(scored)``."""
    for seed in range(seeds):
        rng = random.Random(seed)
        state = TopperState.new(config, seed % 4)
        for _ in range(config.max_steps_per_deal * (config.deal_limit or 100)):
            if state.outcome is not None:
                break
            if state.awaiting_deal:
                deck = list(config.deck)
                rng.shuffle(deck)
                state.deal(deck)
                continue
            events = state.apply(rng.choice(tuple(state.legal_actions())))
            scored = [e for e in events if isinstance(e, HandScored)]
            if scored and wanted(scored[0]):
                return state, scored[0], events
    raise AssertionError("no such hand found")


def leaders(scores: Sequence[int]) -> tuple[int, list[int]]:
    top = max(scores)
    return top, [s for s, v in enumerate(scores) if v == top]


def crossing_hand(standings: tuple[int, ...]) -> tuple[TopperState, list[TopperEvent]]:
    """One position: seat 0 bid 2 with spades trump over the strong hands; the
    hand played out takes tricks (5, 0, 1, 0) and scores them on ``standings``."""
    hands = [[Card.parse(t) for t in h.split()] for h in STRONG_SEAT_0]
    state = TopperState.position(first=3, hands=hands, standings=standings, deals=7,
                                 bidder=0, bid=2, trump=Suit.SPADES)
    assert state.phase is Phase.PLAY and state.to_act == 0 and state.hand_number == 8
    events = play_out(state)
    scored = next(e for e in events if isinstance(e, HandScored))
    assert scored.tricks == (5, 0, 1, 0) and scored.made
    return state, events


def test_highest_score_wins_when_two_cross_the_target_in_the_same_hand() -> None:
    state, _ = crossing_hand((18, 0, 20, 0))
    assert state.scores == (23, 0, 21, 0)
    assert state.outcome is not None
    assert state.outcome.termination is Termination.TARGET_REACHED
    assert state.outcome.winners == (0,) and state.outcome.hands == 8


def test_bidder_wins_a_tie_at_the_top() -> None:
    state, _ = crossing_hand((17, 0, 21, 0))
    assert state.scores == (22, 0, 22, 0)
    assert state.outcome is not None
    assert state.outcome.termination is Termination.BIDDER_WINS_TIE
    assert state.outcome.winner == 0


def test_tie_at_the_top_without_the_bidder_plays_another_hand() -> None:
    state, events = crossing_hand((10, 22, 21, 0))
    assert state.scores == (15, 22, 22, 0)
    assert TieContinues((1, 2), 22) in events
    assert state.outcome is None and state.awaiting_deal and state.dealer == 0


def test_highest_score_wins_when_several_reach_the_target_in_random_play() -> None:
    cfg = TopperConfig(target_score=4)

    def wanted(h: HandScored) -> bool:
        top, lead = leaders(h.scores)
        return len(lead) == 1 and sum(v >= 4 for v in h.scores) >= 2

    state, scored, _ = first_hand_where(cfg, wanted)
    top, lead = leaders(scored.scores)
    assert state.outcome is not None
    assert state.outcome.termination is Termination.TARGET_REACHED
    assert state.outcome.winner == lead[0]


# ------------------------------------------------------------------ deal limit

def throw_in(state: TopperState) -> tuple[TopperEvent, ...]:
    state.deal(faces())
    events: tuple[TopperEvent, ...] = ()
    while state.phase is Phase.BIDDING:
        assert state.to_act is not None
        events = state.apply(PassBid(state.to_act))
    return events


def test_thrown_in_deals_count_toward_the_deal_limit() -> None:
    state = TopperState.new(TopperConfig(deal_limit=3), 0)
    for _ in range(2):
        assert isinstance(throw_in(state)[-1], ThrownIn)
    events = throw_in(state)
    assert isinstance(events[-1], MatchEnded)
    outcome = state.outcome
    assert outcome is not None
    assert outcome.termination is Termination.DEAL_LIMIT
    assert outcome.winners == (0, 1, 2, 3) and outcome.winner is None and outcome.hands == 0


def test_deal_limit_gives_the_match_to_the_highest_score() -> None:
    state = TopperState.new(TopperConfig(deal_limit=2), 3)
    state.deal(faces())
    state.apply(Bid(0, 1))
    for seat in (1, 2, 3):
        state.apply(PassBid(seat))
    state.apply(NameTrump(0, Suit.SPADES))
    play_out(state)
    scores = state.scores
    throw_in(state)
    top, lead = leaders(scores)
    assert state.outcome is not None
    assert state.outcome.termination is Termination.DEAL_LIMIT
    assert state.outcome.winners == tuple(lead) and state.outcome.scores == scores


def test_deal_limit_tie_goes_to_the_bidder_if_among_the_tied() -> None:
    cfg = TopperConfig(target_score=21, deal_limit=1)

    def wanted(h: HandScored) -> bool:
        top, lead = leaders(h.scores)
        return len(lead) >= 2 and h.bidder in lead

    state, scored, _ = first_hand_where(cfg, wanted)
    assert state.outcome is not None
    assert state.outcome.termination is Termination.DEAL_LIMIT
    assert state.outcome.winners == (scored.bidder,)


def test_deal_limit_tie_without_the_bidder_is_shared() -> None:
    cfg = TopperConfig(target_score=21, deal_limit=1)

    def wanted(h: HandScored) -> bool:
        top, lead = leaders(h.scores)
        return len(lead) >= 2 and h.bidder not in lead

    state, scored, _ = first_hand_where(cfg, wanted)
    assert state.outcome is not None
    assert state.outcome.winners == tuple(leaders(scored.scores)[1])
    assert state.outcome.winner is None


def test_without_a_deal_limit_throw_ins_go_on() -> None:
    state = TopperState.new(TopperConfig(deal_limit=None), 0)
    for _ in range(150):
        throw_in(state)
    assert state.outcome is None and state.awaiting_deal and state.hand_number == 150


@pytest.mark.parametrize("limit", [1, 5])
def test_match_never_outlasts_the_deal_limit(limit: int) -> None:
    state = TopperState.new(TopperConfig(deal_limit=limit), 0)
    for _ in range(limit):
        throw_in(state)
    assert state.phase is Phase.MATCH_OVER and state.hand_number == limit
