"""The plain records of a table: its stages, message shapes and held state.

Data only, no rules: :class:`Stage`, the bodies of the table's own transcript
messages (``commit`` .. ``hint``), a peer's :class:`SessionSecrets`, what a
write gives back (:class:`Written`), a provable :class:`Fault`, the players,
and what the genesis fixes (:class:`Genesis`, read and checked once).
:mod:`p2pcards.protocol.table` is the machine that fills them.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import nacl.utils

from p2pcards.crypto import keys
from p2pcards.protocol import game_wire
from p2pcards.protocol.envelope import SignedMessage, session_id_of
from p2pcards.protocol.errors import MalformedMessage, RemoteProtocolError
from p2pcards.protocol.events import TableEvent
from p2pcards.protocol.lobby import GENESIS_SHAPE
from p2pcards.protocol.rematch_genesis import After
from p2pcards.protocol.schema import Bin, ListOf, Struct, validate
from p2pcards.protocol.table_settings import (
    HINTS,
    MOVE_TIME,
    PAUSES,
    hints_of,
    move_time_of,
    pauses_of,
)
from p2pcards.rules.games import GameConfig
from p2pcards.rules.seats import SEATS
from p2pcards.wiremap import WireMap


class Stage(enum.Enum):
    """Which message a table awaits, and who may write it (:attr:`~.table.Table.writer`).

    ========  =============================================================
    stage     writer and message
    ========  =============================================================
    COMMIT    players 0..3 in join order: ``commit`` (key share, draw nonce)
    OPEN      players 0..3 in join order: ``open`` (key share + proof, nonce)
    SHUFFLE   seats 0..3: ``shuffle`` (re-masked permuted deck + proof)
    SHARES    seats 0..3: ``shares`` (decryption shares for others' slots)
    PLAY      the seat the referee names: the game's action messages
    OVER      nobody: the match ended
    ENDED     nobody: a verdict ended the table
    ========  =============================================================

    After OPEN the joint draw seats the players and names the first leader or
    dealer; after each deal or hand that the referee closes, a new deck goes
    through SHUFFLE and SHARES again.
    """

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


class Fault(NamedTuple):
    """A fault this peer can prove: the rule broken (its player and position
    named) and the signed records that show it, for the verdict."""

    error: RemoteProtocolError
    evidence: tuple[bytes, ...]


@dataclass(frozen=True)
class Player:
    public_key: bytes
    name: str


@dataclass(frozen=True)
class Genesis:
    """What the host's genesis message fixes for the whole table, read and checked."""

    message: SignedMessage
    session: bytes
    players: tuple[Player, ...]
    game: game_wire.GameRules
    config: GameConfig
    table_name: str
    #: Seconds each writer has for a message (0: no limit; None: the genesis sets none).
    move_time: int | None
    #: How many pauses (``away``) each player has.
    pauses: int
    #: Whether the host allowed hints (``hint``).
    hints: bool
    #: The match before, for a rematch: its seats rotated are this match's seats.
    after: After | None

    @classmethod
    def read(cls, raw: bytes) -> Genesis:
        """Player 0's signed genesis at position 0; raises :class:`MalformedMessage`
        (or a bad signature's error) for anything else."""
        genesis = SignedMessage.parse(raw)
        if genesis.position != 0 or genesis.type != "genesis" or genesis.player != 0:
            raise MalformedMessage("the first message must be player 0's genesis at position 0")
        body = validate(GENESIS_SHAPE, genesis.body)
        players = tuple(Player(pk, name) for pk, name in body["players"])
        if len({p.public_key for p in players}) != SEATS:
            raise MalformedMessage("genesis lists the same identity twice")
        genesis.verify(players[0].public_key)
        game = game_wire.by_name(body["game"])
        config = dict(body["config"])
        move_time = move_time_of(config.pop(MOVE_TIME, None))
        pauses = pauses_of(config.pop(PAUSES, None))
        hints = hints_of(config.pop(HINTS, None))
        return cls(genesis, session_id_of(genesis.payload), players, game,
                   game.config_from_wire(config), body["table"], move_time, pauses, hints,
                   After.from_wire(body["after"]) if "after" in body else None)
