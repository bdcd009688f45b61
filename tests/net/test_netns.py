"""The simulated LAN helper itself: it builds a LAN, leaves the host alone and tears down."""

from __future__ import annotations

import subprocess
import textwrap
from collections.abc import Callable

import pytest

from tests.support.netns import NetnsError, SimulatedLan, list_namespaces


def host_interfaces() -> list[str]:
    out = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True, check=True).stdout
    return sorted(line.split(":")[1].strip() for line in out.splitlines())


def test_lan_connects_peers_and_leaves_the_host_untouched(
    simulated_lan_factory: Callable[[int], SimulatedLan],
) -> None:
    before = host_interfaces()
    lan = simulated_lan_factory(2)
    assert host_interfaces() == before
    assert set(lan.namespaces) | {lan.bridge_namespace} <= set(list_namespaces())

    shown = lan.run(0, ["ip", "-o", "-4", "addr", "show", "dev", "eth0"])
    assert f"{lan.addresses[0]}/24" in shown.stdout
    routes = lan.run(1, ["ip", "route", "show"]).stdout
    assert "224.0.0.0/4 dev eth0" in routes

    listener = lan.spawn_python(0, textwrap.dedent(f"""
        import socket
        s = socket.create_server(("{lan.addresses[0]}", 0)); s.settimeout(20)
        print(s.getsockname()[1], flush=True)
        conn, addr = s.accept(); conn.sendall(addr[0].encode()); conn.close()
    """))
    port = int(lan.read_line(listener))
    dialled = lan.run_python(1, textwrap.dedent(f"""
        import socket
        with socket.create_connection(("{lan.addresses[0]}", {port}), timeout=10) as c:
            print(c.recv(100).decode())
    """))
    assert dialled.returncode == 0, dialled.stderr
    assert dialled.stdout.strip() == lan.addresses[1]  # the connection came across the bridge


@pytest.mark.usefixtures("require_netns")
def test_destroy_removes_everything_and_stops_processes() -> None:
    before = host_interfaces()
    with SimulatedLan(3) as lan:
        sleeper = lan.spawn_python(2, "import time; time.sleep(60)")
        names = [*lan.namespaces, lan.bridge_namespace]
    assert sleeper.poll() is not None
    assert not set(names) & set(list_namespaces())
    assert host_interfaces() == before


@pytest.mark.usefixtures("require_netns")
def test_failed_build_cleans_up_what_it_made() -> None:
    lan = SimulatedLan(2)
    lan.interface_addresses[1]["eth0"] = ["not-an-address"]  # the second peer's setup fails half-way
    with pytest.raises(NetnsError):
        lan.create()
    assert not set([*lan.namespaces, lan.bridge_namespace]) & set(list_namespaces())
