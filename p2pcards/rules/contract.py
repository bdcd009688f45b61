"""The engine contract: what both referees are, as types, and the facts they share.

Bluff (:mod:`.bluff`) and Topper (:mod:`.topper`) are different games behind
one interface, :class:`Engine`. Whatever reads a referee — the table protocol,
the bots, the front ends, the tests — reads it through these names only, and
asks the game's :class:`~p2pcards.rules.games.Game` object for anything that
differs between the games (which classes its actions, events and outcome are,
how to name it on the wire and on screen).

The shared vocabulary is defined here once:

* :class:`Held` — one card of a hand, ``(slot, face)``; ``hand(seat)``
  returns a tuple of them in both games.
* :class:`Termination`, :class:`Outcome` — why and how a match ended.
* :class:`HandDealt`, :class:`MatchEnded` — the two events both games emit.
* :func:`faces_for_hands` — the one way to build a scripted deal.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeVar, runtime_checkable

from p2pcards.cards import Card
from p2pcards.rules.seats import SEATS

if TYPE_CHECKING:
    from p2pcards.rules.games import GameAction, GameConfig, GameEvent, GameOptions, GamePublic


class Held(NamedTuple):
    """One unplayed card of a hand: its deal ``slot`` and its ``face``
    (``None`` where the engine asked does not know it)."""

    slot: int
    face: Card | None


class Termination(enum.Enum):
    """Why a match ended. One enum for both games; each member says whose it is."""

    LAST_WITH_CHIPS = "last player with chips"
    """Bluff: every other player ran out of chips; the survivor took the safe box and the table."""

    DEAL_CAP = "deal cap"
    """Bluff: the configured number of deals was played; the most chips win (ties: all tied)."""

    TARGET_REACHED = "target-reached"
    """Topper: one seat alone had the highest score, at or above the target, after a hand."""

    BIDDER_WINS_TIE = "bidder-wins-tie"
    """Topper: several seats shared the highest score at or above the target, and the
    bidder of that hand was one of them: the bidder won."""

    DEAL_LIMIT = "deal-limit"
    """Topper: the configured deal limit was reached with no winner by the rules above:
    the highest score won; a tie went to that hand's bidder if he was among the tied,
    else every tied seat shares the win."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """The end of a match as data (python-chess's ``Outcome``): why, and who won.

    Each game's outcome extends this with its standings (Bluff's chips,
    Topper's scores) and its count of deals or hands; :attr:`standings`
    reads either.
    """

    termination: Termination
    #: The winning seat, or several sharing the win.
    winners: tuple[int, ...]

    @property
    def winner(self) -> int | None:
        """The sole winner, or None when several share the win."""
        return self.winners[0] if len(self.winners) == 1 else None

    @property
    def standings(self) -> tuple[int, ...]:
        """Each seat's final count (chips or score): what decided the winners."""
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class HandDealt:
    """A fresh deck was dealt: the ``hand``-th deal of the match (1 for the first).

    ``first`` is the seat to act first (Bluff's leader, Topper's first
    bidder); ``dealer`` is Topper's dealer (Bluff has none).
    """

    hand: int
    first: int
    dealer: int | None = None


@dataclass(frozen=True, slots=True)
class MatchEnded:
    """The last event of a match: its outcome."""

    outcome: Outcome


def faces_for_hands(hands: Mapping[int, Sequence[Card | None]] | Sequence[Sequence[Card | None]],
                    deck: Sequence[Card] | None = None, seats: int = SEATS) -> list[Card | None]:
    """The deal in which seat ``s`` is dealt ``hands[s]`` first, in order.

    ``hands`` is keyed by seat (a mapping, or a sequence: seat ``s`` at
    index ``s``); slot ``p`` of the deal goes to seat ``p % seats``, so card
    ``i`` of seat ``s`` lands at slot ``s + i * seats``. With a ``deck``, the
    cards of the deck nobody named fill the remaining slots in deck order;
    without one, every seat's hand must be given whole (all the same size).
    A ``None`` in a hand stays unknown. For scripted deals: tests,
    tutorials, positions for analysis.
    """
    given = dict(hands) if isinstance(hands, Mapping) else dict(enumerate(hands))
    if any(not isinstance(seat, int) or not 0 <= seat < seats for seat in given):
        raise ValueError(f"hands are keyed by seat 0..{seats - 1}")
    if deck is None:
        sizes = {len(given.get(seat, ())) for seat in range(seats)}
        if len(sizes) != 1 or 0 in sizes:
            raise ValueError("without a deck to fill from, every seat needs the same number of cards")
        size = sizes.pop()
    else:
        size = len(deck) // seats
    if any(len(cards) > size for cards in given.values()):
        raise ValueError(f"a hand holds at most {size} cards")
    named = [card for cards in given.values() for card in cards if card is not None]
    if len(set(named)) != len(named):
        raise ValueError("a card is given to two seats")
    if deck is not None and not set(named) <= set(deck):
        raise ValueError("a card given is not in the deck")
    taken = set(named)
    rest = iter([card for card in deck or () if card not in taken])
    faces: list[Card | None] = []
    for slot in range(size * seats):
        seat, index = slot % seats, slot // seats
        cards = given.get(seat, ())
        faces.append(cards[index] if index < len(cards) else next(rest))
    return faces


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
    is narrower than both; what they return is each game's union (``rules.games``).
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
