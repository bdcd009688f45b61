"""What both games share: a held card, why and how a match ends, the two common events.

Bluff and Topper are built on this vocabulary, so it sits below both (each
game's modules import it from here); readers outside the rules find the same
names in :mod:`.contract`, next to the :class:`~p2pcards.rules.contract.Engine`
they describe.

* :class:`Held` — one card of a hand, ``(slot, face)``; ``hand(seat)``
  returns a tuple of them in both games.
* :class:`Termination`, :class:`Outcome` — why and how a match ended.
* :class:`HandDealt`, :class:`MatchEnded` — the two events both games emit.
* :func:`faces_for_hands` — the one way to build a scripted deal.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from p2pcards.cards import Card
from p2pcards.rules.seats import SEATS


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
