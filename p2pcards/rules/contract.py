"""The engine contract: what both referees are, as types.

Bluff (:mod:`.bluff`) and Topper (:mod:`.topper`) are different games behind
one interface, :class:`Engine`. Whatever reads a referee — the table protocol,
the bots, the front ends, the tests — reads it through these names only, and
asks the game's :class:`~p2pcards.rules.games.Game` object for anything that
differs between the games (which classes its actions, events and outcome are,
how to name it on the wire and on screen).

Here too: the unions of both games' types that the contract returns
(``GameConfig``, ``GameAction``, ``GameEvent``, ``GamePublic``,
``GameOptions``), and, named again for the contract's readers, the
vocabulary both games share (:mod:`.shared`: ``Held``, ``Termination``,
``Outcome``, ``HandDealt``, ``MatchEnded``, ``faces_for_hands``). The games
themselves import that vocabulary from :mod:`.shared`, below them, so that
this contract can name their types without an import circle.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

from p2pcards.cards import Card
from p2pcards.rules import bluff, topper
from p2pcards.rules.shared import HandDealt as HandDealt
from p2pcards.rules.shared import Held as Held
from p2pcards.rules.shared import MatchEnded as MatchEnded
from p2pcards.rules.shared import Outcome as Outcome
from p2pcards.rules.shared import Termination as Termination
from p2pcards.rules.shared import faces_for_hands as faces_for_hands

#: A table configuration of either game.
GameConfig = bluff.BluffConfig | topper.TopperConfig
#: An action of either game.
GameAction = bluff.Action | topper.TopperAction
#: An event of either game's referee (what ``deal`` and ``apply`` return).
GameEvent = bluff.Event | topper.TopperEvent
#: A seat's public record of either game (``public()``).
GamePublic = bluff.BluffPublic | topper.TopperPublic
#: What either game's seat to act may do now (``options()``).
GameOptions = bluff.BluffOptions | topper.TopperOptions


E = TypeVar("E", bound="Engine")


@runtime_checkable
class Engine(Protocol):
    """What every referee is: Bluff's ``BluffState`` and Topper's ``TopperState``.

    * ``new(config, first)`` starts a match; ``first`` is the first leader
      (Bluff) or first dealer (Topper), chosen outside by a joint draw.
      ``position(...)`` builds a match partway through from chosen facts.
    * ``phase`` is the game's ``Phase`` member; ``to_act`` is the one seat
      whose action is awaited, or ``None`` while a deal is awaited or the
      match is over; ``awaiting_deal`` says a shuffle and deal must come.
    * ``deal(faces)`` deals a fresh deck: ``faces[p]`` is the card at slot
      ``p`` of the shuffled deck or ``None`` where this engine does not know
      it; slot ``p`` goes to seat ``p % 4``. A seat's view keeps only its
      own seat's faces of what it is given. Cards are named by *slot* from
      then on, so an engine that does not know a face still referees every
      public rule.
    * ``apply(action)`` either changes the state and returns a tuple of
      events (what happened, as data), or raises a
      :class:`~p2pcards.rules.errors.RuleError` naming the seat and the
      rule, leaving the state untouched; ``check(action)`` raises exactly
      what ``apply`` would and changes nothing.
    * ``legal_actions()`` yields the actions of ``to_act`` lazily (it must
      know its own hand); ``options()`` summarises them for a menu or a bot
      (``None`` when nobody is to act); ``forced_action()`` is the one
      action the rules leave no choice about (Bluff's reveal of a called
      discard), else ``None``.
    * ``hand(seat)`` is the seat's unplayed cards as :class:`Held` pairs;
      ``hand_sizes`` counts every seat's; ``public()`` is everything every
      seat knows, as one named, comparable record.
    * ``outcome`` is ``None`` until the match ends, then an :class:`Outcome`.
    * ``view(seat)`` is a copy redacted to what ``seat`` may know: its own
      slots' faces and the faces the rules revealed. A peer's referee is its
      own view, kept up to date by ``apply``. ``determinize(rng)`` draws a
      complete state consistent with everything the engine knows.

    ``check`` and ``apply`` take any object: each game refuses what is not one
    of its own actions with a ``BadAction``. A config parameter is ``Any``: each
    game takes only its own (a wrong one is a ``TypeError``), and no common type
    is narrower than both; what they return is each game's union (above).
    """

    @classmethod
    def new(cls: type[E], config: Any = None, first: int = 0, /) -> E: ...  # Any: see above

    @classmethod
    def position(cls: type[E], config: Any = None, *, first: int = 0,  # Any: see above
                 hands: Mapping[int, Sequence[Card]] | Sequence[Sequence[Card]] | None = None,
                 standings: Sequence[int] | None = None, deals: int = 0) -> E: ...

    @property
    def config(self) -> GameConfig: ...

    @property
    def viewer(self) -> int | None: ...

    @property
    def phase(self) -> enum.Enum: ...

    @property
    def to_act(self) -> int | None: ...

    @property
    def awaiting_deal(self) -> bool: ...

    @property
    def outcome(self) -> Outcome | None: ...

    @property
    def hand_sizes(self) -> tuple[int, ...]: ...

    def hand(self, seat: int) -> tuple[Held, ...]: ...

    def public(self) -> GamePublic: ...

    def options(self) -> GameOptions | None: ...

    def legal_actions(self) -> Iterator[GameAction]: ...

    def forced_action(self) -> object | None: ...

    def check(self, action: object) -> None: ...

    def apply(self, action: object) -> tuple[GameEvent, ...]: ...

    def deal(self, faces: Sequence[Card | None]) -> tuple[GameEvent, ...]: ...

    def copy(self: E) -> E: ...

    def view(self: E, seat: int) -> E: ...

    def determinize(self: E, rng: random.Random) -> E: ...
