"""Bluff's vocabulary as data: configuration, phases, actions, events, outcome.

The events and outcome both games share (``HandDealt``, ``MatchEnded``,
``Termination``, the ``Outcome`` base) come from :mod:`.contract`.

Everything here is an immutable value, so the referee (:mod:`.bluff`) can
hand events and claims to callers without copying, and a transcript of
actions can be replayed, compared and stored.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from p2pcards.cards import Card, Rank
from p2pcards.rules.contract import HandDealt, MatchEnded, Outcome
from p2pcards.rules.contract import Termination as Termination
from p2pcards.rules.seats import SEATS

#: Bluff is a four-player game; slot ``p`` of a deal belongs to seat ``p % SEATS``.
#: A full deck, 13 cards a seat.
DECK_SIZE = 52


@dataclass(frozen=True)
class BluffConfig:
    """Every number of the rules, with the defaults of ``rules.md``.

    ``starting_chips``, ``pass_price`` and ``min_stake`` default to
    ``50 × table_price``, ``table_price`` and ``table_price``; they are stored
    resolved, so two configs that mean the same table compare equal.
    ``deal_cap=None`` plays until one player has chips.
    """

    table_price: int = 10
    starting_chips: int | None = None
    pass_price: int | None = None
    min_stake: int | None = None
    deal_cap: int | None = 20
    max_discard: int = 4

    def __post_init__(self) -> None:
        # Resolving the defaults here keeps every reader free of ``or T`` logic.
        t = self.table_price
        if not _positive_int(t):
            raise ValueError(f"table_price must be a positive integer, not {t!r}")
        for name, default in (("starting_chips", 50 * t), ("pass_price", t), ("min_stake", t)):
            value = getattr(self, name)
            if value is None:
                object.__setattr__(self, name, default)
            elif not _positive_int(value):
                raise ValueError(f"{name} must be a positive integer, not {value!r}")
        if self.deal_cap is not None and not _positive_int(self.deal_cap):
            raise ValueError(f"deal_cap must be a positive integer or None, not {self.deal_cap!r}")
        if not _positive_int(self.max_discard) or self.max_discard > 13:
            raise ValueError(f"max_discard must be in 1..13, not {self.max_discard!r}")

    @property
    def total_chips(self) -> int:
        """Chips at the table, constant for the whole match."""
        return SEATS * self.starting_chips  # type: ignore[operator]


def _positive_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


class Phase(enum.Enum):
    """What the referee is waiting for."""

    DEAL = "deal"
    """A shuffle and deal must come (``awaiting_deal``); nobody acts."""

    LEAD = "lead"
    """The leader must discard, naming a rank and a stake; he cannot pass."""

    RESPOND = "respond"
    """A discard is on the table: the seat to act passes, challenges or discards."""

    REVEAL = "reveal"
    """The last discard was challenged: its owner must reveal its faces."""

    MATCH_OVER = "match over"
    """The match has ended; ``outcome`` says how."""


# --- actions -----------------------------------------------------------------

@dataclass(frozen=True)
class Discard:
    """Put the cards of ``slots`` face down, claiming they are all ``rank``.

    ``rank`` is required when leading; when responding it may be ``None`` or
    must repeat the rank named for the round.
    """

    seat: int
    slots: tuple[int, ...]
    stake: int
    rank: Rank | None = None


@dataclass(frozen=True)
class Pass:
    """Let the last discard stand for now, paying the pass price to the safe box."""

    seat: int


@dataclass(frozen=True)
class Challenge:
    """Call "Bluff!" on the last discard."""

    seat: int


@dataclass(frozen=True)
class Reveal:
    """Show the faces of the challenged discard, in the order of its slots."""

    seat: int
    faces: tuple[Card, ...]


Action = Discard | Pass | Challenge | Reveal


# --- public records ----------------------------------------------------------

@dataclass(frozen=True)
class Claim:
    """One discard as everybody saw it: who, which slots, what rank, what stake.

    ``faces`` stays ``None`` unless a challenge revealed the discard.
    """

    seat: int
    slots: tuple[int, ...]
    rank: Rank
    stake: int
    faces: tuple[Card, ...] | None = None

    @property
    def count(self) -> int:
        return len(self.slots)

    @property
    def revealed(self) -> bool:
        return self.faces is not None

    @property
    def honest(self) -> bool | None:
        """``None`` while unrevealed (and forever, if never challenged)."""
        if self.faces is None:
            return None
        return all(face.rank == self.rank for face in self.faces)


@dataclass(frozen=True)
class BluffOptions:
    """The choices of the seat to act, compact enough for a menu or a bot.

    A discard takes 1..``max_discard`` of ``hand`` and a stake in
    ``min_stake..max_stake``; ``rank`` is the rank to claim (``None`` when
    leading: any rank). ``reveal_slots`` are the slots to reveal in REVEAL.
    """

    seat: int
    phase: Phase
    hand: tuple[int, ...]
    can_pass: bool
    can_challenge: bool
    can_discard: bool
    must_lead: bool
    must_reveal: bool
    rank: Rank | None
    min_stake: int
    max_stake: int
    max_discard: int
    reveal_slots: tuple[int, ...] = ()


# --- events ------------------------------------------------------------------

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
