"""A whole table over the network code: a real host, four peer sessions, one hostile link.

Where links matter (deadlines, reconnects, duplicated or delayed frames, a
peer that leaves or vanishes) the attacks run against :class:`TableHost` and
:class:`PeerSession` over the in-process network, which uses the same
handshake, sealing and framing as TCP. Everything is seeded exactly as
:class:`harness.Bench` is, so an undisturbed network table writes the very
transcript of the direct recording, and a test can aim at "the first
challenged discard" found there.

A :class:`Tampered` connection wraps the hostile player's link: each frame it
sends passes through a policy (drop, delay, duplicate, replace, close the
link, leave), and each frame it receives is recorded (and, with an inbound
filter, may be withheld: what a hostile host does to that player).

Seats listed in ``direct`` also link to each other directly over loopback TCP
(:class:`~p2pcards.net.mesh.Mesh`), as players in their own processes do;
the host's seat (player 0) never does: it shares the host's process.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from p2pcards.app.insecure_seed import randomness_for, seeded_identity
from p2pcards.bots.agent import BotAgent, make_bot_factory
from p2pcards.net.connection import Connection, Limits, connect
from p2pcards.net.host import TableHost
from p2pcards.net.peer import PeerSession
from p2pcards.net.session_events import SessionResult
from p2pcards.protocol import frames, game_wire
from p2pcards.protocol.envelope import SignedMessage
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.table_records import Stage
from p2pcards.protocol.verify import verify_transcript
from tests.support import until
from tests.support.typed import present

from .harness import PLAYERS, SHORT_CONFIGS, genesis_nonce_for

LOOPBACK = "127.0.0.1"

#: Decides what happens to one outgoing frame: returns the frames to send now.
Policy = Callable[[bytes, "Tampered"], list[bytes]]


def message_of(frame: bytes) -> SignedMessage | None:
    """The transcript message a ``msg`` frame carries (None for other frames)."""
    try:
        decoded = frames.decode(frame)
        return SignedMessage.parse(decoded.body) if decoded.kind == "msg" else None
    except ProtocolError:
        return None


class Tampered:
    """A connection whose outgoing frames pass through ``policy``; records what it receives."""

    def __init__(self, inner: Any, policy: Policy | None, received: list[bytes],
                 inbound: Callable[[bytes], Any] | None = None) -> None:
        self.inner = inner
        self.policy = policy
        self.received = received
        self.inbound = inbound
        self.withheld = 0
        self.tasks: list[asyncio.Task[None]] = []

    async def send(self, payload: bytes) -> None:
        out = [payload] if self.policy is None else self.policy(payload, self)
        for frame in out:
            await self.inner.send(frame)

    async def recv(self) -> bytes:
        while True:
            data: bytes = await self.inner.recv()
            verdict = True if self.inbound is None else self.inbound(data)
            if isinstance(verdict, bytes):
                data = verdict  # the host hands this player something else
                break
            if verdict:
                break
            self.withheld += 1
        self.received.append(data)
        return data

    def send_later(self, frame: bytes, seconds: float) -> None:
        async def later() -> None:
            await asyncio.sleep(seconds)
            with contextlib.suppress(Exception):
                await self.inner.send(frame)
        self.tasks.append(asyncio.get_running_loop().create_task(later()))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


# -- stock policies ------------------------------------------------------------------------


Match = Callable[[SignedMessage], bool]


def on_message(match: Match, act: Callable[[bytes, SignedMessage, Tampered], list[bytes]],
               once: bool = True) -> Policy:
    """Apply ``act`` to ``msg`` frames whose message satisfies ``match``."""
    fired = [0]

    def policy(frame: bytes, conn: Tampered) -> list[bytes]:
        msg = message_of(frame)
        if msg is None or not match(msg) or (once and fired[0]):
            return [frame]
        fired[0] += 1
        return act(frame, msg, conn)
    return policy


def dropping(match: Match) -> Policy:
    return on_message(match, lambda frame, msg, conn: [], once=False)


def delaying(match: Match, seconds: float) -> Policy:
    def act(frame: bytes, msg: SignedMessage, conn: Tampered) -> list[bytes]:
        conn.send_later(frame, seconds)
        return []
    return on_message(match, act)


def duplicating(times: int = 2) -> Policy:
    return on_message(lambda m: True, lambda frame, msg, conn: [frame] * times, once=False)


def closing_after(match: Match) -> Policy:
    """Send the frame, then drop the link (the session should reconnect)."""
    def act(frame: bytes, msg: SignedMessage, conn: Tampered) -> list[bytes]:
        async def cut() -> None:
            await asyncio.sleep(0)
            conn.inner.close()
        conn.tasks.append(asyncio.get_running_loop().create_task(cut()))
        return [frame]
    return on_message(match, act)


# -- the table -----------------------------------------------------------------------------


@dataclass
class Seat:
    player: int
    session: PeerSession
    task: asyncio.Task[SessionResult] | None = None
    received: list[bytes] = field(default_factory=list)
    events: list[Any] = field(default_factory=list)
    connections: list[Tampered] = field(default_factory=list)


class NetTable:
    """Four seeded bots at a table hosted in this process (player 0 is the host)."""

    def __init__(self, game: str, seed: int = 1, config: Any = None, *, deadline: float = 30.0,
                 reconnect_window: float = 10.0, limits: Limits = Limits(),
                 deadlines: dict[int, float] | None = None, direct: Iterable[int] = (),
                 listen: dict[int, bool] | None = None, journal_root: Path | None = None,
                 announce: Iterable[int] = ()) -> None:
        self.game, self.seed = game, seed
        #: Where the relay and every seat save their folders (None: nothing is saved).
        self.journal_root = journal_root
        rules = game_wire.by_name(game)
        self.config = SHORT_CONFIGS[game] if config is None else config
        self.identities = [seeded_identity(seed, f"p{i}", f"p{i}") for i in range(PLAYERS)]
        self.host = TableHost(self.identities[0], game, rules.config_to_wire(self.config),
                              "hostile", genesis_nonce=genesis_nonce_for(seed), limits=limits,
                              journal_root=journal_root)
        self.deadline = deadline
        self.deadlines = deadlines or {}
        self.reconnect_window = reconnect_window
        self.policies: dict[int, Policy] = {}
        #: What a hostile host hands a player: the filter keeps a frame (True), withholds
        #: it (False) or hands over other bytes instead.
        self.inbound: dict[int, Callable[[bytes], Any]] = {}
        self.direct = set(direct)
        self.listen = listen or {}
        #: Seats that also announce their listener on loopback zeroconf (issue 20, finding 6).
        self.announce = set(announce)
        self.connectors: dict[int, Callable[[], Awaitable[Any]]] = {}
        #: Sealed-frame interceptors for a player's first link (see ``MemoryWire.intercept``).
        self.wire_interceptors: dict[int, Callable[[bytes], list[bytes]]] = {}
        self.seats: list[Seat] = []
        self.host_received: list[tuple[int, bytes]] = []
        #: Links a test opened to the host by hand (closed by :meth:`close`).
        self.strangers: list[Connection] = []

    def set_policy(self, player: int, policy: Policy) -> None:
        self.policies[player] = policy

    def _connector(self, player: int) -> Callable[[], Awaitable[Any]]:
        dial = self.host.local_connector(self.identities[player])

        async def connect() -> Any:
            custom = self.connectors.get(player)
            inner = await (custom() if custom is not None else dial())
            seat = self.seats[player]
            if not seat.connections and player in self.wire_interceptors:
                self.host.memory.wires[-1].intercept("a", self.wire_interceptors[player])
            conn = Tampered(inner, self.policies.get(player), seat.received,
                            self.inbound.get(player))
            seat.connections.append(conn)
            return conn
        return connect

    async def start(self, tcp_host: str | None = None) -> NetTable:
        await self.start_host(tcp_host)
        return await self.start_seats()

    async def start_host(self, tcp_host: str | None = None) -> NetTable:
        """Listen (in process, and on TCP at ``tcp_host`` if given); record what the relay gets."""
        await self.host.start(tcp_host)
        relay_frame = self.host.relay.frame

        def recording_frame(link: int, data: bytes) -> list[Any]:
            self.host_received.append((link, data))
            return relay_frame(link, data)
        self.host.relay.frame = recording_frame  # type: ignore[method-assign]
        return self

    async def start_seats(self) -> NetTable:
        """Start the four sessions, one at a time so that the join order is fixed."""
        factory = make_bot_factory(self.game, "heuristic")
        for player in range(PLAYERS):
            seat = Seat(player, None)  # type: ignore[arg-type]  # its session is made next, with its events list
            self.seats.append(seat)
            seat.session = PeerSession(
                self.identities[player], BotAgent(factory, self.seed), self._connector(player),
                bot=True, deadline=self.deadlines.get(player, self.deadline),
                reconnect_window=self.reconnect_window, journal_root=self.journal_root,
                randomness_for=randomness_for(self.seed, f"seat{player}"),
                on_event=seat.events.append, direct=player in self.direct,
                listen=self.listen.get(player, True), listen_host=LOOPBACK,
                announce=player in self.announce)
            seat.task = asyncio.get_running_loop().create_task(seat.session.run())
            await self._until(lambda p=player: len(self.host.lobby.players) > p  # type: ignore[misc]
                              or self.host.relay.started, 10.0)
        return self

    async def _until(self, predicate: Callable[[], bool], timeout: float) -> None:
        await until(predicate, timeout, interval=0.005)

    async def results(self, players: list[int] | None = None,
                      timeout: float = 60.0) -> dict[int, SessionResult]:
        """Wait (bounded) for these players' sessions to end."""
        players = list(range(PLAYERS)) if players is None else players
        tasks = [present(self.seats[p].task) for p in players]
        async with asyncio.timeout(timeout):
            done = await asyncio.gather(*tasks)
        return dict(zip(players, done, strict=False))

    async def link_to_host(self, identity: Identity, *args: Any, **options: Any) -> Connection:
        """A link to the host opened by hand (a stranger's, or a player's second
        one); :meth:`close` closes it."""
        connection = await connect(LOOPBACK, present(self.host.tcp_port), identity, *args, **options)
        self.strangers.append(connection)
        return connection

    async def close(self) -> None:
        for connection in self.strangers:
            connection.close()
        for seat in self.seats:
            if seat.task is not None and not seat.task.done():
                seat.task.cancel()
            for conn in seat.connections:
                for task in conn.tasks:
                    task.cancel()
        for seat in self.seats:
            if seat.task is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await seat.task
        await self.host.close()

    # -- looking --------------------------------------------------------------------

    def table(self, player: int) -> Any:
        return self.seats[player].session.table

    def transcript(self, player: int) -> list[bytes]:
        transcript: list[bytes] = self.table(player).transcript()
        return transcript


def assert_same_end(net: NetTable, players: list[int], rule: str, blamed: tuple[int, ...],
                    results: dict[int, SessionResult]) -> None:
    """Each of ``players`` ended with ``rule`` blaming ``blamed``; their transcripts
    agree and replay offline with the verdict."""
    transcripts = []
    for p in players:
        verdict = results[p].verdict
        assert verdict is not None, f"player {p}: {results[p]}"
        assert verdict.rule == rule, f"player {p}: {verdict.rule} ({verdict.detail})"
        assert verdict.players == blamed, f"player {p}: blamed {verdict.players}"
        table = net.table(p)
        assert table.stage is Stage.ENDED
        transcripts.append(table.transcript())
        report = verify_transcript(table.transcript(), verdict)
        assert report.problem is None and report.ok, report.problem
        if verdict.provable:
            assert report.verdict_confirmed is True
    shortest = min(len(t) for t in transcripts)
    assert all(t[:shortest] == transcripts[0][:shortest] for t in transcripts)
