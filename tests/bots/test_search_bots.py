"""The search bots: legal, seeded, blind to other seats' cards, harmless to their view;
determinisations that respect every public fact; one registry for arena and tables."""

from __future__ import annotations

import asyncio
import importlib.util
import random
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pcards.bots.agent import BotAgent
from p2pcards.bots.base import play_local_match, shuffled_faces
from p2pcards.bots.bluff_belief import Habits
from p2pcards.bots.bluff_model import OpponentModel
from p2pcards.bots.bluff_search import SearchBluffBot
from p2pcards.bots.registry import KINDS, LEVELS, UnknownBot, make_bot_factory
from p2pcards.bots.topper_playout import MatchOdds
from p2pcards.bots.topper_search import SearchTopperBot, _Deadline, _Knowledge
from p2pcards.cards import FULL_DECK, TOPPER_DECK, Card, Rank, Suit
from p2pcards.rules.bluff import BluffConfig, BluffState, Challenge, Discard
from p2pcards.rules.topper import Bid, PassBid, Phase, TopperState
from p2pcards.rules.topper.order import effective_suit
from tests.bots.seeded_matches import random_states, topper_states, twin_views
from tests.rules.expect import known

ROOT = Path(__file__).resolve().parents[2]

def load_arena() -> ModuleType:
    """scripts/arena.py as a module (registered, so its dataclasses and processes find it)."""
    if "arena_script" in sys.modules:
        return sys.modules["arena_script"]
    spec = importlib.util.spec_from_file_location("arena_script", ROOT / "scripts" / "arena.py")
    assert spec is not None
    arena = importlib.util.module_from_spec(spec)
    sys.modules["arena_script"] = arena
    assert spec.loader is not None
    spec.loader.exec_module(arena)
    return arena


tiny_topper = partial(SearchTopperBot, iterations=12, bid_samples=3)
aware_topper = partial(SearchTopperBot, iterations=12, bid_samples=3, match_aware=True)


# --- views: legal, unchanged, and blind ---------------------------------------------

@pytest.mark.parametrize("bot", [tiny_topper, aware_topper], ids=["by score", "match-aware"])
def test_topper_search_plays_legally_leaves_its_view_and_repeats_itself(
        bot: Callable[[random.Random], SearchTopperBot]) -> None:
    checked = 0
    for seed in range(2):
        for state in topper_states(seed, 120):
            assert state.to_act is not None
            view = state.view(state.to_act)
            before = view.copy()
            action = bot(random.Random(seed)).choose(view)
            assert view == before
            assert action in tuple(view.legal_actions())
            assert bot(random.Random(seed)).choose(view) == action
            checked += 1
    assert checked > 60


def test_bluff_search_plays_legally_and_leaves_its_view_as_it_was() -> None:
    checked = 0
    bots = {level: make_bot_factory("bluff", "search", level) for level in LEVELS}
    for seed in range(4):
        for state in random_states("bluff", seed, 300):
            view = state.view(state.to_act)
            before = view.copy()
            for level, make in bots.items():
                action = make(random.Random(seed)).choose(view)
                assert view == before, level
                state.check(action)
            checked += 1
    assert checked > 200


def test_topper_search_chooses_from_its_view_alone_whatever_the_others_hold() -> None:
    """Two tables that differ only in the other seats' hidden cards give equal views,
    so a seeded bot chooses alike: it cannot reach what its view does not hold."""
    compared = 0
    bidding = (state for state in topper_states(2, 60) if state.phase is Phase.BIDDING)
    for view, twin in twin_views(bidding, random.Random(5)):
        for other in range(4):
            if other != view.to_act:
                assert all(face is None for _, face in view.hand(other))
        assert tiny_topper(random.Random(1)).choose(view) == tiny_topper(random.Random(1)).choose(twin)
        compared += 1
    assert compared > 3


# --- seeded bots repeat themselves ---------------------------------------------------

@pytest.mark.parametrize("game", ["bluff", "topper"])
def test_a_seeded_search_match_repeats_exactly(game: str) -> None:
    deck = FULL_DECK if game == "bluff" else TOPPER_DECK
    new = BluffState.new if game == "bluff" else TopperState.new

    def run(seed: int) -> list[object]:
        make = (partial(SearchBluffBot, learn=True) if game == "bluff" else tiny_topper)
        chosen: list[object] = []

        def record(state: object, action: object, events: object) -> None:
            chosen.append(action)
        config = BluffConfig(deal_cap=2) if game == "bluff" else None
        play_local_match(new(config, 0), [make(random.Random(seed + s)) for s in range(4)], deck,  # type: ignore[arg-type]
                         random.Random(seed), on_step=record)
        return chosen
    assert run(4) == run(4)


# --- determinisations respect every public fact --------------------------------------

@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(6, 150), draw=st.integers(0, 2**32))
def test_topper_determinisations_respect_every_public_fact(seed: int, steps: int, draw: int) -> None:
    *_, state = [None, *topper_states(seed, steps)]  # the last state reached
    if state is None or state.phase not in (Phase.BIDDING, Phase.TRUMP, Phase.PLAY):
        return
    seat = state.to_act
    assert seat is not None
    know = _Knowledge(state.view(seat), seat)
    hands = know.deal(random.Random(draw))
    played = set(state.played_cards)
    dealt = [c for hand in hands for c in hand]
    # Every unplayed card exactly once, none that was played.
    assert sorted(dealt) == sorted(c for c in TOPPER_DECK if c not in played)
    for s in range(4):
        assert len(hands[s]) == state.hand_sizes[s]
        for suit in state.voids(s):
            assert all(effective_suit(c, state.trump) != suit for c in hands[s])
    # The seat's own cards are its own.
    assert seat is not None
    assert sorted(hands[seat]) == sorted(known(face for _, face in state.hand(seat)))


def test_a_seat_void_in_a_suit_is_never_dealt_it() -> None:
    found = 0
    for seed in range(40):
        for state in topper_states(seed, 200):
            seat = state.to_act
            voids = {s: state.voids(s) for s in range(4) if s != seat and state.voids(s)}
            if not voids:
                continue
            assert seat is not None
            know = _Knowledge(state.view(seat), seat)
            for draw in range(20):
                hands = know.deal(random.Random(draw))
                for s, suits in voids.items():
                    assert not any(effective_suit(c, state.trump) in suits for c in hands[s])
            found += 1
            break
    assert found > 5


# --- the opponent model ---------------------------------------------------------------

def test_the_model_learns_that_a_player_calls_our_bluffs_more_than_predicted() -> None:
    model = OpponentModel()
    state = BluffState.new(BluffConfig(), 0)
    state.deal(shuffled_faces(FULL_DECK, random.Random(1)))
    model.predict_call(state, 1, 0.2)
    face = state.face(0)
    assert face is not None
    lie = next(rank for rank in Rank if rank != face.rank)
    state.apply(Discard(0, (0,), 10, lie))
    state.apply(Challenge(1))
    model.observe(state.view(0), 0, Habits())
    assert model.call_scale(1) > 1 and model.call_scale(2) == 1


def test_unknown_bots_and_levels_are_refused() -> None:
    with pytest.raises(UnknownBot):
        make_bot_factory("bluff", "genius")
    with pytest.raises(UnknownBot):
        make_bot_factory("topper", "search", "impossible")
    with pytest.raises(UnknownBot):
        make_bot_factory("poker", "search")


# --- one registry ------------------------------------------------------------------------

def test_the_registry_serves_the_arena_the_tables_and_the_cli() -> None:
    import p2pcards.app._direct as direct
    import p2pcards.app.hosted as app
    import p2pcards.commands.options as options
    from p2pcards.bots import registry
    # The names each module imported (not re-exported, so read from its namespace).
    assert vars(app)["make_bot_factory"] is registry.make_bot_factory
    assert vars(direct)["make_bot_factory"] is registry.make_bot_factory
    assert vars(options)["BOT_KINDS"] == registry.KINDS and "search" in KINDS
    arena = load_arena()
    assert arena.make_bot_factory is registry.make_bot_factory
    result = arena.run_arena("topper", ["search:easy", "heuristic", "random", "random"], 1, seed=2)
    assert sum(result.wins.values()) == pytest.approx(1.0)
    assert set(result.decision_ms["search:easy#0"]) == {"median", "p95", "max"}
    cpu = result.decision_cpu_ms["search:easy#0"]
    assert set(cpu) == {"median", "p95", "max"} and cpu["median"] <= cpu["max"]
    assert result.to_json()["decision_cpu_ms"] == result.decision_cpu_ms


def test_arena_results_do_not_depend_on_the_number_of_processes() -> None:
    arena = load_arena()
    kinds = ["search", "heuristic", "random", "heuristic"]
    one = arena.run_arena("bluff", kinds, 4, seed=3, level="easy", jobs=1)
    two = arena.run_arena("bluff", kinds, 4, seed=3, level="easy", jobs=2)
    assert one.wins == two.wins and one.steps == two.steps


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_arena_stopped_by_its_minutes_reports_the_first_matches_as_seeded(jobs: int) -> None:
    arena = load_arena()
    kinds = ["counter", "heuristic", "random", "heuristic"]
    stopped = arena.run_arena("topper", kinds, 5, seed=3, jobs=jobs, minutes=0)
    first = arena.run_arena("topper", kinds, 1, seed=3)
    assert stopped.matches == 1
    assert stopped.wins == first.wins and stopped.steps == first.steps
    assert stopped.to_json()["tally"] == first.to_json()["tally"]


def test_the_agent_keeps_a_learning_bot_and_reseeds_it_for_each_decision() -> None:
    class Decision:
        def __init__(self, position: int) -> None:
            self.position = position

    agent = BotAgent(make_bot_factory("bluff", "search", "normal"), seed=7)
    state = BluffState.new(BluffConfig(), 0)
    state.deal(shuffled_faces(FULL_DECK, random.Random(2)))
    first = asyncio.run(agent.decide(state.view(0), Decision(1)))
    kept = agent._kept
    assert isinstance(kept, SearchBluffBot)
    asyncio.run(agent.decide(state.view(0), Decision(2)))
    assert agent._kept is kept
    fresh = BotAgent(make_bot_factory("bluff", "search", "normal"), seed=7)
    assert asyncio.run(fresh.decide(state.view(0), Decision(1))) == first
    heuristic = BotAgent(make_bot_factory("bluff", "heuristic"), seed=7)
    asyncio.run(heuristic.decide(state.view(0), Decision(1)))
    assert heuristic._kept is None


# --- match-aware Topper search (normal and hard) --------------------------------------

def test_match_odds_follow_the_rules_when_a_hand_ends_the_match() -> None:
    odds = MatchOdds((18, 19, 5, 0), target=21)
    # Seat 0 reaches 22, seat 1 only 20: seat 0 wins outright.
    assert odds.after((4, 1, 1, 0), bidder=2) == [1.0, 0.0, 0.0, 0.0]
    # Both reach 21: the tie goes to the bidder among the leaders.
    assert odds.after((3, 2, 1, 0), bidder=1) == [0.0, 1.0, 0.0, 0.0]
    # Tied at the top without the bidder: play goes on, the two leaders alike and ahead.
    tied = odds.after((3, 2, 1, 0), bidder=3)
    assert tied[0] == pytest.approx(tied[1]) and tied[0] > tied[2] > tied[3]
    assert sum(tied) == pytest.approx(1.0)


def test_match_odds_favour_the_leader_more_as_the_target_nears() -> None:
    early = MatchOdds((3, 0, 0, 0), target=21).odds((3, 0, 0, 0), None)
    late = MatchOdds((20, 17, 17, 17), target=21).odds((20, 17, 17, 17), None)
    assert sum(early) == pytest.approx(1.0) and sum(late) == pytest.approx(1.0)
    assert 0.25 < early[0] < late[0] < 1.0


def test_normal_and_hard_play_for_the_match_and_easy_for_the_hand() -> None:
    for level, aware in (("easy", False), ("normal", True), ("hard", True)):
        bot = make_bot_factory("topper", "search", level)(random.Random(0))
        assert bot.match_aware is aware  # type: ignore[attr-defined]  # the search bot's own


def test_a_match_aware_bot_chooses_from_its_view_alone() -> None:
    compared = 0
    for view, twin in twin_views(topper_states(3, 80), random.Random(8)):
        assert aware_topper(random.Random(2)).choose(view) == aware_topper(random.Random(2)).choose(twin)
        compared += 1
    assert compared > 20


def _dealt_to_seat0(hand: list[Card], dealer: int, scores: list[int]) -> TopperState:
    return TopperState.position(first=dealer, hands={0: hand}, standings=scores)


def test_a_match_aware_bot_bids_the_hand_that_wins_the_match_and_passes_a_hopeless_one() -> None:
    """At 18 points with the top trumps and the side Aces, bidding (any number: the bidder
    keeps every trick he takes) wins the match; with nothing, facing a bid of 3, it passes."""
    strong = [Card(Rank.JACK, Suit.SPADES), Card(Rank.JACK, Suit.CLUBS), Card(Rank.ACE, Suit.SPADES),
              Card(Rank.KING, Suit.SPADES), Card(Rank.ACE, Suit.HEARTS), Card(Rank.ACE, Suit.DIAMONDS)]
    weak = [Card(Rank.NINE, Suit.SPADES), Card(Rank.TEN, Suit.CLUBS), Card(Rank.NINE, Suit.HEARTS),
            Card(Rank.TEN, Suit.HEARTS), Card(Rank.NINE, Suit.DIAMONDS), Card(Rank.TEN, Suit.DIAMONDS)]

    def bot() -> SearchTopperBot:
        return SearchTopperBot(random.Random(3), iterations=50, bid_samples=40, match_aware=True)

    state = _dealt_to_seat0(strong, 3, [18, 10, 10, 10])
    action = bot().choose(state.view(0))
    assert isinstance(action, Bid), action
    state = _dealt_to_seat0(weak, 2, [0, 0, 0, 0])
    state.apply(Bid(3, 3))
    assert state.to_act == 0
    assert bot().choose(state.view(0)) == PassBid(0)


def test_arena_progress_reports_the_running_rates_after_every_match() -> None:
    arena = load_arena()
    lines: list[str] = []
    result = arena.run_arena("topper", ["heuristic", "random", "random", "random"], 3, seed=1,
                             progress=lines.append)
    assert [line.split()[0] for line in lines] == ["1/3", "2/3", "3/3"]
    last = lines[-1].split()
    assert float(last[last.index("heuristic#0") + 1]) == pytest.approx(
        result.win_rate["heuristic#0"], abs=5e-4)


# --- issue 26: the counter's evaluation inside the search, budgets in work ------------------

def test_the_search_evaluates_hands_exactly_as_the_counter_does() -> None:
    from p2pcards.bots.topper_counter import evaluate
    from p2pcards.bots.topper_playout import card_tables as _tables
    tables = _tables(TOPPER_DECK)
    rng = random.Random(26)
    for _ in range(300):
        hand = rng.sample(TOPPER_DECK, 6)
        for trump in Suit:
            assert tables.evaluate([tables.index[c] for c in hand], trump) == pytest.approx(
                evaluate(hand, trump))


def test_determinisations_believe_the_bids_and_the_passes() -> None:
    """Seat 1 bid 4 and seats 2, 3 passed: in the imagined deals seat 1's hand is mostly
    strong enough for 4 and the passers' mostly too weak to have topped it."""
    from p2pcards.bots.topper_playout import card_tables as _tables
    from p2pcards.bots.topper_search import _BID_AT
    tables = _tables(TOPPER_DECK)
    state = TopperState.position(first=0, hands={0: [Card(Rank.NINE, Suit.SPADES), Card(Rank.TEN, Suit.SPADES),
                                                    Card(Rank.NINE, Suit.HEARTS), Card(Rank.TEN, Suit.HEARTS),
                                                    Card(Rank.NINE, Suit.CLUBS), Card(Rank.TEN, Suit.CLUBS)]})
    state.apply(Bid(1, 4))
    state.apply(PassBid(2))
    state.apply(PassBid(3))
    assert state.to_act == 0
    know = _Knowledge(state.view(0), 0)
    strong = weak = 0
    for draw in range(40):
        hands = know.deal(random.Random(draw))
        best = {s: tables.best([tables.index[c] for c in hands[s]])[1] for s in (1, 2, 3)}
        strong += best[1] >= _BID_AT[4] - 1.0
        weak += best[2] <= _BID_AT[5] + 1.0 and best[3] <= _BID_AT[5] + 1.0
    assert strong >= 30 and weak >= 30


def test_the_budget_shrinks_with_the_hand_and_a_zero_ceiling_still_plays_legally() -> None:
    bot = SearchTopperBot(random.Random(0), iterations=600, bid_samples=10, ceiling=0.0)
    budgets = {}
    for state in topper_states(1, 200):
        if state.phase is not Phase.PLAY:
            continue
        assert state.to_act is not None
        view = state.view(state.to_act)
        budgets[len(view.hand(state.to_act))] = bot.budget(view, state.to_act)
        assert bot.choose(view) in tuple(view.legal_actions())
    assert budgets[6] == 600 and budgets[1] < budgets[3] < budgets[6]


def test_the_ceiling_counts_the_thinking_thread_s_cpu_not_the_machine_s_load() -> None:
    """Waiting (another process busy, this thread idle) does not spend the CPU ceiling, so a
    seeded bot on a loaded machine still does its whole budget; work does spend it; the
    wall-clock ceiling is the last resort."""
    deadline = _Deadline(cpu=0.05, wall=1000.0)
    time.sleep(0.1)  # idle wall time, the thing under test: it must not count as CPU
    assert not deadline.passed()
    spins = 0
    while not deadline.passed() and spins < 10**8:
        spins += 1
    assert deadline.passed() and spins < 10**8
    assert _Deadline(cpu=1000.0, wall=0.0).passed()
    assert SearchTopperBot(random.Random(0)).wall_ceiling > SearchTopperBot(random.Random(0)).ceiling
