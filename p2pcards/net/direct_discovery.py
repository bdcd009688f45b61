"""Players announce their direct-link listeners on the LAN, beside the host's hints.

Why: the host's ``peers`` frame is the only other way a player learns where
the others listen, and a hostile host that never sends it keeps every pair on
its star. Here each player that listens announces its own addresses with
zeroconf, signed by its identity key (``p2pcards.protocol.announce``), and
every player browses for the others' announcements of its table: the LAN's
multicast is a path the host does not control. What arrives is untrusted: an
:class:`~p2pcards.protocol.announce.AnnouncementBook` checks each one (shape,
session, a seated key, signature, addresses, counter) and a bad or stale one
is logged with its reason and ignored, never a crash.

Records (PROTOCOL.md §12): service type ``_p2pc-direct._tcp.local.``,
instance ``<first 16 hex digits of the session id> <fingerprint> <port>``
(unique per table, key and listener; the port of the announcement's first
address), SRV port and A/AAAA records of that port and of the addresses, and
TXT ``v`` (the protocol version) and ``d0``, ``d1``, ... : the signed
announcement in lower-case hex, cut in pieces of at most ``CHUNK`` characters
(a TXT entry holds at most 255 bytes).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
from collections.abc import Callable

from zeroconf import DNSQuestionType, ServiceInfo, ServiceStateChange, Zeroconf
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from p2pcards.net.mdns import hear_own_links_only, open_mdns
from p2pcards.net.table_record import HOST_TTL, OTHER_TTL
from p2pcards.protocol.announce import (
    MAX_ANNOUNCEMENT,
    AnnouncementBook,
    AnnouncementIgnored,
    AnnouncementMalformed,
    announce_counter,
    seal_announcement,
)
from p2pcards.protocol.envelope import PROTOCOL_VERSION
from p2pcards.protocol.identity import Identity, fingerprint
from p2pcards.wiremap import WireList

log = logging.getLogger(__name__)

DIRECT_SERVICE_TYPE = "_p2pc-direct._tcp.local."
#: Hex characters per TXT piece (``dN=`` plus this stays within 255 bytes).
CHUNK = 240
#: The most pieces an announcement may take (``MAX_ANNOUNCEMENT`` bytes in hex).
MAX_CHUNKS = -(-2 * MAX_ANNOUNCEMENT // CHUNK)
#: Seconds one resolve of a heard-of announcement may take, and how often to try.
RESOLVE_TIMEOUT = 1.0
RESOLVE_TRIES = 3
#: Resolves at once (a flood of records costs queued work, never the loop).
MAX_RESOLVING = 8

Found = Callable[[int, list[WireList]], None]


def announcement_properties(raw: bytes) -> dict[bytes, bytes]:
    """The TXT record that carries a signed announcement."""
    text = raw.hex()
    properties = {b"v": str(PROTOCOL_VERSION).encode()}
    for number in range(0, len(text), CHUNK):
        properties[f"d{number // CHUNK}".encode()] = text[number:number + CHUNK].encode()
    return properties


def announcement_from(properties: object) -> bytes:
    """The signed announcement a TXT record carries; raises
    :class:`AnnouncementMalformed` for a record that is not one (pieces missing,
    not hex, too long, another version)."""
    if not isinstance(properties, dict):
        raise AnnouncementMalformed("its TXT record is unreadable")
    if properties.get(b"v") != str(PROTOCOL_VERSION).encode():
        raise AnnouncementMalformed(f"its TXT record is not of protocol version {PROTOCOL_VERSION}")
    pieces = []
    for number in range(MAX_CHUNKS + 1):
        piece = properties.get(f"d{number}".encode())
        if piece is None:
            break
        if not isinstance(piece, (bytes, bytearray)) or number == MAX_CHUNKS:
            raise AnnouncementMalformed("its TXT record has a bad or extra piece")
        pieces.append(bytes(piece))
    try:
        return bytes.fromhex(b"".join(pieces).decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        raise AnnouncementMalformed("its TXT record is not hex") from None


def announcement_instance(session: bytes, fingerprint: str, port: int) -> str:
    """The DNS-SD instance name of one player's listener at one table."""
    return f"{session.hex()[:16]} {fingerprint} {port}.{DIRECT_SERVICE_TYPE}"


def _plain(host: str) -> str:
    return str(ipaddress.ip_address(host.split("%", 1)[0]))


class DirectAnnouncer:
    """Announces this player's listener for one table (``announce``) and browses
    for the other players' (``browse``); each checked announcement goes to
    ``on_found(player, addrs)``.

    ``interfaces`` (addresses, as zeroconf takes them) is where mDNS runs
    (None: every interface)."""

    def __init__(self, identity: Identity, session: bytes, keys: list[bytes], me: int,
                 on_found: Found, *, interfaces: list[str] | None = None) -> None:
        self.identity = identity
        self.session = session
        self.book = AnnouncementBook(session, keys, me)
        self.on_found = on_found
        self.interfaces = interfaces
        self.ignored: list[AnnouncementIgnored] = []
        """What was heard and not dialled (each with its reason), for the curious."""
        self.info: ServiceInfo | None = None
        self._azc: AsyncZeroconf | None = None
        self._browser: AsyncServiceBrowser | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._lock = asyncio.Lock()
        self._closed = False
        self._counter = 0
        #: The instance names' middle part that may be worth resolving: the others' fingerprints.
        self._wanted = {fingerprint(key) for number, key in enumerate(keys) if number != me}
        self._resolving: set[str] = set()
        self._slots = asyncio.Semaphore(MAX_RESOLVING)

    async def start(self, addrs: list[WireList]) -> None:
        """Browse (once), and announce ``addrs`` if there are any (once). Idempotent."""
        async with self._lock:
            if self._closed:
                return
            if self._azc is None:
                self._azc = self._open()
                await hear_own_links_only(self._azc, self.interfaces)
                self._browser = AsyncServiceBrowser(
                    self._azc.zeroconf, [DIRECT_SERVICE_TYPE], handlers=[self._on_change],
                    question_type=DNSQuestionType.QM)
            if addrs and self.info is None:
                self._counter = announce_counter(self._counter)
                signed = seal_announcement(self.identity, session=self.session, addrs=addrs,
                                           counter=self._counter)
                port = int(signed.addrs[0][1])  # the first address's: the SRV's and the name's
                self.info = ServiceInfo(
                    DIRECT_SERVICE_TYPE,
                    announcement_instance(self.session, self.identity.fingerprint, port),
                    port=port,
                    properties=announcement_properties(signed.raw),
                    server=f"p2pc-{self.identity.fingerprint.replace('-', '')}-{port}.local.",
                    host_ttl=HOST_TTL, other_ttl=OTHER_TTL,
                    parsed_addresses=list(dict.fromkeys(_plain(ip) for ip, _ in signed.addrs)))
                # The instance name holds the key's fingerprint and the port: no
                # other responder can rightly claim it.
                await (await self._azc.async_register_service(self.info, cooperating_responders=True))

    def _open(self) -> AsyncZeroconf:
        """mDNS on the interfaces; IPv4 alone where IPv6 mDNS cannot start here."""
        try:
            return open_mdns(self.interfaces)
        except OSError as error:
            v4 = [i for i in self.interfaces or [] if ipaddress.ip_address(i.split("%", 1)[0]).version == 4]
            if not v4 or v4 == self.interfaces:
                raise
            log.info("no IPv6 mDNS here (%s): announcing direct links over IPv4 only", error)
            return open_mdns(v4)

    def _on_change(self, zeroconf: Zeroconf, service_type: str, name: str,
                   state_change: ServiceStateChange) -> None:
        if state_change is ServiceStateChange.Removed or self._closed:
            return
        parts = name.removesuffix("." + DIRECT_SERVICE_TYPE).split(" ")
        if len(parts) != 3 or parts[0] != self.session.hex()[:16] or parts[1] not in self._wanted:
            return  # another table's, this player's own, or nobody's at this table
        if name in self._resolving:
            return
        self._resolving.add(name)
        task = asyncio.get_running_loop().create_task(self._resolve(name))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _resolve(self, name: str) -> None:
        try:
            async with self._slots:
                for _ in range(RESOLVE_TRIES):
                    azc = self._azc
                    if azc is None:
                        return
                    info = AsyncServiceInfo(DIRECT_SERVICE_TYPE, name)
                    try:
                        resolved = await info.async_request(azc.zeroconf, RESOLVE_TIMEOUT * 1000,
                                                            question_type=DNSQuestionType.QM)
                    except Exception as error:  # a malformed record must not escape
                        log.debug("cannot resolve %r: %s", name, error)
                        return
                    if resolved:
                        self.heard(info.properties)
                        return
        finally:
            self._resolving.discard(name)  # a later change to its records is looked at again

    def heard(self, properties: object) -> None:
        """Check one announcement's TXT record and pass its addresses on, or log
        why it is ignored."""
        try:
            found = self.book.check(announcement_from(properties))
        except AnnouncementIgnored as ignored:
            self.ignored.append(ignored)
            log.info("ignored a direct-link announcement: %s", ignored)
            return
        if found is not None and not self._closed:
            log.info("player %d announces direct links at %s", found.player, found.addrs)
            self.on_found(found.player, found.addrs)

    async def stop(self) -> None:
        """Withdraw the announcement (goodbye) and stop browsing."""
        self._closed = True
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(list(self._tasks), timeout=2)
        async with self._lock:
            azc, browser, info = self._azc, self._browser, self.info
            self._azc = self._browser = None
            if browser is not None:
                with contextlib.suppress(Exception):
                    await browser.async_cancel()
            if azc is not None:
                if info is not None:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(await azc.async_unregister_service(info), 2)
                await azc.async_close()


__all__ = [
    "DIRECT_SERVICE_TYPE",
    "DirectAnnouncer",
    "announcement_from",
    "announcement_instance",
    "announcement_properties",
]
