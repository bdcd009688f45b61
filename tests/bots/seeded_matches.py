"""Seeded matches the bots' tests draw their positions from, made one way.

Two kinds of match, each the same for a seed in every run: four random bots
playing either game (:func:`random_states`), and a Topper match of uniformly
random legal actions drawn from the dealer's own generator
(:func:`seeded_positions`: the positions the search's decisions are pinned on in
``test_topper_search_decisions.py``, which ``scripts/bench_topper_search.py``
decides with this tree's code and a git revision's). Both yield the live state
when a seat is to act: the match goes on when the caller asks for the next, so a
caller that keeps a state copies it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from p2pcards.bots.base import shuffled_faces
from p2pcards.bots.bluff import RandomBluffBot
from p2pcards.bots.topper import RandomTopperBot
from p2pcards.cards import FULL_DECK, TOPPER_DECK, Card
from p2pcards.rules.bluff import BluffConfig, BluffState
from p2pcards.rules.topper import TopperState

#: Per game: a new match with the seat that acts first, its deck, its random bot.
GAMES: dict[str, tuple[Callable[[int], Any], Sequence[Card], Callable[[random.Random], Any]]] = {
         "bluff": (lambda first: BluffState.new(BluffConfig(), first), FULL_DECK, RandomBluffBot),
         "topper": (lambda first: TopperState.new(None, first), TOPPER_DECK, RandomTopperBot)}


def random_states(game: str, seed: int, steps: int, bots_from: int = 7) -> Iterator[Any]:
    """Full states (either game's) along a seeded match of random bots, each when a
    seat is to act, over the first ``steps`` steps (deals included); the bot of
    seat ``s`` is seeded ``seed * bots_from + s``."""
    new, deck, random_bot = GAMES[game]
    rng = random.Random(seed)
    bots = [random_bot(random.Random(seed * bots_from + s)) for s in range(4)]
    state = new(seed % 4)
    for _ in range(steps):
        if state.outcome is not None:
            return
        if state.awaiting_deal:
            state.deal(shuffled_faces(deck, rng))
            continue
        yield state
        state.apply(bots[state.to_act].choose(state.view(state.to_act)))


def topper_states(seed: int, steps: int) -> Iterator[TopperState]:
    return random_states("topper", seed, steps)


def bluff_states(seed: int, steps: int, bots_from: int = 7) -> Iterator[BluffState]:
    return random_states("bluff", seed, steps, bots_from)


def seeded_positions(seed: int, steps: int) -> Iterator[tuple[int, TopperState]]:
    """Each step of the first ``steps`` of a seeded Topper match (deals included) at
    which someone acts, with the live state; each action is drawn uniformly from the
    legal ones by the generator that deals."""
    rng = random.Random(seed)
    state = TopperState.new(None, seed % 4)
    for step in range(steps):
        if state.outcome is not None:
            return
        if state.awaiting_deal:
            state.deal(shuffled_faces(TOPPER_DECK, rng))
            continue
        yield step, state
        state.apply(rng.choice(list(state.legal_actions())))
