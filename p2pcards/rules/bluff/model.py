"""Bluff's configuration, phases and public records (claims, the seat's options, the public record).

Actions are in :mod:`.actions`, events and the outcome in :mod:`.events`.
Everything here is an immutable value, so the referee (:mod:`.engine`) can
hand claims and records to callers without copying.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from p2pcards.cards import Card, Rank
from p2pcards.rules.bluff.events import BluffOutcome
from p2pcards.rules.errors import ConfigError
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
    ``deal_cap=None`` plays until one player has chips. A value out of range
    raises :class:`~p2pcards.rules.errors.ConfigError` naming that setting.
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
            raise ConfigError(f"table_price must be a positive integer, not {t!r}", "table_price")
        for name, default in (("starting_chips", 50 * t), ("pass_price", t), ("min_stake", t)):
            value = getattr(self, name)
            if value is None:
                object.__setattr__(self, name, default)
            elif not _positive_int(value):
                raise ConfigError(f"{name} must be a positive integer, not {value!r}", name)
        if self.deal_cap is not None and not _positive_int(self.deal_cap):
            raise ConfigError(f"deal_cap must be a positive integer or None, "
                              f"not {self.deal_cap!r}", "deal_cap")
        if not _positive_int(self.max_discard) or self.max_discard > 13:
            raise ConfigError(f"max_discard must be in 1..13, not {self.max_discard!r}",
                              "max_discard")

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


@dataclass(frozen=True)
class BluffPublic:
    """Everything every seat knows, as one comparable value: what two honest
    referees must agree on (for UIs, logs and tests)."""

    phase: Phase
    to_act: int | None
    outcome: BluffOutcome | None
    leader: int
    challenger: int | None
    stacks: tuple[int, ...]
    out: tuple[bool, ...]
    safe_box: int
    table_stake: int
    discarder: int | None
    named_rank: Rank | None
    round_stake: int
    #: The slots in each seat's hand.
    hands: tuple[tuple[int, ...], ...]
    #: Slots face down on the table this round.
    pile: tuple[int, ...]
    #: Slots that left play (old piles, hands of seats out).
    out_of_play: tuple[int, ...]
    #: Every discard of this deal, with the faces of those revealed.
    claims: tuple[Claim, ...]
    #: How many of ``claims`` came before this round.
    round_start: int
    deal_number: int
    deals_won: int
