"""This machine's addresses, and which of them to announce, show and dial.

Why a module of its own: a table is reachable only where its socket listens
and its announcement says so, and people's networks differ (IPv4 only,
dual-stack, IPv6 only, link-local only, a laptop on Wi-Fi and Ethernet with
Docker and VPN adapters beside). The rules here are plain functions of the
adapters (``ifaddr``'s view of the machine), so they are tested without one:

- each interface announces only its own addresses (RFC 6762 §6.2), of the
  families the socket serves; loopback only when nothing else exists or the
  table is bound to loopback (IPv6 mDNS on loopback does not work);
- a joiner tries the addresses on its own subnets first, IPv6 and IPv4
  interleaved (RFC 8305 §4), and races them with staggered starts (§5)
  instead of waiting for each in turn;
- the hint shown to friends never offers loopback, or a link-local address
  whose zone only means something on the host, when a LAN address exists;
- a player's direct links listen on every address of its link to the host,
  and dial only the LAN's addresses among those the host hands out (never a
  name, never a host of its choosing on the internet).
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
import sys
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

__all__ = [
    "STAGGER",
    "AnnouncedLink",
    "LocalAddress",
    "announcement_links",
    "browse_interfaces",
    "dialable",
    "friend_addresses",
    "in_own_zone",
    "local_addresses",
    "mdns_interfaces",
    "order_candidates",
    "race",
    "same_link",
    "served_families",
    "to_dial",
    "zone_by_name",
]

#: Seconds between the starts of two connection attempts (RFC 8305 recommends 250 ms).
STAGGER = 0.25

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
T = TypeVar("T")


@dataclass(frozen=True)
class LocalAddress:
    """One address of one of this machine's interfaces."""

    interface: str
    address: str
    """As ``connect`` takes it: a link-local IPv6 address carries its zone (``fe80::1%eth0``)."""
    prefix: int

    @property
    def ip(self) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
        return ipaddress.ip_address(self.address.split("%", 1)[0])

    @property
    def network(self) -> IPNetwork:
        return ipaddress.ip_network(f"{self.ip}/{self.prefix}", strict=False)

    @property
    def version(self) -> int:
        return self.ip.version

    @property
    def loopback(self) -> bool:
        return self.ip.is_loopback

    @property
    def link_local(self) -> bool:
        return self.ip.is_link_local


@dataclass(frozen=True)
class AnnouncedLink:
    """What one interface announces: its own addresses (without zones: a zone
    names the sender's interface, the receiver adds its own)."""

    interface: str
    addresses: tuple[str, ...]

    @property
    def zeroconf_interfaces(self) -> list[str]:
        """Where mDNS runs for this link: each IPv4 address, and one IPv6
        address standing for the interface (zeroconf joins IPv6 groups by index)."""
        v4 = [a for a in self.addresses if ipaddress.ip_address(a).version == 4]
        v6 = sorted((a for a in self.addresses if ipaddress.ip_address(a).version == 6),
                    key=lambda a: ipaddress.ip_address(a).is_link_local)  # a routable one binds surely
        return v4 + v6[:1]


class ListedIP(Protocol):
    """One address of an adapter, as ``ifaddr`` lists it: a string (IPv4) or an
    ``(address, flowinfo, scope)`` tuple (IPv6)."""

    @property
    def ip(self) -> str | tuple[str, int, int]: ...
    @property
    def network_prefix(self) -> int: ...


class ListedAdapter(Protocol):
    """One interface as ``ifaddr`` lists it (or a test's stand-in for one)."""

    @property
    def name(self) -> str: ...
    @property
    def nice_name(self) -> str: ...
    @property
    def index(self) -> int | None: ...
    @property
    def ips(self) -> Sequence[ListedIP]: ...


def _zone(adapter: ListedAdapter) -> str:
    # Windows names a zone by the interface index; POSIX systems by the interface name.
    return str(adapter.index) if sys.platform.startswith("win") else str(adapter.name)


def zone_by_name(address: str) -> str:
    """A link-local address whose zone is an interface index (``fe80::1%2``, as
    zeroconf gives it) with its zone as the hints show it: the interface's name on
    Linux and macOS (``fe80::1%eth0``), the index on Windows (see ``_zone``)."""
    ip, sep, zone = address.partition("%")
    if not sep or not zone.isdigit() or sys.platform.startswith("win"):
        return address
    try:
        return f"{ip}%{socket.if_indextoname(int(zone))}"
    except (OSError, ValueError, OverflowError):
        return address


def local_addresses(adapters: Iterable[ListedAdapter] | None = None) -> list[LocalAddress]:
    """Every address of this machine (or of ``adapters``, as ``ifaddr`` lists them)."""
    found: list[LocalAddress] = []
    if adapters is None:
        import ifaddr  # a dependency of zeroconf, and of ctypes: loaded only by what lists adapters

        adapters = ifaddr.get_adapters()
    for adapter in adapters:
        for ip in adapter.ips:
            raw = ip.ip[0] if isinstance(ip.ip, tuple) else ip.ip
            try:
                address = ipaddress.ip_address(str(raw).split("%", 1)[0])
            except ValueError:
                continue
            text = str(address)
            if address.version == 6 and address.is_link_local:
                text = f"{text}%{_zone(adapter)}"
            found.append(LocalAddress(str(adapter.nice_name or adapter.name), text, int(ip.network_prefix)))
    return found


def served_families(bind: str | None) -> set[int]:
    """The IP versions a socket bound to ``bind`` serves ("::" and "" both: one
    dual-stack socket, see ``sockets.listening_socket``)."""
    if bind is None or bind in ("", "::"):
        return {4, 6}
    if bind == "0.0.0.0":
        return {4}
    try:
        return {ipaddress.ip_address(bind.split("%", 1)[0]).version}
    except ValueError:
        return {4, 6}  # a name: whatever it resolves to


def _same_ip(a: str, b: str) -> bool:
    try:
        return ipaddress.ip_address(a.split("%", 1)[0]) == ipaddress.ip_address(b.split("%", 1)[0])
    except ValueError:
        return False


def announcement_links(
    addresses: Sequence[LocalAddress],
    *,
    bind: str | None = None,
    interfaces: Sequence[str] | None = None,
) -> list[AnnouncedLink]:
    """What each interface announces for a table listening on ``bind``.

    ``bind`` a single address: that address, on its own interface only.
    ``interfaces`` (addresses or interface names, ``--interface``): only the
    interfaces they name. Otherwise every interface with an address of a
    served family, loopback excluded unless it is all there is."""
    families = served_families(bind)
    if bind is not None and bind not in ("", "::", "0.0.0.0"):
        owners = {a.interface for a in addresses if _same_ip(a.address, bind)}
        if not owners:
            return [AnnouncedLink("", (bind.split("%", 1)[0],))]
        chosen = [a for a in addresses if a.interface in owners and _same_ip(a.address, bind)]
    else:
        chosen = [a for a in addresses if a.version in families]
        if interfaces:
            named = {a.interface for a in addresses
                     if a.interface in interfaces or any(_same_ip(a.address, i) for i in interfaces)}
            chosen = [a for a in chosen if a.interface in named]
        elif any(not a.loopback for a in chosen):
            chosen = [a for a in chosen if not a.loopback]
    links: dict[str, list[str]] = {}
    for a in chosen:
        if a.loopback and a.version == 6 and any(b.loopback and b.version == 4 for b in chosen):
            continue  # IPv6 mDNS on loopback fails; 127.0.0.1 stands for it
        links.setdefault(a.interface, [])
        plain = str(a.ip)
        if plain not in links[a.interface]:
            links[a.interface].append(plain)
    return [AnnouncedLink(name, tuple(addrs)) for name, addrs in links.items() if addrs]


def mdns_interfaces(wanted: Sequence[str], mine: Sequence[LocalAddress]) -> list[str]:
    """``--interface`` values as zeroconf takes them: an address stays as it is;
    an interface name becomes its IPv4 addresses and one IPv6 address."""
    found: list[str] = []
    for item in wanted:
        try:
            ipaddress.ip_address(item.split("%", 1)[0])
        except ValueError:
            own = [a for a in mine if a.interface == item]
            found += [str(a.ip) for a in own if a.version == 4] + [str(a.ip) for a in own if a.version == 6][:1]
        else:
            found.append(item.split("%", 1)[0])
    return list(dict.fromkeys(found))


def browse_interfaces(mine: Sequence[LocalAddress]) -> list[str]:
    """Where to browse by default: every IPv4 address (loopback too: a table on
    this machine), and one IPv6 address of each other interface (IPv6 mDNS on
    loopback fails, and zeroconf logs a traceback for it at every send)."""
    v4 = [str(a.ip) for a in mine if a.version == 4]
    v6: dict[str, str] = {}
    for a in mine:
        if a.version == 6 and not a.loopback:
            v6.setdefault(a.interface, str(a.ip))
    return list(dict.fromkeys([*v4, *v6.values()]))


def _rank(candidate: str, mine: Sequence[LocalAddress]) -> int:
    """0: on one of our subnets; 1: link-local (on our link by its zone);
    2: another private range; 3: loopback; 4: anything else."""
    try:
        ip = ipaddress.ip_address(candidate.split("%", 1)[0])
    except ValueError:
        return 4
    if ip.is_link_local:
        return 1
    if ip.is_loopback:
        return 3
    if any(not m.loopback and not m.link_local and m.version == ip.version and ip in m.network for m in mine):
        return 0
    return 2 if ip.is_private else 4


def _scoped(candidate: str, mine: Sequence[LocalAddress]) -> list[str]:
    """A link-local address heard without a zone cannot be dialled: try it
    through each of our interfaces that has a link-local address."""
    if "%" in candidate:
        return [candidate]
    try:
        ip = ipaddress.ip_address(candidate)
    except ValueError:
        return [candidate]
    if ip.version != 6 or not ip.is_link_local:
        return [candidate]
    zones = dict.fromkeys(m.address.split("%", 1)[1] for m in mine if m.link_local and "%" in m.address)
    return [f"{candidate}%{zone}" for zone in zones] or [candidate]


def order_candidates(candidates: Sequence[str], mine: Sequence[LocalAddress]) -> list[str]:
    """The order to try a host's addresses in: our own subnets first, then
    link-local, other private ranges, loopback; within each, IPv6 and IPv4
    alternate (IPv6 first, RFC 8305 §4). Duplicates are dropped."""
    unique = list(dict.fromkeys(s for c in candidates for s in _scoped(c, mine)))
    ordered: list[str] = []
    for rank in range(5):
        group = [c for c in unique if _rank(c, mine) == rank]
        v6 = [c for c in group if ":" in c]
        v4 = [c for c in group if ":" not in c]
        for i in range(max(len(v6), len(v4))):
            ordered.extend(x[i] for x in (v6, v4) if i < len(x))
    return ordered


def friend_addresses(bind: str, mine: Sequence[LocalAddress], limit: int = 3) -> list[str]:
    """Addresses to print for ``--connect``: the bound one, or for a wildcard
    the LAN addresses of the served families (IPv4 first, people type them;
    container and VPN adapters last); link-local and loopback only when
    nothing else can be offered."""
    if bind not in ("", "::", "0.0.0.0"):
        return [bind]
    families = served_families(bind)
    usable = [a for a in mine if a.version in families]
    routable = [a for a in usable if not a.loopback and not a.link_local]
    pool = routable or [a for a in usable if not a.loopback] or usable
    pool = sorted(pool, key=lambda a: (_virtual(a.interface), a.version))
    return list(dict.fromkeys(a.address for a in pool))[:limit] or ["127.0.0.1"]


#: Interface names that are usually containers, VMs or VPNs rather than the LAN.
_VIRTUAL_PREFIXES = ("docker", "br-", "veth", "virbr", "vmnet", "vboxnet", "vethernet", "tun", "tap",
                     "wg", "utun", "zt", "tailscale", "lxc", "lxd", "cni", "flannel", "podman")


def _virtual(interface: str) -> bool:
    """Whether an interface looks like a container, VM or VPN adapter (shown last)."""
    return interface.lower().startswith(_VIRTUAL_PREFIXES)


# -- a player's direct links ----------------------------------------------------------

def same_link(host: str, mine: list[LocalAddress]) -> list[str]:
    """The other addresses of the interface that holds ``host`` (none for loopback
    or an address not found): routable IPv6, then IPv4, then link-local."""
    try:
        wanted = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return []
    if wanted.is_loopback or wanted.is_unspecified:
        return []
    owners = {a.interface for a in mine if a.ip == wanted}
    others = [a for a in mine if a.interface in owners and a.ip != wanted and not a.loopback]
    others.sort(key=lambda a: (a.link_local, a.version == 4))
    return [a.address for a in others]


def in_own_zone(host: str, own: str | None) -> str:
    """A link-local IPv6 address names its zone by the *announcer's* interface
    (``fe80::1%eth0``); this player reaches it through its own interface, the one
    its own listening address names."""
    if "%" not in host:
        return host
    address = host.split("%", 1)[0]
    if own is not None and "%" in own:
        return f"{address}%{own.split('%', 1)[1]}"
    return host


def dialable(host: str, own: str | None = None) -> bool:
    """Whether to dial an address the host handed out. Only IP literals (never a
    name), and only where a LAN table's players can be: private, loopback and
    link-local ranges, or this player's own /24 (IPv4) or /64 (IPv6). So a host
    cannot use the players to dial hosts of its choosing on the internet."""
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    if address.is_multicast or address.is_unspecified:
        return False
    if address.is_private or address.is_loopback or address.is_link_local:
        return True
    if own is None:
        return False
    try:
        mine = ipaddress.ip_address(own.split("%", 1)[0])
    except ValueError:
        return False
    if mine.version != address.version:
        return False
    prefix = 24 if mine.version == 4 else 64
    return address in ipaddress.ip_network(f"{mine}/{prefix}", strict=False)


def to_dial(candidates: Sequence[Sequence[object]], own: Sequence[Sequence[object]]) -> list[list[object]]:
    """Which of another player's ``[host, port]`` pairs this player dials (``own``: its
    listening pairs): those :func:`dialable` from one of its own addresses, in the
    order given (its signed ones first, then the host's hints), each once, a
    link-local one through this player's own interface."""
    owns: list[str | None] = [str(a[0]) for a in own] or [None]
    zoned = next((mine for mine in owns if mine is not None and "%" in mine), owns[0])
    usable: list[list[object]] = []
    for pair in candidates:
        host = str(pair[0])
        if any(dialable(host, mine) for mine in owns):
            here = [in_own_zone(host, zoned), pair[1]]
            if here not in usable:
                usable.append(here)
    return usable


async def race(
    attempts: Sequence[Callable[[], Awaitable[T | None]]],
    *,
    stagger: float = STAGGER,
    discard: Callable[[T], Awaitable[None] | None] | None = None,
) -> tuple[int, T] | None:
    """Happy Eyeballs (RFC 8305 §5): start ``attempts`` in order, the next one
    ``stagger`` seconds after the last or as soon as it fails; the first that
    returns a value (not None, no exception) wins and the others are cancelled.
    Returns ``(index, value)``, or None if every attempt failed. A value that
    arrives after the winner (in the same turn) is handed to ``discard``.

    Ours, not asyncio's: ``happy_eyeballs_delay`` takes one host name and orders
    what it resolves to by family alone (a table's addresses are a list heard
    from its announcement, ranked by :func:`order_candidates`), and the racer
    behind it (``asyncio.staggered``) is undocumented and, on Python 3.11, drops
    a connection that succeeds in the same turn as the winner, where this one
    hands it to ``discard`` to be closed."""
    pending: dict[asyncio.Future[T | None], int] = {}
    winner: tuple[int, T] | None = None
    started = 0
    try:
        while winner is None and (started < len(attempts) or pending):
            if started < len(attempts):
                pending[asyncio.ensure_future(attempts[started]())] = started
                started += 1
            wait = stagger if started < len(attempts) else None
            done, _ = await asyncio.wait(pending, timeout=wait, return_when=asyncio.FIRST_COMPLETED)
            for task in sorted(done, key=pending.__getitem__):
                index = pending.pop(task)
                value = None if task.cancelled() or task.exception() is not None else task.result()
                if value is None:
                    continue
                if winner is None:
                    winner = (index, value)
                elif discard is not None:
                    result = discard(value)
                    if result is not None:
                        await result
    finally:
        for task in pending:
            task.cancel()
        if pending:
            finished = await asyncio.gather(*pending, return_exceptions=True)
            for late in finished:
                if discard is not None and late is not None and not isinstance(late, BaseException):
                    with contextlib.suppress(Exception):
                        outcome = discard(late)
                        if outcome is not None:
                            await outcome
    return winner
