"""Topper bots: legal, deterministic, given views only; the rule bots (heuristic and counter)
bid, name and play soundly: positions both must get right are parametrised over both."""

import random
from collections.abc import Callable, Sequence

import pytest

from p2pcards.bots.base import play_local_match
from p2pcards.bots.topper import HeuristicTopperBot, RandomTopperBot, best_trump, estimate_tricks
from p2pcards.bots.topper_counter import CounterTopperBot
from p2pcards.cards import TOPPER_DECK, Card, Suit
from p2pcards.rules.topper import (
    Bid,
    NameTrump,
    PassBid,
    Phase,
    Play,
    TopperAction,
    TopperConfig,
    TopperState,
    faces_for_hands,
)
from tests.rules.expect import known


def C(text: str) -> Card:
    return Card.parse(text)


def cards(text: str) -> list[Card]:
    return [C(t) for t in text.split()]


def table(hand_texts: Sequence[str], moves: Sequence[tuple[int, str]] = (), bidder: int = 0,
          trump: Suit = Suit.SPADES) -> tuple[TopperState, dict[Card, int]]:
    """Dealer 3, ``bidder`` bids one, ``trump`` is named, then ``moves`` are played."""
    faces = known(faces_for_hands([cards(h) for h in hand_texts]))
    state = TopperState.new(TopperConfig(), 3)
    state.deal(faces)
    while state.phase is Phase.BIDDING:
        seat = state.to_act
        assert seat is not None
        state.apply(Bid(seat, 1) if seat == bidder else PassBid(seat))
    state.apply(NameTrump(bidder, trump))
    slots = {c: p for p, c in enumerate(faces)}
    for seat, text in moves:
        state.apply(Play(seat, slots[C(text)], C(text)))
    return state, slots


def bidding_with(hand_text: str) -> TopperState:
    """Seat 0 (first to bid, dealer 3) holds ``hand_text``; the rest of the deck goes round."""
    mine = cards(hand_text)
    rest = [c for c in TOPPER_DECK if c not in mine]
    state = TopperState.new(TopperConfig(), 3)
    state.deal(faces_for_hands([mine, rest[0:6], rest[6:12], rest[12:18]]))
    return state


def heuristic_choice(state: TopperState) -> TopperAction:
    assert state.to_act is not None
    return HeuristicTopperBot(random.Random(0)).choose(state.view(state.to_act))


#: The bots that decide by rules from their view (``topper.RuleTopperBot``).
RuleBot = type[HeuristicTopperBot] | type[CounterTopperBot]
RULE_BOTS = pytest.mark.parametrize("bot_class", [HeuristicTopperBot, CounterTopperBot],
                                    ids=["heuristic", "counter"])


def rule_choice(bot_class: RuleBot, state: TopperState) -> TopperAction:
    assert state.to_act is not None
    return bot_class(random.Random(0)).choose(state.view(state.to_act))


def played_card(action: TopperAction) -> Card:
    """The card ``action`` plays (the test expects a play)."""
    assert isinstance(action, Play), action
    return action.card


class Watched:
    """Wraps a bot, checking it is handed its own view and answers a legal action."""

    def __init__(self, bot: RandomTopperBot | HeuristicTopperBot | CounterTopperBot) -> None:
        self.bot = bot
        self.name = bot.name
        self.choices: list[TopperAction] = []

    def choose(self, view: TopperState) -> TopperAction:
        assert view.viewer == view.to_act
        for other in set(range(4)) - {view.viewer}:
            assert all(face is None for _, face in view.hand(other))
        action = self.bot.choose(view)
        assert action in tuple(view.legal_actions())
        self.choices.append(action)
        return action


MakeBots = Callable[[int], Sequence[RandomTopperBot | HeuristicTopperBot]]


def match(make_bots: MakeBots, seed: int) -> tuple[TopperState, list[list[TopperAction]]]:
    bots = [Watched(b) for b in make_bots(seed)]
    state = TopperState.new(TopperConfig(), seed % 4)
    play_local_match(state, bots, TOPPER_DECK, random.Random(seed))
    return state, [b.choices for b in bots]


def randoms(seed: int) -> list[RandomTopperBot]:
    return [RandomTopperBot(random.Random(seed * 10 + s)) for s in range(4)]


def mixed(seed: int) -> list[RandomTopperBot | HeuristicTopperBot]:
    return [HeuristicTopperBot(random.Random(seed)) if s == seed % 4
            else RandomTopperBot(random.Random(seed * 10 + s)) for s in range(4)]


@pytest.mark.parametrize("make_bots", [randoms, mixed])
def test_bots_play_only_legal_actions_from_their_own_view(make_bots: MakeBots) -> None:
    for seed in range(4):
        state, _ = match(make_bots, seed)
        assert state.outcome is not None


@pytest.mark.parametrize("make_bots", [randoms, mixed])
def test_bots_are_deterministic_given_their_seeds(make_bots: MakeBots) -> None:
    first, choices = match(make_bots, 11)
    again, choices_again = match(make_bots, 11)
    assert choices == choices_again and first == again


def test_bots_have_names() -> None:
    assert RandomTopperBot(random.Random(0)).name == "random"
    assert HeuristicTopperBot(random.Random(0)).name == "heuristic"
    assert CounterTopperBot(random.Random(0)).name == "counter"


@RULE_BOTS
def test_bot_asked_to_act_for_another_seat_refuses(bot_class: RuleBot) -> None:
    state = bidding_with("JS JC AS KS AH AD")
    with pytest.raises(ValueError):
        bot_class(random.Random(0)).choose(state.view(2))


# ----------------------------------------------------------------- bidding

def test_heuristic_bids_the_least_that_tops_the_bidding_with_a_strong_hand() -> None:
    state = bidding_with("JS JC AS KS AH AD")
    assert heuristic_choice(state) == Bid(0, 1)


def test_heuristic_outbids_while_its_hand_can_make_it() -> None:
    state = TopperState.new(TopperConfig(), 2)
    mine = cards("JS JC AS KS AH AD")
    rest = [c for c in TOPPER_DECK if c not in mine]
    state.deal(faces_for_hands([mine, rest[0:6], rest[6:12], rest[12:18]]))
    state.apply(Bid(3, 3))  # dealer 2: seat 3 bids before seat 0
    assert heuristic_choice(state) == Bid(0, 4)


def test_heuristic_passes_when_the_bid_to_top_exceeds_its_hand() -> None:
    mine = cards("JS JC AS KS AH AD")
    rest = [c for c in TOPPER_DECK if c not in mine]
    state = TopperState.new(TopperConfig(), 2)
    state.deal(faces_for_hands([mine, rest[0:6], rest[6:12], rest[12:18]]))
    state.apply(Bid(3, 5))
    assert estimate_tricks(mine, Suit.SPADES) < 6
    assert heuristic_choice(state) == PassBid(0)


@RULE_BOTS
def test_rule_bot_bids_a_strong_hand_and_passes_a_weak_one(bot_class: RuleBot) -> None:
    assert isinstance(rule_choice(bot_class, bidding_with("JS JC AS KS AH AD")), Bid)
    assert rule_choice(bot_class, bidding_with("9C 10D 9H 10S QC 9S")) == PassBid(0)


def test_heuristic_counts_jacks_trumps_and_aces() -> None:
    assert estimate_tricks(cards("JS JC AS KS AH AD"), Suit.SPADES) > estimate_tricks(
        cards("JS JC AS KS 9H 9D"), Suit.SPADES) > estimate_tricks(
        cards("JS 10C AS KS 9H 9D"), Suit.SPADES)


@RULE_BOTS
def test_rule_bot_names_its_strongest_suit(bot_class: RuleBot) -> None:
    assert best_trump(cards("JH JD AH KH 9C 10S"))[0] is Suit.HEARTS
    mine = cards("JH JD AH KH 9C 10S")
    rest = [c for c in TOPPER_DECK if c not in mine]
    state = TopperState.new(TopperConfig(), 3)
    state.deal(faces_for_hands([mine, rest[0:6], rest[6:12], rest[12:18]]))
    state.apply(Bid(0, 2))
    for seat in (1, 2, 3):
        state.apply(PassBid(seat))
    assert rule_choice(bot_class, state) == NameTrump(0, Suit.HEARTS)


# -------------------------------------------------------------------- play

COUNTING = ("JS 9H 9S QD 9D 10D", "JC 10S AH AD KC 10H",
            "AS KS QH QC 9C JD", "QS KH JH AC 10C KD")


@RULE_BOTS
def test_rule_bot_leads_the_top_trump_to_draw_trumps(bot_class: RuleBot) -> None:
    state, _ = table(COUNTING)
    assert played_card(rule_choice(bot_class, state)) == C("JS")


@RULE_BOTS
def test_rule_bot_leads_the_little_jack_once_the_big_jack_is_played(bot_class: RuleBot) -> None:
    state, _ = table(COUNTING, [(0, "JS"), (1, "10S"), (2, "KS"), (3, "QS"),
                                (0, "9H"), (1, "AH"), (2, "QH"), (3, "KH")])
    assert state.to_act == 1
    assert played_card(rule_choice(bot_class, state)) == C("JC")


def test_heuristic_keeps_the_little_jack_while_the_big_jack_is_out() -> None:
    state, _ = table(COUNTING, [(0, "9H"), (1, "AH"), (2, "QH"), (3, "KH")])
    assert state.to_act == 1
    assert played_card(heuristic_choice(state)) == C("AD")  # a winner no unseen card beats


FOLLOWING = ("9H AS KS QS 10S 9S", "QH 9C 10C 9D 10D JD",
             "10H QC KC AC QD KD", "AH KH JS JC AD JH")


@RULE_BOTS
def test_rule_bot_last_to_play_wins_as_cheaply_as_it_can(bot_class: RuleBot) -> None:
    state, _ = table(FOLLOWING, [(0, "9H"), (1, "QH"), (2, "10H")])
    assert played_card(rule_choice(bot_class, state)) == C("KH")


@RULE_BOTS
def test_rule_bot_throws_its_lowest_card_when_it_cannot_win(bot_class: RuleBot) -> None:
    state, _ = table(FOLLOWING, [(0, "AS")])
    assert played_card(rule_choice(bot_class, state)) == C("9C")


TRUMPING = ("AC 9S KH QH 9H 10D", "JC 10S AS 9D JD QD",
            "KC QC 10C JS KS JH", "9C QS 10H AH KD AD")


def test_heuristic_void_in_the_led_suit_trumps_with_its_lowest_winning_trump() -> None:
    state, _ = table(TRUMPING, [(0, "AC")])
    assert played_card(heuristic_choice(state)) == C("10S")


SURE = ("JS 9H KH QH 10D 9C", "QS 10H JH AH 10C QC",
        "JC 10S 9S 9D JD QD", "AS KS KC AC KD AD")


def test_heuristic_trumps_in_cheaply_while_a_higher_trump_is_out() -> None:
    state, _ = table(SURE, [(0, "9H"), (1, "10H")])
    assert played_card(heuristic_choice(state)) == C("9S")


def test_heuristic_takes_the_trick_with_a_card_no_unseen_card_can_beat() -> None:
    # The Big Jack has fallen, so the Little Jack is sure where the 10 of spades is not.
    state, _ = table(SURE, [(0, "JS"), (1, "QS"), (2, "9S"), (3, "KS"), (0, "9H"), (1, "10H")])
    assert played_card(heuristic_choice(state)) == C("JC")


# ---------------------------------------------------------------- strength

def test_heuristic_beats_three_random_bots_most_of_the_time() -> None:
    wins = 0.0
    matches = 80
    for i in range(matches):
        seat = i % 4
        bots = [HeuristicTopperBot(random.Random(i)) if s == seat
                else RandomTopperBot(random.Random(1000 + 4 * i + s)) for s in range(4)]
        state = TopperState.new(TopperConfig(), (i // 4) % 4)
        play_local_match(state, bots, TOPPER_DECK, random.Random(10_000 + i))
        assert state.outcome is not None
        if seat in state.outcome.winners:
            wins += 1 / len(state.outcome.winners)
    assert wins / matches >= 0.45
