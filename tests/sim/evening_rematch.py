"""The rematch after a simulated evening: a hostile host's forged geneses, each honest
joiner's check of the genesis, and the rematch's opening with every peer's clock.

The opening runs the rematch's first writes (the four key commits) at every peer
that joined, each with its own :class:`~p2pcards.protocol.session.SessionRules`
clock: a player that refused the genesis (or never came) writes nothing, so the
others' clocks run out waiting for it. Sans-IO and instant: a message written goes
to every other peer at once (the relay's path), and the host answers every ping
unless it is in the coalition. What is judged: no honest peer's verdict names an
honest player; in particular an honest again-chooser that refused the genesis for
a signed choice its end box holds is never named (PROTOCOL.md §14: the rematch
ends ``evening.unopened``, naming nobody).
"""

from __future__ import annotations

import hashlib
import math
from collections import deque
from dataclasses import dataclass, field

from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.crypto.seeded import SeededRng
from p2pcards.protocol import frames
from p2pcards.protocol.again import AgainCount, rematch_genesis
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.events import TableEnded
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.lobby import Lobby
from p2pcards.protocol.rematch_genesis import (
    After,
    DroppedPlayer,
    EveningRefused,
    FinishedMatch,
    KeptLeaver,
    NotTheMatchBefore,
    WrongRotation,
)
from p2pcards.protocol.session import HOST, Check, Emit, Output, Send, SessionRules
from p2pcards.protocol.table import Table
from p2pcards.protocol.verdict import Verdict

from .tables import randomness

#: A hostile host's rematch geneses, and the refusal each must meet.
FORGERIES: dict[str, type[EveningRefused]] = {
    "no_after": NotTheMatchBefore,
    "other_sid": NotTheMatchBefore,
    "other_final": NotTheMatchBefore,
    "other_seats": WrongRotation,
    "rotated": WrongRotation,
    "drop": DroppedPlayer,
}
#: The rematch's positions the opening plays: the four key commits.
OPENING = 5
#: Seconds a rematch's writer has (the rematch's own clock).
REMATCH_DEADLINE = 30.0
#: Clock steps the opening runs at most (every loop is bounded).
MAX_STEPS = 200


def contradiction(held: AgainCount, keys: list[bytes]) -> type[EveningRefused] | None:
    """The refusal a joiner holding ``held`` owes a genesis seating ``keys`` (the
    judge's own reading of §14, in player order): an again-chooser missing, a leaver
    kept; None when the genesis agrees with every choice it holds."""
    for player in sorted(held.choices):
        present = held.player_keys[player] in keys
        if held.choices[player] == "again" and not present:
            return DroppedPlayer
        if held.choices[player] == "leave" and present:
            return KeptLeaver
    return None


def filler(player: int) -> Identity:
    """The bot a host puts in the seat player ``player`` freed (seeded)."""
    return seeded_identity(23, f"filler{player}", f"f{player}")


def forged_genesis(host: Identity, count: AgainCount, finished: FinishedMatch,
                   names: tuple[str, ...], game: str, config: dict[str, int], table: str,
                   forgery: str, victim: int, nonce: bytes) -> bytes:
    """A hostile host's rematch genesis (``forgery``, one of :data:`FORGERIES`), built on
    the count it claims (``drop``: the right link, ``victim``'s seat given to a bot)."""
    after = finished.after
    seats = list(after.seats)
    forged = {
        "no_after": None,
        "other_sid": After(hashlib.sha256(b"other sid").digest(), after.final, after.seats),
        "other_final": After(after.session, hashlib.sha256(b"other final").digest(),
                             after.seats),
        "other_seats": After(after.session, after.final, (seats[1], seats[0], *seats[2:])),
        "rotated": After(after.session, after.final, (*seats[1:], seats[0])),
        "drop": after,
    }[forgery]
    players = count.next_players(names)
    if forgery == "drop":
        usurper = seeded_identity(23, "usurper", "u")
        players[victim] = (usurper.public_key, usurper.name)
    lobby = Lobby(host, game, config, table)
    for key, name in players[1:]:
        lobby.join(key, name)
    return lobby.genesis(nonce=nonce, after=forged).raw


def honest_genesis(host: Identity, count: AgainCount, names: tuple[str, ...], game: str,
                   config: dict[str, int], table: str, seed: int) -> bytes:
    """An honest host's rematch genesis once its count is ready."""
    nonce = SeededRng(b"rematch %d" % seed)(32)
    return rematch_genesis(host, count, names, game, config, table, nonce).raw


@dataclass
class _Peer:
    player: int
    table: Table
    rules: SessionRules
    verdict: Verdict | None = None
    written: set[int] = field(default_factory=set)


@dataclass
class Opening:
    """The rematch's opening: each peer's verdict (None: none), by genesis index."""

    verdicts: dict[int, Verdict | None]
    #: The positions reached at each peer.
    reached: dict[int, int]


def open_rematch(genesis: bytes, writers: dict[int, Identity], host_answers: bool) -> Opening:
    """The rematch's first writes at every peer in ``writers`` (genesis index →
    identity); everyone else writes nothing. Each peer's clock runs until the key
    commits are written or a verdict ends its table."""
    peers = {p: _Peer(p, Table(genesis, identity, randomness=randomness(f"rematch/{p}")),
                      SessionRules(REMATCH_DEADLINE)) for p, identity in writers.items()}
    now = 0.0
    mail: deque[tuple[_Peer, bytes]] = deque()

    def run(peer: _Peer, outputs: list[Output]) -> None:
        for out in outputs:
            if isinstance(out, Emit):
                for event in out.events:
                    if isinstance(event, TableEnded) and peer.verdict is None:
                        peer.verdict = event.verdict
            elif isinstance(out, Check):
                events: list[object] | None = None
                error: ProtocolError | None = None
                try:
                    events = list(out.job())
                except ProtocolError as failed:
                    error = failed
                run(peer, peer.rules.checked(out, events, error, now))  # type: ignore[arg-type]
            elif isinstance(out, Send) and out.path is HOST:
                frame = frames.decode(out.frame)
                if frame.kind == "msg":  # the relay's path: to every other peer, in order
                    mail.extend((other, frame.body) for other in peers.values()
                                if other is not peer)
                elif frame.kind == "ping" and host_answers:
                    run(peer, peer.rules.pong(HOST, frame.body["n"]))
        write(peer)

    def deliver() -> None:
        while mail:
            peer, raw = mail.popleft()
            if peer.verdict is None:
                run(peer, peer.rules.message(HOST, raw))

    def write(peer: _Peer) -> None:
        table = peer.table
        while table.my_turn and peer.verdict is None and table.next_position < OPENING \
                and table.next_position not in peer.written:
            peer.written.add(table.next_position)
            written = table.outgoing()
            if written is None:
                return
            run(peer, peer.rules.published(written.raw))
            run(peer, peer.rules.progress(now))
            deliver()

    for peer in peers.values():
        peer.rules.host_link_up(1)
        run(peer, peer.rules.start(peer.table, now))
    for _ in range(MAX_STEPS):
        for peer in peers.values():
            if peer.table.next_position >= OPENING:
                peer.rules.deadline_at = math.inf  # the opening is played: nobody waited for
        due = min((p.rules.wake_at() for p in peers.values() if p.verdict is None),
                  default=math.inf)
        if math.isinf(due):
            break
        now = due
        for peer in peers.values():
            if peer.verdict is None and peer.rules.wake_at() <= now:
                run(peer, peer.rules.tick(now))
                deliver()
    return Opening({p: peer.verdict for p, peer in peers.items()},
                   {p: peer.table.next_position for p, peer in peers.items()})


__all__ = ["FORGERIES", "Opening", "contradiction", "filler", "forged_genesis",
           "honest_genesis", "open_rematch"]
