"""The counter bots (issue 26's benchmark): legal, seeded, blind to other seats' hidden cards;
the Topper counter's fitted evaluation, bidding and counted play; the Bluff counter's full count
(the belief it reads is tested in test_bluff_belief.py)."""

from __future__ import annotations

import random

import pytest

from p2pcards.bots.base import play_local_match, shuffled_faces
from p2pcards.bots.bluff_belief import TableBelief
from p2pcards.bots.bluff_counter import CounterBluffBot
from p2pcards.bots.registry import KINDS, make_bot_factory
from p2pcards.bots.topper import HeuristicTopperBot
from p2pcards.bots.topper_counter import (
    Count,
    CounterTopperBot,
    best_suit,
    bid_value,
    evaluate,
)
from p2pcards.cards import FULL_DECK, TOPPER_DECK, Card, Rank, Suit
from p2pcards.rules.bluff import (
    BluffConfig,
    BluffState,
    Challenge,
    DealWon,
    Discard,
    Pass,
    faces_for_hands,
)
from p2pcards.rules.topper import (
    TopperAction,
    TopperConfig,
    TopperState,
)
from p2pcards.rules.topper.order import effective_suit
from tests.bots.seeded_matches import bluff_states, topper_states, twin_views
from tests.bots.test_topper_bots import Watched, cards, table
from tests.rules.expect import known


def C(text: str) -> Card:
    return Card.parse(text)


def counter_choice(state: TopperState) -> TopperAction:
    assert state.to_act is not None
    return CounterTopperBot(random.Random(0)).choose(state.view(state.to_act))


# --- a kind of the registry, at every table ------------------------------------------

@pytest.mark.parametrize("game", ["bluff", "topper"])
def test_counter_is_a_kind_of_both_games(game: str) -> None:
    assert "counter" in KINDS
    bot = make_bot_factory(game, "counter", "hard")(random.Random(0))
    assert bot.name == "counter"


def test_topper_counters_play_whole_matches_legally_from_their_own_views() -> None:
    for seed in range(3):
        bots = [Watched(CounterTopperBot(random.Random(seed * 4 + s))) for s in range(4)]
        state = TopperState.new(TopperConfig(), seed)
        play_local_match(state, bots, TOPPER_DECK, random.Random(seed))
        assert state.outcome is not None


def test_a_seeded_topper_counter_match_repeats_exactly() -> None:
    def run() -> list[object]:
        chosen: list[object] = []
        bots = [CounterTopperBot(random.Random(s)) for s in range(4)]
        play_local_match(TopperState.new(TopperConfig(), 1), bots, TOPPER_DECK, random.Random(9),
                         on_step=lambda state, action, events: chosen.append(action))
        return chosen
    assert run() == run()


def test_topper_counter_chooses_from_its_view_alone_whatever_the_others_hold() -> None:
    """Tables that differ only in the other seats' hidden cards give one view and one choice."""
    rng = random.Random(4)
    compared = 0
    for seed in range(3):
        for view, twin in twin_views(topper_states(seed, 90), rng):
            first = CounterTopperBot(random.Random(1)).choose(view)
            assert CounterTopperBot(random.Random(1)).choose(twin) == first
            compared += 1
    assert compared > 60


def test_bluff_counter_chooses_from_its_view_alone_and_legally() -> None:
    checked = 0
    for seed in range(3):
        for state in bluff_states(seed, 250):
            assert state.to_act is not None
            view = state.view(state.to_act)
            before = view.copy()
            action = CounterBluffBot(random.Random(seed)).choose(view)
            assert view == before
            state.check(action)
            checked += 1
    assert checked > 200


# --- the fitted evaluation and the bidding --------------------------------------------

def test_the_evaluation_ranks_jacks_trumps_and_aces() -> None:
    assert evaluate(cards("JS JC AS KS AH AD"), Suit.SPADES) > evaluate(
        cards("JS JC AS KS 9H 9D"), Suit.SPADES) > evaluate(
        cards("JS 10C AS KS 9H 9D"), Suit.SPADES) > evaluate(cards("9C 10D 9H 10S QC 9S"), Suit.SPADES)


def test_the_little_jack_counts_as_a_trump_of_its_colour() -> None:
    hand = cards("JC 9S 10S QH 9D 10D")
    assert evaluate(hand, Suit.SPADES) > evaluate(hand, Suit.CLUBS) - 0.5  # JC is spades' Little Jack
    assert best_suit(cards("JH JD AH KH 9C 10S"))[0] is Suit.HEARTS


def test_a_bid_is_worth_less_the_further_it_is_above_the_estimate() -> None:
    assert bid_value(4.0, 1) > bid_value(4.0, 5) and bid_value(1.0, 4) < 0


# (The bidding, naming and play positions the counter shares with the heuristic bot are
# parametrised over both in test_topper_bots.py.)

# --- counted play -----------------------------------------------------------------------

def test_a_seat_void_in_a_suit_is_counted_as_holding_none_of_it() -> None:
    # Seat 1 shows it has no hearts (it discards on the 9 of hearts): it may hold none.
    state, _ = table(("9H AS KS QS 10S 9S", "9C 10C 9D 10D JD QC",
                      "QH 10H KC AC QD KD", "AH KH JS JC AD JH"), [(0, "9H"), (1, "9C")])
    count = Count(state.view(2), 2)
    assert not any(c.suit is Suit.HEARTS for c in count.possible[1])
    # Void in hearts, it beats the Queen only by trumping it.
    trumps = [c for c in count.possible[1] if effective_suit(c, Suit.SPADES) is Suit.SPADES]
    assert count.beaten_by(1, C("QH"), Suit.HEARTS) == pytest.approx(count.holds_any(1, trumps))
    assert count.beaten_by(1, C("QH"), Suit.HEARTS) > count.holds_any(1, [C("AH"), C("KH")]) == 0.0


def test_counter_beats_three_heuristic_bots_more_than_its_share() -> None:
    """A fixed seeded sample (the arena measures the rate with an interval)."""
    wins = 0.0
    matches = 40
    for i in range(matches):
        seat = i % 4
        bots = [CounterTopperBot(random.Random(i)) if s == seat
                else HeuristicTopperBot(random.Random(100 + 4 * i + s)) for s in range(4)]
        state = TopperState.new(TopperConfig(), (i // 4) % 4)
        play_local_match(state, bots, TOPPER_DECK, random.Random(5_000 + i))
        assert state.outcome is not None
        if seat in state.outcome.winners:
            wins += 1 / len(state.outcome.winners)
    assert wins / matches > 0.4


# --- the Bluff counter's full count -----------------------------------------------------

def _claims_of_one_rank(first: int, second: int) -> tuple[BluffState, int]:
    """Seat 0 claims ``first`` cards of a rank seat 2 holds none of, seat 1 ``second`` more:
    the view of seat 2, to answer seat 1."""
    state = BluffState.new(BluffConfig(), 0)
    state.deal(shuffled_faces(FULL_DECK, random.Random(3)))
    judge = 2
    mine = {card.rank for card in known(state.face(p) for p in range(52) if p % 4 == judge)}
    rank = next(r for r in sorted({c.rank for c in FULL_DECK}) if r not in mine)
    state.apply(Discard(0, tuple(p for p in range(0, 52, 4))[:first], 10, rank))
    state.apply(Discard(1, tuple(p for p in range(1, 52, 4))[:second], 10, rank))
    assert state.to_act == judge
    return state.view(judge), judge


def test_bluff_counter_doubts_a_claim_the_earlier_claims_leave_no_room_for() -> None:
    """Three cards then two claimed of a rank the judge holds none of: five of four, so one
    claim lied; with two then two the count alone proves nothing."""
    tight, judge = _claims_of_one_rank(3, 2)
    loose, _ = _claims_of_one_rank(2, 2)
    doubted = TableBelief(tight, judge).chance_true(tight.claims[-1])
    believed = TableBelief(loose, judge).chance_true(loose.claims[-1])
    assert 0 < doubted < believed < 1


def test_bluff_counter_calls_a_claim_that_needs_more_cards_than_remain() -> None:
    """Cat holds three 7s; Ann claims two: a certain lie, called (Cat then leads her 7s)."""
    state = BluffState.new(BluffConfig(), 0)
    sevens = cards("7C 7D 7H 2S 3S 4S 5S 6S 8S 9S 10S JS QS")
    state.deal(faces_for_hands({2: sevens}, FULL_DECK))
    state.apply(Discard(0, (0, 4), 10, Rank.SEVEN))
    state.apply(Pass(1))
    view = state.view(2)
    assert TableBelief(view, 2).chance_true(view.claims[-1]) == 0.0
    assert CounterBluffBot(random.Random(0)).choose(view) == Challenge(2)


def test_bluff_counter_never_bluffs_with_a_card_a_call_showed() -> None:
    """A caught bluff's cards go back to its maker's hand face up: the counter does not
    claim them as another rank (everyone would know), except by the discard that accepts a
    last discard, which ends the deal."""
    seen = 0
    for seed in range(6):
        rng = random.Random(seed)
        bots = [CounterBluffBot(random.Random(seed * 4 + s)) for s in range(4)]
        state = BluffState.new(BluffConfig(deal_cap=3), seed % 4)

        def check(state: BluffState, action: object, events: tuple[object, ...]) -> None:
            nonlocal seen
            ended = any(isinstance(event, DealWon) for event in events)
            if isinstance(action, Discard) and not ended:  # (a deal's end: any card will do)
                shown = {slot for claim in state.claims[:-1] if claim.faces is not None
                         for slot in claim.slots}
                claimed = state.claims[-1].rank
                for slot in action.slots:
                    face = state.face(slot)
                    assert slot not in shown or (face is not None and face.rank == claimed)
                    seen += slot in shown
        play_local_match(state, bots, FULL_DECK, rng, on_step=check)
    assert seen > 0  # shown cards were shed, always as what they are


# --- the arena's tally ------------------------------------------------------------------

def test_the_arena_tallies_each_topper_bot_s_contracts_defence_and_points() -> None:
    from tests.bots.test_search_bots import load_arena
    arena = load_arena()
    result = arena.run_arena("topper", ["counter", "heuristic", "heuristic", "heuristic"], 3, seed=2)
    tallies = {name: t.to_json() for name, t in result.tallies.items()}
    assert set(tallies) == set(result.bots)
    hands = {t["hands"] for t in tallies.values()}
    assert len(hands) == 1 and hands.pop() > 0  # every seat scores every hand
    total = sum(t["contracts"] for t in tallies.values())
    assert total == tallies["counter#0"]["hands"]  # each scored hand has one bidder
    for t in tallies.values():
        assert t["made"] <= t["contracts"] and 0 <= t["set_rate"] <= 1
    assert result.to_json()["tally"] == tallies
    assert "named" in arena.report(result)
    bluff = arena.run_arena("bluff", ["counter", "heuristic", "random", "random"], 1, seed=2)
    assert bluff.tallies == {} and bluff.to_json()["tally"] == {}
