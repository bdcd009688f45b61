"""The networks people have, built from network namespaces: IPv6 only, dual-stack,
link-local only, and a host on two LANs at once.

Each table is real ``p2pcards`` processes: a host (its own seat and one bot)
with the default ``--bind`` in namespace 0, and two joiners in the others, so
the joiners (players 2 and 3) also link directly. The tests stop once what
they check has happened; whole matches over a LAN are played in
``test_lan.py``. Skipped, saying why, where namespaces cannot be made (see
``tests/support/netns.py``).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.support.listing import listing_rows
from tests.support.netns import SimulatedLan

from .harness import REPO_ROOT, STARTUP_TIMEOUT, Home, PeerProcess, TablePlan, p2pcards_argv

pytestmark = pytest.mark.slow

DISCOVERY_SECONDS = "2"
#: Players 2 and 3 are the two joiners (0 is the host's seat, 1 its bot).
FIRST, SECOND = 2, 3


@pytest.fixture
def started() -> Iterator[list[PeerProcess]]:
    """Processes a test starts; every one is stopped afterwards."""
    processes: list[PeerProcess] = []
    yield processes
    for process in processes:
        process.stop()


def _plan() -> TablePlan:
    # Twenty deals, not one: a short match between bots can end before the joiners'
    # direct link is up on a loaded machine (three deals did, beside another copy of
    # the suite and four tables). The link is what is checked; the test stops the
    # processes once it has seen it, so a long match costs nothing.
    return TablePlan("bluff", settings=("--deals", "20"), seed=None, deadline=30)


def _host(home: Home, lan: SimulatedLan, table: str, started: list[PeerProcess]) -> int:
    """``p2pcards host`` with the default bind in namespace 0; its port."""
    plan = _plan()
    host = home.spawn("host", "bluff", *plan.settings, "--bots", "1", "--table", table, *plan.seat_args(),
                      *plan.clock_args(), prefix=lan.command(0, []))
    started.append(host)
    line = host.wait_for(lambda lines: next((x for x in lines if '"listening"' in x), None),
                         STARTUP_TIMEOUT, "listening line")
    return int(json.loads(line)["listening"])


def _join(home: Home, lan: SimulatedLan, index: int, started: list[PeerProcess], *how: str) -> PeerProcess:
    joiner = home.spawn("join", *how, *_plan().seat_args(), prefix=lan.command(index, []))
    started.append(joiner)
    joiner.wait_event("LobbyUpdate", STARTUP_TIMEOUT)
    return joiner


def _by_name(table: str) -> tuple[str, ...]:
    return (table, "--timeout", DISCOVERY_SECONDS)


def _linked_directly(joiner: PeerProcess, other: int) -> dict[str, Any]:
    """Wait for a ``Paths`` event that shows a live direct link to player ``other``."""
    def found(lines: list[str]) -> dict[str, Any] | None:
        for event in joiner.events():
            if event.get("event") == "Paths" and event["paths"].get(str(other)) == "direct":
                return event
        return None
    return joiner.wait_for(found, STARTUP_TIMEOUT, f"a direct link to player {other}")


def _joining_line(joiner: PeerProcess) -> str:
    return next(line for line in joiner.lines if line.startswith("Joining "))


def _tables(home: Home, lan: SimulatedLan, index: int) -> list[dict[str, Any]]:
    """``p2pcards tables --json`` in namespace ``index``."""
    done = subprocess.run(lan.command(index, p2pcards_argv("tables", "--json", "--timeout", DISCOVERY_SECONDS)),
                          capture_output=True, text=True, timeout=60, cwd=REPO_ROOT, env=home.env(), check=False)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


HINT = textwrap.dedent(
    """
    from p2pcards.commands.hosting import join_hint as _join_hint
    print(_join_hint("Six", "::", 4000))
    """
)

ANNOUNCED = textwrap.dedent(
    """
    import asyncio, json
    from zeroconf import DNSQuestionType, IPVersion
    from zeroconf.asyncio import AsyncServiceInfo
    from p2pcards.net.discovery import SERVICE_TYPE, TableBrowser

    async def main():
        async with TableBrowser() as browser:
            for _ in range(30):
                await asyncio.sleep(0.2)
                if browser.heard_of:
                    break
            found = {}
            for name in sorted(browser.heard_of):
                info = AsyncServiceInfo(SERVICE_TYPE, name)
                await info.async_request(browser._azc.zeroconf, 1500, question_type=DNSQuestionType.QM)
                found[name] = sorted(a.split("%")[0] for a in info.parsed_scoped_addresses(IPVersion.All))
            print(json.dumps(found))

    asyncio.run(main())
    """
)


#: Run in one namespace: find the table, then ask its host for the addresses of the
#: table's server name with questions that get a unicast answer: a QU question, and
#: legacy unicast queries (RFC 6762 6.7: from a port other than 5353) sent to the
#: host's address on this LAN, to the IPv4 group and to the IPv6 group on eth0.
#: Prints every address any answer gave.
UNICAST_ANSWERS = textwrap.dedent(
    """
    import asyncio, json, socket, sys
    from zeroconf import DNSIncoming, DNSOutgoing, DNSQuestion, DNSQuestionType, IPVersion, const
    from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf
    from p2pcards.net.discovery import SERVICE_TYPE

    HOST = sys.argv[1]

    async def server_name_and_qu_addresses():
        azc = AsyncZeroconf()
        heard = []
        browser = AsyncServiceBrowser(azc.zeroconf, [SERVICE_TYPE], handlers=[
            lambda zeroconf, service_type, name, state_change: heard.append(name)])
        for _ in range(100):
            await asyncio.sleep(0.1)
            if heard:
                break
        info = AsyncServiceInfo(SERVICE_TYPE, heard[0])
        await info.async_request(azc.zeroconf, 3000, question_type=DNSQuestionType.QU)
        found = info.parsed_scoped_addresses(IPVersion.All)
        await browser.async_cancel()
        await azc.async_close()
        return info.server, found

    def legacy_answers(server, target, family):
        query = DNSOutgoing(const._FLAGS_QR_QUERY)
        for kind in (const._TYPE_A, const._TYPE_AAAA):
            query.add_question(DNSQuestion(server, kind, const._CLASS_IN))
        found = []
        with socket.socket(family, socket.SOCK_DGRAM) as sock:
            sock.settimeout(2)
            sock.bind(("", 0))
            for packet in query.packets():
                sock.sendto(packet, socket.getaddrinfo(target, 5353, family, socket.SOCK_DGRAM)[0][4])
            try:
                while True:  # every answer until none comes for 2 s
                    for record in DNSIncoming(sock.recv(9000)).answers():
                        if record.type in (const._TYPE_A, const._TYPE_AAAA):
                            found.append(socket.inet_ntop(
                                socket.AF_INET if record.type == const._TYPE_A else socket.AF_INET6,
                                record.address))
            except TimeoutError:
                pass
        return found

    server, found = asyncio.run(server_name_and_qu_addresses())
    family = socket.AF_INET6 if ":" in HOST else socket.AF_INET
    for target, kind in ((HOST, family), ("224.0.0.251", socket.AF_INET), ("ff02::fb%eth0", socket.AF_INET6)):
        found += legacy_answers(server, target, kind)
    print(json.dumps(sorted({a.split("%")[0] for a in found})))
    """
)


def _link_local(lan: SimulatedLan, index: int, interface: str) -> set[str]:
    """The kernel's own fe80:: addresses of peer ``index``'s ``interface``."""
    shown = json.loads(lan.run(index, ["ip", "-j", "-6", "addr", "show", "dev", interface]).stdout)
    return {a["local"] for link in shown for a in link["addr_info"] if a["local"].startswith("fe80:")}


def test_an_ipv6_only_lan_finds_joins_by_name_and_address_and_links_directly(
    simulated_lan_factory: Callable[..., SimulatedLan],
    fresh_homes: Callable[[str], list[Home]],
    started: list[PeerProcess],
) -> None:
    lan = simulated_lan_factory(3, family="ipv6")
    homes = fresh_homes("six")
    host_address = lan.addresses[0]
    port = _host(homes[0], lan, "Six", started)

    listed = _tables(homes[3], lan, 2)
    assert [(t["name"], t["address"], t["port"]) for t in listed] == [("Six", host_address, port)]
    hint = lan.run_python(0, HINT)
    assert f"--connect [{host_address}]:4000" in hint.stdout and "127.0.0.1" not in hint.stdout, hint

    first = _join(homes[1], lan, 1, started, *_by_name("Six"))
    second = _join(homes[2], lan, 2, started, "--connect", f"[{host_address}]:{port}")
    assert f"at [{host_address}]:{port}" in _joining_line(first)
    _linked_directly(first, SECOND)
    _linked_directly(second, FIRST)


def test_a_dual_stack_lan_takes_joiners_on_either_family(
    simulated_lan_factory: Callable[..., SimulatedLan],
    fresh_homes: Callable[[str], list[Home]],
    started: list[PeerProcess],
) -> None:
    lan = simulated_lan_factory(3, family="dual")
    homes = fresh_homes("dual")
    v4, v6 = lan.interface_addresses[0]["eth0"]
    port = _host(homes[0], lan, "Both", started)

    listed = _tables(homes[3], lan, 1)
    assert [(t["name"], t["port"]) for t in listed] == [("Both", port)]
    assert listed[0]["address"] in (v4, v6)
    first = _join(homes[1], lan, 1, started, "--connect", f"{v4}:{port}")
    second = _join(homes[2], lan, 2, started, "--connect", f"[{v6}]:{port}")
    _linked_directly(first, SECOND)
    _linked_directly(second, FIRST)


def test_a_link_local_only_lan_links_directly(
    simulated_lan_factory: Callable[..., SimulatedLan],
    fresh_homes: Callable[[str], list[Home]],
    started: list[PeerProcess],
) -> None:
    lan = simulated_lan_factory(3, family="link-local")
    homes = fresh_homes("local")
    port = _host(homes[0], lan, "Local", started)

    # `tables` names the zone as the hints do (%eth0, not the interface's number),
    # and its address column holds the whole address.
    listed = _tables(homes[3], lan, 2)
    assert [(t["address"], t["port"]) for t in listed] == [(f"{lan.addresses[0]}%eth0", port)]
    shown = subprocess.run(lan.command(2, p2pcards_argv("tables", "--timeout", DISCOVERY_SECONDS)),
                           capture_output=True, text=True, timeout=60, cwd=REPO_ROOT, env=homes[3].env(),
                           check=False)
    assert [row["ADDRESS"] for row in listing_rows(shown.stdout.splitlines())] == [
        f"[{lan.addresses[0]}%eth0]:{port}"], shown.stdout

    first = _join(homes[1], lan, 1, started, *_by_name("Local"))
    second = _join(homes[2], lan, 2, started, "--connect", f"[{lan.addresses[0]}%eth0]:{port}")
    assert f"at [{lan.addresses[0]}%" in _joining_line(first)
    # The joiners listen on their fe80:: address with its zone, and dial each other's.
    _linked_directly(first, SECOND)
    _linked_directly(second, FIRST)


@pytest.mark.parametrize("family", ["ipv4", "dual"])
def test_a_host_on_two_lans_is_reached_on_each_joiners_own_link(
    family: str,
    simulated_lan_factory: Callable[..., SimulatedLan],
    fresh_homes: Callable[[str], list[Home]],
    started: list[PeerProcess],
) -> None:
    lan = simulated_lan_factory(3, family=family, host_links=2)
    homes = fresh_homes(f"two-{family}")
    port = _host(homes[0], lan, "Two", started)

    # Each LAN hears only the host's addresses on that LAN (RFC 6762 6.2); the
    # kernel's own fe80:: addresses aside, which each link has of its own.
    for index, link in ((1, 0), (2, 1)):
        heard = json.loads(lan.run_python(index, ANNOUNCED).stdout)
        own = set(lan.interface_addresses[0][f"eth{link}"])
        assert len(heard) == 1, heard
        routable = {a for a in next(iter(heard.values())) if not a.startswith("fe80:")}
        assert routable == own, (index, heard, own)

    for index, link in ((1, 0), (2, 1)):
        joiner = _join(homes[index], lan, index, started, *_by_name("Two"))
        line = _joining_line(joiner)
        assert any(f"{a}]:{port}" in line or f"{a}:{port}" in line
                   for a in lan.interface_addresses[0][f"eth{link}"]), line


@pytest.mark.parametrize("family", ["ipv4", "dual"])
def test_a_host_on_two_lans_answers_a_unicast_question_from_one_lan_with_that_lans_addresses_only(
    family: str,
    simulated_lan_factory: Callable[..., SimulatedLan],
    fresh_homes: Callable[[str], list[Home]],
    started: list[PeerProcess],
) -> None:
    """A question that gets a unicast answer (a QU question, a legacy query to the
    host or to either group) asked on one LAN is answered by that LAN's responder
    alone: the other LAN's responder hears IPv6 multicast from every link (Linux
    delivers a group the socket joined on any interface) unless it is kept to its own."""
    lan = simulated_lan_factory(3, family=family, host_links=2)
    homes = fresh_homes(f"unicast-{family}")
    _host(homes[0], lan, "Two", started)

    for index, link in ((1, 0), (2, 1)):
        probe = lan.run(index, [sys.executable, "-c", UNICAST_ANSWERS, lan.address_on(0, link)], timeout=60)
        assert probe.returncode == 0, probe.stderr
        answered = set(json.loads(probe.stdout))
        own = set(lan.interface_addresses[0][f"eth{link}"]) | _link_local(lan, 0, f"eth{link}")
        assert lan.address_on(0, link) in answered, (index, answered)
        assert answered <= own, (index, sorted(answered - own), "are the other LAN's")

