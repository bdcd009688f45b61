"""Opening mDNS (python-zeroconf) on chosen interfaces, hearing only those links.

Why a module of its own: where mDNS runs decides what a table tells whom.
A host on two LANs runs one responder per interface, each announcing only
that link's addresses (RFC 6762 §6.2, ``discovery.TableAdvertiser``). But on
Linux a socket bound to the wildcard address receives a multicast packet
that arrives on any interface: IPv4 for any group some socket of the machine
joined there (``IP_MULTICAST_ALL``, on by default), IPv6 for any group the
socket itself joined on any interface. So the responder of LAN B hears a
question asked on LAN A too, and answers a unicast one (a legacy query, or a
QU question) straight back to the asker, with LAN B's addresses.
:func:`hear_own_links_only` ties an instance that runs on one interface to
that interface (``SO_BINDTODEVICE`` on its wildcard sockets), and keeps one
on several to the IPv4 groups it joined (``IP_MULTICAST_ALL`` off). macOS and
Windows deliver a group only to the sockets that joined it on the receiving
interface already.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
import sys

from zeroconf import IPVersion
from zeroconf.asyncio import AsyncZeroconf

from p2pcards.net.addresses import browse_interfaces, local_addresses, mdns_interfaces
from p2pcards.net.errors import UnknownInterface

log = logging.getLogger(__name__)

__all__ = ["hear_own_links_only", "open_mdns"]

#: Linux's option number (``<linux/in.h>``), which Python's socket module does not name.
IP_MULTICAST_ALL = 49


def _ip_version(interfaces: list[str]) -> IPVersion:
    versions = {ipaddress.ip_address(i.split("%", 1)[0]).version for i in interfaces}
    if versions == {4}:
        return IPVersion.V4Only
    return IPVersion.V6Only if versions == {6} else IPVersion.All


def open_mdns(interfaces: list[str] | None) -> AsyncZeroconf:
    """mDNS on ``interfaces`` (addresses or interface names), or on every
    interface in both families (``addresses.browse_interfaces``; IPv4 alone
    where this machine has no IPv6). Await :func:`hear_own_links_only` on it
    before it answers anyone."""
    if interfaces is not None:
        chosen = mdns_interfaces(interfaces, local_addresses())
        if not chosen:
            raise UnknownInterface(list(interfaces))
        return AsyncZeroconf(interfaces=chosen, ip_version=_ip_version(chosen))
    chosen = browse_interfaces(local_addresses())
    if not chosen:
        return AsyncZeroconf(ip_version=IPVersion.V4Only)
    try:
        return AsyncZeroconf(interfaces=chosen, ip_version=_ip_version(chosen))
    except OSError as error:
        log.info("no IPv6 mDNS here (%s): browsing IPv4 only", error)
        return AsyncZeroconf(ip_version=IPVersion.V4Only)


def _one_interface(interfaces: list[str] | None) -> str | None:
    """The one interface ``interfaces`` (addresses or names) are all on, or None."""
    if not interfaces:
        return None
    names: set[str] = set()
    for item in interfaces:
        owners = {a.interface for a in local_addresses()
                  if a.interface == item or a.address.split("%", 1)[0] == item.split("%", 1)[0]}
        if len(owners) != 1:
            return None
        names |= owners
    return names.pop() if len(names) == 1 else None


def _keep_to(sock: socket.socket, interface: str | None) -> None:
    """Let ``sock`` hear only ``interface`` (or, for None, only the IPv4 groups it joined)."""
    if interface is not None:
        setting: tuple[int, int, int | bytes] = (socket.SOL_SOCKET, socket.SO_BINDTODEVICE, interface.encode())
    else:
        setting = (socket.IPPROTO_IP, IP_MULTICAST_ALL, 0)
    try:
        sock.setsockopt(*setting)
    except OSError as error:  # no privilege (Linux before 5.7), an older kernel: it hears every link
        log.debug("cannot keep mDNS socket %s to its own link: %s", sock, error)


async def hear_own_links_only(azc: AsyncZeroconf, interfaces: list[str] | None) -> AsyncZeroconf:
    """Once ``azc`` (opened on ``interfaces``) has its sockets, keep each wildcard
    one (the listener of every joined group) to its own links; ``azc`` itself.
    Does nothing off Linux."""
    if not sys.platform.startswith("linux"):
        return azc
    await azc.zeroconf.async_wait_for_start()
    interface = _one_interface(interfaces)
    for reader in azc.zeroconf.engine.readers:
        if reader.sock.getsockname()[0] in ("0.0.0.0", "::", ""):
            _keep_to(reader.sock, interface)
    return azc
