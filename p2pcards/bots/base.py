"""What a bot is, and the loop that plays a local full-information match.

A bot is given a seat's *view* (never the full state) and returns an action.
The local match loop below is the simulation used by the arena and the rules
tests: it deals with a seeded ``random.Random`` (a simulation, not the secure
protocol, which deals with the mental-poker deck) and asks each seat's bot.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

from p2pcards.cards import Card
from p2pcards.errors import P2PCardsError
from p2pcards.rules.contract import Engine


class Bot(Protocol):
    """Chooses an action for the seat whose view it is given."""

    name: str

    def choose(self, view: Any) -> object:  # Any: a per-game dispatch, paired at run time
        """Return one legal action for ``view``'s seat, which is to act (each bot takes
        its own game's engine, which no common type narrows to)."""
        ...


#: The engine a local match plays (either game's).
E = TypeVar("E", bound=Engine)


class StepLimitExceeded(P2PCardsError, RuntimeError):
    """A local match ran past its step bound (a bug: matches must end)."""


def shuffled_faces(deck: Sequence[Card], rng: random.Random) -> list[Card]:
    faces = list(deck)
    rng.shuffle(faces)
    return faces


def play_local_match(
    state: E,
    bots: Sequence[Bot],
    deck: Sequence[Card],
    rng: random.Random,
    max_steps: int = 200_000,
    on_step: Callable[[E, object, tuple[object, ...]], None] | None = None,
) -> E:
    """Play ``state`` to its end: deal when a deal is awaited, else ask the bot to act.

    ``on_step(state, action, events)`` is called after every applied action
    (``action`` is ``None`` for a deal), for invariant checks and logs.
    """
    for _ in range(max_steps):
        if state.outcome is not None:
            return state
        if state.awaiting_deal:
            events = state.deal(shuffled_faces(deck, rng))
            if on_step is not None:
                on_step(state, None, events)
            continue
        seat = state.to_act
        assert seat is not None  # neither over nor awaiting a deal: a seat acts
        action = bots[seat].choose(state.view(seat))
        events = state.apply(action)
        if on_step is not None:
            on_step(state, action, events)
    raise StepLimitExceeded(f"match did not end within {max_steps} steps")
