"""The coach: the normal bot's move, a reason whose numbers are right, from the seat's view alone."""

from __future__ import annotations

import itertools
import random
from math import comb

import pytest

from p2pcards.bots.coach import NoAdvice, advise, trump_count
from p2pcards.bots.registry import make_bot_factory
from p2pcards.cards import FULL_DECK, Card, Rank, Suit
from p2pcards.rules.bluff import BluffState, Challenge, Discard
from p2pcards.rules.contract import faces_for_hands
from p2pcards.rules.topper import Bid, PassBid, Play, TopperState
from tests.bots.seeded_matches import random_states, topper_states, twin_views

NAMES = ("Ann", "Ben", "Cat", "Dan")


def cards(text: str) -> list[Card]:
    return [Card.parse(word) for word in text.split()]


def normal_choice(view: BluffState | TopperState, seed: int) -> object:
    """What the registry's normal search bot chooses at ``view`` with this seed."""
    game = "bluff" if isinstance(view, BluffState) else "topper"
    return make_bot_factory(game, "search", "normal")(random.Random(seed)).choose(view)


def bluff_dealt(hands: dict[int, list[Card]], leader: int = 0) -> BluffState:
    state = BluffState.new(None, leader)
    state.deal(faces_for_hands(hands, FULL_DECK))
    return state


def hand_slots(state: BluffState, seat: int) -> list[int]:
    return [slot for slot, _ in state.hand(seat)]


# --- Bluff ------------------------------------------------------------------------------
#
# The numbers of each "why" are checked against a count written here, from the table's
# public record and the seat's own cards, not by asking the belief the coach reads.

def claimed_by_others(state: BluffState, seat: int, rank: Rank) -> int:
    """Cards the other seats claimed as ``rank`` this deal that no call showed."""
    return sum(c.count for c in state.claims if c.rank == rank and c.seat != seat and not c.revealed)


def held(state: BluffState, seat: int, rank: Rank) -> int:
    return sum(1 for _, face in state.hand(seat) if face is not None and face.rank == rank)


def three_claims(hand: str, rank: Rank, counts: tuple[int, int, int]) -> BluffState:
    """Dan (seat 3) holds ``hand``; Ann leads ``counts[0]`` cards as ``rank``, Ben and Cat
    claim ``counts[1]`` and ``counts[2]`` more, all accepted so far: Dan answers Cat."""
    state = bluff_dealt({3: cards(hand)})
    for seat, count in enumerate(counts):
        state.apply(Discard(seat, tuple(hand_slots(state, seat)[:count]), 10,
                            rank if seat == 0 else None))
    assert state.to_act == 3
    return state


def test_six_aces_claimed_against_one_held_says_at_most_three_can_be_true() -> None:
    """The issue's table: six Aces claimed and accepted, Dan holds one; the coach used to see
    "3 unaccounted for, about 85%: pass"."""
    state = three_claims("AS 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", Rank.ACE, (2, 2, 2))
    view = state.view(3)
    advice = advise(view, random.Random(4), NAMES)
    assert advice.action == normal_choice(view, 4)
    claimed, mine = claimed_by_others(state, 3, Rank.ACE), held(state, 3, Rank.ACE)
    assert (claimed, mine) == (6, 1)
    assert "Cat claims 2 Aces." in advice.why
    assert (f"{claimed} Aces were claimed this deal; you hold {mine}: at most {4 - mine} can be "
            f"true, so at least {claimed - (4 - mine)} were lies.") in advice.why
    assert advice.chance is not None and advice.chance < 0.5
    assert f"The chance it is true is about {round(100 * advice.chance)}%." in advice.why


def test_three_fives_held_and_three_claimed_leave_one_that_can_be_true() -> None:
    """The issue's other table: Dan holds three 5s and two more were claimed before Cat's."""
    state = three_claims("5S 5H 5D 2H 3H 4H 6H 7H 8H 9H 10H JH QH", Rank.FIVE, (1, 1, 1))
    view = state.view(3)
    advice = advise(view, random.Random(2), NAMES)
    assert advice.action == normal_choice(view, 2)
    claimed, mine = claimed_by_others(state, 3, Rank.FIVE), held(state, 3, Rank.FIVE)
    assert (claimed, mine) == (3, 3)
    assert (f"{claimed} fives were claimed this deal; you hold {mine}: at most 1 can be true, "
            f"so at least {claimed - 1} were lies.") in advice.why
    assert advice.chance is not None and advice.chance < 0.5


def test_a_claim_needing_more_cards_than_are_unseen_is_called_a_certain_lie() -> None:
    """Ben holds three 7s; Ann leads two cards as 7s: one 7 is left, so the claim is a lie
    (the normal bot sheds its three true 7s on it)."""
    state = bluff_dealt({1: cards("7C 7D 7H 2S 3S 4S 5S 6S 8S 9S 10S JS QS")})
    state.apply(Discard(0, tuple(hand_slots(state, 0)[:2]), 10, Rank.SEVEN))
    view = state.view(1)
    advice = advise(view, random.Random(4), NAMES)
    assert advice.action == normal_choice(view, 4)
    assert advice.says == "discard 7C 7D 7H stake 50"
    assert "Ann claims 2 sevens." in advice.why
    assert "2 sevens were claimed this deal; you hold 3: at most 1 can be true, so at least 1 " \
           "was a lie, and this claim needs more than that: a certain lie." in advice.why
    assert "The chance it is true is about 0%." in advice.why and advice.chance == 0.0
    assert "All 3 cards are true." in advice.why


def test_the_chance_of_a_lead_is_the_count_weighed_by_an_average_players_habits() -> None:
    """Ben holds one 7; Ann leads one card as a 7. Written out here: the 3 other 7s lie among
    the 39 cards Ben has not seen, 13 of them Ann's (x of them, hypergeometric). A leader
    names a rank he holds: a true lead weighs 1/q (q: the chance a 13-card hand holds a given
    rank, at most 12); a false one the average habit of bluffing a lead (0.08), the less
    (0.3) if she held a 7 she could have led."""
    state = bluff_dealt({1: cards("7S 2H 3H 4H 5H 6H 8H 9H 10H JH QH KH AH")})
    state.apply(Discard(0, (hand_slots(state, 0)[0],), 10, Rank.SEVEN))
    view = state.view(1)
    advice = advise(view, random.Random(9), NAMES)
    assert advice.action == normal_choice(view, 9)
    prior = [comb(13, x) * comb(26, 3 - x) for x in range(4)]
    chose = min(12.0, 1 / (1 - comb(48, 13) / comb(52, 13)))
    true = sum(prior[1:]) * chose
    false = 0.08 * (prior[0] + 0.3 * sum(prior[1:]))
    chance = true / (true + false)
    assert advice.chance == pytest.approx(chance)
    assert "3 sevens unseen" not in advice.why
    assert "1 seven was claimed this deal; you hold 1: all could be true (3 unseen)." in advice.why
    assert f"The chance it is true is about {round(100 * chance)}%." in advice.why


def test_a_lead_says_the_count_and_whether_its_cards_are_true() -> None:
    """After Ben's call showed two of Ann's queens true, Cat's count of queens knows them
    (shown, so no longer claimed unseen), and she sheds her own."""
    state = bluff_dealt({0: cards("QH QS 2C 3C 4C 5C 6C 7C 8C 9C 10C JC KC"),
                         2: cards("QD 2D 3D 4D 5D 6D 7D 8D 9D 10D JD KD AD")})
    state.apply(Discard(0, tuple(hand_slots(state, 0)[:2]), 10, Rank.QUEEN))
    state.apply(Challenge(1))
    forced = state.forced_action()
    assert forced is not None
    state.apply(forced)
    answer = advise(state.view(2), random.Random(3), NAMES)
    assert isinstance(answer.action, Discard)
    assert [state.face(slot) for slot in answer.action.slots] == cards("QD")
    assert "No Queens claimed yet this deal; you hold 1, saw 2 shown by calls: 1 unseen." \
        in answer.why
    lead = advise(bluff_dealt({0: cards("QH QS QD 2C 3C 4C 5C 6C 7C 8C 9C 10C JC")}).view(0),
                  random.Random(1), NAMES)
    assert isinstance(lead.action, Discard)
    assert "No Queens claimed yet this deal; you hold 3: 1 unseen." in lead.why
    if len(lead.action.slots) == 3 and lead.action.rank is Rank.QUEEN:
        assert "All 3 cards are true" in lead.why
        assert lead.says.startswith("discard QH QS QD as Q stake ")


# --- Topper -----------------------------------------------------------------------------

SPADES_HAND = cards("JS JC AS KS 9H AD")


def test_topper_bid_advice_is_the_bots_bid_with_the_trump_count_and_the_tricks_it_needs() -> None:
    state = TopperState.position(first=3, hands={0: SPADES_HAND})
    view = state.view(0)
    advice = advise(view, random.Random(2), NAMES)
    assert advice.action == normal_choice(view, 2)
    assert trump_count(SPADES_HAND, Suit.SPADES) == 4  # both Jacks, the Ace and the King
    assert "your best trump is spades: you hold 4 trumps of it" in advice.why.lower()
    if isinstance(advice.action, Bid):
        n = advice.action.tricks
        assert advice.says == f"bid {n}"
        assert f"a bid of {n} needs {n} of the 6 tricks" in advice.why
    else:
        assert isinstance(advice.action, PassBid)


def test_topper_play_advice_is_the_bots_card_with_the_trumps_and_the_bid_it_serves() -> None:
    state = TopperState.position(first=3, hands={0: SPADES_HAND}, bidder=0, bid=3,
                                 trump=Suit.SPADES)
    view = state.view(0)
    advice = advise(view, random.Random(3), NAMES)
    assert advice.action == normal_choice(view, 3)
    assert isinstance(advice.action, Play)
    assert advice.says == f"play {advice.action.card.ascii}"
    assert "Trump is spades, and you hold 4 trumps" in advice.why
    assert "you have 0 of the 3 tricks the bid needs" in advice.why
    if advice.action.card == Card.parse("JS"):  # the Big Jack: nothing beats it
        assert "no card still unseen beats JS" in advice.why


def test_a_card_that_cannot_take_the_trick_says_so() -> None:
    """Hearts trump; Ann leads the Little Jack (JD); Ben's hearts cannot beat it."""
    hands = [cards("JH JD AH 9C 10S KS"), cards("KH 9H QC AC 9S QS"),
             cards("QH 10H JC KC AS JS"), cards("10C 9D 10D QD KD AD")]
    state = TopperState.position(first=3, hands=dict(enumerate(hands)), bidder=0, bid=2,
                                 trump=Suit.HEARTS)
    slot = next(s for s, f in state.hand(0) if f == Card.parse("JD"))
    state.apply(Play(0, slot, Card.parse("JD")))
    advice = advise(state.view(1), random.Random(1), NAMES)
    assert advice.action == normal_choice(state.view(1), 1)
    assert "cannot beat Ann's JD" in advice.why
    assert "Ann has 0 of the 2 tricks the bid needs" in advice.why


# --- the seat's own view, nothing more --------------------------------------------------

def _bluff_twin(state: BluffState, seat: int, rng: random.Random) -> BluffState:
    """The same public table with the other seats' unknown faces dealt among them anew."""
    view = state.view(seat)
    hidden = [slot for slot in range(52) if view.face(slot) is None and state.face(slot) is not None]
    faces = [state.face(slot) for slot in hidden]
    rng.shuffle(faces)
    twin = state.copy()
    for slot, face in zip(hidden, faces, strict=True):
        twin._faces[slot] = face
    return twin


def test_the_bluff_coach_advises_from_its_view_alone() -> None:
    rng = random.Random(6)
    compared = 0
    for state in random_states("bluff", 3, 200):
        seat = state.to_act
        if state.forced_action() is not None:
            continue
        twin = _bluff_twin(state, seat, rng)
        assert twin.view(seat) == state.view(seat)
        assert advise(twin.view(seat), random.Random(5), NAMES) == advise(
            state.view(seat), random.Random(5), NAMES)
        compared += 1
    assert compared > 40


def test_the_topper_coach_advises_from_its_view_alone() -> None:
    compared = 0
    for view, twin in itertools.islice(twin_views(topper_states(4, 40), random.Random(7)), 8):
        assert advise(twin, random.Random(5), NAMES) == advise(view, random.Random(5), NAMES)
        compared += 1
    assert compared == 8


def test_no_advice_when_it_is_not_your_turn_or_there_is_no_choice() -> None:
    state = bluff_dealt({})
    with pytest.raises(NoAdvice):
        advise(state.view(1), random.Random(0))
    state.apply(Discard(0, (hand_slots(state, 0)[0],), 10, Rank.TWO))
    state.apply(Challenge(1))
    with pytest.raises(NoAdvice):  # Ann must show her discard: the rules choose
        advise(state.view(0), random.Random(0))
