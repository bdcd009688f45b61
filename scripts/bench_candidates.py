#!/usr/bin/env python3
"""Benchmark how long a joiner takes to find the address of a table that answers.

A host (namespace 0 of a simulated dual-stack LAN, see ``tests/support/netns.py``)
listens on one dual-stack port and announces, besides its real addresses,
addresses on the LAN that nobody holds (a stale record, a machine that left:
their connections hang until neighbour discovery gives up). A joiner in
namespace 1 finds the answering address two ways, each ``--runs`` times:

- ``in turn``: each address in the announced order, 0.5 s each (the old way);
- ``raced``: ``discovery.first_answering`` (own subnets first, Happy
  Eyeballs with a 250 ms stagger).

Prints the median and worst seconds of each. Needs root and ``ip netns``
(it says so otherwise); traffic stays inside the namespaces it makes.

Run with the project's interpreter: ``.venv/bin/python scripts/bench_candidates.py``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import textwrap
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from _figures import ScalarmultUnit, finish, unit_line  # noqa: E402

from tests.support.netns import SimulatedLan, netns_unavailable_reason  # noqa: E402

HOST = textwrap.dedent(
    """
    import socket, time
    s = socket.create_server(("::", 0), family=socket.AF_INET6, dualstack_ipv6=True)
    s.settimeout(1.0)
    print(s.getsockname()[1], flush=True)
    end = time.monotonic() + 120
    while time.monotonic() < end:
        try:
            conn, _ = s.accept()
            conn.close()
        except OSError:
            pass
    """
)

JOINER = textwrap.dedent(
    """
    import asyncio, json, time
    from p2pcards.net.discovery import first_answering, port_answers

    async def in_turn(candidates, port):
        for host in candidates:
            if await port_answers(host, port, 0.5):
                return host
        return None

    async def main():
        turn, raced = [], []
        for _ in range(RUNS):
            start = time.monotonic()
            one = await in_turn(CANDIDATES, PORT)
            turn.append(time.monotonic() - start)
            start = time.monotonic()
            two = await first_answering(CANDIDATES, PORT, 0.5)
            raced.append(time.monotonic() - start)
            assert one and two, (one, two)
        print(json.dumps({"in turn": turn, "raced": raced, "winner": two}))

    asyncio.run(main())
    """
)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    reason = netns_unavailable_reason()
    if reason is not None:
        print(f"skipped: {reason}")
        return 0
    unit = ScalarmultUnit()
    with SimulatedLan(2, family="dual") as lan, unit.sampling():
        v4, v6 = lan.interface_addresses[0]["eth0"]
        stale_v4 = v4.rsplit(".", 1)[0] + ".99"
        stale_v6 = "fd00::99"
        # As a record may list them: the stale ones first, the real IPv4 last.
        candidates = [stale_v4, stale_v6, "fd00::98", v4]
        host = lan.spawn_python(0, HOST)
        port = int(lan.read_line(host))
        code = f"RUNS = {args.runs}\nCANDIDATES = {candidates!r}\nPORT = {port}\n" + JOINER
        done = lan.run_python(1, code, timeout=60 + 10 * args.runs)
        if done.returncode != 0:
            print(done.stderr[-2000:])
            return 1
        figures = json.loads(done.stdout)
    # Times of connections that hang until a timeout: the unit says how loaded the
    # machine was, not how many multiplications a wait is worth.
    print(unit_line(unit))
    print(f"candidates: {candidates} (answering: {v4}; winner when raced: {figures['winner']})")
    for way in ("in turn", "raced"):
        times = figures[way]
        print(f"{way:>8}: median {statistics.median(times):.3f} s "
              f"({unit.units(statistics.median(times)):,.0f} u), worst {max(times):.3f} s "
              f"over {len(times)} runs")
    return finish(figures, "bench_candidates.py")


if __name__ == "__main__":
    raise SystemExit(main())
