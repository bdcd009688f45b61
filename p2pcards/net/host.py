"""The host's side of a table: listening, the relay, saving, advertising.

The host process listens on TCP for remote players and on an in-process
network for its own player and its bots, so that every player, local or
remote, is the same :class:`~p2pcards.net.peer.PeerSession` over a link.
Frames go through the sans-IO :class:`~p2pcards.protocol.relay.Relay`;
each link has its own send queue so a slow peer delays only itself.

Admission (``Limits``): a link must say the ``hello`` that seats it within
``hello_timeout`` or it is closed; until then it is a stranger in the TCP
server's budget, and the host vouches for it (``Connection.admit``) once it
is seated or when its key is already at the table, so strangers can never
evict a player. One key holds at most ``max_links_per_key`` links. Each link
is read one frame per event-loop turn and paced by a token bucket, so one
peer's flood of valid frames cannot crowd out the others'.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path

from p2pcards.errors import P2PCardsError
from p2pcards.net.admission import TokenBucket
from p2pcards.net.connection import Connection, Limits, Server, serve
from p2pcards.net.errors import NetError, NotRunning
from p2pcards.net.failing import CannotListen
from p2pcards.net.journal import Journal
from p2pcards.net.memory import MemoryNetwork, MemoryServer
from p2pcards.net.saved_tables import RELAY, record_folder
from p2pcards.net.session_events import SessionEvent
from p2pcards.protocol import frames
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.lobby import Lobby
from p2pcards.protocol.relay import (
    DEFAULT_SPECTATORS,
    AgainHeard,
    Broadcast,
    Close,
    Dropped,
    LinkedChanged,
    LobbyChanged,
    Output,
    Persist,
    PersistNotice,
    Relay,
    Send,
    TableStarted,
    TakeAsked,
)
from p2pcards.protocol.rematch_genesis import Rematch
from p2pcards.wiremap import WireMap

log = logging.getLogger(__name__)

LOCAL_HOST = "local"
#: Frames a link may have waiting before it counts as a slow reader and is closed.
MAX_QUEUED_FRAMES = 4096
#: A spectator's allowance beyond its catch-up: the table never waits for one.
SPECTATOR_BACKLOG = 256


class _Link:
    """One connection and its writer task."""

    def __init__(self, number: int, connection: Connection) -> None:
        self.number = number
        self.connection = connection
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.limit = MAX_QUEUED_FRAMES
        self.writer = asyncio.create_task(self._write())

    async def _write(self) -> None:
        try:
            while True:
                frame = await self.queue.get()
                try:
                    if frame is None:
                        self.connection.close()
                        return
                    await self.connection.send(frame)
                finally:
                    self.queue.task_done()
        except NetError:
            self.connection.close()

    def push(self, frame: bytes | None) -> None:
        if self.queue.qsize() >= self.limit:
            log.warning("link %d reads too slowly; closing it", self.number)
            self.connection.close()
            return
        self.queue.put_nowait(frame)


class TableHost:
    """Hosts one table: accepts players, relays their frames, keeps the transcript."""

    def __init__(
        self,
        identity: Identity,
        game: str,
        config: dict[str, int],
        table_name: str,
        *,
        journal_root: Path | None = None,
        genesis_nonce: bytes | None = None,
        on_event: Callable[[SessionEvent], None] | None = None,
        limits: Limits = Limits(),
        max_spectators: int = DEFAULT_SPECTATORS,
        rematch: Rematch | None = None,
    ) -> None:
        self.identity = identity
        self.lobby = Lobby(identity, game, config, table_name)
        self.relay = Relay(self.lobby, genesis_nonce, max_spectators=max_spectators,
                           rematch=rematch)
        self.journal_root = journal_root
        self.journal: Journal | None = None
        self.on_event = on_event or (lambda event: None)
        #: Who of the table's players is linked, each time it changes (the end box hears it).
        self.on_linked: Callable[[tuple[int, ...]], None] = lambda linked: None
        self.limits = limits
        self.memory = MemoryNetwork()
        self._links: dict[int, _Link] = {}
        self._by_key: dict[bytes, deque[int]] = {}  # admitted links of each key, oldest first
        self._numbers = itertools.count(1)
        self._servers: list[Server | MemoryServer] = []
        self.tcp_host: str | None = None
        self.tcp_port: int | None = None
        self.local_port: int | None = None
        self.started = asyncio.Event()
        self._links_changed = asyncio.Event()
        #: Closed: nothing more is relayed or saved (the journal's lock is released).
        self._closed = False
        #: Why the relay stopped on its own (its record could not be written), if it did.
        self.failure: BaseException | None = None
        #: Told that failure once: a table whose relay stopped cannot go on.
        self.on_failure: Callable[[BaseException], None] = lambda error: None

    @classmethod
    def resume(cls, identity: Identity, journal: Journal, *,
               on_event: Callable[[SessionEvent], None] | None = None, limits: Limits = Limits(),
               max_spectators: int | None = None) -> TableHost:
        """A host restarted from its saved relay journal (``max_spectators`` None: as saved)."""
        meta = journal.read_meta()
        if max_spectators is None:
            max_spectators = meta.get("spectators", DEFAULT_SPECTATORS)
        host = cls(identity, meta["game"], meta["config"], meta["table"], on_event=on_event,
                   limits=limits, max_spectators=max_spectators)
        host.relay = Relay.resume(host.lobby, journal.read_messages(), journal.read_notices(),
                                  max_spectators=max_spectators)
        host.journal = journal
        journal.rewrite([m.raw for m in host.relay.messages])
        host.started.set()
        return host

    async def start(self, tcp_host: str | None = None, tcp_port: int = 0) -> None:
        """Listen in-process, and on TCP when ``tcp_host`` is given.

        A wildcard ("" or "::") is one socket serving IPv4 and IPv6 on one port
        (IPv4 alone on a machine without IPv6); ``tcp_host`` then records what
        is served ("::" or "0.0.0.0"), so a resumed table listens the same way.
        Raises :class:`~p2pcards.net.failing.CannotListen` where it cannot listen."""
        local = await self.memory.serve(LOCAL_HOST, 0, self.identity, self._accept, self.limits)
        self._servers.append(local)
        self.local_port = local.port
        if tcp_host is not None:
            try:
                server = await serve(tcp_host, tcp_port, self.identity, self._accept, self.limits)
            except OSError as error:  # said by the command: where, and what to try
                raise CannotListen(f"{tcp_host or '::'} port {tcp_port}", error) from error
            self._servers.append(server)
            self.tcp_host, self.tcp_port = server.host, server.port

    @property
    def listening_port(self) -> int:
        """The TCP port players dial; raises :class:`NotRunning` unless :meth:`start`
        was given a ``tcp_host``."""
        if self.tcp_port is None:
            raise NotRunning("the table host listens on TCP only once started with an address")
        return self.tcp_port

    def local_connector(self, identity: Identity) -> Callable[[], Awaitable[Connection]]:
        """How a player in this process (the host's own, or a bot) dials the table."""
        async def connect() -> Connection:
            port = self.local_port
            if port is None:  # as for any address nothing listens on
                raise ConnectionRefusedError("the table host is not listening yet")
            return await self.memory.connect(LOCAL_HOST, port, identity,
                                             expected_peer=self.identity.public_key)
        return connect

    def players_linked(self) -> int:
        """Seated links of the table's players still open (after the genesis)."""
        if self.relay.session is None:
            return 0
        return sum(1 for number in self._links if self.relay.seated(number))

    async def until_players_gone(self, timeout: float) -> None:
        """Keep relaying until every player's link has closed, or ``timeout``.

        Why: a table that ends for the host's seat may still be in play for the
        others (each peer judges a deadline by its own clock, and no report of
        the host's ends theirs); a relay that vanished at once would make their
        clocks name the host instead of the player that stopped.
        """
        loop = asyncio.get_running_loop()
        until = loop.time() + timeout
        while self.players_linked() and loop.time() < until:
            self._links_changed.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._links_changed.wait(), until - loop.time())

    async def close(self) -> None:
        self._closed = True
        for server in self._servers:
            server.close()
        for link in list(self._links.values()):
            link.push(None)
            link.connection.close()
        if self.journal is not None:
            self.journal.close()
            self.journal.release()

    # -- links ------------------------------------------------------------------

    async def _accept(self, connection: Connection) -> None:
        number = next(self._numbers)
        link = _Link(number, connection)
        self._links[number] = link
        key = connection.peer_public_key
        loop = asyncio.get_running_loop()
        hello_due = loop.call_later(self.limits.hello_timeout, self._hello_overdue, number)
        admitted = False
        try:
            outputs = self.relay.connected(number, key)
            self._apply(outputs)
            if any(isinstance(out, Close) for out in outputs):
                # Turned away at once (a stranger's key after the genesis): nothing is
                # read from it; the writer sends the reject, then closes.
                await asyncio.wait({link.writer}, timeout=self.limits.hello_timeout)
                return
            if self._reserved(key):
                admitted = self._admit(number, key)
            pace = TokenBucket(self.limits.link_frame_rate, self.limits.link_frame_burst, loop.time())
            while True:
                data = await connection.recv()
                self._apply(self.relay.frame(number, data))
                if not admitted and self.relay.hears(number):
                    hello_due.cancel()
                    admitted = self._admit(number, key)
                    if self.relay.spectating(number):
                        # A slow spectator is dropped, never waited for.
                        link.limit = link.queue.qsize() + SPECTATOR_BACKLOG
                # One frame per turn, and no faster than the link's pace: a flood
                # on one link cannot hold up the frames of the others.
                await asyncio.sleep(pace.wait(loop.time()))
        except NetError:
            pass
        finally:
            hello_due.cancel()
            self._links.pop(number, None)
            self._links_changed.set()
            numbers = self._by_key.get(key)
            if numbers is not None and number in numbers:
                numbers.remove(number)
                if not numbers:
                    del self._by_key[key]
            link.push(None)
            connection.close()
            self._apply(self.relay.disconnected(number))

    def tell_choice(self, raw: bytes) -> None:
        """An end-box choice of the host's own seats: kept and shown at every end box."""
        self._apply(self.relay.tell_choice(raw))

    def tell_fill(self, body: WireMap) -> None:
        """Who took a freed seat (PROTOCOL.md §14): told to every end box and newcomer."""
        self._apply(self.relay.tell_fill(body))

    def tell_end_box(self, left: float, end: int) -> None:
        """The host's word on its end box (PROTOCOL.md §14): ``left`` seconds until it
        closes, ``end`` how it ended (0 while open), to every end box and newcomer."""
        self._apply(self.relay.tell_end_box(left, end))

    def evict(self, public_key: bytes) -> None:
        """A player whose seat, freed while it was away, went to someone else."""
        self._apply(self.relay.evict(public_key))

    async def drained(self, timeout: float) -> None:
        """Wait (at most ``timeout`` s) until every frame queued on a link is written:
        a finished table closed right after its last word still delivers it (a leave,
        the end box's word) to every end box that can read it."""
        joins = [asyncio.ensure_future(link.queue.join()) for link in self._links.values()]
        if not joins:
            return
        try:
            await asyncio.wait(joins, timeout=timeout)
        finally:
            for join in joins:
                join.cancel()

    def open_seats(self, open_: bool) -> None:
        """Whether a newcomer's hello may ask for a seat freed at the end box."""
        self.relay.seats_open = open_

    def refuse_taker(self, link: int, reason: str) -> None:
        """Turn away a newcomer that gets no seat."""
        self._apply(self.relay.refuse_taker(link, reason))

    def _reserved(self, key: bytes) -> bool:
        """A key whose place is kept: a lobby member, or one of the table's players
        once it started (a spectator's key is a stranger's until its hello)."""
        return self.relay.is_player(key) or any(p.public_key == key for p in self.lobby.players)

    def _admit(self, number: int, key: bytes) -> bool:
        """Take a player's link out of the strangers' budget; one key keeps only its newest links."""
        link = self._links.get(number)
        if link is None:
            return False
        link.connection.admit()
        numbers = self._by_key.setdefault(key, deque())
        numbers.append(number)
        while len(numbers) > max(1, self.limits.max_links_per_key):
            oldest = self._links.get(numbers.popleft())
            if oldest is not None:
                log.info("link %d: a newer link of the same key replaces it", oldest.number)
                oldest.push(None)
        return True

    def _hello_overdue(self, number: int) -> None:
        link = self._links.get(number)
        if link is not None and not self.relay.hears(number):
            log.info("link %d said no hello in time; closing it", number)
            link.push(frames.encode("reject", {"reason": "no hello in time"}))
            link.push(None)

    def _apply(self, outputs: list[Output]) -> None:
        for out in outputs:
            if self._closed or self.failure is not None:
                # A frame read just before close: a released journal is never reopened
                # (a resumed host may hold it now), and no link is left to tell. A relay
                # whose record failed relays nothing it could not keep.
                return
            if isinstance(out, Persist):
                self._saving(partial(self._persist, out.raw))
            elif isinstance(out, PersistNotice):
                self._saving(partial(self._persist_notice, out.raw))
            elif isinstance(out, Send):
                link = self._links.get(out.link)
                if link is not None:
                    link.push(out.frame)
            elif isinstance(out, Broadcast):
                for number, link in list(self._links.items()):
                    if number != out.exclude and self.relay.hears(number):
                        link.push(out.frame)
            elif isinstance(out, Close):
                link = self._links.get(out.link)
                if link is not None:
                    log.info("closing %s: %s", self.relay.describe(out.link), out.reason)
                    link.push(None)
            elif isinstance(out, TableStarted):
                self._saving(partial(self._open_journal, out.session))
                if self.failure is not None:
                    return
                self.started.set()
                self.on_event(out)
            elif isinstance(out, LinkedChanged):
                self.on_linked(out.linked)
            elif isinstance(out, (LobbyChanged, AgainHeard, TakeAsked)):
                self.on_event(out)
            elif isinstance(out, Dropped):
                log.info("dropped a frame from %s: %s", self.relay.describe(out.link), out.reason)

    def _saving(self, write: Callable[[], None]) -> None:
        """A write to the relay's record. One that fails stops the relay (nothing
        more is relayed: the players' own records hold what they accepted) and
        says so once through :attr:`on_failure`, rather than ending only the link
        whose frame it was, while the others wait for ever."""
        try:
            write()
        except (OSError, P2PCardsError) as error:
            log.info("the table's record failed: %s", error)
            self.failure = error
            self.on_failure(error)

    def _open_journal(self, session: bytes) -> None:
        if self.journal_root is None:
            return
        self.journal = Journal(record_folder(self.journal_root, session, RELAY))
        self.journal.claim()
        self.journal.write_meta({"v": 1, "game": self.lobby.game, "config": self.lobby.config,
                                 "table": self.lobby.table_name, "tcp_host": self.tcp_host or "",
                                 "tcp_port": self.tcp_port or 0,
                                 "spectators": self.relay.max_spectators})

    def _persist(self, raw: bytes) -> None:
        if self.journal is not None:
            self.journal.append(raw)

    def _persist_notice(self, raw: bytes) -> None:
        if self.journal is not None:
            self.journal.append_notice(raw)
