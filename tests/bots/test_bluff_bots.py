"""The Bluff bots: legal, deterministic, blind to hidden cards, and the heuristic's judgement."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from p2pcards.bots.base import play_local_match, shuffled_faces
from p2pcards.bots.bluff import (
    HeuristicBluffBot,
    NothingToChoose,
    RandomBluffBot,
    chance_honest,
)
from p2pcards.bots.bluff_counter import CounterBluffBot
from p2pcards.bots.bluff_search import SearchBluffBot
from p2pcards.cards import FULL_DECK, Card, Rank
from p2pcards.rules.bluff import (
    Action,
    BluffConfig,
    BluffState,
    Challenge,
    Discard,
    Pass,
    Reveal,
    faces_for_hands,
)
from tests.bots.seeded_matches import bluff_states

#: A bot made from its seeded generator.
BotClass = Callable[[random.Random], RandomBluffBot | HeuristicBluffBot | SearchBluffBot]


def cards(text: str) -> list[Card]:
    return [Card.parse(t) for t in text.split()]


def table(hands: dict[int, list[Card]], leader: int = 0, **config: Any) -> BluffState:
    state = BluffState.new(BluffConfig(**config), leader)
    state.deal(faces_for_hands(hands, FULL_DECK))
    return state


def slots(seat: int, *indexes: int) -> tuple[int, ...]:
    return tuple(seat + 4 * i for i in indexes)


def heuristic(view: BluffState) -> Action:
    return HeuristicBluffBot(random.Random(0)).choose(view)


def random_match_views(seed: int, steps: int) -> Iterator[tuple[BluffState, int]]:
    """(full state, seat to act) along a seeded match of random bots."""
    for state in bluff_states(seed, steps):
        assert state.to_act is not None
        yield state, state.to_act


# --- the random bot --------------------------------------------------------------------

def test_bots_have_names() -> None:
    assert RandomBluffBot(random.Random(0)).name == "random"
    assert HeuristicBluffBot(random.Random(0)).name == "heuristic"


@pytest.mark.parametrize("bot_class", [RandomBluffBot, HeuristicBluffBot])
def test_bot_always_chooses_a_legal_action(bot_class: BotClass) -> None:
    checked = 0
    for seed in range(15):
        for state, seat in random_match_views(seed, 400):
            view = state.view(seat)
            action = bot_class(random.Random(seed)).choose(view)
            state.check(action)
            view.check(action)
            checked += 1
    assert checked > 500


@pytest.mark.parametrize("bot_class", [RandomBluffBot, HeuristicBluffBot, CounterBluffBot])
def test_bot_is_deterministic_given_its_seed(bot_class: BotClass) -> None:
    def match(seed: int) -> BluffState:
        bots = [bot_class(random.Random(seed + s)) for s in range(4)]
        return play_local_match(BluffState.new(BluffConfig(), 0), bots, FULL_DECK,
                                random.Random(seed))
    assert match(5) == match(5)
    assert match(5) != match(6)


@pytest.mark.parametrize("bot_class", [RandomBluffBot, HeuristicBluffBot, CounterBluffBot,
                                       SearchBluffBot])
def test_bot_decides_from_its_seat_knowledge_only(bot_class: BotClass) -> None:
    """A peer's referee (its own faces only) gets the same choice as the full engine's view."""
    rng = random.Random(3)
    full = BluffState.new(BluffConfig(), 0)
    faces = shuffled_faces(FULL_DECK, rng)
    full.deal(faces)
    peers = []
    for seat in range(4):
        peer = BluffState.new(BluffConfig(), 0)
        peer.deal([f if p % 4 == seat else None for p, f in enumerate(faces)])
        peers.append(peer)
    movers = [RandomBluffBot(random.Random(s)) for s in range(4)]
    for _ in range(60):
        if full.to_act is None:
            break
        seat = full.to_act
        from_view = bot_class(random.Random(9)).choose(full.view(seat))
        from_peer = bot_class(random.Random(9)).choose(peers[seat])
        assert from_view == from_peer
        action = movers[seat].choose(full.view(seat))
        full.apply(action)
        for peer in peers:
            peer.apply(action)


def test_random_bot_uses_every_kind_of_action_and_the_whole_stake_range() -> None:
    kinds: Counter[str] = Counter()
    above_minimum = 0
    ranks = set()
    for seed in range(10):
        for state, seat in random_match_views(seed, 300):
            view = state.view(seat)
            opts = view.options()
            assert opts is not None
            action = RandomBluffBot(random.Random(seed)).choose(view)
            kinds[type(action).__name__] += 1
            if isinstance(action, Discard):
                above_minimum += action.stake > opts.min_stake
                if opts.must_lead:
                    ranks.add(action.rank)
    assert {"Pass", "Challenge", "Discard", "Reveal"} <= set(kinds)
    assert above_minimum > 0 and len(ranks) > 5


# --- what the heuristic can know ------------------------------------------------------

def test_chance_honest_is_zero_for_more_cards_of_a_rank_than_remain() -> None:
    state = table({1: cards("KS KH KD")})
    state.apply(Discard(0, slots(0, 0, 1), 10, Rank.KING))
    assert state.last_claim is not None
    assert chance_honest(state.view(1), state.last_claim, 1) == 0.0


def caught_then_claims_an_ace_with(index: int) -> BluffState:
    """Seat 0's 2♠ bluff is caught (all saw it); later it claims an ace with card ``index``."""
    state = table({0: cards("2S 3S")})
    state.apply(Discard(0, slots(0, 0), 10, Rank.ACE))
    state.apply(Challenge(1))
    state.apply(Reveal(0, (Card.parse("2S"),)))
    state.apply(Discard(1, slots(1, 0), 10, Rank.ACE))
    state.apply(Discard(2, slots(2, 0), 10, None))
    state.apply(Pass(3))
    state.apply(Discard(0, slots(0, index), 10, None))
    return state


def test_chance_honest_is_zero_when_a_known_face_contradicts_the_claim() -> None:
    shown = caught_then_claims_an_ace_with(0)
    assert shown.last_claim is not None
    assert chance_honest(shown.view(1), shown.last_claim, 1) == 0.0
    unseen = caught_then_claims_an_ace_with(1)
    assert unseen.last_claim is not None
    assert 0.0 < chance_honest(unseen.view(1), unseen.last_claim, 1) < 1.0


def test_chance_honest_falls_with_the_number_of_cards_claimed() -> None:
    chances = []
    for count in (1, 2, 3, 4):
        state = table({0: cards("2S 2H 2D 2C")})
        state.apply(Discard(0, slots(0, *range(count)), 10, Rank.QUEEN))
        assert state.last_claim is not None
        chances.append(chance_honest(state.view(1), state.last_claim, 1))
    assert chances == sorted(chances, reverse=True) and chances[0] > 0.5 > chances[3]


# --- the heuristic's judgement ---------------------------------------------------------

def test_heuristic_challenges_an_impossible_claim() -> None:
    state = table({1: cards("KS KH KD")})
    state.apply(Discard(0, slots(0, 0, 1), 10, Rank.KING))
    assert heuristic(state.view(1)) == Challenge(1)


NO_KING = cards("2S 2H 3S 3H 5S 5H 6S 6H 7S 7H 8S 8H 9S")


def test_heuristic_believes_a_likely_single_card_claim() -> None:
    state = table({1: NO_KING})
    state.apply(Discard(0, slots(0, 0), 10, Rank.KING))
    assert heuristic(state.view(1)) != Challenge(1)


def test_heuristic_challenges_a_claim_that_would_empty_the_hand() -> None:
    state = table({0: cards("AS AH AD AC KS KH KD KC QS QH QD QC JS"), 1: cards("2S 2H")})
    for first, rank in ((0, Rank.ACE), (4, Rank.KING), (8, Rank.QUEEN)):
        state.apply(Discard(0, slots(0, first, first + 1, first + 2, first + 3), 10, rank))
        for seat in (1, 2, 3):
            state.apply(Pass(seat))
    state.apply(Discard(0, slots(0, 12), 10, Rank.SEVEN))
    view = state.view(1)
    assert view.last_claim is not None
    assert chance_honest(view, view.last_claim, 1) > 0.0
    assert heuristic(view) == Challenge(1)


@pytest.mark.parametrize("stake, calls", [(10, True), (200, False)])
def test_heuristic_weighs_a_call_against_the_stake(stake: int, calls: bool) -> None:
    """Three Kings led look unlikely to a seat holding none; at the minimum stake a call
    risks no more than a pass, at a high stake it would lose the stack to a true claim."""
    state = table({0: cards("KS KH KD 2C 3C 4C 5C 6C 7C 8C 9C 10C JC"), 1: NO_KING})
    state.apply(Discard(0, slots(0, 0, 1, 2), stake, Rank.KING))
    view = state.view(1)
    assert view.last_claim is not None
    assert chance_honest(view, view.last_claim, 1) < HeuristicBluffBot.doubt
    assert (heuristic(view) == Challenge(1)) is calls


def test_heuristic_leads_the_rank_it_holds_most_of_with_all_of_them_at_minimum() -> None:
    state = table({0: cards("9S 9H 9D 2S 2H 5C 5D 6C 7C 8C 10C JC QC")})
    action = heuristic(state.view(0))
    assert action == Discard(0, slots(0, 0, 1, 2), 10, Rank.NINE)


def test_heuristic_discards_true_cards_when_it_holds_the_rank() -> None:
    state = table({1: cards("2S 3S 4S 4H 5S 5H 6S 6H 7S 7H 8S 8H 9S")})
    state.apply(Discard(0, slots(0, 0), 10, Rank.FOUR))
    assert heuristic(state.view(1)) == Discard(1, slots(1, 2, 3), 10, Rank.FOUR)


def test_heuristic_bluffs_one_card_when_the_stake_is_small() -> None:
    state = table({1: NO_KING})
    state.apply(Discard(0, slots(0, 0), 10, Rank.KING))
    action = heuristic(state.view(1))
    assert isinstance(action, Discard) and len(action.slots) == 1 and action.stake == 10


def test_heuristic_does_not_bluff_a_rank_already_much_claimed() -> None:
    state = table({0: cards("KS"), 1: cards("KH"), 2: cards("KD"), 3: NO_KING})
    state.apply(Discard(0, slots(0, 0), 10, Rank.KING))
    state.apply(Discard(1, slots(1, 0), 10, None))
    state.apply(Discard(2, slots(2, 0), 10, None))
    # Three kings claimed; seat 3 holds none and believes the last claim.
    assert state.last_claim is not None
    assert chance_honest(state.view(3), state.last_claim, 3) > HeuristicBluffBot.doubt
    assert not isinstance(heuristic(state.view(3)), Discard)


def test_bot_handed_a_view_with_nobody_to_act_says_so() -> None:
    view = BluffState.new(BluffConfig(), 0).view(0)
    for bot in (RandomBluffBot(random.Random(0)), HeuristicBluffBot(random.Random(0))):
        with pytest.raises(NothingToChoose):
            bot.choose(view)


def test_heuristic_does_not_bluff_when_the_stake_is_large() -> None:
    state = table({1: NO_KING})
    state.apply(Discard(0, slots(0, 0), 100, Rank.KING))
    assert not isinstance(heuristic(state.view(1)), Discard)


def test_heuristic_reveals_its_challenged_discard_as_it_was() -> None:
    state = table({0: cards("9S 9H")})
    state.apply(Discard(0, slots(0, 0, 1), 10, Rank.NINE))
    state.apply(Challenge(1))
    assert heuristic(state.view(0)) == Reveal(0, tuple(cards("9S 9H")))


def test_heuristic_beats_three_random_bots_with_seats_rotated() -> None:
    matches, wins = 200, 0.0
    for m in range(matches):
        seat = m % 4
        bots = [HeuristicBluffBot(random.Random(m)) if s == seat
                else RandomBluffBot(random.Random(m * 4 + s)) for s in range(4)]
        final = play_local_match(BluffState.new(BluffConfig(), (m // 4) % 4), bots,
                                 FULL_DECK, random.Random(m))
        assert final.outcome is not None
        if seat in final.outcome.winners:
            wins += 1 / len(final.outcome.winners)
    assert wins / matches >= 0.45
