"""Seeded matches the bots' tests draw their positions from, made one way.

Two kinds of match, each the same for a seed in every run: four random bots
playing either game (:func:`random_states`), and a Topper match of uniformly
random legal actions drawn from the dealer's own generator
(:func:`seeded_positions`: the positions the search's decisions are pinned on in
``test_topper_search_decisions.py``, which ``scripts/bench_topper_search.py``
decides with this tree's code and a git revision's). Both yield the live state
when a seat is to act: the match goes on when the caller asks for the next, so a
caller that keeps a state copies it. A Topper position's *twin*
(:func:`twin_views`) is the same public table with the other seats' hidden cards
dealt anew: what a bot that chooses from its view alone cannot tell apart.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Sequence
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


def _walk(state: Any, deck: Sequence[Card], rng: random.Random, steps: int,
          choose: Callable[[Any], Any]) -> Iterator[tuple[int, Any]]:
    """The first ``steps`` steps of a match from ``state``: deals from ``rng``, and at
    each step where a seat acts (yielded with the live state) the action ``choose``
    picks."""
    for step in range(steps):
        if state.outcome is not None:
            return
        if state.awaiting_deal:
            state.deal(shuffled_faces(deck, rng))
            continue
        yield step, state
        state.apply(choose(state))


def random_states(game: str, seed: int, steps: int, bots_from: int = 7) -> Iterator[Any]:
    """Full states (either game's) along a seeded match of random bots, each when a
    seat is to act, over the first ``steps`` steps (deals included); the bot of
    seat ``s`` is seeded ``seed * bots_from + s``."""
    new, deck, random_bot = GAMES[game]
    bots = [random_bot(random.Random(seed * bots_from + s)) for s in range(4)]
    for _, state in _walk(new(seed % 4), deck, random.Random(seed), steps,
                          lambda state: bots[state.to_act].choose(state.view(state.to_act))):
        yield state


def topper_states(seed: int, steps: int) -> Iterator[TopperState]:
    return random_states("topper", seed, steps)


def bluff_states(seed: int, steps: int, bots_from: int = 7) -> Iterator[BluffState]:
    return random_states("bluff", seed, steps, bots_from)


def seeded_positions(seed: int, steps: int) -> Iterator[tuple[int, TopperState]]:
    """Each step of the first ``steps`` of a seeded Topper match (deals included) at
    which someone acts, with the live state; each action is drawn uniformly from the
    legal ones by the generator that deals."""
    rng = random.Random(seed)
    return _walk(TopperState.new(None, seed % 4), TOPPER_DECK, rng, steps,
                 lambda state: rng.choice(list(state.legal_actions())))


def other_hands_shuffled(state: TopperState, seat: int, rng: random.Random) -> TopperState:
    """The same public table, with the other seats' unplayed cards dealt among them anew."""
    other = state.copy()
    hidden = [(p, f) for s in range(4) if s != seat for p, f in state.hand(s)]
    faces = [f for _, f in hidden]
    rng.shuffle(faces)
    for (slot, _), face in zip(hidden, faces, strict=False):
        other._faces[slot] = face
    return other


def twin_views(states: Iterable[TopperState], rng: random.Random
               ) -> Iterator[tuple[TopperState, TopperState]]:
    """Per state, the acting seat's view and its view of the state's twin (asserted
    equal: the twin differs only in what that seat cannot see)."""
    for state in states:
        seat = state.to_act
        assert seat is not None
        twin = other_hands_shuffled(state, seat, rng)
        view = state.view(seat)
        assert twin.view(seat) == view
        yield view, twin.view(seat)
