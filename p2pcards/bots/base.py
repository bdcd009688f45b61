"""What a bot is, and the loop that plays a local full-information match.

A bot is given a seat's *view* (never the full state) and returns an action.
The local match loop below is the simulation used by the arena and the rules
tests: it deals with a seeded ``random.Random`` (a simulation, not the secure
protocol, which deals with the mental-poker deck) and asks each seat's bot.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from p2pcards.errors import P2PCardsError


class Bot(Protocol):
    """Chooses an action for the seat whose view it is given."""

    name: str

    def choose(self, view: Any) -> Any:
        """Return one legal action for ``view``'s seat, which is to act."""
        ...


class StepLimitExceeded(P2PCardsError, RuntimeError):
    """A local match ran past its step bound (a bug: matches must end)."""


def shuffled_faces(deck: Sequence[Any], rng: random.Random) -> list[Any]:
    faces = list(deck)
    rng.shuffle(faces)
    return faces


def play_local_match(
    state: Any,
    bots: Sequence[Bot],
    deck: Sequence[Any],
    rng: random.Random,
    max_steps: int = 200_000,
    on_step: Callable[[Any, Any, tuple[Any, ...]], None] | None = None,
) -> Any:
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
        action = bots[seat].choose(state.view(seat))
        events = state.apply(action)
        if on_step is not None:
            on_step(state, action, events)
    raise StepLimitExceeded(f"match did not end within {max_steps} steps")
