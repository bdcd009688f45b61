"""Finding tables on the LAN with mDNS/DNS-SD (python-zeroconf, asyncio API).

A host advertises ``_p2pcards._tcp.local.`` with TXT fields ``game``,
``name``, ``free``, ``v``, ``fp``, ``pk``, ``port``, ``hn`` (the hosting
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
import re
from collections.abc import Awaitable, Callable, Mapping
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
from p2pcards.protocol.identity import fingerprint as identity_fingerprint
from p2pcards.untrusted_text import shown

log = logging.getLogger(__name__)

__all__ = [
    "SERVICE_TYPE",
    "TableAdvertiser",
    "TableBrowser",
    "TableInfo",
    "browse_tables",
    "open_mdns",
    "parse_table",
]

SERVICE_TYPE = "_p2pcards._tcp.local."
HOST_TTL = 30
"""Seconds others may cache our address records (zeroconf's default is 120)."""
OTHER_TTL = 60
"""Seconds others may cache our PTR/SRV/TXT records (zeroconf's default is 4500)."""
MAX_NAME_CHARS = 48
MAX_SEATS = 64
_INSTANCE_LABEL_BYTES = 63
_TXT_ENTRY_BYTES = 255
#: The most spectators a record may claim (more is read as a bad field).
MAX_SPECTATORS_SHOWN = 1000
#: The longest table clock a record may claim (``protocol.table_settings.MAX_MOVE_TIME``).
MAX_CLOCK_SHOWN = 3600
_GAME_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
_FINGERPRINT_PATTERN = re.compile(r"[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}")
_PUBLIC_KEY_PATTERN = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class TableInfo:
    """A live table as a browser sees it."""

    name: str
    game: str
    host: str
    port: int
    free_seats: int
    version: int
    fingerprint: str
    instance: str
    """The DNS-SD service name (unique per table name and host key)."""
    public_key: bytes | None = None
    """The host's identity key (a parsed record always has it: pin the link to it)."""
    host_name: str = ""
    """The hosting player's display name, cleaned (may be empty)."""
    spectators: int = 0
    """How many spectators the host admits (``p2pcards watch``); 0: none."""
    clock: int | None = None
    """The table clock, seconds per move: 0 is no clock (anyone can stall the
    table for ever), None that the record does not say (or says it badly)."""
    hints: bool = False
    """Whether the host allowed the coach's hints (genesis ``hints``; absent: no)."""
    between: bool = False
    """Between matches: ``free_seats`` are seats freed at the end box (TXT ``end``)."""


# --- names and TXT records -------------------------------------------------------------


def clean_text(value: str, limit: int = MAX_NAME_CHARS) -> str:
    """A TXT value as people may see it (no terminal escapes from the network)."""
    return shown(value, limit)


def _truncate_utf8(text: str, limit: int) -> str:
    return text.encode("utf-8")[:limit].decode("utf-8", errors="ignore")


def instance_name(table_name: str, fingerprint: str) -> str:
    """``<table name> [<fingerprint>]``, within one 63-byte DNS label, without dots."""
    suffix = f" [{fingerprint}]"
    base = clean_text(table_name).replace(".", "_") or "table"
    return _truncate_utf8(base, _INSTANCE_LABEL_BYTES - len(suffix.encode())) + suffix


def table_properties(
    *, table_name: str, game: str, free_seats: int, version: int, fingerprint: str, port: int,
    public_key: bytes | None = None, host_name: str = "", spectators: int = 0,
    clock: int | None = None, hints: bool = False, between: bool = False,
) -> dict[bytes, bytes]:
    """The TXT record of a table, each entry within DNS-SD's 255 bytes."""
    fields = {
        "game": game,
        "name": clean_text(table_name),
        "free": str(free_seats),
        "v": str(version),
        "fp": fingerprint,
        "port": str(port),
    }
    if public_key is not None:
        fields["pk"] = public_key.hex()
    if clean_text(host_name):
        fields["hn"] = clean_text(host_name)
    if spectators:
        fields["watch"] = str(spectators)
    if clock is not None:  # 0 too: a table without a clock says so
        fields["clock"] = str(clock)
    if hints:
        fields["hints"] = "1"
    if between:
        fields["end"] = "1"
    properties: dict[bytes, bytes] = {}
    for key, value in fields.items():
        room = _TXT_ENTRY_BYTES - len(key) - 1
        properties[key.encode()] = _truncate_utf8(value, room).encode("utf-8")
    return properties


def _text_field(properties: Mapping[bytes, object], key: bytes) -> str | None:
    value = properties.get(key)
    if not isinstance(value, (bytes, bytearray)):
        return None
    try:
        return bytes(value).decode("utf-8")
    except UnicodeDecodeError:
        return None


def _int_field(properties: Mapping[bytes, object], key: bytes, low: int, high: int) -> int | None:
    text = _text_field(properties, key)
    if text is None or not text.isascii() or not text.isdigit() or len(text) > 6:
        return None
    value = int(text)
    return value if low <= value <= high else None


def parse_table(info: ServiceInfo, host: str) -> TableInfo | None:
    """The table a resolved service describes, or None if any required field is bad."""
    try:
        properties = info.properties
        srv_port = info.port
        name = info.name
    except Exception:  # a malformed TXT record must not escape
        return None
    if not isinstance(properties, dict) or not isinstance(srv_port, int):
        return None
    game = _text_field(properties, b"game")
    fp = _text_field(properties, b"fp")
    free = _int_field(properties, b"free", 0, MAX_SEATS)
    version = _int_field(properties, b"v", 0, 65535)
    txt_port = _int_field(properties, b"port", 1, 65535)
    if game is None or not _GAME_PATTERN.fullmatch(game):
        return None
    if fp is None or not _FINGERPRINT_PATTERN.fullmatch(fp):
        return None
    if free is None or version is None or not 1 <= srv_port <= 65535:
        return None
    if txt_port is not None and txt_port != srv_port:
        return None
    pk_text = _text_field(properties, b"pk")
    # Without the whole key a joiner could pin only the 48-bit fingerprint: refused.
    if pk_text is None or not _PUBLIC_KEY_PATTERN.fullmatch(pk_text):
        return None
    public_key = bytes.fromhex(pk_text)
    if identity_fingerprint(public_key) != fp:
        return None
    shown = clean_text(_text_field(properties, b"name") or "") or clean_text(name.removesuffix("." + SERVICE_TYPE))
    return TableInfo(
        name=shown,
        game=game,
        host=host,
        port=srv_port,
        free_seats=free,
        version=version,
        fingerprint=fp,
        instance=name,
        public_key=public_key,
        host_name=clean_text(_text_field(properties, b"hn") or ""),
        spectators=_int_field(properties, b"watch", 0, MAX_SPECTATORS_SHOWN) or 0,
        # Advisory, like ``watch``: the genesis the joiner checks is what binds.
        clock=_int_field(properties, b"clock", 0, MAX_CLOCK_SHOWN),
        hints=_int_field(properties, b"hints", 0, 1) == 1,
        between=_int_field(properties, b"end", 0, 1) == 1,
    )


# --- advertising --------------------------------------------------------------------------


def _checked_free_seats(free_seats: int) -> int:
    if not 0 <= free_seats <= MAX_SEATS:
        raise ValueError(f"free_seats must be between 0 and {MAX_SEATS}")
    return free_seats


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
        if not _GAME_PATTERN.fullmatch(game):
            raise ValueError("game must be 1-32 characters of a-z, 0-9, '_' or '-'")
        if not _FINGERPRINT_PATTERN.fullmatch(fingerprint):
            raise ValueError("fingerprint must look like 'ab12-cd34-ef56'")
        if identity_fingerprint(public_key) != fingerprint:
            raise ValueError("the public key does not have that fingerprint")
        self.public_key = public_key
        self.host_name = host_name
        self.spectators = spectators
        self.clock = clock
        self.hints = hints
        self.between = False
        self.free_seats = _checked_free_seats(free_seats)
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
            self.free_seats = _checked_free_seats(free_seats)
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


class TableBrowser:
    """Keeps listening for tables; ``tables()`` lists the ones alive right now."""

    def __init__(self, interfaces: list[str] | None = None) -> None:
        self._interfaces = interfaces
        self._azc: AsyncZeroconf | None = None
        self._browser: AsyncServiceBrowser | None = None
        self._names: set[str] = set()

    async def start(self) -> None:
        if self._azc is not None:
            return
        self._azc = open_mdns(self._interfaces)
        await hear_own_links_only(self._azc, self._interfaces)
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
        else:
            self._names.add(name)

    @property
    def heard_of(self) -> frozenset[str]:
        """Instance names announced and not withdrawn; may include dead hosts (no goodbye)."""
        return frozenset(self._names)

    async def tables(self, resolve_timeout: float = 1.0, probe_timeout: float = 0.5) -> list[TableInfo]:
        """Resolve every table heard of, keep those whose TCP port answers; sorted by name."""
        azc = self._azc
        if azc is None:
            raise NotRunning("call TableBrowser.start() before tables()")
        found = await asyncio.gather(
            *(self._resolve(azc.zeroconf, name, resolve_timeout, probe_timeout) for name in sorted(self._names))
        )
        return sorted((table for table in found if table is not None), key=lambda t: (t.name, t.instance))

    @staticmethod
    async def _resolve(zc: Zeroconf, name: str, resolve_timeout: float, probe_timeout: float) -> TableInfo | None:
        info = AsyncServiceInfo(SERVICE_TYPE, name)
        try:
            resolved = await info.async_request(zc, resolve_timeout * 1000, question_type=DNSQuestionType.QM)
        except Exception:
            return None
        if not resolved:
            return None
        try:  # a zone as people read it and the hints show it: %eth0, not %2
            candidates = [zone_by_name(a) for a in info.parsed_scoped_addresses(IPVersion.All)]
        except Exception:
            return None
        table = parse_table(info, host="")
        if table is None:
            return None
        host = await first_answering(candidates, table.port, probe_timeout)
        return None if host is None else replace(table, host=host)

    async def stop(self) -> None:
        browser, azc = self._browser, self._azc
        self._browser = self._azc = None
        if browser is not None:
            await browser.async_cancel()
        if azc is not None:
            await azc.async_close()

    async def __aenter__(self) -> TableBrowser:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()


async def browse_tables(timeout: float = 1.0, interfaces: list[str] | None = None) -> list[TableInfo]:
    """Listen for ``timeout`` seconds, then return the tables that are alive."""
    async with TableBrowser(interfaces) as browser:
        await asyncio.sleep(timeout)
        return await browser.tables()
