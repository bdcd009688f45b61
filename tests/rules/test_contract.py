"""One contract, two games: both referees answer the same questions in the same shapes."""

import random
from collections.abc import Callable, Iterator

import pytest

from p2pcards.cards import FULL_DECK, TOPPER_DECK, Card, Rank, Suit
from p2pcards.rules import bluff, topper
from p2pcards.rules.contract import (
    Engine,
    HandDealt,
    Held,
    MatchEnded,
    Outcome,
    Termination,
    faces_for_hands,
)
from p2pcards.rules.errors import BadDeal, DealNotAwaited, FacesUnknown
from p2pcards.rules.games import BLUFF, GAMES, TOPPER, Game, UnknownGame, by_name, game_of
from tests.rules.expect import known

GAME_NAMES = sorted(GAMES)


def dealt(name: str, first: int = 0) -> tuple[Game[Engine, Outcome], Engine]:
    game = by_name(name)
    state = game.new(None, first)
    state.deal(list(game.deck()))
    return game, state


@pytest.mark.parametrize("name", GAME_NAMES)
def test_each_game_object_names_its_engine_and_types(name: str) -> None:
    game, state = dealt(name)
    assert isinstance(state, game.engine) and isinstance(state, Engine)
    assert game_of(state) is game and game_of(state.view(2)) is game
    assert isinstance(state.config, game.config) and isinstance(state.phase, game.phase)
    assert isinstance(state.public(), game.public)
    assert isinstance(state.options(), game.options)
    actions = state.legal_actions()
    assert isinstance(actions, Iterator)
    first = next(actions)
    assert type(first) in game.actions and game_of(first) is game
    assert issubclass(game.outcome, Outcome)
    assert game.first in ("leader", "dealer")


@pytest.mark.parametrize("name", GAME_NAMES)
def test_hands_come_back_in_one_shape(name: str) -> None:
    _, state = dealt(name)
    deck = by_name(name).deck()
    per_seat = len(deck) // 4
    assert state.hand_sizes == (per_seat,) * 4
    for seat in range(4):
        hand = state.hand(seat)
        assert all(isinstance(h, Held) for h in hand)
        assert [h.slot for h in hand] == list(range(seat, len(deck), 4))
        assert [h.face for h in hand] == [deck[p] for p in range(seat, len(deck), 4)]
    view = state.view(1)
    assert all(h.face is None for h in view.hand(0)) and all(h.face for h in view.hand(1))


@pytest.mark.parametrize("name", GAME_NAMES)
def test_a_view_dealt_a_whole_deck_keeps_only_its_own_faces(name: str) -> None:
    game = by_name(name)
    view = game.new(None, 0).view(2)
    deck = game.deck()
    view.deal(list(deck))
    for seat in range(4):
        faces = [h.face for h in view.hand(seat)]
        if seat == 2:
            assert faces == list(deck[2::4])
        else:
            assert faces == [None] * len(faces)
    full = game.new(None, 0)
    full.deal(list(deck))
    assert view.public() == full.view(2).public() and view == full.view(2)


@pytest.mark.parametrize("name", GAME_NAMES)
def test_both_games_deal_and_end_with_the_shared_events(name: str) -> None:
    game = by_name(name)
    state = game.new(None, 1)
    events = state.deal(list(game.deck()))
    assert len(events) == 1 and isinstance(events[0], HandDealt) and events[0].hand == 1
    with pytest.raises(DealNotAwaited):
        state.deal(list(game.deck()))
    with pytest.raises(BadDeal):
        game.new(None, 1).deal(list(game.deck())[:-1])
    rng = random.Random(3)
    for _ in range(20_000):
        if state.outcome is not None:
            break
        if state.awaiting_deal:
            deck = list(game.deck())
            rng.shuffle(deck)
            state.deal(deck)
            continue
        forced = state.forced_action()
        actions = [forced] if forced is not None else list(state.legal_actions())
        events = state.apply(rng.choice(actions))
    outcome = state.outcome
    assert isinstance(outcome, Outcome) and isinstance(outcome, game.outcome)
    assert events[-1] == MatchEnded(outcome) and game_of(events[-1]) is game
    assert isinstance(outcome.termination, Termination) and outcome.winners
    assert len(outcome.standings) == 4
    assert all(outcome.standings[w] == max(outcome.standings) for w in outcome.winners) or (
        outcome.termination is Termination.BIDDER_WINS_TIE)


def test_only_bluff_forces_an_action_a_reveal() -> None:
    state = bluff.BluffState.position(hands={0: [Card.parse("AS")]})
    assert state.forced_action() is None
    state.apply(bluff.Discard(0, (0,), 10, Rank.KING))
    state.apply(bluff.Challenge(1))
    assert state.forced_action() == bluff.Reveal(0, (Card.parse("AS"),))
    with pytest.raises(FacesUnknown):
        state.view(1).forced_action()
    _, topper_state = dealt("topper")
    assert topper_state.forced_action() is None


def test_topper_options_say_which_cards_may_follow() -> None:
    hands = ["JS JC AS KS AH 9D", "QS 10S 9S KH QH 9C", "AC KC QC 10C 9H 10D", "AD KD QD JD JH 10H"]
    state = topper.TopperState.position(
        first=3, hands=[[Card.parse(t) for t in h.split()] for h in hands],
        bidder=0, bid=2, trump=Suit.HEARTS)
    state.apply(topper.Play(0, 16, Card.parse("AH")))
    opts = state.options()
    assert opts is not None
    assert opts.seat == 1 and not opts.can_pass and not opts.can_bid
    assert {state.view(1).hand(1)[i].face for i in range(6)
            if state.hand(1)[i].slot in opts.playable} == {Card.parse("KH"), Card.parse("QH")}
    plays = [a for a in state.legal_actions() if isinstance(a, topper.Play)]
    assert len(plays) == len(tuple(state.legal_actions()))  # plays only
    assert {a.slot for a in plays} == set(opts.playable)
    with pytest.raises(FacesUnknown):
        state.view(0).options()


def test_a_position_is_a_match_partway_through() -> None:
    state = topper.TopperState.position(first=2, standings=(5, -3, 12, 0), deals=6, scored=5)
    assert state.awaiting_deal and state.dealer == 2 and state.scores == (5, -3, 12, 0)
    assert state.hand_number == 6 and state.hands_scored == 5
    assert state.deal(list(TOPPER_DECK)) == (HandDealt(7, 3, 2),)
    state = topper.TopperState.position(hands={1: [Card.parse("JS")]}, bidder=1, bid=3)
    assert state.phase is topper.Phase.TRUMP and state.to_act == 1 and state.bids[0] == (1, 3)
    assert state.hand(1)[0] == Held(1, Card.parse("JS"))
    chips = bluff.BluffState.position(standings=(0, 700, 600, 700), first=2, deals=4, safe_box=0)
    assert chips.out == (True, False, False, False) and chips.leader == 2
    chips.deal(list(FULL_DECK))
    assert chips.hand_sizes == (0, 13, 13, 13) and chips.deal_number == 5 and chips.to_act == 2


@pytest.mark.parametrize("make", [
    lambda: bluff.BluffState.position(standings=(500, 500, 500)),
    lambda: bluff.BluffState.position(standings=(0, 0, 0, 2000)),
    lambda: bluff.BluffState.position(standings=(0, 1, 1, 1), first=0),
    lambda: bluff.BluffState.position(deals=20),
    lambda: topper.TopperState.position(deals=100),
    lambda: topper.TopperState.position(deals=3, scored=4),
    lambda: topper.TopperState.position(bidder=1, bid=2),
    lambda: topper.TopperState.position(hands={}, bidder=1),
    lambda: topper.TopperState.position(hands={}, bidder=1, bid=7),
])
def test_a_position_that_no_match_reaches_is_refused(make: Callable[[], Engine]) -> None:
    with pytest.raises(ValueError):
        make()


def test_one_helper_writes_a_scripted_deal_for_either_game() -> None:
    aces = [Card.parse(t) for t in ("AS", "AH")]
    faces = faces_for_hands({2: aces}, FULL_DECK)
    assert len(faces) == 52 and faces[2] == aces[0] and faces[6] == aces[1]
    assert sorted(known(faces), key=lambda c: c.code) == sorted(FULL_DECK, key=lambda c: c.code)
    seats = [list(TOPPER_DECK[s * 6:(s + 1) * 6]) for s in range(4)]
    exact = faces_for_hands(seats)
    assert exact == faces_for_hands(seats, TOPPER_DECK) and exact[4] == seats[0][1]
    assert faces_for_hands([[None], [None], [None], [None]]) == [None] * 4
    with pytest.raises(ValueError):
        faces_for_hands({0: aces, 1: aces[:1]}, FULL_DECK)
    with pytest.raises(ValueError):
        faces_for_hands({0: [Card.parse("2C")]}, TOPPER_DECK)
    with pytest.raises(ValueError):
        faces_for_hands([aces, aces[:1]])


def test_game_of_refuses_what_belongs_to_no_game() -> None:
    assert game_of(MatchEnded(bluff.BluffOutcome(Termination.DEAL_CAP, (0,), (1, 1, 1, 1), 2))) is BLUFF
    assert game_of(topper.TopperConfig()) is TOPPER
    for thing in (HandDealt(1, 0), object(), "bluff"):
        with pytest.raises(UnknownGame):
            game_of(thing)
    with pytest.raises(UnknownGame):
        by_name("poker")


@pytest.mark.parametrize("name", GAME_NAMES)
def test_the_game_object_builds_positions_with_the_shared_facts(name: str) -> None:
    game = by_name(name)
    standings = (3, 0, 9, 4) if name == "topper" else (100, 0, 300, 1600)
    state = game.position(first=2, standings=standings, deals=5,
                          hands={2: list(game.deck()[:3])})
    assert isinstance(state, game.engine) and state.to_act is not None
    assert state.public().to_act == state.to_act
    assert [h.face for h in state.hand(2)][:3] == list(game.deck()[:3])
    assert state.outcome is None and not state.awaiting_deal
