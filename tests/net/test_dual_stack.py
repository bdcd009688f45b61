"""One listening socket for both IP families, and socket addresses as people use them."""

from __future__ import annotations

import asyncio
import socket

import pytest

from p2pcards.net.connection import Connection, connect, serve
from p2pcards.net.host import TableHost
from p2pcards.net.sockets import socket_address
from p2pcards.protocol.identity import Identity
from tests.support.loopback import needs_loopback_v6

BOUND = 10.0

needs_dual_stack = pytest.mark.skipif(not socket.has_dualstack_ipv6() or not socket.has_ipv6,
                                      reason="this machine has no dual-stack IPv6 sockets")


@needs_dual_stack
@needs_loopback_v6
@pytest.mark.asyncio
@pytest.mark.parametrize("host", ["", "::"])
async def test_wildcard_serves_ipv4_and_ipv6_peers_on_one_port(host: str, alice: Identity, bob: Identity) -> None:
    seen: list[tuple[object, ...]] = []
    accepted: list[Connection] = []

    async def answer(conn: Connection) -> None:
        seen.append(conn.remote_address)
        accepted.append(conn)
        await conn.send(b"hi")

    server = await serve(host, 0, alice, answer)
    try:
        assert server.host == "::"
        for dial in ("127.0.0.1", "::1"):
            async with asyncio.timeout(BOUND):
                conn = await connect(dial, server.port, bob, expected_peer=alice.public_key)
                assert await conn.recv() == b"hi"
                await conn.aclose()
    finally:
        for conn in accepted:
            await conn.aclose()
        server.close()
        await server.wait_closed()
    # An IPv4 peer shows as its IPv4 address, not as ::ffff:127.0.0.1.
    assert [address[0] for address in seen] == ["127.0.0.1", "::1"]


@pytest.mark.asyncio
async def test_ipv4_wildcard_serves_ipv4_only(alice: Identity) -> None:
    server = await serve("0.0.0.0", 0, alice, lambda conn: conn.close())
    try:
        assert server.host == "0.0.0.0"
    finally:
        server.close()
        await server.wait_closed()


@needs_dual_stack
@pytest.mark.asyncio
async def test_a_table_bound_to_empty_records_what_it_serves(alice: Identity) -> None:
    """"" and "::" are the same one socket; the host records "::" (a resumed table
    listens the same way, where "" would have read as "no TCP")."""
    host = TableHost(alice, "bluff", {}, "t")
    await host.start("", 0)
    try:
        assert (host.tcp_host, host.tcp_port) == ("::", host.listening_port)
    finally:
        await host.close()


def test_socket_address_unmaps_ipv4_and_keeps_a_link_local_zone() -> None:
    zone = socket.if_indextoname(1)
    assert socket_address(("::ffff:10.1.2.3", 80, 0, 0)) == ("10.1.2.3", 80)
    assert socket_address(("fe80::1", 80, 0, 1)) == (f"fe80::1%{zone}", 80)
    assert socket_address(("fe80::1", 80, 0, 1), keep_zone=False) == ("fe80::1", 80)
    assert socket_address(("fd00::1", 80, 0, 0)) == ("fd00::1", 80)
    assert socket_address(("10.0.0.1", 80)) == ("10.0.0.1", 80)
    assert socket_address(None) is None
