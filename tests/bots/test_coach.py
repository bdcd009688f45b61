"""The coach: the normal bot's move, a reason whose numbers are right, from the seat's view alone."""

from __future__ import annotations

import random
from math import comb

import pytest

from p2pcards.bots.coach import NoAdvice, advise, claim_chance, rank_count, trump_count
from p2pcards.bots.registry import make_bot_factory
from p2pcards.cards import FULL_DECK, Card, Rank, Suit
from p2pcards.rules.bluff import BluffState, Challenge, Discard
from p2pcards.rules.contract import faces_for_hands
from p2pcards.rules.topper import Bid, PassBid, Play, TopperState
from tests.bots.test_search_bots import _other_hands_shuffled, random_states

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

def test_bluff_advice_at_an_impossible_claim_is_the_bots_move_with_the_count_that_proves_it() -> None:
    """Ben holds three 7s; Ann leads two cards as 7s: at most one 7 is left, so the
    claim cannot be true (0%). (The normal bot sheds its three true 7s on it.)"""
    state = bluff_dealt({1: cards("7C 7D 7H 2S 3S 4S 5S 6S 8S 9S 10S JS QS")})
    state.apply(Discard(0, tuple(hand_slots(state, 0)[:2]), 10, Rank.SEVEN))
    view = state.view(1)
    advice = advise(view, random.Random(4), NAMES)
    assert advice.action == normal_choice(view, 4)
    assert advice.says == "discard 7C 7D 7H stake 50"
    assert "all 3 cards are true" in advice.why
    count = rank_count(view, Rank.SEVEN)
    assert (count.in_hand, count.known, count.unaccounted) == (3, 0, 1)
    assert "Ann claims 2 cards as 7" in advice.why
    assert "you hold 3 and 0 more are known" in advice.why
    assert "so 1 is unaccounted for" in advice.why
    assert "the chance the claim is true is about 0%" in advice.why


def test_bluff_advice_gives_the_chance_of_a_claim_from_the_hypergeometric_count() -> None:
    """Cat holds one 7. Ann led one card as a 7, Ben answered one more: 3 sevens are
    unaccounted for among the 39 cards Cat has not seen, and Ben held 13 of them
    before his discard. The chance he held a 7 is 1 - C(36,13)/C(39,13); the bot
    believes it once it allows for an average player's bluffing habit (0.08)."""
    state = bluff_dealt({2: cards("7S 2H 3H 4H 5H 6H 8H 9H 10H JH QH KH AH")})
    state.apply(Discard(0, (hand_slots(state, 0)[0],), 10, Rank.SEVEN))
    state.apply(Discard(1, (hand_slots(state, 1)[0],), 10, None))
    view = state.view(2)
    advice = advise(view, random.Random(9), NAMES)
    assert advice.action == normal_choice(view, 9)
    could = 1 - comb(36, 13) / comb(39, 13)
    believed = could / (could + (1 - could) * 0.08)
    assert view.last_claim is not None
    assert claim_chance(view, view.last_claim) == pytest.approx(believed)
    assert "Ben claims 1 card as 7" in advice.why
    assert "you hold 1 and 0 more are known" in advice.why
    assert "so 3 are unaccounted for" in advice.why
    assert f"the chance the claim is true is about {round(100 * believed)}%" in advice.why


def test_a_shown_discard_counts_as_known_and_a_lead_says_whether_it_is_true() -> None:
    """After a call showed two of Ann's queens, Ben's count of queens knows them."""
    state = bluff_dealt({0: cards("QH QS 2C 3C 4C 5C 6C 7C 8C 9C 10C JC KC"),
                         1: cards("QD 2D 3D 4D 5D 6D 7D 8D 9D 10D JD KD AD")})
    state.apply(Discard(0, tuple(hand_slots(state, 0)[:2]), 10, Rank.QUEEN))
    state.apply(Challenge(1))
    forced = state.forced_action()
    assert forced is not None
    state.apply(forced)
    count = rank_count(state.view(1), Rank.QUEEN)
    assert (count.in_hand, count.known, count.unaccounted) == (1, 2, 1)
    lead = advise(bluff_dealt({0: cards("QH QS QD 2C 3C 4C 5C 6C 7C 8C 9C 10C JC")}).view(0),
                  random.Random(1), NAMES)
    assert isinstance(lead.action, Discard)
    if len(lead.action.slots) == 3 and lead.action.rank is Rank.QUEEN:
        assert "all 3 cards are true" in lead.why
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
    rng = random.Random(7)
    compared = 0
    for state in random_states("topper", 4, 40):
        if compared >= 8:
            break
        seat = state.to_act
        twin = _other_hands_shuffled(state, seat, rng)
        assert twin.view(seat) == state.view(seat)
        assert advise(twin.view(seat), random.Random(5), NAMES) == advise(
            state.view(seat), random.Random(5), NAMES)
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
