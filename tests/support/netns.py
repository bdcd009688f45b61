"""A simulated LAN for tests: network namespaces joined by a bridge.

Each peer gets its own network namespace with loopback up, one veth
interface ``eth0`` with an address in a private /24, and a 224.0.0.0/4 route
so mDNS works. ``family`` makes the LAN IPv6-only (``fd00::/64`` addresses,
no IPv4), dual-stack, or link-local only (``fe80::`` addresses and nothing
else); IPv6 addresses skip duplicate detection (``nodad``) so they work at
once. ``host_links`` gives peer 0 one interface on each of that many LANs
(``eth0``, ``eth1``, ...), the other peers taking the LANs in turn. Each
bridge (multicast snooping off, or mDNS would be filtered) lives in a
namespace of its own, and every interface is created inside the namespaces,
so the host's own network is never touched and deleting the namespaces
removes everything. Names carry the process id and random bytes, so parallel
runs do not collide, and namespaces left by a killed run are removed by the
next one.

Use ``SimulatedLan`` as a context manager, or the ``simulated_lan_factory``
fixture (registered for the whole suite by ``tests/conftest.py``); both
fixtures skip, with the reason, where namespaces cannot be made (not Linux,
not root, no ``ip``).
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import os
import re
import secrets
import select
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

__all__ = [
    "NetnsError",
    "SimulatedLan",
    "list_namespaces",
    "netns_unavailable_reason",
    "remove_stale_namespaces",
    "require_netns",
    "simulated_lan_factory",
]

PREFIX = "p2pc-lan"
REPO_ROOT = Path(__file__).resolve().parents[2]
_NAME_PATTERN = re.compile(rf"{PREFIX}-(\d+)-[0-9a-f]+-(?:br|\d+)")
FAMILIES = ("ipv4", "ipv6", "dual", "link-local")
_COMMAND_TIMEOUT = 20.0


class NetnsError(RuntimeError):
    """An ``ip`` command failed while building or using the simulated LAN."""


def _ip(*args: str) -> None:
    result = subprocess.run(
        ["ip", *args], capture_output=True, text=True, timeout=_COMMAND_TIMEOUT, check=False
    )
    if result.returncode != 0:
        raise NetnsError(f"ip {' '.join(args)}: {result.stderr.strip() or result.returncode}")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def list_namespaces() -> list[str]:
    result = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=_COMMAND_TIMEOUT)
    return [line.split()[0] for line in result.stdout.splitlines() if line.strip()]


def remove_stale_namespaces() -> None:
    """Delete namespaces this helper made in runs whose process is gone."""
    for name in list_namespaces():
        match = _NAME_PATTERN.fullmatch(name)
        if match and not _pid_alive(int(match.group(1))):
            subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=_COMMAND_TIMEOUT)


@functools.cache
def netns_unavailable_reason() -> str | None:
    """Why namespaces cannot be made here, or None if they can (probed once per process)."""
    if not sys.platform.startswith("linux"):
        return "network namespaces need Linux"
    if os.geteuid() != 0:
        return "making network namespaces needs root"
    if shutil.which("ip") is None:
        return "the iproute2 'ip' command is not installed"
    probe = f"{PREFIX}-{os.getpid()}-{secrets.token_hex(3)}-br"
    try:
        _ip("netns", "add", probe)
    except (NetnsError, OSError, subprocess.TimeoutExpired) as error:
        return f"cannot create a network namespace: {error}"
    try:
        _ip("-n", probe, "link", "add", "probe0", "type", "bridge")
    except (NetnsError, OSError, subprocess.TimeoutExpired) as error:
        return f"cannot create a bridge inside a namespace: {error}"
    finally:
        subprocess.run(["ip", "netns", "del", probe], capture_output=True, timeout=_COMMAND_TIMEOUT)
    return None


class SimulatedLan:
    """``peers`` namespaces on bridged LANs; index ``i`` has address ``addresses[i]``.

    ``addresses[i]`` is the peer's first address of the LAN's main family (IPv4
    on an IPv4 or dual-stack LAN, ``fd00::`` on an IPv6 one, ``fe80::`` on a
    link-local one, without its zone); ``interface_addresses[i]`` maps each of
    its interfaces to every address given to it."""

    def __init__(self, peers: int = 2, *, family: str = "ipv4", host_links: int = 1) -> None:
        if not 1 <= peers <= 200:
            raise ValueError("a simulated LAN has 1 to 200 peers")
        if family not in FAMILIES:
            raise ValueError(f"family must be one of {', '.join(FAMILIES)}")
        if not 1 <= host_links <= 8:
            raise ValueError("peer 0 has 1 to 8 links")
        tag = f"{PREFIX}-{os.getpid()}-{secrets.token_hex(3)}"
        self.family = family
        self.host_links = host_links
        self.bridge_namespace = f"{tag}-br"
        self.namespaces = [f"{tag}-{index}" for index in range(peers)]
        # The subnets exist only inside these namespaces; the random octets just make logs distinct.
        self._v4_base = (secrets.randbelow(150) + 100, secrets.randbelow(240) + 1)
        #: Which LAN each peer's interfaces are on: ``links[i]`` lists (interface, LAN number).
        self.links: list[list[tuple[str, int]]] = [
            [(f"eth{lan}", lan) for lan in range(host_links)] if index == 0
            else [("eth0", (index - 1) % host_links)] for index in range(peers)]
        self.interface_addresses: list[dict[str, list[str]]] = [
            {name: self._addresses_for(index, lan) for name, lan in ifaces}
            for index, ifaces in enumerate(self.links)]
        self.addresses = [next(iter(self.interface_addresses[index].values()))[0] for index in range(peers)]
        self.prefix_length = 24 if family in ("ipv4", "dual") else 64
        self._processes: list[subprocess.Popen[str]] = []
        self._created: list[str] = []

    def _addresses_for(self, index: int, lan: int) -> list[str]:
        """The addresses peer ``index`` has on LAN ``lan`` (main family first)."""
        v4 = f"10.{self._v4_base[0]}.{self._v4_base[1] + lan}.{index + 1}"
        v6 = f"fd00:0:0:{lan:x}::{index + 1:x}" if lan else f"fd00::{index + 1:x}"
        local = f"fe80::{lan + 1:x}:{index + 1:x}"
        return {"ipv4": [v4], "ipv6": [v6], "dual": [v4, v6], "link-local": [local]}[self.family]

    def address_on(self, index: int, lan: int) -> str:
        """Peer ``index``'s main address on LAN ``lan``."""
        for name, number in self.links[index]:
            if number == lan:
                return self.interface_addresses[index][name][0]
        raise ValueError(f"peer {index} is not on LAN {lan}")

    # -- lifetime ---------------------------------------------------------------------

    def create(self) -> SimulatedLan:
        """Build the namespaces, bridges and links; on any failure remove what was made and raise."""
        _live_lans.add(self)
        try:
            self._add_namespace(self.bridge_namespace)
            bridge = ("-n", self.bridge_namespace)
            for lan in range(self.host_links):
                _ip(*bridge, "link", "add", f"br{lan}", "type", "bridge", "mcast_snooping", "0")
                _ip(*bridge, "link", "set", f"br{lan}", "up")
            ports = 0
            for index, namespace in enumerate(self.namespaces):
                self._add_namespace(namespace)
                self._no_dad(namespace)
                peer = ("-n", namespace)
                _ip(*peer, "link", "set", "lo", "up")
                for name, lan in self.links[index]:
                    port = f"veth{ports}"
                    ports += 1
                    _ip(*bridge, "link", "add", port, "type", "veth", "peer", "name", name, "netns", namespace)
                    _ip(*bridge, "link", "set", port, "master", f"br{lan}", "up")
                    self._configure(index, name)
        except BaseException:
            self.destroy()
            raise
        return self

    @staticmethod
    def _no_dad(namespace: str) -> None:
        """No duplicate address detection on this namespace's interfaces: their
        kernel-made fe80:: addresses are usable at once, as on a laptop whose
        link has been up a while (a tentative address cannot be bound)."""
        for scope in ("default", "all"):
            subprocess.run(["ip", "netns", "exec", namespace, sys.executable, "-c",
                            f"open('/proc/sys/net/ipv6/conf/{scope}/accept_dad', 'w').write('0')"],
                           capture_output=True, timeout=_COMMAND_TIMEOUT, check=False)

    def _configure(self, index: int, name: str) -> None:
        peer = ("-n", self.namespaces[index])
        if self.family == "link-local":
            _ip(*peer, "link", "set", name, "addrgenmode", "none")  # no address but ours
        for address in self.interface_addresses[index][name]:
            if ":" in address:
                _ip(*peer, "-6", "addr", "add", f"{address}/64", "dev", name, "nodad")
            else:
                _ip(*peer, "addr", "add", f"{address}/24", "dev", name)
        _ip(*peer, "link", "set", name, "up")
        if self.family in ("ipv4", "dual") and name == self.links[index][0][0]:
            # One default multicast route (mDNS picks each interface itself).
            _ip(*peer, "route", "add", "224.0.0.0/4", "dev", name)

    def _add_namespace(self, name: str) -> None:
        _ip("netns", "add", name)
        self._created.append(name)

    def destroy(self) -> None:
        """Stop every process started here, then delete the namespaces (and with them every link)."""
        for process in self._processes:
            if process.poll() is None:
                process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=5)
            for stream in (process.stdin, process.stdout, process.stderr):
                if stream is not None:
                    stream.close()
        self._processes.clear()
        for name in reversed(self._created):
            subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=_COMMAND_TIMEOUT)
        self._created.clear()
        _live_lans.discard(self)

    def __enter__(self) -> SimulatedLan:
        return self.create()

    def __exit__(self, *exc_info: object) -> None:
        self.destroy()

    # -- running things inside ------------------------------------------------------------

    def command(self, index: int, argv: Sequence[str]) -> list[str]:
        """``argv`` wrapped to run inside peer ``index``'s namespace."""
        return ["ip", "netns", "exec", self.namespaces[index], *argv]

    @staticmethod
    def python_env() -> dict[str, str]:
        """The environment for Python inside a namespace: this checkout importable."""
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH", "")]))
        env["PYTHONUNBUFFERED"] = "1"
        return env

    def run(self, index: int, argv: Sequence[str], timeout: float = 30.0) -> subprocess.CompletedProcess[str]:
        """Run a command in peer ``index``'s namespace and wait for it."""
        return subprocess.run(
            self.command(index, argv), capture_output=True, text=True, timeout=timeout,
            cwd=REPO_ROOT, env=self.python_env(), check=False,
        )

    def run_python(self, index: int, code: str, timeout: float = 30.0) -> subprocess.CompletedProcess[str]:
        """Run Python ``code`` (this interpreter, this checkout) in peer ``index``'s namespace."""
        return self.run(index, [sys.executable, "-c", code], timeout=timeout)

    def spawn_python(self, index: int, code: str) -> subprocess.Popen[str]:
        """Start Python ``code`` in peer ``index``'s namespace; it is killed at ``destroy``."""
        process = subprocess.Popen(
            self.command(index, [sys.executable, "-c", code]),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            cwd=REPO_ROOT, env=self.python_env(),
        )
        self._processes.append(process)
        return process

    @staticmethod
    def read_line(process: subprocess.Popen[str], timeout: float = 20.0) -> str:
        """The next line a spawned process prints, or "" if it prints none within ``timeout``."""
        stream = process.stdout
        if stream is None:
            raise ValueError("the process was not started with a stdout pipe")
        ready, _, _ = select.select([stream], [], [], timeout)
        return stream.readline() if ready else ""


_live_lans: set[SimulatedLan] = set()


@atexit.register
def _destroy_leftovers() -> None:
    for lan in list(_live_lans):
        lan.destroy()


@pytest.fixture
def require_netns() -> None:
    """Skip the test, saying why, where network namespaces cannot be made."""
    reason = netns_unavailable_reason()
    if reason is not None:
        pytest.skip(reason)


@pytest.fixture
def simulated_lan_factory(require_netns: None) -> Iterator[Callable[..., SimulatedLan]]:
    """``make(peers, family=..., host_links=...)`` builds a simulated LAN torn down
    after the test; skips where impossible."""
    remove_stale_namespaces()
    lans: list[SimulatedLan] = []

    def make(peers: int = 2, **options: Any) -> SimulatedLan:
        lan = SimulatedLan(peers, **options)
        lans.append(lan)
        return lan.create()

    try:
        yield make
    finally:
        for lan in lans:
            lan.destroy()
