"""What the table state machine tells its front end, as small frozen records.

Events describe what happened and what this peer verified, in order. They
hold only what this peer may know: another seat's card appears in an event
only once the rules have revealed it to everyone.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2pcards.cards import Card
from p2pcards.protocol.verdict import Verdict
from p2pcards.rules.contract import Outcome
from p2pcards.rules.games import GameAction, GameEvent


@dataclass(frozen=True)
class Committed:
    """A player committed to its key share and its draw nonce."""

    player: int


@dataclass(frozen=True)
class KeyShareVerified:
    """A player opened its commitments; its Schnorr proof of its key share checked."""

    player: int


@dataclass(frozen=True)
class PlayersSeated:
    """The joint draw is done: who sits where, and who leads or deals first."""

    player_at_seat: tuple[int, ...]
    first_seat: int


@dataclass(frozen=True)
class ShuffleVerified:
    """A seat shuffled the deck and its proof of a correct shuffle checked."""

    seat: int
    deck: int
    own: bool


@dataclass(frozen=True)
class SharesVerified:
    """A seat published its decryption shares for the other seats' cards; every
    Chaum–Pedersen proof checked."""

    seat: int
    deck: int
    count: int
    own: bool


@dataclass(frozen=True)
class HandReceived:
    """The cryptographic deal of deck ``deck`` is complete and this peer opened its own cards,
    by slot (empty for an observer). The rules' own record of a deal (what a
    referee's ``deal`` returns) is :class:`p2pcards.rules.contract.HandDealt`."""

    deck: int
    hand: tuple[tuple[int, Card], ...]


@dataclass(frozen=True)
class CardsRevealed:
    """The rules revealed cards to everyone; their owner's shares checked."""

    seat: int
    cards: tuple[tuple[int, Card], ...]


@dataclass(frozen=True)
class ActionApplied:
    """A seat's game action, accepted by the referee, with the referee's events."""

    seat: int
    action: GameAction
    results: tuple[GameEvent, ...]
    position: int


@dataclass(frozen=True)
class MatchCompleted:
    """The table's match finished normally (not ended by a fault: see ``TableEnded``),
    with the referee's outcome. The rules' last event, among the results of
    the last ``ActionApplied``, is :class:`p2pcards.rules.contract.MatchEnded`."""

    outcome: Outcome


@dataclass(frozen=True)
class Reported:
    """Another player's alert that this peer could not check: ADVISORY only.

    It changes no state, ends nothing and names nobody here: a report is one
    peer's word, and a peer judges lateness by its own clock alone. ``rule``,
    ``players`` (whom the reporter blames) and ``detail`` are the reporter's.
    """

    reporter: int
    rule: str
    players: tuple[int, ...]
    position: int
    detail: str


@dataclass(frozen=True)
class TableEnded:
    """The table stopped early with a verdict."""

    verdict: Verdict


@dataclass(frozen=True)
class ClockPaused:
    """A player in turn took one of the table's pauses (``away``): every peer
    gives him ``seconds`` more for this move; ``left`` pauses remain to him."""

    player: int
    left: int
    seconds: int


@dataclass(frozen=True)
class HintTaken:
    """A player in turn asked the coach at a table that allows hints (``hint``):
    every peer marks him as coached; ``used`` is how many hints he has taken."""

    player: int
    used: int


#: Every event the table state machine emits (:attr:`Table` outputs' ``events``).
TableEvent = (Committed | KeyShareVerified | PlayersSeated | ShuffleVerified | SharesVerified
              | HandReceived | CardsRevealed | ActionApplied | MatchCompleted | Reported | TableEnded
              | ClockPaused | HintTaken)
