"""Topper's configuration, phases and public records (the seat's options, the public record).

Actions are in :mod:`.actions`, events and the outcome in :mod:`.events`;
all are immutable values.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TypeGuard

from p2pcards.cards import TOPPER_DECK, Card, Suit
from p2pcards.rules.errors import ConfigError
from p2pcards.rules.seats import SEATS
from p2pcards.rules.topper.events import TopperOutcome, TrickWon


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class TopperConfig:
    """Every number of the game, with the defaults of the project's rules."""

    #: A seat at or above this score at the end of a hand can win.
    target_score: int = 21
    seats: int = SEATS
    #: Cards dealt to each seat; also the number of tricks in a hand.
    hand_size: int = 6
    #: The cards in play; ``seats * hand_size`` of them, all dealt.
    deck: tuple[Card, ...] = TOPPER_DECK
    min_bid: int = 1
    max_bid: int = 6
    #: Deals (thrown-in ones included) after which the match ends even if no
    #: one has won by the target; None plays on without limit.
    deal_limit: int | None = 100

    def __post_init__(self) -> None:
        if not _is_int(self.seats) or self.seats < 2:
            raise ConfigError(f"seats must be an integer of at least 2, not {self.seats!r}", "seats")
        if not _is_int(self.hand_size) or self.hand_size < 1:
            raise ConfigError(f"hand_size must be a positive integer, not {self.hand_size!r}",
                              "hand_size")
        deck = tuple(self.deck)
        if not all(isinstance(c, Card) for c in deck) or len(set(deck)) != len(deck):
            raise ConfigError("the deck must hold distinct cards", "deck")
        if len(deck) != self.seats * self.hand_size:
            raise ConfigError(
                f"{len(deck)} cards cannot be dealt {self.hand_size} each to {self.seats} seats")
        object.__setattr__(self, "deck", deck)
        if not (_is_int(self.min_bid) and _is_int(self.max_bid)
                and 1 <= self.min_bid <= self.max_bid <= self.hand_size):
            raise ConfigError(
                f"bids must satisfy 1 <= min_bid <= max_bid <= hand_size, "
                f"not {self.min_bid!r}..{self.max_bid!r}")
        if not _is_int(self.target_score) or self.target_score < 1:
            raise ConfigError(f"target_score must be a positive integer, not {self.target_score!r}",
                              "target_score")
        if self.deal_limit is not None and (not _is_int(self.deal_limit) or self.deal_limit < 1):
            raise ConfigError(f"deal_limit must be a positive integer or None, "
                              f"not {self.deal_limit!r}", "deal_limit")

    @property
    def max_steps_per_deal(self) -> int:
        """Deal, one bidding round, trump, every card: the longest a deal can take."""
        return 1 + self.seats + 1 + self.seats * self.hand_size


class Phase(enum.Enum):
    """Where a match stands; each action belongs to exactly one phase."""

    #: Awaiting a shuffle and deal (before each hand, after a throw-in).
    DEAL = "deal"
    #: One round of bids, starting left of the dealer.
    BIDDING = "bidding"
    #: The highest bidder must name trump.
    TRUMP = "trump"
    #: Tricks are being played.
    PLAY = "play"
    #: Someone won; nothing more happens.
    MATCH_OVER = "match-over"


@dataclass(frozen=True)
class TopperOptions:
    """The choices of the seat to act, compact enough for a menu or a bot.

    In BIDDING the seat passes or bids ``min_bid..max_bid`` (``can_bid``
    false when nothing is left to top); in TRUMP it names one of ``suits``;
    in PLAY it plays one of ``playable`` (slots of ``hand`` that may follow).
    """

    seat: int
    phase: Phase
    #: The slots of the seat's hand.
    hand: tuple[int, ...]
    can_pass: bool
    can_bid: bool
    min_bid: int
    max_bid: int
    suits: tuple[Suit, ...]
    playable: tuple[int, ...]


@dataclass(frozen=True)
class TopperPublic:
    """Everything every seat may know, as one comparable value (for UIs, logs and tests)."""

    phase: Phase
    dealer: int
    to_act: int | None
    hand_number: int
    hands_scored: int
    scores: tuple[int, ...]
    #: ``(seat, tricks)`` in bidding order this hand; ``tricks`` is None for a pass.
    bids: tuple[tuple[int, int | None], ...]
    bidder: int | None
    high_bid: int | None
    trump: Suit | None
    #: ``(seat, card)`` of the trick in progress, lead first.
    current_trick: tuple[tuple[int, Card], ...]
    tricks: tuple[TrickWon, ...]
    tricks_taken: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    #: Per seat, the effective suits it has shown it lacks this hand.
    voids: tuple[frozenset[Suit], ...]
    outcome: TopperOutcome | None
