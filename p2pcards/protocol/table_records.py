"""The plain records of a table: its stages, message shapes and held state.

Data only, no rules: :class:`Stage`, the bodies of the table's own transcript
messages (``commit`` .. ``hint``), a peer's :class:`SessionSecrets`, what a
write gives back (:class:`Written`), and what the table holds about its players
and its match. :mod:`p2pcards.protocol.table` is the machine that fills them.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

import nacl.utils

from p2pcards.crypto import keys
from p2pcards.crypto.group import Point
from p2pcards.protocol import game_wire
from p2pcards.protocol.dealing import DeckDeal
from p2pcards.protocol.events import TableEvent
from p2pcards.protocol.identity import Signer
from p2pcards.protocol.schema import Bin, ListOf, Struct, validate
from p2pcards.rules.contract import Engine
from p2pcards.wiremap import WireMap


class Stage(enum.Enum):
    COMMIT = "commit"
    OPEN = "open"
    SHUFFLE = "shuffle"
    SHARES = "shares"
    PLAY = "play"
    OVER = "over"
    ENDED = "ended"


COMMIT_SHAPE = Struct({"key": Bin(32), "draw": Bin(32)})
OPEN_SHAPE = Struct({"key": Bin(32), "proof": game_wire.SCHNORR_PROOF, "draw": Bin(32)})
SHUFFLE_SHAPE = Struct({"deck": game_wire.DECK_NUMBER, "cards": game_wire.DECK,
                        "proof": game_wire.SHUFFLE_PROOF})
SHARES_SHAPE = Struct({"deck": game_wire.DECK_NUMBER, "shares": ListOf(
    game_wire.SHARE, 1, 39)})
#: The transcript message that takes a pause (body ``{}``), in play only.
AWAY = "away"
AWAY_SHAPE = Struct({})
#: The transcript message a seat writes before its coach answers (body ``{}``), in play only.
HINT = "hint"
HINT_SHAPE = Struct({})


#: A shuffle made ahead: ((deck number, shuffle index, input deck key), message body).
Prepared = tuple[tuple[int, int, bytes], WireMap]
#: Shares made ahead: ((deck number, final deck key), message body).
PreparedShares = tuple[tuple[int, bytes], WireMap]


@dataclass(frozen=True)
class SessionSecrets:
    """What this peer must keep (and save) to play on: never sent, never logged."""

    key: keys.KeyShare
    draw_nonce: bytes

    @classmethod
    def generate(cls, rng: Callable[[int], bytes] | None = None) -> SessionSecrets:
        rng = rng or nacl.utils.random
        return cls(keys.KeyShare.generate(rng=rng), rng(32))

    def to_wire(self) -> dict[str, bytes]:
        return {"key": self.key.secret_bytes(), "draw": self.draw_nonce}

    @classmethod
    def from_wire(cls, obj: object) -> SessionSecrets:
        d = validate(Struct({"key": Bin(32), "draw": Bin(32)}), obj, "secrets")
        return cls(keys.KeyShare.from_secret_bytes(d["key"]), d["draw"])

    def __repr__(self) -> str:
        return "SessionSecrets(<hidden>)"


@dataclass(frozen=True)
class Written:
    """A message this peer wrote: the bytes to send, and the events of applying it."""

    raw: bytes
    events: list[TableEvent]


@dataclass(frozen=True)
class Player:
    public_key: bytes
    name: str


@dataclass(frozen=True)
class Member:
    """This peer as one of the table's players: an observer has none."""

    identity: Signer
    player: int
    secrets: SessionSecrets


@dataclass
class Match:
    """What the table holds from the seating on, all fixed together when the
    last key share opens; only ``deal`` changes (a new deck for each deal)."""

    joint_key: Point
    #: The player at each seat, as the joint draw chose.
    player_at_seat: tuple[int, ...]
    #: The seat the draw chose to go first.
    first_seat: int
    #: The referee: the game's state, changed in place by each action.
    engine: Engine
    #: The current deck.
    deal: DeckDeal
