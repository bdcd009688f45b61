"""Sockets as a table uses them: one listening socket for IPv4 and IPv6 on one
port, and a socket's address as people and ``connect`` write it.

Split from :mod:`p2pcards.net.connection` (which listens and dials with them)
because they are about the operating system's sockets, not about links.
"""

from __future__ import annotations

import errno
import ipaddress
import socket

Address = tuple[str, int]
#: Hosts that mean "every address of this machine": one socket for IPv4 and IPv6.
WILDCARD_HOSTS = ("", "::")


def socket_address(sockaddr: object, *, keep_zone: bool = True) -> Address | None:
    """``(host, port)`` of a socket address as people and ``connect`` use it.

    An IPv4 peer of a dual-stack socket shows as its IPv4 address (not
    ``::ffff:a.b.c.d``), and a link-local IPv6 address keeps its zone
    (``fe80::1%eth0``): without it a later bind or dial of it fails."""
    if not isinstance(sockaddr, tuple) or len(sockaddr) < 2:
        return None
    host, port = str(sockaddr[0]), int(sockaddr[1])
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return (host, port)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return (str(ip.ipv4_mapped), port)
    scope = sockaddr[3] if len(sockaddr) >= 4 else 0
    if keep_zone and "%" not in host and isinstance(scope, int) and scope and ip.is_link_local:
        try:
            zone = socket.if_indextoname(scope)
        except OSError:
            zone = str(scope)
        host = f"{host}%{zone}"
    elif not keep_zone:
        host = host.split("%", 1)[0]
    return (host, port)


def listening_socket(host: str, port: int) -> socket.socket | None:
    """The one socket a wildcard ``host`` ("" or "::") listens on, or None for
    any other host (bound by asyncio as given).

    Why: asyncio binds "" as one socket per family (each its own port when
    asked for 0) and sets ``IPV6_V6ONLY`` on "::", so a table would be
    unreachable over one family or split over two ports. Here both families
    share one port where the OS can (``has_dualstack_ipv6``), and a machine
    without IPv6 listens on IPv4 alone."""
    if host not in WILDCARD_HOSTS:
        return None
    if socket.has_dualstack_ipv6():
        try:
            return socket.create_server(("::", port), family=socket.AF_INET6, dualstack_ipv6=True)
        except OSError as error:
            if error.errno not in (errno.EAFNOSUPPORT, errno.EADDRNOTAVAIL, errno.EPROTONOSUPPORT):
                raise
    return socket.create_server(("0.0.0.0", port), family=socket.AF_INET)


def served_host(sock: socket.socket) -> str:
    """What a socket made by :func:`listening_socket` serves: "::" (both
    families) or "0.0.0.0" (IPv4 alone)."""
    return "::" if sock.family == socket.AF_INET6 else "0.0.0.0"
