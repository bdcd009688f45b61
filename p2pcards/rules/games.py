"""The two games as objects: what each names, so no caller has to guess.

A :class:`Game` names a game's engine (the state class implementing
:class:`~p2pcards.rules.contract.Engine`), its configuration, phases,
actions, events, option summary, public record and outcome. Front ends and
tools ask :func:`game_of` which game a state, view, outcome or event belongs
to, and :func:`by_name` for the game a command line or a transcript names,
instead of ``isinstance`` chains or module names. Code that draws each game its
own way asks ``BLUFF.is_view(view)`` (a type guard: the view is then typed as
that game's engine) rather than keying a table of functions by name.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeGuard, TypeVar

from p2pcards.cards import FULL_DECK, Card
from p2pcards.errors import P2PCardsError
from p2pcards.rules import bluff, topper
from p2pcards.rules.contract import Engine
from p2pcards.rules.contract import GameAction as GameAction
from p2pcards.rules.contract import GameConfig as GameConfig
from p2pcards.rules.contract import GameEvent as GameEvent
from p2pcards.rules.contract import GameOptions as GameOptions
from p2pcards.rules.contract import GamePublic as GamePublic
from p2pcards.rules.shared import HandDealt, MatchEnded, Outcome
from p2pcards.rules.topper import events as topper_events

#: A game's engine and its outcome (covariant: every game is a ``Game[Engine, Outcome]``).
S = TypeVar("S", bound=Engine, covariant=True)
R = TypeVar("R", bound=Outcome, covariant=True)


@dataclass(frozen=True, eq=False)
class Game(Generic[S, R]):
    """One game: its name and the types that make up its side of the contract."""

    #: The name on the command line and the wire (``"bluff"``).
    name: str
    #: The name for people (``"Bluff"``).
    title: str
    #: The referee: ``engine.new(config, first)``, ``engine.position(...)``. A
    #: seat's view is an instance of the same class, redacted by ``view(seat)``.
    engine: type[S]
    config: type
    phase: type[enum.Enum]
    #: Every action type, in the order of the rules.
    actions: tuple[type, ...]
    #: Every event type ``deal`` and ``apply`` return.
    events: tuple[type, ...]
    options: type
    public: type
    outcome: type[R]
    #: What ``new``'s ``first`` is: the first ``"leader"`` or ``"dealer"``.
    first: str
    #: The cards a config deals.
    deck_of: Callable[[Any], tuple[Card, ...]]  # Any: this game's own config (its fields)

    @property
    def view(self) -> type[S]:
        """The type of a seat's view: the engine's own class, a copy redacted by
        ``state.view(seat)`` (a peer's referee is its view)."""
        return self.engine

    def new(self, config: GameConfig | None = None, first: int = 0) -> S:
        """A match before its first deal (``config`` None: the default table)."""
        return self.engine.new(config, first)

    def position(self, config: GameConfig | None = None, **facts: Any) -> S:  # Any: forwarded
        """A match partway through, from chosen facts: ``first``, ``hands``,
        ``standings``, ``deals`` in both games, and each game's own (Bluff's
        ``safe_box``; Topper's ``scored``, ``bidder``, ``bid``, ``trump``)."""
        return self.engine.position(config, **facts)

    def default_config(self) -> GameConfig:
        config: GameConfig = self.config()
        return config

    def deck(self, config: GameConfig | None = None) -> tuple[Card, ...]:
        return self.deck_of(self.default_config() if config is None else config)

    def owns(self, thing: object) -> bool:
        """Whether ``thing`` (a state, config, action, event or outcome) is this game's."""
        return isinstance(thing, (self.engine, self.config, self.outcome, *self.actions,
                                  *self.events)) and not isinstance(thing, _SHARED_EVENTS)

    def is_view(self, thing: object) -> TypeGuard[S]:
        """Whether ``thing`` is this game's state or a seat's view of it (so a front
        end hands it to this game's drawing, typed as this game's engine)."""
        return isinstance(thing, self.engine)

    def is_outcome(self, thing: object) -> TypeGuard[R]:
        """Whether ``thing`` is this game's outcome (typed as it)."""
        return isinstance(thing, self.outcome)

    def __repr__(self) -> str:
        return f"<Game {self.name}>"


_SHARED_EVENTS = (HandDealt, MatchEnded)

BLUFF: Game[bluff.BluffState, bluff.BluffOutcome] = Game(
    name="bluff",
    title="Bluff",
    engine=bluff.BluffState,
    config=bluff.BluffConfig,
    phase=bluff.Phase,
    actions=(bluff.Discard, bluff.Pass, bluff.Challenge, bluff.Reveal),
    events=(HandDealt, bluff.Discarded, bluff.StakeReturned, bluff.Passed, bluff.Challenged,
            bluff.ChallengeResolved, bluff.RoundEnded, bluff.PlayerOut, bluff.DealWon,
            MatchEnded),
    options=bluff.BluffOptions,
    public=bluff.BluffPublic,
    outcome=bluff.BluffOutcome,
    first="leader",
    deck_of=lambda config: FULL_DECK,
)

TOPPER: Game[topper.TopperState, topper_events.TopperOutcome] = Game(
    name="topper",
    title="Topper",
    engine=topper.TopperState,
    config=topper.TopperConfig,
    phase=topper.Phase,
    actions=(topper.Bid, topper.PassBid, topper.NameTrump, topper.Play),
    events=(HandDealt, topper_events.BidMade, topper_events.BidPassed, topper_events.BiddingWon,
            topper_events.ThrownIn, topper_events.TrumpNamed, topper_events.CardPlayed,
            topper_events.ShowedVoid, topper_events.TrickWon, topper_events.HandScored,
            topper_events.TieContinues, MatchEnded),
    options=topper.TopperOptions,
    public=topper.TopperPublic,
    outcome=topper_events.TopperOutcome,
    first="dealer",
    deck_of=lambda config: config.deck,
)

#: Every game, by name.
GAMES: dict[str, Game[Engine, Outcome]] = {game.name: game for game in (BLUFF, TOPPER)}


class UnknownGame(P2PCardsError, LookupError):
    """No game of that name, or an object that belongs to no game (for instance a
    view of neither game handed to the front ends' text, a programming error)."""


def by_name(name: str) -> Game[Engine, Outcome]:
    """The game called ``name`` (``"bluff"``, ``"topper"``)."""
    try:
        return GAMES[name]
    except KeyError:
        raise UnknownGame(f"no game {name!r} (games: {', '.join(GAMES)})") from None


def game_of(thing: object) -> Game[Engine, Outcome]:
    """The game a state, view, config, action, event or outcome belongs to.

    A ``MatchEnded`` answers by its outcome; a ``HandDealt`` is shared and
    names no game.
    """
    if isinstance(thing, MatchEnded):
        thing = thing.outcome
    for game in GAMES.values():
        if game.owns(thing):
            return game
    raise UnknownGame(f"{type(thing).__name__} belongs to no game")


def _both_follow_the_contract(b: bluff.BluffState, t: topper.TopperState) -> tuple[Engine, ...]:
    """Never called: a type checker proves here that both states implement ``Engine``."""
    return (b, t)
