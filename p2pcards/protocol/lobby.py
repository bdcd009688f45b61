"""The lobby: who sits at a table before it starts, and the genesis message.

The host gathers four players (itself first) and then signs the genesis
message, the first message of the transcript: the game, its configuration,
the table's name, a fresh nonce and the players' identity keys and names in
join order. Its hash is the session id that every later signature binds.
Seats are not decided here but by a joint draw right after, so the host's
join order gives it no advantage.
"""

from __future__ import annotations

from dataclasses import dataclass

import nacl.utils

from p2pcards.protocol import frames
from p2pcards.protocol.envelope import GENESIS_PREV, SignedMessage, seal
from p2pcards.protocol.errors import LocalProtocolError
from p2pcards.protocol.identity import Identity, fingerprint
from p2pcards.protocol.rematch_genesis import AFTER_SHAPE, After
from p2pcards.protocol.schema import Bin, IntMap, ListOf, Struct, Text, Tuple
from p2pcards.rules.seats import SEATS
from p2pcards.wiremap import WireMap

GENESIS_SHAPE = Struct({
    "game": Text(16, 1),
    "table": frames.NAME,
    "config": IntMap(),
    "nonce": Bin(32),
    "players": ListOf(Tuple((Bin(32), frames.NAME)), SEATS, SEATS),
}, optional={"after": AFTER_SHAPE})


class TableFull(LocalProtocolError):
    """A fifth player tried to join."""

    rule = "lobby.full"


class AlreadyJoined(LocalProtocolError):
    """The same identity key tried to take a second place."""

    rule = "lobby.duplicate"


@dataclass(frozen=True)
class LobbyPlayer:
    public_key: bytes
    name: str
    bot: bool = False

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)


class Lobby:
    """The host's list of joined players, and the genesis once it is full."""

    def __init__(self, host: Identity, game: str, config: dict[str, int], table_name: str,
                 host_is_bot: bool = False) -> None:
        self.host = host
        self.game = game
        self.config = dict(config)
        self.table_name = table_name
        self.players: list[LobbyPlayer] = [LobbyPlayer(host.public_key, host.name, host_is_bot)]

    @property
    def full(self) -> bool:
        return len(self.players) == SEATS

    @property
    def free_seats(self) -> int:
        return SEATS - len(self.players)

    def join(self, public_key: bytes, name: str, bot: bool = False) -> int:
        if any(p.public_key == public_key for p in self.players):
            raise AlreadyJoined(f"identity {fingerprint(public_key)} is already at this table")
        if self.full:
            raise TableFull(f"table {self.table_name!r} has no free seat")
        self.players.append(LobbyPlayer(public_key, name, bot))
        return len(self.players) - 1

    def leave(self, public_key: bytes) -> None:
        if public_key == self.host.public_key:
            raise LocalProtocolError("the host cannot leave its own lobby")
        self.players = [p for p in self.players if p.public_key != public_key]

    def frame(self) -> bytes:
        """The ``lobby`` frame that tells every joined peer who is here."""
        return frames.encode("lobby", {
            "game": self.game, "table": self.table_name, "config": self.config,
            "players": [[p.public_key, p.name, int(p.bot)] for p in self.players],
        })

    def genesis(self, nonce: bytes | None = None, after: After | None = None) -> SignedMessage:
        """Sign the first transcript message; the lobby must be full. ``after``
        makes it a rematch: it names the match before (PROTOCOL.md §14)."""
        if not self.full:
            raise LocalProtocolError(f"the table needs {SEATS} players, has {len(self.players)}")
        body: WireMap = {
            "game": self.game, "table": self.table_name, "config": self.config,
            "nonce": nonce if nonce is not None else nacl.utils.random(32),
            "players": [[p.public_key, p.name] for p in self.players],
        }
        if after is not None:
            body["after"] = after.to_wire()
        return seal(self.host, session=None, position=0, prev=GENESIS_PREV, player=0,
                    type="genesis", body=body)
