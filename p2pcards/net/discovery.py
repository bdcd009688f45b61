"""Finding tables on the LAN with mDNS/DNS-SD (python-zeroconf, asyncio API).

A host advertises ``_p2pcards._tcp.local.`` (its record: :mod:`.table_record`)
with TXT fields ``game``, ``name``, ``free``, ``v``, ``fp``, ``pk``, ``port``, ``hn`` (the hosting
player's display name), ``watch`` (how many spectators it admits; absent:
none), ``clock`` (the table clock's seconds per move, 0: no clock, so
anyone can stall the table for ever; absent: unknown, an older host) and
``end`` (1: the table is between matches, its end box has ``free`` seats a
newcomer may take for the rematch, PROTOCOL.md §14); browsers list what answers.
What arrives is untrusted: TXT values are decoded defensively (a table with
a bad field is skipped, never a crash), control characters are stripped from
names shown to people, and a table is listed only if its TCP port accepts a
connection, because a killed host sends no goodbye and its records linger.
Both IP families are announced and browsed. Each interface announces only
its own addresses (one responder per interface, RFC 6762 §6.2); a browser
races a table's addresses, its own subnets first (``addresses.py``).
``pk`` is the host's whole identity key (hex): a joiner pins the link to it,
since a 48-bit fingerprint alone could be matched by a ground key, so a
record without it is refused. The link handshake proves the identity.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, replace

from zeroconf import DNSQuestionType, IPVersion, ServiceInfo, ServiceStateChange, Zeroconf
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from p2pcards.net.addresses import (
    AnnouncedLink,
    LocalAddress,
    announcement_links,
    local_addresses,
    order_candidates,
    race,
    zone_by_name,
)
from p2pcards.net.errors import NotRunning
from p2pcards.net.mdns import hear_own_links_only, open_mdns
from p2pcards.net.table_record import (
    FINGERPRINT_PATTERN,
    GAME_PATTERN,
    HOST_TTL,
    OTHER_TTL,
    SERVICE_TYPE,
    TableInfo,
    checked_free_seats,
    instance_name,
    parse_table,
    table_properties,
)
from p2pcards.protocol.identity import fingerprint as identity_fingerprint

log = logging.getLogger(__name__)

__all__ = [
    "SERVICE_TYPE",
    "Awaited",
    "TableAdvertiser",
    "TableBrowser",
    "TableInfo",
    "browse_tables",
    "open_mdns",
    "parse_table",
]


class TableAdvertiser:
    """Announces one table while it has a host; ``update`` when seats fill.

    ``bind`` is what the table's socket serves ("::" or None: both families,
    "0.0.0.0": IPv4, or one address); each interface then announces only its
    own addresses of those families (one mDNS responder per interface).
    ``interfaces`` (addresses or interface names) limits where it is
    announced, e.g. ``["127.0.0.1"]`` in tests. ``addresses``, if given,
    are announced as they are on ``interfaces`` (or every interface).
    ``clock`` is the genesis's table clock (0: none), so a joiner sees a table
    that can be stalled for ever before it sits down; ``hints`` whether its host
    allowed the coach (every screen then marks a coached seat).
    """

    def __init__(
        self,
        *,
        table_name: str,
        game: str,
        port: int,
        fingerprint: str,
        free_seats: int,
        version: int,
        addresses: list[str] | None = None,
        interfaces: list[str] | None = None,
        bind: str | None = None,
        public_key: bytes,
        host_name: str = "",
        spectators: int = 0,
        clock: int | None = None,
        hints: bool = False,
    ) -> None:
        if not GAME_PATTERN.fullmatch(game):
            raise ValueError("game must be 1-32 characters of a-z, 0-9, '_' or '-'")
        if not FINGERPRINT_PATTERN.fullmatch(fingerprint):
            raise ValueError("fingerprint must look like 'ab12-cd34-ef56'")
        if identity_fingerprint(public_key) != fingerprint:
            raise ValueError("the public key does not have that fingerprint")
        self.public_key = public_key
        self.host_name = host_name
        self.spectators = spectators
        self.clock = clock
        self.hints = hints
        self.between = False
        self.free_seats = checked_free_seats(free_seats)
        self.table_name = table_name
        self.game = game
        self.port = port
        self.fingerprint = fingerprint
        self.version = version
        self._interfaces = interfaces
        self._fixed = list(addresses) if addresses else None
        self._bind = bind
        self.instance = f"{instance_name(table_name, fingerprint)}.{SERVICE_TYPE}"
        # Hosts in network namespaces share a hostname: the key and port make it unique.
        self._server = f"p2pcards-{fingerprint.replace('-', '')}-{port}.local."
        self._responders: list[tuple[AsyncZeroconf, ServiceInfo, AnnouncedLink]] = []
        self.links: list[AnnouncedLink] = []
        """What each interface announces (set by :meth:`start`)."""

    def _plan(self) -> list[AnnouncedLink]:
        if self._fixed is not None:
            return [AnnouncedLink("", tuple(self._fixed))]
        return announcement_links(local_addresses(), bind=self._bind, interfaces=self._interfaces)

    def _zeroconf_for(self, link: AnnouncedLink) -> AsyncZeroconf:
        if link.interface == "":  # addresses given as they are, or bound to one not found here
            return open_mdns(self._interfaces)
        return open_mdns(link.zeroconf_interfaces)

    def _service_info(self, addresses: tuple[str, ...]) -> ServiceInfo:
        return ServiceInfo(
            SERVICE_TYPE,
            self.instance,
            port=self.port,
            properties=table_properties(
                table_name=self.table_name,
                game=self.game,
                free_seats=self.free_seats,
                version=self.version,
                fingerprint=self.fingerprint,
                port=self.port,
                public_key=self.public_key,
                host_name=self.host_name,
                spectators=self.spectators,
                clock=self.clock,
                hints=self.hints,
                between=self.between,
            ),
            server=self._server,
            host_ttl=HOST_TTL,
            other_ttl=OTHER_TTL,
            parsed_addresses=list(addresses),
        )

    async def start(self) -> None:
        """Register (probe ~1.2 s, announce ~0.5 s) and return once announced.

        The first interface probes for the name; the others then announce the
        same name as cooperating responders (each hears the others' records
        on this machine, which would otherwise read as a conflict)."""
        if self._responders:
            return
        self.links = self._plan()
        if not self.links:
            log.warning("no interface to announce the table on (interfaces %s, bind %s)",
                        self._interfaces, self._bind)
        try:
            for number, link in enumerate(self.links):
                azc = self._zeroconf_for(link)
                info = self._service_info(link.addresses)
                self._responders.append((azc, info, link))
                # Another link's questions are not this responder's to answer.
                await hear_own_links_only(azc, link.zeroconf_interfaces if link.interface else self._interfaces)
                if number == 0:
                    await (await azc.async_register_service(info))
            later = [azc.async_register_service(info, cooperating_responders=True)
                     for azc, info, _ in self._responders[1:]]
            for announced in await asyncio.gather(*later):
                await announced
        except BaseException:
            responders, self._responders = self._responders, []
            for azc, _, _ in responders:
                await azc.async_close()
            raise

    async def update(self, *, free_seats: int | None = None, table_name: str | None = None,
                     between: bool | None = None) -> None:
        """Re-announce with new TXT values (the instance name stays the same)."""
        if between is not None:
            self.between = between
        if free_seats is not None:
            self.free_seats = checked_free_seats(free_seats)
        if table_name is not None:
            self.table_name = table_name
        if not self._responders:
            return
        self._responders = [(azc, self._service_info(link.addresses), link)
                            for azc, _, link in self._responders]
        updates = await asyncio.gather(*(azc.async_update_service(info) for azc, info, _ in self._responders))
        await asyncio.gather(*updates)

    async def stop(self) -> None:
        """Send goodbyes and close."""
        responders, self._responders = self._responders, []
        try:
            goodbyes = await asyncio.gather(*(azc.async_unregister_service(info) for azc, info, _ in responders),
                                            return_exceptions=True)
            await asyncio.gather(*(g for g in goodbyes if not isinstance(g, BaseException)),
                                 return_exceptions=True)
        finally:
            for azc, _, _ in responders:
                await azc.async_close()

    async def __aenter__(self) -> TableAdvertiser:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()


# --- browsing ------------------------------------------------------------------------------


async def port_answers(host: str, port: int, timeout: float) -> bool:
    """Whether a TCP connection to ``host:port`` opens within ``timeout`` seconds."""
    try:
        async with asyncio.timeout(timeout):
            _, writer = await asyncio.open_connection(host, port)
    except (OSError, TimeoutError):
        return False
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return True


async def first_answering(
    candidates: list[str], port: int, timeout: float, mine: list[LocalAddress] | None = None
) -> str | None:
    """The first of a table's addresses whose port answers: our own subnets first,
    raced with staggered starts (Happy Eyeballs) rather than one after another."""
    ordered = order_candidates(candidates, local_addresses() if mine is None else mine)

    def attempt(host: str) -> Callable[[], Awaitable[str | None]]:
        async def probe() -> str | None:
            return host if await port_answers(host, port, timeout) else None
        return probe

    won = await race([attempt(host) for host in ordered])
    return None if won is None else won[1]


#: Seconds a table's resolution, begun the moment it is heard of, may take: an
#: answer can come 1.1–1.4 s late (see :class:`Awaited`), later on a loaded machine.
EARLY_RESOLVE_TIMEOUT = 3.0

#: A table's records as resolved: the table (its ``host`` still empty) and its addresses.
Resolved = tuple[TableInfo, list[str]]


class TableBrowser:
    """Keeps listening for tables; ``tables()`` lists the ones alive right now.

    Each table is resolved as soon as it is heard of, not when the listing is
    asked for: many tables on one LAN answer late (RFC 6762's rate limit), and a
    table heard early in a 2 s window must not miss the list because its records
    came 1.3 s after the question. Its port is probed when the list is made (a
    killed host's records linger; its port does not answer)."""

    def __init__(self, interfaces: list[str] | None = None) -> None:
        self._interfaces = interfaces
        self._azc: AsyncZeroconf | None = None
        self._browser: AsyncServiceBrowser | None = None
        self._names: set[str] = set()
        self._asked: set[str] = set()
        self._withdrawn: set[str] = set()
        self._news = asyncio.Event()
        self._loop: asyncio.AbstractEventLoop | None = None
        #: Instance name -> (loop time begun, its early resolution).
        self._early: dict[str, tuple[float, asyncio.Task[Resolved | None]]] = {}
        #: Instance name -> loop time its records last changed (a resolution begun
        #: before that may hold the old TXT values).
        self._changed: dict[str, float] = {}

    async def start(self) -> None:
        if self._azc is not None:
            return
        self._azc = open_mdns(self._interfaces)
        await hear_own_links_only(self._azc, self._interfaces)
        self._loop = asyncio.get_running_loop()
        self._browser = AsyncServiceBrowser(
            self._azc.zeroconf,
            [SERVICE_TYPE],
            handlers=[self._on_change],
            question_type=DNSQuestionType.QM,  # a unicast reply would not reach us beside another responder
        )

    def _on_change(
        self, zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange
    ) -> None:
        if state_change is ServiceStateChange.Removed:
            self._names.discard(name)
            self._withdrawn.add(name)
        else:
            self._names.add(name)
            self._withdrawn.discard(name)
        if self._loop is not None:  # wakes news(), from zeroconf's thread too
            self._loop.call_soon_threadsafe(self._news.set)
            if state_change is not ServiceStateChange.Removed:
                self._loop.call_soon_threadsafe(self._heard, name)

    def _heard(self, name: str) -> None:
        """``name`` was announced, or its records changed: resolve it now."""
        if self._loop is not None:
            self._changed[name] = self._loop.time()
            self._resolve_early(name)

    def _resolve_early(self, name: str) -> None:
        """Begin resolving ``name`` now, unless a resolution of it is under way."""
        if self._azc is None or self._loop is None:
            return
        now = self._loop.time()
        running = self._early.get(name)
        if running is not None and not running[1].done():
            return
        task = asyncio.ensure_future(self._resolve(self._azc.zeroconf, name, EARLY_RESOLVE_TIMEOUT))
        self._early[name] = (now, task)

    @property
    def heard_of(self) -> frozenset[str]:
        """Instance names announced and not withdrawn; may include dead hosts (no goodbye)."""
        return frozenset(self._names)

    @property
    def withdrawn(self) -> frozenset[str]:
        """Instance names whose host said goodbye since this browser started."""
        return frozenset(self._withdrawn)

    def ask_for(self, instances: Collection[str]) -> None:
        """Resolve these instance names too, heard of or not: a table known by name
        and key (a printed list showed it) is asked for directly, not only browsed."""
        self._asked.update(instances)
        for name in instances:
            self._resolve_early(name)

    async def news(self, timeout: float) -> None:
        """Wait until a table is announced, updated or withdrawn, or ``timeout`` seconds."""
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await self._news.wait()
        self._news.clear()

    async def tables(self, resolve_timeout: float = 1.0, probe_timeout: float = 0.5, *,
                     known: Sequence[TableInfo] = ()) -> list[TableInfo]:
        """Resolve every table heard of (or asked for), keep those whose TCP port
        answers; sorted by name. ``known``: tables found alive moments ago, kept as
        they are (neither resolved nor probed again)."""
        azc = self._azc
        if azc is None:
            raise NotRunning("call TableBrowser.start() before tables()")
        kept = {table.instance: table for table in known}
        wanted = sorted((self._names | self._asked) - kept.keys() - self._withdrawn)
        found = await asyncio.gather(
            *(self._table(azc.zeroconf, name, resolve_timeout, probe_timeout) for name in wanted)
        )
        alive = [*(t for t in kept.values() if t.instance not in self._withdrawn),
                 *(table for table in found if table is not None)]
        return sorted(alive, key=lambda t: (t.name, t.instance))

    async def _table(self, zc: Zeroconf, name: str, resolve_timeout: float,
                     probe_timeout: float) -> TableInfo | None:
        """``name``'s table if its port answers now. Its records as resolved early,
        unless they changed since (awaited a little while they are still coming);
        else resolved now (from zeroconf's cache where the records are in it)."""
        resolved: Resolved | None = None
        early = self._early.get(name)
        if early is not None and early[0] >= self._changed.get(name, early[0]):
            task = early[1]
            if not task.done():
                with contextlib.suppress(TimeoutError):
                    resolved = await asyncio.wait_for(asyncio.shield(task), resolve_timeout)
                if resolved is None:
                    return None
            else:
                resolved = task.result()
        if resolved is None:
            resolved = await self._resolve(zc, name, resolve_timeout)
        if resolved is None:
            return None
        table, candidates = resolved
        host = await first_answering(candidates, table.port, probe_timeout)
        return None if host is None else replace(table, host=host)

    @staticmethod
    async def _resolve(zc: Zeroconf, name: str, timeout: float) -> Resolved | None:
        info = AsyncServiceInfo(SERVICE_TYPE, name)
        try:
            resolved = await info.async_request(zc, timeout * 1000, question_type=DNSQuestionType.QM)
        except Exception:
            return None
        if not resolved:
            return None
        try:  # a zone as people read it and the hints show it: %eth0, not %2
            candidates = [zone_by_name(a) for a in info.parsed_scoped_addresses(IPVersion.All)]
        except Exception:
            return None
        table = parse_table(info, host="")
        return None if table is None else (table, candidates)

    async def stop(self) -> None:
        browser, azc = self._browser, self._azc
        self._browser = self._azc = None
        early, self._early = self._early, {}
        for _, task in early.values():
            task.cancel()
        await asyncio.gather(*(task for _, task in early.values()), return_exceptions=True)
        if browser is not None:
            await browser.async_cancel()
        if azc is not None:
            await azc.async_close()

    async def __aenter__(self) -> TableBrowser:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()


#: Seconds between looks at the tables while a browse waits for an awaited one:
#: names heard meanwhile are resolved at once, the others asked for again.
LOOK_AGAIN = 1.0


@dataclass(frozen=True)
class Awaited:
    """The tables a browse keeps listening for past its window (``join NAME``):
    each of ``listed`` (name and host key, as a list printed here showed it)
    answers or says goodbye, or, when none is listed, the tables found are
    ``enough`` (the one a person named is among them). At most ``patience``
    seconds more.

    Why: an mDNS answer can come more than a second late. A responder that
    multicast a record within the last second must wait before it multicasts it
    again (RFC 6762 §6), so a browser that starts just after another one asked
    (many tables, many laptops, one LAN) hears the answer to its first question
    only about 1.1–1.4 s later; a loaded machine adds its own delay. A person who
    just saw a table listed must not be told that it does not exist."""

    listed: tuple[tuple[str, str], ...] = ()
    enough: Callable[[Sequence[TableInfo]], bool] = bool
    patience: float = 10.0

    def instances(self) -> list[str]:
        """The DNS-SD instance names of the listed tables (asked for directly)."""
        return [f"{instance_name(name, key)}.{SERVICE_TYPE}" for name, key in self.listed]

    def met(self, found: Sequence[TableInfo], withdrawn: Collection[str]) -> bool:
        """Whether what is awaited has answered (or, a listed table, said goodbye)."""
        if not self.listed:
            return self.enough(found)
        answered = {(table.name, table.fingerprint) for table in found}
        return all(pair in answered or instance in withdrawn
                   for pair, instance in zip(self.listed, self.instances(), strict=True))


async def browse_tables(timeout: float = 1.0, interfaces: list[str] | None = None,
                        awaited: Awaited | None = None) -> list[TableInfo]:
    """Listen for ``timeout`` seconds, then return the tables that are alive; with
    ``awaited``, go on listening (at most its patience) until it has answered."""
    async with TableBrowser(interfaces) as browser:
        if awaited is not None:
            browser.ask_for(awaited.instances())
        await asyncio.sleep(timeout)
        found = await browser.tables()
        if awaited is None:
            return found
        loop = asyncio.get_running_loop()
        end = loop.time() + awaited.patience
        while not awaited.met(found, browser.withdrawn) and (left := end - loop.time()) > 0:
            await browser.news(min(LOOK_AGAIN, left))
            found = await browser.tables(known=found)
        return found
