"""Every rule of Bluff (rules.md and RULES.md), one test per decision.

The table is stacked so each test knows the faces: seat 0 holds the four
aces, kings and queens and the jack of spades; seat 1 the 2s, 3s, 4s and
5♠; seat 2 the 6s, 7s, 8s and 9♠; seat 3 the rest (5♣ 5♦ 5♥ 9♣ 9♦ 9♥
10♣ 10♦ 10♥ 10♠ J♣ J♦ J♥). ``slot(seat, i)`` is the seat's ``i``-th card.
"""

from __future__ import annotations

import pytest

from p2pcards.cards import FULL_DECK, Card, Rank
from p2pcards.rules.bluff import (
    Action,
    BluffConfig,
    BluffState,
    Challenge,
    Challenged,
    ChallengeResolved,
    DealWon,
    Discard,
    Discarded,
    Event,
    HandDealt,
    MatchEnded,
    Pass,
    Passed,
    Phase,
    PlayerOut,
    Reveal,
    RoundEnded,
    StakeReturned,
    Termination,
    faces_for_hands,
)
from p2pcards.rules.bluff.errors import StakeAboveStack, StakeTooLow
from tests.rules.expect import known


def cards(text: str) -> list[Card]:
    return [Card.parse(t) for t in text.split()]


HANDS = {
    0: cards("AS AH AD AC KS KH KD KC QS QH QD QC JS"),
    1: cards("2S 2H 2D 2C 3S 3H 3D 3C 4S 4H 4D 4C 5S"),
    2: cards("6S 6H 6D 6C 7S 7H 7D 7C 8S 8H 8D 8C 9S"),
}
FACES = faces_for_hands(HANDS, FULL_DECK)


def slot(seat: int, index: int) -> int:
    return seat + 4 * index


def slots(seat: int, *indexes: int) -> tuple[int, ...]:
    return tuple(slot(seat, i) for i in indexes)


def table(config: BluffConfig | None = None, leader: int = 0) -> BluffState:
    state = BluffState.new(config or BluffConfig(), leader)
    state.deal(FACES)
    return state


def min_stake(state: BluffState) -> int:
    """The least the seat to act may stake now (some seat is to act)."""
    opts = state.options()
    assert opts is not None
    return opts.min_stake


def play(state: BluffState, *actions: Action) -> list[Event]:
    events: list[Event] = []
    for action in actions:
        events.extend(state.apply(action))
    return events


def reveal_last(state: BluffState) -> Reveal:
    claim = state.last_claim
    assert claim is not None
    return Reveal(claim.seat, tuple(known(state.face(s) for s in claim.slots)))


def others_pass(state: BluffState) -> list[Event]:
    """Everyone after the discarder passes until the turn comes back to him."""
    events: list[Event] = []
    for _ in range(3):
        if state.phase is not Phase.RESPOND:
            break
        assert state.to_act is not None
        events.extend(state.apply(Pass(state.to_act)))
    return events


def empty_seat0_but_the_jack(state: BluffState) -> None:
    """Seat 0 leads its aces, kings and queens honestly; all pass each time (90 to the box)."""
    for first, rank in ((0, Rank.ACE), (4, Rank.KING), (8, Rank.QUEEN)):
        play(state, Discard(0, slots(0, first, first + 1, first + 2, first + 3), 10, rank))
        others_pass(state)


def chips_total(state: BluffState) -> int:
    return sum(state.stacks) + state.safe_box + state.table_stake


# --- table and chips -------------------------------------------------------------

def test_config_defaults_follow_rules_md() -> None:
    config = BluffConfig()
    assert (config.table_price, config.starting_chips, config.pass_price, config.min_stake,
            config.deal_cap, config.max_discard) == (10, 500, 10, 10, 20, 4)


def test_config_prices_default_to_table_price() -> None:
    config = BluffConfig(table_price=25)
    assert (config.starting_chips, config.pass_price, config.min_stake) == (1250, 25, 25)


def test_config_rejects_nonsense_values() -> None:
    with pytest.raises(ValueError):
        BluffConfig(table_price=0)
    with pytest.raises(ValueError):
        BluffConfig(deal_cap=0)
    with pytest.raises(ValueError):
        BluffConfig(max_discard=0)


def test_every_player_starts_with_fifty_table_prices() -> None:
    assert BluffState.new(BluffConfig(table_price=7), 0).stacks == (350,) * 4


def test_new_match_awaits_a_deal_and_nobody_acts() -> None:
    state = BluffState.new(BluffConfig(), 2)
    assert state.awaiting_deal and state.phase is Phase.DEAL and state.to_act is None
    assert state.options() is None and list(state.legal_actions()) == []


def test_deal_gives_slot_p_to_seat_p_mod_4_thirteen_each() -> None:
    state = BluffState.new(BluffConfig(), 0)
    state.deal(FACES)
    for seat in range(4):
        assert tuple(h.slot for h in state.hand(seat)) == tuple(range(seat, 52, 4))
    assert state.face(slot(1, 0)) == Card.parse("2S")


def test_first_deal_is_led_by_the_drawn_leader() -> None:
    state = BluffState.new(BluffConfig(), 2)
    events = state.deal(FACES)
    assert events == (HandDealt(1, 2),)
    assert state.phase is Phase.LEAD and state.to_act == 2


# --- a round -----------------------------------------------------------------------

def test_lead_names_rank_and_moves_stake_onto_table() -> None:
    state = table()
    events = play(state, Discard(0, slots(0, 0, 1), 30, Rank.ACE))
    assert events == [Discarded(0, slots(0, 0, 1), Rank.ACE, 30, True)]
    assert state.stacks[0] == 470 and state.table_stake == 30
    assert state.named_rank is Rank.ACE and state.pile == slots(0, 0, 1)
    assert state.hand_sizes == (11, 13, 13, 13)


def test_leader_may_name_a_rank_he_does_not_hold() -> None:
    state = table()
    play(state, Discard(0, slots(0, 0), 10, Rank.TWO))
    assert state.named_rank is Rank.TWO and state.to_act == 1


def test_turn_passes_clockwise() -> None:
    state = table(leader=2)
    play(state, Discard(2, slots(2, 0), 10, Rank.SIX))
    assert state.to_act == 3
    play(state, Pass(3))
    assert state.to_act == 0


def test_pass_pays_pass_price_into_safe_box() -> None:
    state = table()
    play(state, Discard(0, slots(0, 0), 10, Rank.ACE))
    assert play(state, Pass(1)) == [Passed(1, 10)]
    assert state.stacks[1] == 490 and state.safe_box == 10


def test_discard_returns_previous_stake_to_its_owner() -> None:
    state = table()
    play(state, Discard(0, slots(0, 0), 20, Rank.ACE))
    events = play(state, Discard(1, slots(1, 0), 20, Rank.ACE))
    assert events[0] == StakeReturned(0, 20)
    assert state.stacks[0] == 500 and state.stacks[1] == 480 and state.table_stake == 20


def test_responder_stake_must_reach_the_current_stake() -> None:
    state = table()
    play(state, Discard(0, slots(0, 0), 40, Rank.ACE))
    with pytest.raises(StakeTooLow):
        state.check(Discard(1, slots(1, 0), 30, Rank.ACE))
    assert min_stake(state) == 40


def test_responder_may_raise_the_stake_and_the_raise_binds_the_round() -> None:
    state = table()
    play(state, Discard(0, slots(0, 0), 10, Rank.ACE), Discard(1, slots(1, 0), 60, None))
    assert state.round_stake == 60 and min_stake(state) == 60


def test_responder_may_repeat_the_named_rank_or_name_none() -> None:
    state = table()
    play(state, Discard(0, slots(0, 0), 10, Rank.ACE), Discard(1, slots(1, 0), 10, Rank.ACE),
         Discard(2, slots(2, 0), 10, None))
    assert [c.rank for c in state.claims] == [Rank.ACE] * 3


def test_discard_of_one_to_four_cards() -> None:
    state = table()
    play(state, Discard(0, slots(0, 0, 1, 2, 3), 10, Rank.ACE))
    assert state.last_claim is not None
    assert state.last_claim.count == 4


def test_failed_challenge_on_a_bluff_moves_discarder_stake_to_safe_box() -> None:
    state = table()
    play(state, Discard(0, slots(0, 4), 30, Rank.ACE), Challenge(1))
    assert state.phase is Phase.REVEAL and state.to_act == 0
    events = play(state, reveal_last(state))
    assert events[0] == ChallengeResolved(1, 0, True, (Card.parse("KS"),), 0, 30)
    assert state.safe_box == 30 and state.stacks[0] == 470 and state.table_stake == 0


def test_caught_bluffer_takes_his_cards_back_into_hand() -> None:
    state = table()
    play(state, Discard(0, slots(0, 4, 5), 10, Rank.ACE), Challenge(1))
    play(state, reveal_last(state))
    assert tuple(h.slot for h in state.hand(0)) == tuple(range(0, 52, 4))
    assert state.pile == ()


def test_caught_bluff_ends_round_and_challenger_leads() -> None:
    state = table()
    play(state, Discard(0, slots(0, 0), 10, Rank.ACE), Discard(1, slots(1, 0), 10, None),
         Challenge(2))
    events = play(state, reveal_last(state))
    assert RoundEnded(2, 1) in events
    assert state.phase is Phase.LEAD and state.to_act == 2 and state.named_rank is None
    # The earlier, accepted discard of seat 0 left play unseen.
    assert slot(0, 0) in state.out_of_play and state.round_claims == ()


def test_honest_challenge_challenger_pays_stake_to_safe_box() -> None:
    state = table()
    play(state, Discard(0, slots(0, 0, 1), 40, Rank.ACE), Challenge(1))
    events = play(state, reveal_last(state))
    assert events == [ChallengeResolved(1, 0, False, tuple(cards("AS AH")), 1, 40)]
    assert state.stacks[1] == 460 and state.safe_box == 40


def test_honest_challenge_stake_stays_and_round_goes_on_after_challenger() -> None:
    state = table()
    play(state, Discard(0, slots(0, 0, 1), 40, Rank.ACE), Challenge(1))
    play(state, reveal_last(state))
    assert state.table_stake == 40 and state.discarder == 0
    assert state.phase is Phase.RESPOND and state.to_act == 2
    assert state.named_rank is Rank.ACE and min_stake(state) == 40


def test_honest_challenge_counts_as_a_pass_for_ending_the_round() -> None:
    state = table()
    play(state, Discard(0, slots(0, 0), 10, Rank.ACE), Challenge(1))
    play(state, reveal_last(state), Pass(2))
    events = play(state, Pass(3))
    assert events[1:] == [StakeReturned(0, 10), RoundEnded(0, 1)]
    assert state.phase is Phase.LEAD and state.to_act == 0


def test_honest_challenge_by_the_last_seat_before_the_discarder_ends_the_round() -> None:
    state = table()
    play(state, Discard(0, slots(0, 0), 10, Rank.ACE), Pass(1), Pass(2), Challenge(3))
    events = play(state, reveal_last(state))
    assert events[-2:] == [StakeReturned(0, 10), RoundEnded(0, 1)]
    assert state.to_act == 0 and state.stacks[0] == 500


def test_round_ends_when_all_others_pass_and_last_discarder_leads() -> None:
    state = table()
    play(state, Discard(0, slots(0, 0), 10, Rank.ACE), Discard(1, slots(1, 0), 10, None))
    events = play(state, Pass(2), Pass(3), Pass(0))
    assert events[-2:] == [StakeReturned(1, 10), RoundEnded(1, 2)]
    assert state.phase is Phase.LEAD and state.to_act == 1 and state.stacks[1] == 500


def test_round_end_sends_the_pile_out_of_play() -> None:
    state = table()
    play(state, Discard(0, slots(0, 0, 1), 10, Rank.ACE))
    others_pass(state)
    assert state.pile == () and set(slots(0, 0, 1)) <= set(state.out_of_play)


def test_revealed_discard_stays_revealed_and_unrevealed_ones_never_are() -> None:
    state = table()
    play(state, Discard(0, slots(0, 0), 10, Rank.ACE), Discard(1, slots(1, 0), 10, None),
         Challenge(2))
    play(state, reveal_last(state))
    assert [c.revealed for c in state.claims] == [False, True]
    assert state.revealed == ((slot(1, 0), Card.parse("2S")),)


# --- running out of chips ----------------------------------------------------------

def test_player_who_cannot_pay_pass_price_pays_what_he_has_and_is_out() -> None:
    state = table(BluffConfig(starting_chips=15))
    play(state, Discard(0, slots(0, 0), 10, Rank.ACE))
    others_pass(state)
    play(state, Discard(0, slots(0, 1), 10, Rank.ACE))
    events = play(state, Pass(1))
    assert events[:2] == [Passed(1, 5), PlayerOut(1)]
    assert state.out[1] and state.stacks[1] == 0 and state.hand(1) == ()
    assert state.to_act == 2


def test_player_paying_his_last_chip_has_no_chips_and_is_out() -> None:
    state = table(BluffConfig(starting_chips=20))
    play(state, Discard(0, slots(0, 0), 10, Rank.ACE), Pass(1), Pass(2), Pass(3))
    play(state, Discard(0, slots(0, 1), 10, Rank.ACE))
    assert PlayerOut(1) in play(state, Pass(1))


def test_out_player_hand_leaves_play_unseen_and_he_is_skipped() -> None:
    state = table(BluffConfig(starting_chips=10))
    play(state, Discard(0, slots(0, 0), 10, Rank.ACE), Pass(1))
    assert set(range(1, 52, 4)) <= set(state.out_of_play)
    assert all(state.view(seat).face(slot(1, 3)) is None for seat in (0, 2, 3))
    assert state.to_act == 2


def test_losing_challenger_paying_exactly_his_stack_is_out() -> None:
    state = table(BluffConfig(starting_chips=30))
    play(state, Discard(0, slots(0, 0, 1), 30, Rank.ACE), Challenge(1))
    events = play(state, reveal_last(state))
    assert PlayerOut(1) in events
    assert state.out[1] and state.stacks[1] == 0 and state.safe_box == 30


def test_losing_challenger_who_cannot_pay_pays_what_he_has_and_is_out() -> None:
    state = table(BluffConfig(starting_chips=30))
    play(state, Discard(0, slots(0, 0), 10, Rank.ACE), Pass(1), Pass(2), Pass(3))
    # Seat 1 now has 20; seat 0 stakes 30 on two true aces.
    play(state, Discard(0, slots(0, 1, 2), 30, Rank.ACE), Challenge(1))
    events = play(state, reveal_last(state))
    assert events[:2] == [ChallengeResolved(1, 0, False, tuple(cards("AH AD")), 1, 20),
                          PlayerOut(1)]


def test_caught_bluffer_left_without_chips_is_out() -> None:
    state = table(BluffConfig(starting_chips=20))
    play(state, Discard(0, slots(0, 4), 20, Rank.TWO), Challenge(1))
    events = play(state, reveal_last(state))
    assert PlayerOut(0) in events and state.out[0]
    assert state.hand(0) == () and state.to_act == 1


def test_a_stake_on_the_table_keeps_an_empty_stack_in_the_match() -> None:
    state = table(BluffConfig(starting_chips=20))
    play(state, Discard(0, slots(0, 0), 20, Rank.ACE), Pass(1))
    assert state.stacks[0] == 0 and not state.out[0]


def test_seat_out_of_the_match_is_dealt_and_his_cards_leave_play_at_once() -> None:
    state = table(BluffConfig(starting_chips=10))
    play(state, Discard(0, slots(0, 0), 10, Rank.ACE), Pass(1))  # seat 1 out
    state2 = state.copy()
    for _ in range(60):
        if state2.awaiting_deal or state2.outcome is not None:
            break
        opts = state2.options()
        assert opts is not None
        if opts.must_lead:
            state2.apply(Discard(opts.seat, opts.hand[:1], opts.min_stake, Rank.ACE))
        else:
            state2.apply(Discard(opts.seat, opts.hand[:1], opts.min_stake, None)
                         if opts.can_discard else Pass(opts.seat))
    assert state2.awaiting_deal
    state2.deal(FACES)
    assert state2.hand(1) == () and set(range(1, 52, 4)) <= set(state2.out_of_play)
    assert state2.hand_sizes.count(13) == 3


# --- short stacks --------------------------------------------------------------------

def short_leader_table() -> BluffState:
    """Seat 1, left with 5 chips (< T = 10), must lead a fresh deal."""
    state = BluffState.position(BluffConfig(starting_chips=15), first=1, hands=HANDS,
                                standings=(15, 5, 25, 15), deals=3)
    assert state.to_act == 1 and state.stacks[1] == 5 and state.phase is Phase.LEAD
    return state


def test_leader_short_of_the_minimum_stakes_his_whole_stack() -> None:
    state = short_leader_table()
    opts = state.options()
    assert opts is not None
    assert opts.must_lead and opts.can_discard and opts.min_stake == opts.max_stake == 5
    with pytest.raises(StakeTooLow):
        state.check(Discard(1, slots(1, 0), 4, Rank.TWO))
    play(state, Discard(1, slots(1, 0), 5, Rank.TWO))
    assert state.stacks[1] == 0 and state.table_stake == 5


def test_short_leader_stake_does_not_lower_the_table_minimum() -> None:
    state = short_leader_table()
    play(state, Discard(1, slots(1, 0), 5, Rank.TWO))
    assert min_stake(state) == 10


def test_responder_who_cannot_afford_the_minimum_stake_may_not_discard() -> None:
    state = table(BluffConfig(starting_chips=15))
    play(state, Discard(0, slots(0, 0), 10, Rank.ACE), Pass(1), Pass(2), Pass(3))
    play(state, Discard(0, slots(0, 1), 10, Rank.ACE))
    opts = state.options()
    assert opts is not None
    assert opts.seat == 1 and not opts.can_discard and opts.can_pass and opts.can_challenge
    with pytest.raises(StakeAboveStack):
        state.check(Discard(1, slots(1, 0), 10, None))
    assert all(not isinstance(a, Discard) for a in state.legal_actions())


# --- winning a deal --------------------------------------------------------------------

def test_deal_won_when_empty_handed_discard_is_passed_by_all() -> None:
    state = table()
    empty_seat0_but_the_jack(state)
    play(state, Discard(0, slots(0, 12), 10, Rank.JACK), Pass(1), Pass(2))
    events = play(state, Pass(3))
    assert events[-2:] == [StakeReturned(0, 10), DealWon(0, 120)]
    assert state.stacks[0] == 620 and state.safe_box == 0 and state.awaiting_deal


def test_deal_won_when_next_player_discards_and_his_stake_returns() -> None:
    state = table()
    empty_seat0_but_the_jack(state)
    play(state, Discard(0, slots(0, 12), 10, Rank.JACK))
    events = play(state, Discard(1, slots(1, 0), 10, None))
    assert events == [StakeReturned(0, 10), Discarded(1, slots(1, 0), Rank.JACK, 10, False),
                      StakeReturned(1, 10), DealWon(0, 90)]
    assert state.stacks[1] == 470 and state.stacks[0] == 590


def test_deal_won_when_challenge_finds_the_last_discard_honest() -> None:
    state = table()
    empty_seat0_but_the_jack(state)
    play(state, Discard(0, slots(0, 12), 10, Rank.JACK), Challenge(1))
    events = play(state, reveal_last(state))
    assert events[-2:] == [StakeReturned(0, 10), DealWon(0, 100)]


def test_empty_handed_bluffer_caught_takes_cards_back_and_deal_goes_on() -> None:
    state = table()
    empty_seat0_but_the_jack(state)
    play(state, Discard(0, slots(0, 12), 10, Rank.TWO), Challenge(1))
    play(state, reveal_last(state))
    assert [h.slot for h in state.hand(0)] == [slot(0, 12)] and state.phase is Phase.LEAD and state.to_act == 1


def test_empty_handed_discarder_is_never_asked_to_act() -> None:
    state = table()
    empty_seat0_but_the_jack(state)
    play(state, Discard(0, slots(0, 12), 10, Rank.JACK), Challenge(1))
    play(state, reveal_last(state))
    # The honest reveal accepted the discard: the deal is over, nobody waits on seat 0.
    assert state.to_act is None and state.awaiting_deal


def test_deal_winner_leads_the_next_deal() -> None:
    state = table()
    empty_seat0_but_the_jack(state)
    play(state, Discard(0, slots(0, 12), 10, Rank.JACK))
    others_pass(state)
    assert state.leader == 0 and state.to_act is None
    assert state.deal(FACES) == (HandDealt(2, 0),) and state.to_act == 0


def test_deal_won_by_a_seat_other_than_the_first_leader_makes_him_lead() -> None:
    state = table(leader=0)
    play(state, Discard(0, slots(0, 0), 10, Rank.TWO), Challenge(1))
    play(state, reveal_last(state))  # seat 1 caught the bluff and leads
    for first in (0, 4, 8):
        play(state, Discard(1, slots(1, first, first + 1, first + 2, first + 3), 10,
                            Rank(2 + first // 4)))
        others_pass(state)
    play(state, Discard(1, slots(1, 12), 10, Rank.FIVE))
    others_pass(state)
    assert state.awaiting_deal and state.leader == 1
    state.deal(FACES)
    assert state.to_act == 1


def test_new_deal_starts_with_empty_safe_box_and_full_hands() -> None:
    state = table()
    empty_seat0_but_the_jack(state)
    play(state, Discard(0, slots(0, 12), 10, Rank.JACK))
    others_pass(state)
    state.deal(FACES)
    assert state.safe_box == 0 and state.hand_sizes == (13,) * 4 and state.claims == ()


# --- winning the match ------------------------------------------------------------------

def test_match_ends_at_once_when_one_player_has_chips_and_he_takes_everything() -> None:
    state = table(BluffConfig(starting_chips=10))
    play(state, Discard(0, slots(0, 0), 10, Rank.ACE), Pass(1), Pass(2))
    events = play(state, Pass(3))
    outcome = state.outcome
    assert outcome is not None
    assert events[-2:] == [PlayerOut(3), MatchEnded(outcome)]
    assert outcome.termination is Termination.LAST_WITH_CHIPS and outcome.winners == (0,)
    assert outcome.chips == (40, 0, 0, 0) and state.safe_box == state.table_stake == 0
    assert state.phase is Phase.MATCH_OVER and state.to_act is None


def test_deal_cap_ends_match_and_most_chips_win() -> None:
    state = table(BluffConfig(deal_cap=1))
    empty_seat0_but_the_jack(state)
    play(state, Discard(0, slots(0, 12), 10, Rank.JACK))
    events = others_pass(state)
    assert state.outcome is not None
    assert state.outcome.termination is Termination.DEAL_CAP
    assert state.outcome.winners == (0,) and state.outcome.chips == (620, 460, 460, 460)
    assert isinstance(events[-1], MatchEnded) and not state.awaiting_deal


def square_deal(state: BluffState) -> None:
    """Seat 0 (the leader) empties its hand while everybody always discards: nobody pays."""
    for index in range(4):
        count = 4 if index < 3 else 1
        picked = slots(0, *range(4 * index, 4 * index + count))
        play(state, Discard(0, picked, 10, Rank.ACE if index == 0 else None))
        play(state, Discard(1, slots(1, index), 10, None))
        if state.awaiting_deal or state.outcome is not None:
            return
        play(state, Discard(2, slots(2, index), 10, None), Discard(3, slots(3, index), 10, None))


def test_deal_cap_tie_every_tied_player_wins() -> None:
    state = table(BluffConfig(deal_cap=1))
    square_deal(state)
    assert state.outcome is not None
    assert state.outcome.termination is Termination.DEAL_CAP
    assert state.outcome.winners == (0, 1, 2, 3) and state.outcome.chips == (500,) * 4


def test_default_deal_cap_is_twenty_deals() -> None:
    state = BluffState.new(BluffConfig(), 0)
    state.deal(FACES)
    square_deal(state)
    assert state.outcome is None and state.deals_won == 1
    # Deals 2 to 19 changed nothing either: one position stands for them.
    state = BluffState.position(BluffConfig(), first=0, hands=HANDS, deals=19)
    assert state.deal_number == 20 and state.to_act == 0
    square_deal(state)
    assert state.outcome is not None
    assert state.outcome.termination is Termination.DEAL_CAP and state.outcome.deals == 20


def test_no_deal_cap_plays_on_after_deal_twenty() -> None:
    state = BluffState.new(BluffConfig(deal_cap=None), 0)
    for _ in range(21):
        state.deal(FACES)
        square_deal(state)
    assert state.outcome is None and state.awaiting_deal and state.deals_won == 21


def test_chips_are_conserved_through_challenges_passes_and_deals() -> None:
    state = table(BluffConfig(starting_chips=30))
    totals = [chips_total(state)]
    for action in (Discard(0, slots(0, 0), 10, Rank.ACE), Pass(1), Challenge(2)):
        state.apply(action)
        totals.append(chips_total(state))
    state.apply(reveal_last(state))
    totals.append(chips_total(state))
    assert set(totals) == {120}


def test_challenge_event_names_challenger_and_discarder() -> None:
    state = table()
    play(state, Discard(0, slots(0, 0), 10, Rank.ACE), Pass(1))
    assert play(state, Challenge(2)) == [Challenged(2, 0)]
