"""Topper views: what a seat may know, a peer's referee, and drawing the hidden hands."""

import random
from collections.abc import Sequence

import pytest

from p2pcards.cards import Card, Suit
from p2pcards.rules.errors import BadAction
from p2pcards.rules.topper import (
    Bid,
    FacesUnknown,
    InconsistentView,
    NameTrump,
    PassBid,
    Phase,
    Play,
    TopperConfig,
    TopperState,
    faces_for_hands,
)
from p2pcards.rules.topper.determinize import assign_hidden
from p2pcards.rules.topper.order import effective_suit
from tests.rules.expect import known, known_hand

HANDS = ("AC AS AH AD 9D KH", "JC 10S QH 9S KD 9H",
         "JS QC KC 10C 9C 10D", "QS KS QD JD JH 10H")
# Spades trump; seat 0 takes three tricks while seats 1 and 3 show void in
# clubs and seat 2 in hearts and diamonds.
THREE_TRICKS = ((0, "AC"), (1, "QH"), (2, "QC"), (3, "10H"),
                (0, "AH"), (1, "9H"), (2, "10D"), (3, "JH"),
                (0, "AD"), (1, "KD"), (2, "9C"), (3, "QD"))


def C(text: str) -> Card:
    return Card.parse(text)


def table(moves: Sequence[tuple[int, str]] = ()) -> tuple[TopperState, dict[Card, int]]:
    faces = known(faces_for_hands([[C(t) for t in h.split()] for h in HANDS]))
    state = TopperState.new(TopperConfig(), 3)
    state.deal(faces)
    state.apply(Bid(0, 1))
    for seat in (1, 2, 3):
        state.apply(PassBid(seat))
    state.apply(NameTrump(0, Suit.SPADES))
    slots = {c: p for p, c in enumerate(faces)}
    for seat, text in moves:
        state.apply(Play(seat, slots[C(text)], C(text)))
    return state, slots


def test_view_holds_its_own_faces_and_no_other_unplayed_card() -> None:
    state, _ = table(THREE_TRICKS[:5])
    for seat in range(4):
        view = state.view(seat)
        assert view.viewer == seat
        assert view.hand(seat) == state.hand(seat)
        for other in set(range(4)) - {seat}:
            assert [p for p, _ in view.hand(other)] == [p for p, _ in state.hand(other)]
            assert all(face is None for _, face in view.hand(other))


def test_view_shows_every_card_played_face_up() -> None:
    state, _ = table(THREE_TRICKS[:6])
    view = state.view(2)
    assert view.played_cards == state.played_cards == tuple(C(t) for _, t in THREE_TRICKS[:6])
    assert view.tricks == state.tricks and view.current_trick == state.current_trick


def test_view_shows_all_public_information() -> None:
    state, _ = table(THREE_TRICKS[:7])
    assert state.view(3).public() == state.public()
    public = state.public()
    assert public.dealer == 3 and public.bidder == 0 and public.high_bid == 1
    assert public.trump is Suit.SPADES and public.hand_sizes == (4, 4, 4, 5)
    assert public.tricks_taken == (1, 0, 0, 0) and public.scores == (0, 0, 0, 0)
    assert public.voids[1] == frozenset({Suit.CLUBS}) and public.voids[2] == frozenset({Suit.HEARTS})


def test_view_answers_legal_actions_and_check_for_its_own_seat() -> None:
    state, slots = table(THREE_TRICKS[:1])
    view = state.view(1)
    assert tuple(view.legal_actions()) == tuple(state.legal_actions())
    view.check(Play(1, slots[C("QH")], C("QH")))


def test_view_of_another_seat_cannot_list_plays_of_a_hidden_hand() -> None:
    state, _ = table(THREE_TRICKS[:1])
    with pytest.raises(FacesUnknown) as err:
        tuple(state.view(0).legal_actions())
    assert err.value.seat == 1


def test_any_view_lists_bids_since_they_need_no_hidden_card() -> None:
    state = TopperState.new(TopperConfig(), 3)
    state.deal([None] * 24)
    assert tuple(state.view(2).legal_actions()) == (PassBid(0),) + tuple(Bid(0, t) for t in range(1, 7))


def test_applying_to_a_view_leaves_the_state_it_came_from_alone() -> None:
    state, slots = table()
    before = state.copy()
    view = state.view(0)
    view.apply(Play(0, slots[C("AC")], C("AC")))
    assert state == before and view != state.view(0)


def test_copy_is_equal_and_independent() -> None:
    state, slots = table(THREE_TRICKS[:3])
    twin = state.copy()
    assert twin == state
    twin.apply(Play(3, slots[C("10H")], C("10H")))
    assert twin != state and len(state.current_trick) == 3


def test_deal_given_to_a_view_keeps_only_its_own_faces() -> None:
    faces = faces_for_hands([[C(t) for t in h.split()] for h in HANDS])
    view = TopperState.new(TopperConfig(), 3).view(2)
    view.deal(faces)
    assert all(face is not None for _, face in view.hand(2))
    assert all(face is None for s in (0, 1, 3) for _, face in view.hand(s))


def test_view_of_a_view_never_regains_hidden_faces() -> None:
    state, _ = table(THREE_TRICKS[:2])
    twice = state.view(0).view(1)
    assert all(face is None for s in range(4) for _, face in twice.hand(s))
    assert twice.played_cards == state.played_cards


@pytest.mark.parametrize("seat", [4, -1, "1", None])
def test_view_of_no_seat_is_refused(seat: object) -> None:
    state, _ = table()
    with pytest.raises(BadAction):
        state.view(seat)  # type: ignore[arg-type]


def test_repr_names_no_card() -> None:
    state, _ = table(THREE_TRICKS[:2])
    text = repr(state)
    assert not any(str(c) in text or c.ascii in text for c in TopperConfig().deck)


# ------------------------------------------------------------ determinize

def hands_of(state: TopperState) -> dict[int, set[Card]]:
    return {s: {face for _, face in known_hand(state.hand(s))} for s in range(4)}


def test_determinized_view_keeps_everything_the_seat_knows() -> None:
    state, _ = table(THREE_TRICKS[:6])
    view = state.view(1)
    for seed in range(20):
        world = view.determinize(random.Random(seed))
        assert world.viewer is None and world.public() == state.public()
        assert world.hand(1) == state.hand(1)
        dealt = [face for s in range(4) for _, face in world.hand(s)]
        assert None not in dealt
        assert sorted(known(dealt) + list(world.played_cards)) == sorted(TopperConfig().deck)


def test_determinized_hands_respect_every_shown_void() -> None:
    state, _ = table(THREE_TRICKS)
    view = state.view(0)
    assert {s: view.voids(s) for s in (1, 2, 3)} == {
        1: {Suit.CLUBS}, 2: {Suit.HEARTS, Suit.DIAMONDS}, 3: {Suit.CLUBS}}
    little_jack_to_seat_1 = False
    for seed in range(200):
        world = view.determinize(random.Random(seed))
        hands = hands_of(world)
        for seat in (1, 2, 3):
            assert not {effective_suit(c, Suit.SPADES) for c in hands[seat]} & view.voids(seat)
        assert {C("KC"), C("10C")} <= hands[2]  # the only seat that may hold clubs
        little_jack_to_seat_1 |= C("JC") in hands[1]  # a spade now, so allowed
    assert little_jack_to_seat_1


def test_determinize_draws_different_worlds_for_different_seeds() -> None:
    state, _ = table()
    view = state.view(0)
    worlds = {tuple(sorted(hands_of(view.determinize(random.Random(seed)))[1])) for seed in range(30)}
    assert len(worlds) > 20


def test_determinize_is_deterministic_given_the_seed() -> None:
    view = table(THREE_TRICKS[:5])[0].view(3)
    assert view.determinize(random.Random(7)) == view.determinize(random.Random(7))


def test_determinized_world_can_be_played_on() -> None:
    state, _ = table(THREE_TRICKS[:5])
    world = state.view(0).determinize(random.Random(1))
    actions = tuple(world.legal_actions())
    assert actions and all(a.seat == state.to_act for a in actions)
    world.apply(actions[0])


def test_determinize_of_a_full_state_is_the_same_state() -> None:
    state, _ = table(THREE_TRICKS[:3])
    assert state.determinize(random.Random(0)) == state


def test_determinize_before_any_deal_is_a_plain_copy() -> None:
    state = TopperState.new(TopperConfig(), 1).view(1)
    world = state.determinize(random.Random(0))
    assert world.phase is Phase.DEAL and world.public() == state.public()


def test_impossible_voids_are_an_inconsistent_view() -> None:
    with pytest.raises(InconsistentView):
        assign_hidden({1: [1, 5]}, [C("AC"), C("KC")], {1: {Suit.CLUBS}}, Suit.SPADES, random.Random(0))
    with pytest.raises(InconsistentView):
        assign_hidden({1: [1, 5]}, [C("AC")], {}, Suit.SPADES, random.Random(0))


@pytest.mark.parametrize("name", ["config", "phase", "to_act", "dealer", "scores", "trump", "viewer", "outcome"])
def test_public_facts_are_read_only(name: str) -> None:
    state, _ = table()
    with pytest.raises(AttributeError):
        setattr(state, name, 0)
