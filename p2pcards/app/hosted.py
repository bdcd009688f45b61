"""A table hosted on this machine: its relay, its host's own seat and its bots, started
or brought back after a crash.

Local play and LAN play are one code path: ``p2pcards play`` is a hosted
table whose three other seats are bots, each a full peer with its own keys
and its own view, talking to the host over in-process links with the same
handshake, protocol and cryptography as over TCP. (A seat at a table another
machine hosts is :mod:`p2pcards.app.joined`'s.)

``seed`` makes a table reproducible (identities of bots, the genesis nonce,
every peer's randomness, every bot's choices) for tests and benchmarks
(:mod:`p2pcards.app.insecure_seed`). It is NOT secure: whoever knows the seed
knows every card.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from nacl.signing import SigningKey

from p2pcards.app.insecure_seed import derive, randomness_for, seeded_identity
from p2pcards.bots.agent import BotAgent, make_bot_factory
from p2pcards.bots.pace import paced
from p2pcards.bots.registry import DEFAULT_LEVEL
from p2pcards.errors import P2PCardsError
from p2pcards.net.failing import FirstFailure, LocalFailure, announce_failed
from p2pcards.net.host import TableHost
from p2pcards.net.journal import Journal
from p2pcards.net.peer import PeerSession
from p2pcards.net.resume import ALIVE_EVERY, keep_alive, last_up
from p2pcards.net.session_events import Agent, SessionEvent, SessionResult
from p2pcards.net.stopping import stop_task
from p2pcards.protocol.away import EndedWhileAway, ended_while_away
from p2pcards.protocol.envelope import PROTOCOL_VERSION
from p2pcards.protocol.file_shapes import relay_keeps_verdict
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.relay import DEFAULT_SPECTATORS, LobbyChanged
from p2pcards.protocol.rematch_genesis import Rematch
from p2pcards.protocol.session import PROBE_TIMEOUT
from p2pcards.protocol.table_records import Stage
from p2pcards.protocol.table_settings import HINTS, MOVE_TIME
from p2pcards.rules.seats import SEATS
from p2pcards.wiremap import WireMap

if TYPE_CHECKING:
    from p2pcards.net.discovery import TableAdvertiser

log = logging.getLogger(__name__)

class LocalSeatLate(P2PCardsError, TimeoutError):
    """A seat of this very process (the host's own, or a bot) did not sit down in
    time: the table cannot start as asked (a TimeoutError, not a network fault)."""


class TableEndedWhileAway(P2PCardsError):
    """A host resumed after the other players gave up on it: nothing is hosted
    again and nobody is named (see :mod:`p2pcards.protocol.away`)."""

    def __init__(self, ended: EndedWhileAway) -> None:
        super().__init__(ended.sentence())
        self.ended = ended


@dataclass(frozen=True)
class TableOptions:
    """What a host decides about its table."""

    game: str
    config: dict[str, int]
    name: str = "table"
    deadline: float = 120.0
    """Seconds the player who must write has, before the others end the table."""
    reconnect_window: float = 60.0
    journal_root: Path | None = None
    bot_kind: str = "heuristic"
    bot_level: str = DEFAULT_LEVEL
    seed: int | None = None
    """Reproducible randomness for tests and benchmarks only (insecure)."""
    spectators: int = DEFAULT_SPECTATORS
    """How many spectators (``p2pcards watch``) the host admits at once; 0: none."""
    advertise: bool = False
    interfaces: list[str] | None = None
    tcp_host: str | None = None
    tcp_port: int = 0
    bot_names: tuple[str, ...] = ("Ada", "Bob", "Cy")
    pace: float = 0.0
    """Seconds each bot takes per decision (a person at the table can follow; 0: at once)."""
    rematch: Rematch | None = None
    """A rematch: only these players sit, the genesis names the match before (§14)."""
    bot_identities: tuple[Identity, ...] = ()
    """The bots' keys (a rematch keeps its bots; missing ones are new)."""


def _linger(deadline: float) -> float:
    """Long enough for the other players' clocks, which started with the host's
    give or take a message, to run out: each then hands over what it holds and
    waits a further deadline (at least ``PROBE_TIMEOUT``) before naming anyone."""
    return deadline + max(PROBE_TIMEOUT, deadline) + 2.0


#: The host's own seat, as a failure names it.
OWN_SEAT = "your seat"


def _bot_seat(identity: Identity) -> str:
    """A bot's seat, as a failure names it (a bot's name is a checked display name)."""
    return f'the bot seat "{identity.name}"'


@dataclass
class HostedTable:
    """A running host with its local seats; ``result`` waits for the host player's end."""

    host: TableHost
    sessions: list[PeerSession] = field(default_factory=list)
    tasks: list[asyncio.Task[SessionResult]] = field(default_factory=list)
    advertiser: TableAdvertiser | None = None
    background: set[asyncio.Task[None]] = field(default_factory=set)
    alive: asyncio.Task[None] | None = None
    """The host's heartbeat (see :func:`p2pcards.net.resume.keep_alive`)."""
    linger: float = 0.0
    """How long ``close`` keeps relaying for players whose tables are still in play."""
    bot_identities: list[Identity] = field(default_factory=list)
    """The bots at this table, in join order (a rematch seats them again)."""
    failures: FirstFailure = field(default_factory=FirstFailure)
    """The first failure of a part of this table besides the host's own seat (a bot's
    seat, the relay's record), which stops it (see :mod:`p2pcards.net.failing`)."""

    def __post_init__(self) -> None:
        self.failures.afterwards = self._afterwards
        self.host.on_failure = lambda error: self.failures.fail(
            LocalFailure("the table's record (its relay)", error, self._afterwards()))

    def _afterwards(self) -> str:
        return "The table stopped here, signing nothing" if self.host.relay.started else ""

    def run_seat(self, session: PeerSession, part: str | None) -> None:
        """Run one local seat: the host's own (``part`` None), whose end is the
        result, or another (``part``: which, in words), whose failure stops the
        table (:meth:`result` raises why)."""
        task = asyncio.create_task(session.run())
        if part is not None:
            self.failures.watch(task, part)
        self.tasks.append(task)

    async def result(self) -> SessionResult:
        """The host's own seat's result, or the first failure of another part."""
        return await self.failures.result(self.tasks[0], OWN_SEAT)

    def setup_failure(self) -> LocalFailure | None:
        """Why this table cannot start after all: a seat of this process failed."""
        own = self.tasks[0] if self.tasks else None
        if own is not None and own.done() and not own.cancelled() and own.exception() is not None:
            return LocalFailure(OWN_SEAT, own.exception() or RuntimeError())
        return self.failures.failure

    async def close(self, grace: float = 5.0, linger: float | None = None) -> None:
        """Let the local seats take in the last messages (each ends with its table),
        keep relaying for up to ``linger`` seconds while other players' links are
        open (their tables may end later than the host's), then stop whatever is
        still running. The bots are stopped without a word (no signed leave): a
        host's own seat that crashed (its screen's output closed, say) leaves the
        table as a crash does, resumable with nobody named."""
        if self._own_seat_crashed() or self.failures.failure is not None:
            grace, linger = 0.0, 0.0  # the other seats cannot finish without it
            for session in self.sessions:  # a failure is no one's decision to leave
                session.leave_when_stopped = False
        running = [task for task in self.tasks if not task.done()]
        if running:
            await asyncio.wait(running, timeout=grace)
        linger = self.linger if linger is None else linger
        if linger > 0 and all(task.done() for task in self.tasks):
            await self.host.until_players_gone(linger)
        for task in self.tasks:
            if not task.done():
                task.cancel()
        try:
            if self.tasks:
                # Not suppress(CancelledError) around each await: a stop of close itself
                # (Ctrl-C) must land even while a seat is slow to end (net/stopping.py).
                await asyncio.wait(self.tasks)
                for task in self.tasks:
                    if not task.cancelled():
                        task.exception()  # a seat's failure is its own; retrieved
            if self.advertiser is not None:
                with contextlib.suppress(Exception):
                    await self.advertiser.stop()
            if self.alive is not None:
                await stop_task(self.alive)
        finally:
            if self.alive is not None:
                self.alive.cancel()
            self._keep_verdict_with_relay()
            await self.host.close()

    def _own_seat_crashed(self) -> bool:
        own = self.tasks[0] if self.tasks else None
        return own is not None and own.done() and not own.cancelled() and own.exception() is not None

    def _keep_verdict_with_relay(self) -> None:
        """The relay's saved copy ends as the host's own record does: a table its
        own seat saw end with a verdict keeps that verdict beside the relay's
        transcript too, so ``verify`` of the relay folder describes the end, but
        only where it fits the relay's chain (:func:`relay_keeps_verdict`)."""
        journal = self.host.journal
        own = self.tasks[0] if self.tasks else None
        if journal is None or own is None or not own.done() or own.cancelled():
            return
        if own.exception() is not None:
            return
        result = own.result()
        table = self.sessions[0].table if self.sessions else None
        if result.verdict is None or table is None or journal.read_verdict() is not None:
            return
        relay = [m.raw for m in self.host.relay.messages]
        if relay_keeps_verdict(relay, table.transcript(), result.verdict):
            journal.write_verdict(result.verdict.to_wire())


async def start_hosted_table(
    identity: Identity,
    agent: Agent,
    options: TableOptions,
    bots: int,
    *,
    on_event: Callable[[SessionEvent], None] | None = None,
    on_host_event: Callable[[SessionEvent], None] | None = None,
) -> HostedTable:
    """Open a table hosted by ``identity`` whose own seat is played by ``agent``,
    and fill ``bots`` seats with bots; the rest wait for players over TCP."""
    if not 0 <= bots <= 3:
        raise ValueError("a table has three seats besides the host's: 0..3 bots")
    nonce = derive(options.seed, "genesis") if options.seed is not None else None
    hosted = HostedTable(TableHost(identity, options.game, options.config, options.name,
                                   journal_root=options.journal_root, genesis_nonce=nonce,
                                   on_event=lambda e: _host_event(hosted, e, on_host_event),
                                   max_spectators=options.spectators,
                                   rematch=options.rematch),
                         linger=_linger(options.deadline))
    await hosted.host.start(options.tcp_host, options.tcp_port)
    hosted.alive = _heartbeat(hosted)
    if options.advertise and hosted.host.tcp_port:
        from p2pcards.net.discovery import TableAdvertiser
        # A rematch seats only the evening's players: no free seat until its end box.
        free = 0 if options.rematch is not None else hosted.host.lobby.free_seats
        hosted.advertiser = TableAdvertiser(
            table_name=options.name, game=options.game, port=hosted.host.tcp_port,
            fingerprint=identity.fingerprint, free_seats=free,
            version=PROTOCOL_VERSION, interfaces=options.interfaces,
            bind=hosted.host.tcp_host, public_key=identity.public_key,
            host_name=identity.name, spectators=options.spectators,
            clock=options.config.get(MOVE_TIME), hints=options.config.get(HINTS) == 1)
        try:
            await hosted.advertiser.start()
        except Exception as error:  # zeroconf's own errors too: said, not a traceback
            hosted.advertiser = None
            await hosted.close(grace=0, linger=0)
            raise LocalFailure("announcing the table on the LAN (mDNS)", error, remedy=(
                "host it with --no-advertise, and friends join with --connect ADDRESS:PORT"
            )) from error
    # Each seat: its identity, its agent, that agent again if it is a bot, its events.
    seats: list[tuple[Identity, Agent, BotAgent | None, Callable[[SessionEvent], None] | None]] = [
        (identity, agent, None, on_event)]
    if bots:
        factory = make_bot_factory(options.game, options.bot_kind, options.bot_level)
        for i in range(bots):
            name = options.bot_names[i % len(options.bot_names)]
            bot_identity = (options.bot_identities[i] if i < len(options.bot_identities)
                            else seeded_identity(options.seed, f"bot{i}", name)
                            if options.seed is not None else Identity.generate(name))
            hosted.bot_identities.append(bot_identity)
            seed = None if options.seed is None else int.from_bytes(derive(options.seed, f"bot{i}")[:8], "big")
            bot = BotAgent(factory, seed)
            seats.append((bot_identity, bot, bot, None))
    for index, (seat_identity, seat_agent, bot_agent, callback) in enumerate(seats):
        is_bot = bot_agent is not None
        label = f"seat{index}"
        # What a restarted host needs to bring this seat back (saved with its secrets).
        meta: WireMap = {"hosted": True, "rng_label": label}
        if bot_agent is not None:
            meta.update({"bot_key": bytes(seat_identity.signing_key),
                         "bot_kind": options.bot_kind, "bot_level": options.bot_level,
                         "bot_seed": bot_agent.seed})
        session = PeerSession(
            seat_identity, paced(seat_agent, options.pace) if is_bot else seat_agent,
            hosted.host.local_connector(seat_identity), bot=is_bot,
            deadline=options.deadline, reconnect_window=options.reconnect_window,
            journal_root=options.journal_root, on_event=callback,
            randomness_for=randomness_for(options.seed, label), meta=meta)
        session.leave_when_stopped = not is_bot  # a bot never leaves because its host stops
        hosted.sessions.append(session)
        joined = len(hosted.host.lobby.players)
        hosted.run_seat(session, _bot_seat(seat_identity) if index else None)
        # Join one at a time, so the join order (and with a seed, the game) is reproducible.
        def seated(joined: int = joined, first: bool = index == 0) -> bool:
            return len(hosted.host.lobby.players) > joined or hosted.host.relay.started or first
        await _wait_for(seated, timeout=10, hosted=hosted)
    return hosted


async def resume_hosted_table(
    identity: Identity,
    agent: Agent,
    table_dir: Path,
    *,
    deadline: float = 120.0,
    reconnect_window: float = 60.0,
    seed: int | None = None,
    pace: float = 0.0,
    on_event: Callable[[SessionEvent], None] | None = None,
    on_host_event: Callable[[SessionEvent], None] | None = None,
) -> HostedTable:
    """Bring back a table this machine hosted, after a crash: the relay from its
    saved transcript, on the same address and port, and every local seat (the
    host's own and its bots) from their journals; remote players reconnect.

    Raises :class:`~p2pcards.net.journal.JournalInUse` if another process
    still plays one of these seats."""
    relay_journal = Journal(Path(table_dir) / "relay")
    relay_journal.claim()
    relay_meta = relay_journal.read_meta()
    local: list[tuple[Journal, Identity, Agent, bool, Callable[[SessionEvent], None] | None]] = []
    for directory in sorted(Path(table_dir).iterdir()):
        journal = Journal(directory)
        if directory.name == "relay" or not journal.exists():
            continue
        meta = journal.read_meta()
        if directory.name == identity.fingerprint:
            local.insert(0, (journal, identity, agent, False, on_event))
        elif meta.get("bot_key"):
            bot_identity = Identity(SigningKey(meta["bot_key"]), meta.get("name", "bot"))
            factory = make_bot_factory(relay_meta["game"], meta["bot_kind"],
                                       meta.get("bot_level", DEFAULT_LEVEL))
            local.append((journal, bot_identity, paced(BotAgent(factory, meta["bot_seed"]), pace),
                          True, None))
    if not local or local[0][1] is not identity:
        raise FileNotFoundError(f"no seat of {identity.fingerprint} at the table saved in {table_dir}")
    # Before anything touches the record: when was this host last up?
    gone = ended_while_away(time.time(), last_up(relay_journal.directory), reconnect_window,
                            SEATS - len(local), precision=ALIVE_EVERY)
    if gone is not None:
        relay_journal.release()
        raise TableEndedWhileAway(gone)
    hosted: HostedTable  # named by its own host's event callback
    hosted = HostedTable(TableHost.resume(identity, relay_journal,
                                          on_event=lambda e: _host_event(hosted, e, on_host_event)),
                         linger=_linger(deadline))
    try:
        await hosted.host.start(relay_meta.get("tcp_host") or None, relay_meta.get("tcp_port", 0))
    except BaseException:  # its old port taken, its address gone: the record stays as it was
        await hosted.host.close()
        raise
    hosted.alive = _heartbeat(hosted)
    for journal, seat_identity, seat_agent, is_bot, callback in local:
        label = journal.read_meta().get("rng_label", "")
        session = PeerSession(
            seat_identity, seat_agent, hosted.host.local_connector(seat_identity), bot=is_bot,
            deadline=deadline, reconnect_window=reconnect_window,
            journal_root=Path(table_dir).parent, on_event=callback,
            randomness_for=randomness_for(seed, label))
        session.leave_when_stopped = not is_bot
        session.resume_from(journal)
        hosted.sessions.append(session)
    # The bots sit down again first: the host's own seat, linking after them, hears them
    # linked from the start, not "dropped; reconnecting" and then "back" (they never left).
    for session in hosted.sessions[1:]:
        hosted.run_seat(session, _bot_seat(session.identity))
    with contextlib.suppress(LocalSeatLate):
        await _wait_for(lambda: _linked(hosted, hosted.sessions[1:]), timeout=10, hosted=hosted)
    hosted.tasks.insert(0, asyncio.create_task(hosted.sessions[0].run()))
    return hosted


def _heartbeat(hosted: HostedTable) -> asyncio.Task[None]:
    """The host's heartbeat in its relay's record folder, from the table's start."""
    return asyncio.create_task(keep_alive(
        lambda: hosted.host.journal.directory if hosted.host.journal is not None else None))


def _linked(hosted: HostedTable, sessions: list[PeerSession]) -> bool:
    """Whether every one of ``sessions`` (this process's seats) has its link to the
    relay seated (or has already ended: a seat whose table is over never links)."""
    linked = hosted.host.relay.presence()
    for session in sessions:
        table = session.table
        if table is None or table.me_player is None or table.stage in (Stage.OVER, Stage.ENDED):
            continue
        if not (table.me_player < len(linked) and linked[table.me_player]):
            return False
    return True


def _host_event(hosted: HostedTable, event: SessionEvent, forward: Callable[[SessionEvent], None] | None) -> None:
    if isinstance(event, LobbyChanged) and hosted.advertiser is not None \
            and hosted.host.relay.rematch is None:
        task = asyncio.get_running_loop().create_task(
            hosted.advertiser.update(free_seats=event.free_seats))
        hosted.background.add(task)
        task.add_done_callback(hosted.background.discard)
        if forward is not None:
            task.add_done_callback(lambda done: announce_failed(done, forward))
    if forward is not None:
        forward(event)


async def _wait_for(predicate: Callable[[], bool], timeout: float,
                    hosted: HostedTable | None = None) -> None:
    """Until ``predicate()``: :class:`LocalSeatLate` after ``timeout`` seconds, or at
    once the failure of a seat of ``hosted`` (which is closed first). Polled every
    2 ms: the seats of ``play`` sit down one after another through this wait."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        failure = hosted.setup_failure() if hosted is not None else None
        if hosted is not None and failure is not None:
            await hosted.close(grace=0, linger=0)
            raise failure
        if loop.time() > end:
            raise LocalSeatLate("a seat of this process did not sit down at its own table in time")
        await asyncio.sleep(0.002)


async def play_local(identity: Identity, agent: Agent, options: TableOptions,
                     on_event: Callable[[SessionEvent], None] | None = None) -> SessionResult:
    """A whole match against three bots on this machine."""
    hosted = await start_hosted_table(identity, agent, options, bots=3, on_event=on_event)
    try:
        return await hosted.result()
    finally:
        await hosted.close()
