"""Which addresses each interface announces, which a joiner tries first, and the race."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from p2pcards.net.addresses import (
    AnnouncedLink,
    announcement_links,
    browse_interfaces,
    friend_addresses,
    local_addresses,
    mdns_interfaces,
    order_candidates,
    race,
    served_families,
)
from p2pcards.net.discovery import port_answers
from tests.support.loopback import needs_loopback_v6


def adapter(name: str, index: int, *ips: tuple[str, int]) -> SimpleNamespace:
    """An adapter as ``ifaddr`` lists it (IPv6 addresses as (address, flowinfo, scope) tuples)."""
    listed = [SimpleNamespace(ip=(ip, 0, index) if ":" in ip else ip, network_prefix=prefix)
              for ip, prefix in ips]
    return SimpleNamespace(name=name, nice_name=name, index=index, ips=listed)


LAPTOP = local_addresses([
    adapter("lo", 1, ("127.0.0.1", 8), ("::1", 128)),
    adapter("wlan0", 2, ("192.168.1.20", 24), ("fd77::20", 64), ("fe80::20", 64)),
    adapter("docker0", 3, ("172.17.0.1", 16)),
    adapter("wg0", 4, ("fd99::4", 64)),
])


def test_local_addresses_give_a_link_local_address_its_zone() -> None:
    assert [a.address for a in LAPTOP if a.interface == "wlan0"] == [
        "192.168.1.20", "fd77::20", "fe80::20%wlan0"]


def test_each_interface_announces_only_its_own_addresses_and_no_loopback() -> None:
    assert announcement_links(LAPTOP) == [
        AnnouncedLink("wlan0", ("192.168.1.20", "fd77::20", "fe80::20")),
        AnnouncedLink("docker0", ("172.17.0.1",)),
        AnnouncedLink("wg0", ("fd99::4",)),
    ]


def test_an_ipv4_socket_announces_ipv4_only_and_a_bound_address_only_itself() -> None:
    assert announcement_links(LAPTOP, bind="0.0.0.0") == [
        AnnouncedLink("wlan0", ("192.168.1.20",)), AnnouncedLink("docker0", ("172.17.0.1",))]
    assert announcement_links(LAPTOP, bind="fd77::20") == [AnnouncedLink("wlan0", ("fd77::20",))]
    assert announcement_links(LAPTOP, bind="127.0.0.1") == [AnnouncedLink("lo", ("127.0.0.1",))]


def test_interfaces_named_by_address_or_name_limit_the_announcement() -> None:
    assert announcement_links(LAPTOP, interfaces=["192.168.1.20"]) == [
        AnnouncedLink("wlan0", ("192.168.1.20", "fd77::20", "fe80::20"))]
    assert announcement_links(LAPTOP, interfaces=["wg0"]) == [AnnouncedLink("wg0", ("fd99::4",))]
    # Loopback when asked for: IPv4 alone (IPv6 mDNS does not work on loopback).
    assert announcement_links(LAPTOP, interfaces=["127.0.0.1"]) == [AnnouncedLink("lo", ("127.0.0.1",))]


def test_a_machine_with_only_loopback_announces_loopback() -> None:
    alone = local_addresses([adapter("lo", 1, ("127.0.0.1", 8), ("::1", 128))])
    assert announcement_links(alone) == [AnnouncedLink("lo", ("127.0.0.1",))]


def test_mdns_runs_on_each_ipv4_address_and_one_ipv6_address_per_link() -> None:
    link = AnnouncedLink("wlan0", ("192.168.1.20", "fe80::20", "fd77::20"))
    assert link.zeroconf_interfaces == ["192.168.1.20", "fd77::20"]
    assert AnnouncedLink("eth0", ("fe80::1",)).zeroconf_interfaces == ["fe80::1"]


def test_interface_names_become_their_addresses_for_mdns() -> None:
    assert mdns_interfaces(["wlan0"], LAPTOP) == ["192.168.1.20", "fd77::20"]
    assert mdns_interfaces(["10.0.0.9", "fe80::1%eth0", "wg0"], LAPTOP) == ["10.0.0.9", "fe80::1", "fd99::4"]
    assert mdns_interfaces(["nope0"], LAPTOP) == []


def test_browsing_covers_every_interface_but_ipv6_on_loopback() -> None:
    assert browse_interfaces(LAPTOP) == ["127.0.0.1", "192.168.1.20", "172.17.0.1", "fd77::20", "fd99::4"]


def test_served_families() -> None:
    assert served_families(None) == served_families("") == served_families("::") == {4, 6}
    assert served_families("0.0.0.0") == {4}
    assert served_families("fe80::1%eth0") == {6}


def test_candidates_on_our_own_subnets_come_first_families_interleaved() -> None:
    wlan = [a for a in LAPTOP if a.interface == "wlan0"]
    announced = ["10.9.9.9", "fe80::20%3", "192.168.1.7", "fd99::4", "127.0.0.1", "192.168.1.8", "fd77::7",
                 "fd77::7"]
    assert order_candidates(announced, wlan) == [
        "fd77::7", "192.168.1.7", "192.168.1.8",  # our subnets, IPv6 first, then alternating
        "fe80::20%3",  # link-local: on the link it was heard on
        "fd99::4", "10.9.9.9",  # other private ranges
        "127.0.0.1",
    ]


def test_a_link_local_candidate_without_a_zone_is_tried_through_each_of_our_links() -> None:
    two = local_addresses([adapter("eth0", 2, ("fe80::a", 64)), adapter("eth1", 3, ("fe80::b", 64)),
                           adapter("eth2", 4, ("10.0.0.2", 24))])
    assert order_candidates(["fe80::1", "fe80::2%eth1"], two) == ["fe80::1%eth0", "fe80::1%eth1", "fe80::2%eth1"]
    assert order_candidates(["fe80::1"], []) == ["fe80::1"]


def test_friends_are_shown_lan_addresses_never_loopback_or_link_local() -> None:
    # The LAN's first, IPv4 before IPv6; container and VPN adapters after them.
    assert friend_addresses("::", LAPTOP) == ["192.168.1.20", "fd77::20", "172.17.0.1"]
    assert friend_addresses("0.0.0.0", LAPTOP) == ["192.168.1.20", "172.17.0.1"]
    assert friend_addresses("fd77::20", LAPTOP) == ["fd77::20"]


def test_friends_of_a_link_local_only_host_are_shown_its_zoned_address() -> None:
    bare = local_addresses([adapter("lo", 1, ("127.0.0.1", 8)), adapter("eth0", 2, ("fe80::5", 64))])
    assert friend_addresses("::", bare) == ["fe80::5%eth0"]
    assert friend_addresses("::", local_addresses([adapter("lo", 1, ("127.0.0.1", 8))])) == ["127.0.0.1"]


# --- the race ------------------------------------------------------------------------


async def settle() -> None:
    """Let every task that can run, run (a bounded number of loop turns)."""
    for _ in range(20):
        await asyncio.sleep(0)


class Attempts:
    """Attempts that finish when the test says so, recording what happened to each."""

    def __init__(self, count: int) -> None:
        self.outcomes: list[asyncio.Future[str | None]] = []
        self.started: list[int] = []
        self.cancelled: list[int] = []
        self.count = count

    def make(self, index: int) -> Callable[[], Coroutine[Any, Any, str | None]]:
        async def attempt() -> str | None:
            self.started.append(index)
            try:
                return await self.outcomes[index]
            except asyncio.CancelledError:
                self.cancelled.append(index)
                raise
        return attempt

    def all(self) -> list[Callable[[], Coroutine[Any, Any, str | None]]]:
        loop = asyncio.get_running_loop()
        self.outcomes = [loop.create_future() for _ in range(self.count)]
        return [self.make(i) for i in range(self.count)]


@pytest.mark.asyncio
async def test_a_failed_attempt_starts_the_next_at_once_and_the_first_success_wins() -> None:
    attempts = Attempts(3)
    # A stagger far beyond the test's bound: only failures may start the next attempt.
    running = asyncio.create_task(race(attempts.all(), stagger=3600))
    await settle()
    assert attempts.started == [0]
    attempts.outcomes[0].set_result(None)  # refused
    await settle()
    assert attempts.started == [0, 1]
    attempts.outcomes[1].set_result("second")
    async with asyncio.timeout(10):
        assert await running == (1, "second")
    assert attempts.started == [0, 1]  # the third never began


@pytest.mark.asyncio
async def test_a_slow_attempt_does_not_hold_up_the_next_and_losers_are_cancelled() -> None:
    attempts = Attempts(3)
    running = asyncio.create_task(race(attempts.all(), stagger=0.01))
    async with asyncio.timeout(10):
        while len(attempts.started) < 3:  # the first two hang: each stagger starts one more
            await asyncio.sleep(0.01)
        attempts.outcomes[2].set_result("third")
        assert await running == (2, "third")
    assert sorted(attempts.cancelled) == [0, 1]


@pytest.mark.asyncio
async def test_a_success_that_comes_with_the_winner_is_discarded() -> None:
    attempts = Attempts(2)
    discarded: list[str] = []
    running = asyncio.create_task(race(attempts.all(), stagger=0.01, discard=discarded.append))
    async with asyncio.timeout(10):
        while len(attempts.started) < 2:
            await asyncio.sleep(0.01)
        attempts.outcomes[1].set_result("late")
        attempts.outcomes[0].set_result("early")
        assert await running == (0, "early")
    assert discarded == ["late"]


@pytest.mark.asyncio
async def test_every_attempt_failing_is_none() -> None:
    async def refused() -> str | None:
        return None

    async def broken() -> str | None:
        raise OSError("unreachable")

    async with asyncio.timeout(10):
        assert await race([refused, broken, refused], stagger=3600) is None
        assert await race([], stagger=3600) is None



# --- the race over real sockets, in our order (loopback only) -------------------------

#: A stagger no test waits out: a second attempt that starts did so because the first failed.
NEVER = 3600.0
#: Seconds a race over loopback gets (at load 8 on two cores), far below NEVER.
BOUND = 10.0


@contextlib.contextmanager
def one_port_on_both_loopbacks() -> Iterator[tuple[socket.socket, socket.socket, int]]:
    """A socket bound on 127.0.0.1 and one on ::1, on the same port, neither listening
    yet: bound, the port is ours, and a connection to a socket that does not listen
    is refused at once."""
    for _ in range(20):  # bounded: another process may hold the port on ::1
        v4 = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        v4.bind(("127.0.0.1", 0))
        port = int(v4.getsockname()[1])
        v6 = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        try:
            v6.bind(("::1", port))
        except OSError:
            v4.close()
            v6.close()
            continue
        with v4, v6:
            yield v4, v6, port
        return
    pytest.skip("no port free on both 127.0.0.1 and ::1")


def probes(hosts: list[str], port: int, started: list[str]) -> list[Callable[[], Awaitable[str | None]]]:
    """One attempt per host, as a joiner probes a table's port (``port_answers``)."""
    def probe(host: str) -> Callable[[], Awaitable[str | None]]:
        async def attempt() -> str | None:
            started.append(host)
            return host if await port_answers(host, port, timeout=BOUND) else None
        return attempt
    return [probe(host) for host in hosts]


@needs_loopback_v6
@pytest.mark.asyncio
async def test_the_race_tries_the_addresses_in_our_ranking() -> None:
    """Heard as 127.0.0.1 then ::1, ranked ::1 first (RFC 8305 §4): ::1 wins, and
    with both listening the other is never tried."""
    with one_port_on_both_loopbacks() as (v4, v6, port):
        v4.listen()
        v6.listen()
        ordered = order_candidates(["127.0.0.1", "::1"], [])
        assert ordered == ["::1", "127.0.0.1"]
        started: list[str] = []
        async with asyncio.timeout(BOUND):
            assert await race(probes(ordered, port, started), stagger=NEVER) == (0, "::1")
        assert started == ["::1"]


@needs_loopback_v6
@pytest.mark.asyncio
async def test_a_dead_first_address_falls_through_to_the_next_at_once() -> None:
    """The top-ranked address refuses (nothing listens on ::1): the next one is
    tried at once, long before the stagger, and wins."""
    with one_port_on_both_loopbacks() as (v4, _v6, port):
        v4.listen()
        started: list[str] = []
        async with asyncio.timeout(BOUND):
            won = await race(probes(order_candidates(["127.0.0.1", "::1"], []), port, started),
                             stagger=NEVER)
        assert won == (1, "127.0.0.1")
        assert started == ["::1", "127.0.0.1"]
