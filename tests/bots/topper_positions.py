"""Seeded Topper positions: the states along a match of uniformly random legal actions.

The Topper search's pinned decisions (``test_topper_search_decisions.py``) and its
benchmark (``scripts/bench_topper_search.py``, which decides them with this tree's
code and a git revision's) decide the same positions, made here one way.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from p2pcards.bots.base import shuffled_faces
from p2pcards.cards import TOPPER_DECK
from p2pcards.rules.topper import TopperState


def seeded_positions(seed: int, steps: int) -> Iterator[tuple[int, TopperState]]:
    """Each step of the first ``steps`` of a seeded match (deals included) at which
    someone acts, with the live state: the match applies its random action when the
    caller asks for the next one, so a caller that keeps a state copies it."""
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
