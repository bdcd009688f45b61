"""What happened in a Bluff match, as data: events returned by ``deal``/``apply``, and the outcome.

``HandDealt``, ``MatchEnded``, ``Termination`` and the ``Outcome`` base are
the ones both games share (:mod:`p2pcards.rules.shared`), re-exported here.

Events are immutable values, so a transcript can be replayed, compared and
stored.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2pcards.cards import Card, Rank
from p2pcards.rules.shared import HandDealt, MatchEnded, Outcome
from p2pcards.rules.shared import Termination as Termination


@dataclass(frozen=True)
class Discarded:
    seat: int
    slots: tuple[int, ...]
    rank: Rank
    stake: int
    lead: bool


@dataclass(frozen=True)
class StakeReturned:
    seat: int
    amount: int


@dataclass(frozen=True)
class Passed:
    seat: int
    paid: int


@dataclass(frozen=True)
class Challenged:
    challenger: int
    discarder: int


@dataclass(frozen=True)
class ChallengeResolved:
    """``payer`` put ``paid`` chips into the safe box: the discarder if
    ``bluff``, else the challenger."""

    challenger: int
    discarder: int
    bluff: bool
    faces: tuple[Card, ...]
    payer: int
    paid: int


@dataclass(frozen=True)
class RoundEnded:
    """The pile left play unseen (``cards_out`` cards); ``leader`` opens the next round."""

    leader: int
    cards_out: int


@dataclass(frozen=True)
class PlayerOut:
    """``seat`` has no chips left: out of the match, its hand left play unseen."""

    seat: int


@dataclass(frozen=True)
class DealWon:
    winner: int
    safe_box: int


@dataclass(frozen=True, slots=True)
class BluffOutcome(Outcome):
    """How a Bluff match ended: ``chips`` per seat at the end, after ``deals`` deals won."""

    chips: tuple[int, ...]
    deals: int

    @property
    def standings(self) -> tuple[int, ...]:
        return self.chips


Event = (
    HandDealt |
    Discarded |
    StakeReturned |
    Passed |
    Challenged |
    ChallengeResolved |
    RoundEnded |
    PlayerOut |
    DealWon |
    MatchEnded
)
