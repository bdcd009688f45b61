"""The strangers' budget (sans-IO): rate limits per address key, caps, eviction."""

from __future__ import annotations

from p2pcards.net.admission import AddressBuckets, StrangerBudget, Ticket, TokenBucket, address_key


def test_ipv6_addresses_count_by_their_64_and_ipv4_by_address() -> None:
    assert address_key("2001:db8:1:2::10") == address_key("2001:db8:1:2:ffff::1")
    assert address_key("2001:db8:1:2::10") != address_key("2001:db8:1:3::10")
    assert address_key("fe80::1%eth0") == address_key("fe80::2")
    assert address_key("::ffff:192.0.2.7") == "192.0.2.7"
    assert address_key("192.0.2.7") != address_key("192.0.2.8")
    assert address_key("memory") == "memory"


def test_rate_limiter_refuses_the_extra_handshakes_from_one_address() -> None:
    buckets = AddressBuckets(rate=1.0, burst=3)
    assert [buckets.allow("192.0.2.7", 0.0) for _ in range(4)] == [True, True, True, False]
    assert buckets.allow("192.0.2.8", 0.0)  # another address has its own bucket
    assert buckets.allow("192.0.2.7", 1.0)  # one token back after a second
    assert not buckets.allow("192.0.2.7", 1.0)


def test_rate_limiter_counts_two_addresses_of_one_ipv6_64_together() -> None:
    buckets = AddressBuckets(rate=1.0, burst=2)
    assert buckets.allow("2001:db8:0:1::a", 0.0)
    assert buckets.allow("2001:db8:0:1::b", 0.0)
    assert not buckets.allow("2001:db8:0:1::c", 0.0)  # the same /64: refused
    assert buckets.allow("2001:db8:0:2::a", 0.0)  # another /64: its own bucket


def test_bucket_memory_is_bounded() -> None:
    buckets = AddressBuckets(rate=1.0, burst=1, max_buckets=8)
    for n in range(100):
        buckets.allow(f"10.0.{n // 256}.{n % 256}", float(n))
    assert len(buckets) <= 8


def test_budget_caps_strangers_per_address_and_evicts_the_oldest_when_full() -> None:
    closed: list[str] = []
    budget = StrangerBudget(total=3, per_address=2, rate=100.0, burst=100)
    tickets: list[Ticket] = []
    for address in ("10.0.0.1", "10.0.0.1", "10.0.0.2"):
        ticket = budget.admit(address, 0.0)
        assert ticket is not None
        index = len(tickets)
        ticket.close = lambda a=address, i=index: closed.append(f"{a}#{i}")  # type: ignore[misc]
        tickets.append(ticket)
    assert budget.admit("10.0.0.1", 0.0) is None  # its address holds two already
    assert budget.refused_cap == 1
    newcomer = budget.admit("10.0.0.3", 0.0)
    assert newcomer is not None and closed == ["10.0.0.1#0"]  # the oldest stranger made room
    assert budget.strangers == 3 and budget.count("10.0.0.1") == 1
    budget.release(tickets[0])  # already gone: releasing again changes nothing
    budget.release(tickets[1])
    assert budget.strangers == 2 and budget.count("10.0.0.1") == 0


def test_token_bucket_wait_paces_a_flood_but_not_a_burst() -> None:
    bucket = TokenBucket(rate=10.0, burst=3, now=0.0)
    assert [bucket.wait(0.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert abs(bucket.wait(0.0) - 0.1) < 1e-9
    assert abs(bucket.wait(0.0) - 0.2) < 1e-9


IPV6_PROBE = '''
import asyncio, json
from p2pcards.net.connection import Limits, connect, serve
from p2pcards.protocol.identity import Identity

async def main():
    limits = Limits(handshake_rate=0.001, handshake_burst=1, max_per_address=10)
    server = await serve("2001:db8:1::1", 0, Identity.generate("host"), lambda c: None, limits)
    got = {}
    for source in ("2001:db8:1::a", "2001:db8:1::b", "2001:db8:2::a"):
        try:
            conn = await connect("2001:db8:1::1", server.port, Identity.generate("x"), timeout=5,
                                 local_host=source)
            got[source] = "in"
            conn.close()
        except Exception as error:
            got[source] = type(error).__name__
    server.close()
    print(json.dumps(got))

asyncio.run(main())
'''


def test_rate_limiter_over_real_ipv6_sockets_counts_a_64_as_one(require_netns: None) -> None:
    """Three IPv6 sources in a namespace of this test's own: the second address of
    one /64 is refused once the first used the burst; another /64 is not."""
    import json

    from tests.support.netns import SimulatedLan

    with SimulatedLan(1) as lan:
        for address in ("2001:db8:1::1", "2001:db8:1::a", "2001:db8:1::b", "2001:db8:2::a"):
            added = lan.run(0, ["ip", "-6", "addr", "add", f"{address}/128", "dev", "lo", "nodad"])
            assert added.returncode == 0, added.stderr
        probe = lan.run_python(0, IPV6_PROBE, timeout=60)
        assert probe.returncode == 0, probe.stderr
        got = json.loads(probe.stdout.strip().splitlines()[-1])
    assert got["2001:db8:1::a"] == "in"
    assert got["2001:db8:1::b"] != "in"  # the same /64 as ::a: its burst is spent
    assert got["2001:db8:2::a"] == "in"  # another /64
