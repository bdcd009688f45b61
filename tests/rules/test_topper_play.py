"""Topper play: following suit (with the Little Jack), trick winners, slots and faces, renege.

Scenarios are dealt by seat with the dealer at seat 3, so seat 0 bids first;
seat 0 bids one, the others pass, and seat 0 names spades and leads.
"""

from collections.abc import Iterable, Sequence

import pytest

from p2pcards.cards import Card, Suit
from p2pcards.rules.errors import BadAction, CardMismatch, NotYourCard, RuleError
from p2pcards.rules.topper import (
    Bid,
    CardNotInDeck,
    CardPlayed,
    FollowSuit,
    NameTrump,
    PassBid,
    Phase,
    Play,
    Renege,
    ShowedVoid,
    TopperAction,
    TopperConfig,
    TopperEvent,
    TopperState,
    TrickWon,
    faces_for_hands,
)
from p2pcards.rules.topper.order import effective_suit
from tests.rules.expect import known

# Clubs led, seat 1 holds the Little Jack (JC) and a true club (10C).
LITTLE_JACK_AND_CLUB = ("AS KS AC AH AD 9D", "JC 10C KH QH 9S 10S",
                        "JS KC QC 9C 9H 10D", "QS KD QD JD JH 10H")
# Seat 0 leads the Little Jack; seat 1 holds spades and clubs; seat 2's only spade is JS.
LITTLE_JACK_LED = ("JC AS AH AD 9D KH", "KC 10S QH 9S 10C 9C",
                   "JS QC AC 9H 10D JH", "QS KS KD QD JD 10H")
# Seat 1's only printed club is the Little Jack; it holds spades, hearts, a diamond.
ONLY_LITTLE_JACK = ("AC AS AH AD 9D KH", "JC 10S QH 9S KD 9H",
                    "JS QC KC 10C 9C 10D", "QS KS QD JD JH 10H")


def C(text: str) -> Card:
    return Card.parse(text)


def deal_of(hand_texts: Sequence[str]) -> list[Card]:
    return known(faces_for_hands([[C(t) for t in h.split()] for h in hand_texts]))


def start(state: TopperState, trump: Suit = Suit.SPADES) -> TopperState:
    state.apply(Bid(0, 1))
    for seat in (1, 2, 3):
        state.apply(PassBid(seat))
    state.apply(NameTrump(0, trump))
    return state


def full_table(hand_texts: Sequence[str], trump: Suit = Suit.SPADES) -> tuple[TopperState, dict[Card, int]]:
    faces = deal_of(hand_texts)
    state = TopperState.new(TopperConfig(), 3)
    state.deal(faces)
    return start(state, trump), {c: p for p, c in enumerate(faces)}


def referee_of(seat: int, hand_texts: Sequence[str], trump: Suit = Suit.SPADES) -> TopperState:
    """A peer's referee: its own view of the match, dealt only its own seat's faces."""
    faces = deal_of(hand_texts)
    state = TopperState.new(TopperConfig(), 3).view(seat)
    state.deal([f if p % 4 == seat else None for p, f in enumerate(faces)])
    return start(state, trump)


def play(state: TopperState, slots: dict[Card, int], seat: int, text: str) -> tuple[TopperEvent, ...]:
    card = C(text)
    return state.apply(Play(seat, slots[card], card))


def refused(state: TopperState, action: TopperAction, cls: type[RuleError], seat: int, rule: str) -> RuleError:
    before = state.copy()
    with pytest.raises(cls) as checked:
        state.check(action)
    with pytest.raises(cls) as applied:
        state.apply(action)
    assert type(applied.value) is cls and type(checked.value) is cls
    assert applied.value.seat == seat and applied.value.rule == rule
    assert state == before
    return applied.value


def cards_of(actions: Iterable[TopperAction]) -> set[Card]:
    cards = set()
    for action in actions:
        assert isinstance(action, Play), action
        cards.add(action.card)
    return cards


# ---------------------------------------------------------------- following suit

def test_must_follow_suit_led_if_able() -> None:
    state, slots = full_table(LITTLE_JACK_AND_CLUB)
    play(state, slots, 0, "AC")
    play(state, slots, 1, "10C")
    refused(state, Play(2, slots[C("9H")], C("9H")), FollowSuit, 2, "topper.follow-suit")
    assert cards_of(state.legal_actions()) == {C("KC"), C("QC"), C("9C")}


def test_any_card_when_void_in_the_led_suit() -> None:
    state, slots = full_table(LITTLE_JACK_AND_CLUB)
    for seat, card in ((0, "AC"), (1, "10C"), (2, "9C")):
        play(state, slots, seat, card)
    assert cards_of(state.legal_actions()) == {C(t) for t in ["QS", "KD", "QD", "JD", "JH", "10H"]}
    play(state, slots, 3, "JH")  # a discard is as legal as a trump
    assert state.tricks[0].winner == 0


def test_little_jack_does_not_follow_its_printed_suit() -> None:
    state, slots = full_table(LITTLE_JACK_AND_CLUB)
    play(state, slots, 0, "AC")
    err = refused(state, Play(1, slots[C("JC")], C("JC")), FollowSuit, 1, "topper.follow-suit")
    assert err.led is Suit.CLUBS  # type: ignore[attr-defined]
    assert cards_of(state.legal_actions()) == {C("10C")}


def test_little_jack_led_demands_trump() -> None:
    state, slots = full_table(LITTLE_JACK_LED)
    play(state, slots, 0, "JC")
    assert state.led_suit is Suit.SPADES
    refused(state, Play(1, slots[C("KC")], C("KC")), FollowSuit, 1, "topper.follow-suit")
    assert cards_of(state.legal_actions()) == {C("10S"), C("9S")}
    play(state, slots, 1, "9S")
    assert cards_of(state.legal_actions()) == {C("JS")}  # seat 2's clubs do not follow


def test_little_jack_follows_a_trump_lead() -> None:
    state, slots = full_table(ONLY_LITTLE_JACK)
    play(state, slots, 0, "AS")
    assert C("JC") in cards_of(state.legal_actions())
    play(state, slots, 1, "JC")
    play(state, slots, 2, "JS")
    play(state, slots, 3, "QS")
    assert state.tricks[0].winner == 2  # Big Jack over Little Jack over Ace


def test_seat_whose_only_printed_club_is_the_little_jack_is_void_in_clubs() -> None:
    state, slots = full_table(ONLY_LITTLE_JACK)
    play(state, slots, 0, "AC")
    assert cards_of(state.legal_actions()) == {C(t) for t in ["JC", "10S", "QH", "9S", "KD", "9H"]}
    events = play(state, slots, 1, "QH")
    assert ShowedVoid(1, Suit.CLUBS, 0, C("QH")) in events


def test_view_refuses_its_own_seat_a_card_that_does_not_follow() -> None:
    state, slots = full_table(LITTLE_JACK_AND_CLUB)
    play(state, slots, 0, "AC")
    own = state.view(1)
    refused(own, Play(1, slots[C("KH")], C("KH")), FollowSuit, 1, "topper.follow-suit")
    assert cards_of(own.legal_actions()) == {C("10C")}


# ------------------------------------------------------------------ tricks

def test_trick_goes_to_the_highest_trump_and_its_winner_leads_next() -> None:
    state, slots = full_table(LITTLE_JACK_AND_CLUB)
    play(state, slots, 0, "AC")
    play(state, slots, 1, "10C")
    play(state, slots, 2, "9C")
    events = play(state, slots, 3, "QS")
    assert events[-1] == TrickWon(0, 3, ((0, C("AC")), (1, C("10C")), (2, C("9C")), (3, C("QS"))))
    assert state.to_act == 3 and state.tricks_taken == (0, 0, 0, 1)
    assert state.current_trick == ()


def test_without_trump_the_highest_card_of_the_led_suit_wins() -> None:
    state, slots = full_table(LITTLE_JACK_AND_CLUB)
    for seat, card in ((0, "AC"), (1, "10C"), (2, "KC"), (3, "JH")):
        play(state, slots, seat, card)
    assert state.tricks[0].winner == 0 and state.to_act == 0


def test_play_goes_clockwise_from_the_leader() -> None:
    state, slots = full_table(LITTLE_JACK_AND_CLUB)
    assert state.to_act == 0
    events = play(state, slots, 0, "AC")
    assert events == (CardPlayed(0, slots[C("AC")], C("AC"), 0),)
    assert state.to_act == 1


# ------------------------------------------------------------ slots and faces

@pytest.mark.parametrize("slot", [1, 24, -1, "0", None, 2.0])
def test_slot_not_in_the_seats_hand_is_refused(slot: object) -> None:
    state, _ = full_table(LITTLE_JACK_AND_CLUB)
    refused(state, Play(0, slot, C("AC")), NotYourCard, 0, "card.not-held")  # type: ignore[arg-type]


def test_slot_already_played_is_refused() -> None:
    state, slots = full_table(LITTLE_JACK_AND_CLUB)
    for seat, card in ((0, "AC"), (1, "10C"), (2, "KC"), (3, "JH")):
        play(state, slots, seat, card)
    refused(state, Play(0, slots[C("AC")], C("AC")), NotYourCard, 0, "card.not-held")


def test_face_contradicting_the_known_slot_is_a_mismatch() -> None:
    state, slots = full_table(LITTLE_JACK_AND_CLUB)
    refused(state, Play(0, slots[C("AS")], C("KS")), CardMismatch, 0, "card.mismatch")


def test_referee_refuses_a_face_it_knows_to_be_in_its_own_hand() -> None:
    referee = referee_of(1, LITTLE_JACK_AND_CLUB)
    _, slots = full_table(LITTLE_JACK_AND_CLUB)
    err = refused(referee, Play(0, slots[C("AC")], C("JC")), CardMismatch, 0, "card.mismatch")
    assert "slot" in str(err) and "elsewhere" in str(err)


def test_referee_refuses_a_face_already_played() -> None:
    referee = referee_of(2, LITTLE_JACK_AND_CLUB)
    _, slots = full_table(LITTLE_JACK_AND_CLUB)
    play(referee, slots, 0, "AC")
    refused(referee, Play(1, slots[C("10C")], C("AC")), CardMismatch, 1, "card.mismatch")


def test_card_outside_the_topper_deck_is_refused() -> None:
    state, slots = full_table(LITTLE_JACK_AND_CLUB)
    refused(state, Play(0, slots[C("AC")], C("2C")), CardNotInDeck, 0, "topper.card-not-in-deck")


@pytest.mark.parametrize("face", ["AC", 48, None])
def test_face_that_is_not_a_card_is_malformed(face: object) -> None:
    state, slots = full_table(LITTLE_JACK_AND_CLUB)
    refused(state, Play(0, slots[C("AC")], face), BadAction, 0, "action.malformed")  # type: ignore[arg-type]


def test_referee_learns_each_face_as_it_is_played() -> None:
    referee = referee_of(2, LITTLE_JACK_AND_CLUB)
    _, slots = full_table(LITTLE_JACK_AND_CLUB)
    assert dict(referee.hand(0))[slots[C("AC")]] is None
    play(referee, slots, 0, "AC")
    assert referee.played_cards == (C("AC"),)
    assert slots[C("AC")] not in dict(referee.hand(0))


# ------------------------------------------------------------------ renege

def renege_on_trump_lead(referee: TopperState, slots: dict[Card, int]) -> None:
    """Seat 1 holds JC 10S 9S yet plays QH on the Ace of spades; Big Jack wins."""
    play(referee, slots, 0, "AS")
    play(referee, slots, 1, "QH")
    play(referee, slots, 2, "JS")
    play(referee, slots, 3, "KS")


def test_full_engine_refuses_a_renege_as_follow_suit() -> None:
    state, slots = full_table(ONLY_LITTLE_JACK)
    play(state, slots, 0, "AS")
    refused(state, Play(1, slots[C("QH")], C("QH")), FollowSuit, 1, "topper.follow-suit")


def test_referee_that_cannot_see_the_hand_accepts_it_and_records_the_void() -> None:
    referee = referee_of(0, ONLY_LITTLE_JACK)
    _, slots = full_table(ONLY_LITTLE_JACK)
    play(referee, slots, 0, "AS")
    events = play(referee, slots, 1, "QH")
    assert events[-1] == ShowedVoid(1, Suit.SPADES, 0, C("QH"))
    assert referee.voids(1) == frozenset({Suit.SPADES})


def _seat_1_to_play_after_its_renege() -> tuple[TopperState, dict[Card, int]]:
    """A referee that saw seat 1 renege on trick 0, then seats 2, 3 and 0 play diamonds
    to trick 1: seat 1 is to play, holding JC 10S 9S."""
    referee = referee_of(0, ONLY_LITTLE_JACK)
    _, slots = full_table(ONLY_LITTLE_JACK)
    renege_on_trump_lead(referee, slots)
    play(referee, slots, 2, "10D")
    play(referee, slots, 3, "QD")
    play(referee, slots, 0, "AD")
    return referee, slots


def test_referee_proves_the_renege_when_the_void_suit_appears() -> None:
    referee, slots = _seat_1_to_play_after_its_renege()
    err = refused(referee, Play(1, slots[C("9S")], C("9S")), Renege, 1, "topper.renege")
    assert (err.suit, err.trick, err.void_card, err.proof) == (Suit.SPADES, 0, C("QH"), C("9S"))  # type: ignore[attr-defined]


def test_renege_proven_by_the_little_jack_after_a_trump_void() -> None:
    referee, slots = _seat_1_to_play_after_its_renege()
    err = refused(referee, Play(1, slots[C("JC")], C("JC")), Renege, 1, "topper.renege")
    assert err.proof == C("JC") and err.suit is Suit.SPADES  # type: ignore[attr-defined]
    message = str(err)
    assert "seat 1" in message and "trick 1" in message and "Q♥" in message and "J♣" in message


def test_little_jack_after_a_club_void_is_no_renege() -> None:
    state, slots = full_table(ONLY_LITTLE_JACK)
    referee = referee_of(0, ONLY_LITTLE_JACK)
    for engine in (state, referee):
        for seat, card in ((0, "AC"), (1, "QH"), (2, "QC"), (3, "10H")):
            play(engine, slots, seat, card)
        assert engine.voids(1) == frozenset({Suit.CLUBS})
        play(engine, slots, 0, "AS")
        play(engine, slots, 1, "JC")  # a spade now, not a club
    assert referee.public() == state.public()


def test_renege_is_caught_by_the_end_of_the_hand_even_when_the_cheat_delays() -> None:
    """The cheat keeps its spades as long as it can; it must play them before the hand ends."""
    faces = deal_of(ONLY_LITTLE_JACK)
    slots = {c: p for p, c in enumerate(faces)}
    held = {s: [faces[p] for p in range(s, 24, 4)] for s in range(4)}
    referee = referee_of(0, ONLY_LITTLE_JACK)
    renege_on_trump_lead(referee, slots)
    for cards in held.values():
        cards[:] = [c for c in cards if c not in referee.played_cards]
    caught = None
    for _ in range(20):
        seat = referee.to_act
        assert seat is not None
        led = referee.led_suit
        if seat == 1:  # the cheat: anything but a spade while it can
            safe = [c for c in held[1] if effective_suit(c, Suit.SPADES) != Suit.SPADES]
            card = (safe or held[1])[0]
        else:
            following = [c for c in held[seat] if led is not None and effective_suit(c, Suit.SPADES) == led]
            card = (following or held[seat])[0]
        try:
            referee.apply(Play(seat, slots[card], card))
        except Renege as err:
            caught = err
            break
        held[seat].remove(card)
    assert caught is not None and caught.seat == 1 and caught.trick == 0
    assert len(referee.tricks) < 6 and referee.phase is Phase.PLAY


def test_referee_reaches_the_same_public_state_as_the_full_engine() -> None:
    state, slots = full_table(LITTLE_JACK_AND_CLUB)
    referees = [referee_of(s, LITTLE_JACK_AND_CLUB) for s in range(4)]
    for seat, card in ((0, "AC"), (1, "10C"), (2, "9C"), (3, "QS"), (3, "KD"), (0, "AD")):
        play(state, slots, seat, card)
        for s, referee in enumerate(referees):
            play(referee, slots, seat, card)
            assert referee.public() == state.public()
            assert referee == state.view(s)
