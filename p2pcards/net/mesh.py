"""Direct links between the players of one table, beside the host's star.

Why: in a star the host alone decides what each player hears and when, so a
player cannot tell a silent writer from a host that withholds it, and cannot
get its evidence past a host that buries it. With a direct link, a writer's
messages reach this player whatever the host does, and a player that echoes
what it accepted makes a writer that tells different players different
things provable (``chain.equivocation``).

A :class:`Mesh` keeps at most one live link to every other player of the
table. It listens (same link handshake, sealing and framing as the host's)
and dials the players whose addresses it knows from two sources: the host's
unsigned hints (``peers``) and, with ``announce``, the players' own signed
announcements on the LAN (:mod:`p2pcards.net.direct_discovery`), which a host
cannot suppress; the signed addresses are tried first. It
accepts only the table's other player keys (a stranger is closed at once),
and if a pair ends up with two links it keeps the one dialled by the lower
player index (both ends apply the same rule). A pair links in whichever
direction works; where neither works, the pair plays through the host.

The mesh does not interpret frames beyond the opening ``hello``: it hands
every frame from a live link to ``await deliver(player, frame)``, which
queues it (with backpressure) for the one task that touches the table.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import secrets
from collections.abc import Awaitable, Callable, Coroutine
from typing import TYPE_CHECKING

from p2pcards.net.addresses import (
    AnnouncedLink,
    LocalAddress,
    local_addresses,
    race,
    same_link,
    to_dial,
)
from p2pcards.net.connection import Connection, Limits, Server, connect, serve
from p2pcards.net.errors import NetError
from p2pcards.net.failing import in_words
from p2pcards.net.redial import Redial
from p2pcards.protocol import frames
from p2pcards.protocol.envelope import PROTOCOL_VERSION
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.frames import MAX_ADDRS
from p2pcards.protocol.identity import Identity, fingerprint
from p2pcards.wiremap import WireList, WireMap

if TYPE_CHECKING:
    from p2pcards.net.direct_discovery import DirectAnnouncer

log = logging.getLogger(__name__)

#: Seconds a fresh direct link has to say (and answer) ``hello``.
HELLO_TIMEOUT = 5.0
#: Seconds one dial (TCP connect and link handshake) may take.
DIAL_TIMEOUT = 3.0
#: Failed dials in a row to one player before the mesh rests (``REST_AFTER_ROUND``).
MAX_DIALS = 6
#: Seconds a dialler rests after a round of ``MAX_DIALS`` failures before the next
#: round (less up to a quarter, jitter), until the mesh closes or new addresses come:
#: a laptop too busy to answer for half a minute, or a switch that dropped a few
#: connects, must not cost the pair its direct link for the rest of the evening.
REST_AFTER_ROUND = 30.0
#: First pause after a failed dial (doubles each time, up to ``MAX_BACKOFF``, with
#: jitter: :class:`~p2pcards.net.redial.Redial`).
FIRST_BACKOFF = 0.3
MAX_BACKOFF = 5.0
#: The higher-indexed player of a pair waits this long before dialling, so the
#: lower one's dial (the link both keep) usually comes first.
HIGHER_WAITS = 0.5
#: Frames queued for one direct link before it counts as a slow reader and is closed.
MAX_QUEUED = 4096
#: A direct-link listener serves three other players: few slots, short handshakes.
MESH_LIMITS = Limits(handshake_timeout=5.0, max_connections=12, max_per_address=4)

Deliver = Callable[[int, bytes], Awaitable[None]]


class _Direct:
    """One live direct link and its writer task."""

    def __init__(self, player: int, connection: Connection, dialled_by: int) -> None:
        self.player = player
        self.connection = connection
        self.dialled_by = dialled_by
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.writer = asyncio.get_running_loop().create_task(self._write())
        self.ended = asyncio.Event()

    async def _write(self) -> None:
        try:
            while True:
                frame = await self.queue.get()
                if frame is None:
                    break
                await self.connection.send(frame)
        except NetError:
            pass
        self.connection.close()

    def push(self, frame: bytes) -> None:
        if self.queue.qsize() >= MAX_QUEUED:
            log.warning("direct link to player %d reads too slowly; closing it", self.player)
            self.close()
            return
        self.queue.put_nowait(frame)

    def finish(self) -> None:
        """Close once what is queued has been sent."""
        self.queue.put_nowait(None)

    def close(self) -> None:
        self.connection.close()
        self.queue.put_nowait(None)

    @property
    def up(self) -> bool:
        return not self.connection.closed


class Mesh:
    """This player's direct links to the other players of its table."""

    def __init__(
        self,
        identity: Identity,
        deliver: Deliver,
        hello_body: Callable[[], WireMap],
        *,
        on_change: Callable[[], None] | None = None,
        on_degraded: Callable[[str], None] | None = None,
        limits: Limits = MESH_LIMITS,
        dial_timeout: float = DIAL_TIMEOUT,
        max_dials: int = MAX_DIALS,
        announce: bool = False,
        announce_interfaces: list[str] | None = None,
    ) -> None:
        self.identity = identity
        self.deliver = deliver
        self.hello_body = hello_body
        self.on_change = on_change or (lambda: None)
        #: Told, in words, what runs without a part that failed (listening, announcing).
        self.on_degraded = on_degraded or (lambda text: None)
        self.limits = limits
        self.dial_timeout = dial_timeout
        self.max_dials = max_dials
        self.session: bytes | None = None
        self.keys: list[bytes] = []
        self.me: int | None = None
        self.addrs: list[WireList] = []
        self._links: dict[int, _Direct] = {}
        self._addresses: dict[int, list[WireList]] = {}
        #: Where each player listens, by source: the host's hints, its own signed word.
        self._hints: dict[int, list[WireList]] = {}
        self._signed: dict[int, list[WireList]] = {}
        self.announce = announce
        """Announce this listener and browse for the others' with zeroconf."""
        self.announce_interfaces = announce_interfaces
        self.announcer: DirectAnnouncer | None = None
        self._where: str | None = None
        self._dialers: dict[int, asyncio.Task[None]] = {}
        self._last_dial: dict[int, float] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._server: Server | None = None
        self._servers: list[Server] = []
        self._closed = False
        self.refused = 0
        """Incoming links closed because their key is not a player of this table (or no table yet)."""

    # -- set-up -------------------------------------------------------------------

    async def listen(self, host: str, mine: list[LocalAddress] | None = None) -> list[WireList]:
        """Listen on ``host`` (port chosen by the OS), and on the other addresses of
        its interface (``mine``: this machine's; the same port where it is free);
        the ``[host, port]`` pairs to announce in ``hello``, ``host`` first (none if
        listening failed: the others may still be dialled).

        Why the others: a player that reached the host over IPv4 is then also
        reachable over IPv6 and link-local, so a pair links on whichever family
        both have. A link-local ``host`` keeps its zone (``fe80::1%eth0``)."""
        self._where = host
        self._load_announcer()
        try:
            self._server = await serve(host, 0, self.identity, self._accept, self.limits)
        except OSError as error:
            log.info("cannot listen for direct links on %s: %s", host, error)
            self.on_degraded(f"Cannot listen for direct links on {host} ({in_words(error)}): "
                             f"the other players reach you through the host, as with "
                             f"--no-listen; you still dial them.")
            self._discover()
            return []
        self._servers = [self._server]
        port = self._server.port
        self.addrs = [[host, port]]
        others = same_link(host, local_addresses() if mine is None else mine)
        for other in others[:MAX_ADDRS - 1]:
            server = None
            for wanted in (port, 0):
                try:
                    server = await serve(other, wanted, self.identity, self._accept, self.limits)
                    break
                except OSError as error:
                    log.debug("cannot listen for direct links on %s:%d: %s", other, wanted, error)
            if server is not None:
                self._servers.append(server)
                self.addrs.append([other, server.port])
        self._discover()
        return self.addrs

    def reached_from(self, host: str) -> None:
        """This player's address of its link to the host, where it does not listen:
        the interface on which to look for the others' announcements."""
        if self._where is None:
            self._where = host
            self._load_announcer()
            self._discover()

    def set_table(self, session: bytes, keys: list[bytes], me: int) -> None:
        """The table is known (genesis accepted): from now on links may form."""
        self.session, self.keys, self.me = session, list(keys), me
        self._discover()

    def set_peers(self, players: list[WireList]) -> None:
        """Addresses from the host's ``peers`` frame: (re)start dialling whoever has
        addresses and no live link (a changed address resets its retries)."""
        if self._closed or self.session is None or self.me is None:
            return
        for key, addrs in players:
            if key not in self.keys:
                continue
            player = self.keys.index(key)
            if player == self.me:
                continue
            self._hints[player] = addrs
            self._redial(player)

    def set_announced(self, player: int, addrs: list[WireList]) -> None:
        """Addresses ``player`` announced itself, signed (checked by the announcer):
        dialled as the host's hints are, before them."""
        if self._closed or self.session is None or player == self.me:
            return
        self._signed[player] = addrs
        self._redial(player)

    def _redial(self, player: int) -> None:
        """Dial ``player`` at every address known for it, if that changed (the signed
        ones first, then the host's hints; only the ones :func:`~p2pcards.net.addresses.dialable`)."""
        usable = to_dial([*self._signed.get(player, []), *self._hints.get(player, [])], self.addrs)
        if usable == self._addresses.get(player) and player in self._dialers:
            return
        self._addresses[player] = usable
        old = self._dialers.pop(player, None)
        if old is not None:
            old.cancel()
        if usable:
            self._dialers[player] = self._spawn(self._dial_loop(player))

    def _load_announcer(self) -> None:
        """Import zeroconf now, while the lobby waits, where this player will announce:
        at the genesis its import (tens of milliseconds) would delay the first deal.
        A process that never announces never loads it (about 4 MiB)."""
        if self.announce:
            import p2pcards.net.direct_discovery  # noqa: F401

    def _discover(self) -> None:
        """With ``announce``, once the table is known: browse for the others'
        announcements, and announce this listener once it listens."""
        if not self.announce or self._closed or self.session is None or self.me is None:
            return
        interfaces = self._mdns_interfaces()
        if interfaces is None:
            return  # not yet known where this player meets the table
        if self.announcer is None:
            from p2pcards.net.direct_discovery import DirectAnnouncer
            self.announcer = DirectAnnouncer(self.identity, self.session, self.keys, self.me,
                                             self.set_announced, interfaces=interfaces)
        self._spawn(self._announce(list(self.addrs)))

    def _mdns_interfaces(self) -> list[str] | None:
        """Where to announce and browse: the given interfaces, else the interface of
        this player's address towards the host (loopback stays on loopback); None
        while that is unknown."""
        if self.announce_interfaces is not None:
            return self.announce_interfaces
        if self._where is None:
            return None
        try:
            where = ipaddress.ip_address(self._where.split("%", 1)[0])
        except ValueError:
            return None
        if where.is_unspecified:
            return None
        ips = [str(where), *(str(ipaddress.ip_address(a.split("%", 1)[0]))
                             for a in same_link(self._where, local_addresses()))]
        return AnnouncedLink("", tuple(dict.fromkeys(ips))).zeroconf_interfaces

    async def _announce(self, addrs: list[WireList]) -> None:
        assert self.announcer is not None
        try:
            await self.announcer.start(addrs)
        except Exception as error:  # zeroconf could not start here: the host's hints remain
            log.warning("cannot announce direct links on the LAN: %s", error)
            self.on_degraded(f"Cannot announce your direct links on the LAN (mDNS: "
                             f"{in_words(error)}): the players link by the addresses the "
                             f"host hands out.")

    async def close(self, grace: float = 1.0) -> None:
        """Stop listening and dialling; what is queued on a live link (a final alert,
        a leave notice) is sent first, for at most ``grace`` seconds."""
        self._closed = True
        for server in self._servers:
            server.close()
        links = list(self._links.values())
        for link in links:
            link.finish()
        writers = [link.writer for link in links if not link.writer.done()]
        if writers:
            await asyncio.wait(writers, timeout=grace)
        for link in links:
            link.close()
        tasks = [t for t in [*self._dialers.values(), *self._tasks] if not t.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=2)
        if self.announcer is not None:
            await self.announcer.stop()
        self._links.clear()

    # -- using links ----------------------------------------------------------------

    def linked(self) -> set[int]:
        """Players with a live direct link."""
        return {p for p, link in self._links.items() if link.up}

    def is_linked(self, player: int | None) -> bool:
        link = self._links.get(player) if player is not None else None
        return link is not None and link.up

    def send(self, player: int, frame: bytes) -> None:
        """Queue ``frame`` for ``player``'s direct link (nothing if there is none)."""
        link = self._links.get(player)
        if link is not None and link.up:
            link.push(frame)

    def broadcast(self, frame: bytes, exclude: int | None = None, *,
                  also_exclude: int | None = None) -> None:
        """Queue ``frame`` on every live direct link but ``exclude``'s (and ``also_exclude``'s)."""
        for player, link in list(self._links.items()):
            if player != exclude and player != also_exclude and link.up:
                link.push(frame)

    # -- forming links ----------------------------------------------------------------

    def _spawn(self, coro: Coroutine[object, object, None]) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _accept(self, connection: Connection) -> None:
        """An incoming link: only another player of this table, with this table's sid."""
        key = connection.peer_public_key
        if self.session is None or key not in self.keys or self.keys.index(key) == self.me:
            self.refused += 1
            log.info("closed a direct link from a stranger %s", fingerprint(key))
            connection.close()
            return
        player = self.keys.index(key)
        connection.admit()  # one of the table's players: never evicted by strangers
        try:
            async with asyncio.timeout(HELLO_TIMEOUT):
                await self._expect_hello(connection)
                await connection.send(self._hello())
        except (NetError, ProtocolError, TimeoutError) as error:
            log.info("direct link from player %d failed its hello: %s", player, error)
            connection.close()
            return
        await self._run_link(player, connection, dialled_by=player)

    async def _dial_loop(self, player: int) -> None:
        """Keep a link to ``player`` up while addresses are known: dial, and after a
        link ends dial again; rounds of bounded retries with backoff between
        failures, and a rest between rounds. Ends when the mesh closes (or new
        addresses replace this dialler)."""
        if self.me is not None and self.me > player:
            await asyncio.sleep(HIGHER_WAITS)
        redial = Redial(first=FIRST_BACKOFF, most=MAX_BACKOFF, attempts=self.max_dials)
        while not self._closed:
            link = self._links.get(player)
            if link is not None and link.up:
                await link.ended.wait()
                redial.restart()
                continue
            if await self._dial_once(player):
                redial.restart()
                continue
            if not await redial.failed():
                await asyncio.sleep(REST_AFTER_ROUND * (1 - 0.25 * secrets.SystemRandom().random()))
                redial.restart()

    async def _dial_once(self, player: int) -> bool:
        """Dial every known address of ``player`` at once, staggered (Happy Eyeballs:
        the first link that opens wins, the others are closed); True if a link to
        ``player`` ran (and ended)."""
        addresses = self._addresses.get(player, [])
        if self._closed or self.is_linked(player):
            return True
        if not addresses:
            return False
        # However often the host changes the addresses, one player is dialled at
        # most once per FIRST_BACKOFF.
        loop = asyncio.get_running_loop()
        wait = self._last_dial.get(player, -FIRST_BACKOFF) + FIRST_BACKOFF - loop.time()
        if wait > 0:
            await asyncio.sleep(wait)
        self._last_dial[player] = loop.time()

        def attempt(host: str, port: int) -> Callable[[], Awaitable[Connection | None]]:
            async def dial() -> Connection | None:
                try:
                    return await connect(host, port, self.identity, expected_peer=self.keys[player],
                                         timeout=self.dial_timeout, limits=self.limits)
                except (OSError, NetError, TimeoutError) as error:
                    log.debug("dial to player %d at %s:%d failed: %s", player, host, port, error)
                    return None
            return dial

        won = await race([attempt(host, port) for host, port in addresses],
                         discard=lambda extra: extra.close())
        if won is None:
            return False
        connection = won[1]
        if self._closed or self.is_linked(player):
            connection.close()
            return True
        try:
            async with asyncio.timeout(HELLO_TIMEOUT):
                await connection.send(self._hello())
                await self._expect_hello(connection)
        except (NetError, ProtocolError, TimeoutError) as error:
            log.info("direct link to player %d failed its hello: %s", player, error)
            connection.close()
            return False
        except BaseException:
            connection.close()  # cancelled (the mesh closes): leave no socket behind
            raise
        await self._run_link(player, connection, dialled_by=self.me)
        return True

    def _hello(self) -> bytes:
        return frames.encode("hello", self.hello_body())

    async def _expect_hello(self, connection: Connection) -> None:
        frame = frames.decode(await connection.recv())
        if frame.kind != "hello":
            raise DirectRefused(f"a {frame.kind!r} frame before hello")
        if frame.body["v"] != PROTOCOL_VERSION:
            raise DirectRefused(f"protocol version {frame.body['v']}")
        if frame.body["sid"] != self.session:
            raise DirectRefused("hello for another table")

    async def _run_link(self, player: int, connection: Connection, dialled_by: int | None) -> None:
        """Keep the link if it is the pair's one (see the module doc), then read it
        until it ends."""
        assert self.me is not None
        link = _Direct(player, connection, dialled_by if dialled_by is not None else self.me)
        keep = min(self.me, player)
        old = self._links.get(player)
        if old is not None and old.up:
            if old.dialled_by == keep and link.dialled_by != keep:
                link.close()
                return
            old.close()
        self._links[player] = link
        self.on_change()
        try:
            while True:
                data = await connection.recv()
                await self.deliver(player, data)
        except NetError:
            pass
        finally:
            link.close()
            link.ended.set()
            if self._links.get(player) is link:
                del self._links[player]
                if not self._closed:
                    self.on_change()


class DirectRefused(ProtocolError):
    """A direct link whose opening frame is not this table's ``hello`` (the link is
    closed; nobody is blamed: anyone can open a link)."""

    rule = "direct.hello"


__all__ = ["DirectRefused", "Mesh"]
