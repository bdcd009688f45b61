"""Four players' tables passing messages directly: the protocol without sockets.

Internal (hence the underscore), for tests, test vectors and benchmarks only:
four seeded players and an observer, each a full
:class:`~p2pcards.protocol.table.Table`, with bots deciding for the players.
Whoever knows the seed knows every card: never a real table.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from p2pcards.app.insecure_seed import randomness_for, seeded_identity
from p2pcards.bots.base import Bot
from p2pcards.bots.registry import DEFAULT_LEVEL, make_bot_factory
from p2pcards.protocol import game_wire
from p2pcards.protocol.events import TableEnded, TableEvent
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.lobby import Lobby
from p2pcards.protocol.rematch_genesis import After
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_errors import TableClosed
from p2pcards.rules.bluff import BluffConfig
from p2pcards.rules.games import GameConfig
from p2pcards.rules.topper import TopperConfig

SHORT = {"bluff": BluffConfig(deal_cap=1), "topper": TopperConfig(target_score=3)}


@dataclass
class DirectTable:
    """Four seeded players and an observer; ``step()`` writes one message and delivers it."""

    game: str
    identities: list[Identity]
    tables: list[Table]
    observer: Table
    genesis: bytes
    bots: list[Bot]
    events: list[list[TableEvent]] = field(default_factory=lambda: [[] for _ in range(5)])

    @property
    def writer(self) -> int | None:
        return self.tables[0].writer

    def _current_writer(self) -> int:
        writer = self.writer
        if writer is None:
            raise TableClosed("nobody may write: the table is over or ended")
        return writer

    def write(self) -> bytes:
        """The writer's next message (automatic or its bot's decision), applied locally."""
        table = self.tables[self._current_writer()]
        written = table.outgoing()
        if written is None:
            written = table.act(self.bots[table.own_seat].choose(table.view()))
        self.events[table.member.player].extend(written.events)
        return written.raw

    def deliver(self, raw: bytes, exclude: int) -> None:
        for i, table in enumerate(self.tables + [self.observer]):
            if i != exclude:
                self.events[i].extend(table.receive(raw))

    def step(self) -> None:
        writer = self._current_writer()
        self.deliver(self.write(), exclude=writer)

    def run(self, max_steps: int = 5000) -> None:
        for _ in range(max_steps):
            if self.writer is None or any(t.verdict for t in self.tables):
                return
            self.step()
        raise AssertionError("the table did not finish within the step bound")

    def run_until(self, predicate: Callable[[DirectTable], bool], max_steps: int = 5000) -> None:
        for _ in range(max_steps):
            if predicate(self):
                return
            self.step()
        raise AssertionError("the condition never held")

    def ended(self) -> list[TableEnded]:
        return [e for evs in self.events for e in evs if isinstance(e, TableEnded)]


def direct_table(game: str, seed: int = 1, config: GameConfig | None = None, bot_kind: str = "heuristic",
                 bot_level: str = DEFAULT_LEVEL, identities: list[Identity] | None = None,
                 after: After | None = None) -> DirectTable:
    """``identities`` and ``after`` make a rematch: the same four, the match before named."""
    rules = game_wire.by_name(game)
    identities = identities or [seeded_identity(seed, f"p{i}", f"P{i}") for i in range(4)]
    lobby = Lobby(identities[0], game, rules.config_to_wire(config or SHORT[game]), "test table")
    for identity in identities[1:]:
        lobby.join(identity.public_key, identity.name)
    genesis = lobby.genesis(nonce=bytes([seed % 256]) * 32, after=after).raw
    tables = [Table(genesis, identity, randomness=randomness_for(seed, f"p{i}"))
              for i, identity in enumerate(identities)]
    factory = make_bot_factory(game, bot_kind, bot_level)
    bots = [factory(random.Random(seed * 10 + s)) for s in range(4)]
    return DirectTable(game, identities, tables, Table(genesis), genesis, bots)
