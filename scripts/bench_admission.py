#!/usr/bin/env python3
"""Benchmark admission: a playing table's pace while strangers attack its host.

For each scenario a fresh table plays over loopback TCP: a ``p2pcards host``
process (its own seat and two bots) and one remote ``p2pcards join`` process,
plus a second host whose lobby has free seats. Once the first hand is dealt,
an attacker process (niced, as it would be another machine on a LAN) attacks
the playing host from eight loopback addresses (127.0.1.1-8) with one of:

- ``ping-flood``: strangers handshake and send pings without end, no hello;
- ``silent-links``: strangers hold as many silent, handshaken links as they can;
- ``half-frames``: raw connections send half a frame header, then trickle
  (slowloris) before any handshake;
- ``handshake-flood``: strangers complete handshakes as fast as they can and drop them.

Measured from the host's ``--trace`` lines, over a window of ``--window``
seconds under attack: the rate of transcript progress (messages per second,
from the positions of applied game actions) and of game actions. Then, still
under attack: whether a new player joins the lobby host (a fresh key dials it,
says hello and is listed in a lobby frame), and whether the remote player,
killed with SIGKILL, resumes (``p2pcards resume``) and sees the table go on.
The lobby host is attacked alike (by a second attacker process) from the
end of the window, so that its own load is not counted against the table's
pace. The attacker's figures are those of the attack on the playing host.
The figures are printed, not asserted; the goal is >= 70 % of the undisturbed
rate under every attack. Loopback only; every loop and wait is bounded.

Run with the project's interpreter: ``.venv/bin/python scripts/bench_admission.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from _figures import ScalarmultUnit, finish, unit_line, with_units  # noqa: E402

from p2pcards.protocol.events import HandReceived  # noqa: E402
from tests.system.harness import Home, PeerProcess, make_homes  # noqa: E402

ATTACKS = ("ping-flood", "silent-links", "half-frames", "handshake-flood")
ATTACKER_ADDRESSES = tuple(f"127.0.1.{n}" for n in range(1, 9))
HOST = "127.0.0.1"
GOAL = 0.70
STARTUP = 30.0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--window", type=float, default=8.0, help="seconds measured per scenario (default 8)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=1,
                        help="repeat every scenario, interleaved, and report medians (default 1)")
    parser.add_argument("--attacks", default=",".join(ATTACKS),
                        help=f"comma-separated subset of {','.join(ATTACKS)}")
    parser.add_argument("--nice", type=int, default=10, help="niceness of the attacker process (default 10)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    # The attacker's own mode (run by this script in a child process).
    parser.add_argument("--attacker", choices=ATTACKS, help=argparse.SUPPRESS)
    parser.add_argument("--ports", default="", help=argparse.SUPPRESS)
    parser.add_argument("--seconds", type=float, default=0.0, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


# -- the attacker ------------------------------------------------------------------------


class Attacker:
    """One attack on some ports from a few addresses, for a bounded time; counts what it did."""

    def __init__(self, kind: str, ports: list[int], seconds: float) -> None:
        self.kind = kind
        self.ports = ports
        self.seconds = seconds
        self.stopped = asyncio.Event()
        self.counts = {"connections": 0, "refused": 0, "frames": 0}

    def going(self) -> bool:
        return not self.stopped.is_set()

    async def run(self) -> dict[str, int]:
        """Attack until ``seconds`` pass or SIGTERM comes; then stop every worker."""
        import signal
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, self.stopped.set)
        workers = {"ping-flood": (self._ping_flood, 4), "silent-links": (self._silent, 24),
                   "half-frames": (self._half_frame, 24), "handshake-flood": (self._handshakes, 4)}
        work, per_address = workers[self.kind]
        tasks = [asyncio.create_task(self._loop(work, port, address))
                 for port in self.ports for address in ATTACKER_ADDRESSES for _ in range(per_address)]
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.stopped.wait(), self.seconds)
        self.stopped.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        return self.counts

    async def _loop(self, work: Any, port: int, address: str) -> None:
        for _ in range(1_000_000):  # bounded; the clock or SIGTERM ends it long before
            if not self.going():
                return
            try:
                await work(port, address)
            except asyncio.CancelledError:
                raise
            except Exception:  # noqa: BLE001 - refusals are the point
                self.counts["refused"] += 1
                await asyncio.sleep(0.01)

    async def _dial(self, port: int, address: str) -> Any:
        from p2pcards.net.connection import connect
        from p2pcards.protocol.identity import Identity
        connection = await connect(HOST, port, Identity.generate("stranger"), timeout=5.0, local_host=address)
        self.counts["connections"] += 1
        return connection

    async def _ping_flood(self, port: int, address: str) -> None:
        from p2pcards.protocol import frames
        connection = await self._dial(port, address)
        try:
            for n in range(100_000):
                await connection.send(frames.encode("ping", {"n": n}))
                self.counts["frames"] += 1
                if not self.going():
                    return
        finally:
            connection.close()

    async def _silent(self, port: int, address: str) -> None:
        connection = await self._dial(port, address)
        try:
            while self.going():
                await connection.recv()  # returns only when the host closes it
        finally:
            connection.close()

    async def _half_frame(self, port: int, address: str) -> None:
        reader, writer = await asyncio.open_connection(HOST, port, local_addr=(address, 0))
        self.counts["connections"] += 1
        try:
            writer.write(b"\x00\x00")  # half a length header
            for _ in range(600):
                await writer.drain()
                if reader.at_eof() or not self.going():
                    return
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(1.0):
                        if not await reader.read(1):
                            return
                writer.write(b"\x00")  # one more byte a second
                self.counts["frames"] += 1
        finally:
            writer.close()

    async def _handshakes(self, port: int, address: str) -> None:
        connection = await self._dial(port, address)
        connection.close()


def attacker_main(args: argparse.Namespace) -> int:
    with contextlib.suppress(OSError):
        os.nice(args.nice)
    ports = [int(p) for p in args.ports.split(",") if p]
    counts = asyncio.run(Attacker(args.attacker, ports, args.seconds).run())
    print(json.dumps(counts), flush=True)
    return 0


# -- the table ---------------------------------------------------------------------------


def seat_args(seed: int) -> list[str]:
    """Every seat's options (the host adds the clock: join and resume take none)."""
    return ["--bot", "heuristic", "--trace", "--reconnect-window", "60", "--seed", str(seed)]


def start_host(home: Home, seed: int, bots: int) -> tuple[PeerProcess, int]:
    process = home.spawn("host", "topper", "--target", "500", "--deals", "0", "--no-advertise",
                         "--bind", HOST, "--port", "0", "--bots", str(bots), *seat_args(seed), "--deadline", "120")
    line = process.wait_for(lambda lines: next((line for line in lines if '"listening"' in line), None),
                            STARTUP, "listening line")
    return process, int(json.loads(line)["listening"])


def positions(process: PeerProcess, since: float, until: float) -> list[tuple[float, int]]:
    return [(e["t"], e["position"]) for e in process.events()
            if e.get("event") == "ActionApplied" and since <= e["t"] <= until]


def rate_of(points: list[tuple[float, int]], window: float) -> tuple[float, float]:
    """(transcript messages per second, game actions per second) over the window."""
    if len(points) < 2:
        return 0.0, 0.0
    (t0, p0), (t1, p1) = points[0], points[-1]
    progress = (p1 - p0) / (t1 - t0) if t1 > t0 else 0.0
    return progress, len(points) / window


async def try_join(port: int) -> bool:
    """A fresh key dials the lobby host, says hello and is listed in a lobby frame."""
    from p2pcards.net.connection import connect
    from p2pcards.net.errors import NetError
    from p2pcards.protocol import frames
    from p2pcards.protocol.envelope import PROTOCOL_VERSION
    from p2pcards.protocol.identity import Identity
    me = Identity.generate("newcomer")
    give_up = time.monotonic() + 15.0  # a player's patience
    for _ in range(50):
        left = give_up - time.monotonic()
        if left <= 0:
            return False
        try:
            async with asyncio.timeout(left):
                connection = await connect(HOST, port, me, timeout=5.0)
                try:
                    await connection.send(frames.encode("hello", {"v": PROTOCOL_VERSION, "name": "newcomer",
                                                                  "sid": b"", "have": 0, "bot": 0}))
                    while True:
                        frame = frames.decode(await connection.recv())
                        if frame.kind == "lobby" and any(p[0] == me.public_key for p in frame.body["players"]):
                            return True
                        if frame.kind == "reject":
                            return False
                finally:
                    connection.close()
        except (OSError, NetError, TimeoutError):
            await asyncio.sleep(0.2)
    return False


def scenario(attack: str | None, args: argparse.Namespace, root: Path, identities: list[Home]) -> dict[str, Any]:
    label = attack or "undisturbed"
    homes = make_homes(root / label, ("Hana", "Ivo", "Lobby"), identities=identities)
    started: list[PeerProcess] = []
    attackers: list[subprocess.Popen] = []
    result: dict[str, Any] = {"scenario": label}
    try:
        host, port = start_host(homes[0], args.seed, bots=2)
        started.append(host)
        lobby, lobby_port = start_host(homes[2], args.seed + 1, bots=0)
        started.append(lobby)
        joiner = homes[1].spawn("join", "--connect", f"{HOST}:{port}", *seat_args(args.seed))
        started.append(joiner)
        host.wait_event(HandReceived.__name__, STARTUP)
        if attack is not None:
            attackers.append(start_attacker(attack, port, args))
            time.sleep(1.0)  # let the attack build up
        t0 = time.time()
        time.sleep(args.window)
        t1 = time.time()
        progress, actions = rate_of(positions(host, t0, t1), args.window)
        result.update(progress=progress, actions=actions)
        if attack is not None:
            # The lobby host is another machine: attacked from now on, not while measuring.
            attackers.append(start_attacker(attack, lobby_port, args))
            time.sleep(1.0)
        result["join_ok"] = asyncio.run(try_join(lobby_port))
        result["resume_ok"] = resume(homes[1], joiner, host, started, args.seed)
        if host.poll() is not None:
            result["note"] = f"host ended: {host.summary}"
    finally:
        counts = [stop_attacker(a) for a in attackers]
        if attackers:
            result["attacker"] = counts[0]
        for process in started:
            process.stop()
    return result


def start_attacker(attack: str, port: int, args: argparse.Namespace) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, __file__, "--attacker", attack, "--ports", str(port),
         "--seconds", str(args.window + 60), "--nice", str(args.nice)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=ROOT)


def stop_attacker(attacker: subprocess.Popen) -> dict[str, int] | None:
    """SIGTERM: it stops its workers and prints what it did."""
    attacker.terminate()
    try:
        out, _ = attacker.communicate(timeout=15)
        return json.loads(out.strip().splitlines()[-1]) if out.strip() else None
    except (subprocess.TimeoutExpired, ValueError):
        attacker.kill()
        attacker.communicate(timeout=5)
        return None


def resume(home: Home, joiner: PeerProcess, host: PeerProcess, started: list[PeerProcess], seed: int) -> bool:
    """SIGKILL the remote player; ``p2pcards resume``; ok once it reconnected and the table went on."""
    joiner.kill()
    sessions = sorted({s["session"] for s in home.saved()})
    if len(sessions) != 1:
        return False
    killed_at = max((p for _, p in positions(host, 0, time.time() + 1)), default=0)
    again = home.spawn("resume", sessions[0], *seat_args(seed))
    started.append(again)
    try:
        again.wait_for(lambda lines: any('"LinkUp"' in line for line in lines), 20, "LinkUp")
        again.wait_for(lambda lines: any(e.get("event") == "ActionApplied" and e.get("position", 0) > killed_at
                                         for e in again.events()), 30, "progress after resuming")
    except Exception:  # noqa: BLE001 - a failed resume is a figure, not a crash
        return False
    return True


def merge(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One scenario's rounds: median rates; join and resume ok only if ok every time."""
    import statistics
    merged = dict(rows[-1])
    merged["progress"] = statistics.median(r["progress"] for r in rows)
    merged["actions"] = statistics.median(r["actions"] for r in rows)
    merged["join_ok"] = all(r["join_ok"] for r in rows)
    merged["resume_ok"] = all(r["resume_ok"] for r in rows)
    merged["rounds"] = [round(r["progress"], 1) for r in rows]
    return merged


def main(argv: list[str] | None = None) -> int:
    if os.name != "posix":
        sys.exit("bench_admission.py needs Linux or macOS: it stops workers with SIGTERM, kills a peer with SIGKILL")
    args = parse_args(argv)
    if args.attacker:
        return attacker_main(args)
    attacks = [a for a in args.attacks.split(",") if a]
    unknown = set(attacks) - set(ATTACKS)
    if unknown:
        raise SystemExit(f"unknown attacks: {sorted(unknown)}")
    root = Path(tempfile.mkdtemp(prefix="p2pcards-admission-"))
    unit = ScalarmultUnit()
    try:
        identities = make_homes(root / "identities", ("Hana", "Ivo", "Lobby"))
        runs: dict[str, list[dict[str, Any]]] = {}
        with unit.sampling():
            for round_ in range(max(1, args.rounds)):
                for attack in [None, *attacks]:
                    row = scenario(attack, args, root / f"round{round_}", identities)
                    runs.setdefault(row["scenario"], []).append(row)
        rows = [merge(found) for found in runs.values()]
    finally:
        shutil.rmtree(root, ignore_errors=True)
    base = rows[0]["progress"] or None  # the undisturbed row
    for row in rows:
        row["percent"] = None if base is None else 100.0 * row["progress"] / base
    report = with_units({"window_s": args.window, "attacker_nice": args.nice, "rows": rows,
                         "unit": unit.describe()}, unit.seconds)
    if args.json:
        print(json.dumps(report))
        return finish(report, "bench_admission.py")
    print(unit_line(unit))
    print(f"Admission under attack: host (own seat + 2 bots) and one remote player, Topper, "
          f"loopback; window {args.window:.0f} s; {max(1, args.rounds)} round(s), medians; "
          f"attacker niced +{args.nice}; goal >= {GOAL:.0%}")
    print(f"{'scenario':16} {'msgs/s':>8} {'actions/s':>9} {'% undisturbed':>13} {'join ok':>7} "
          f"{'resume ok':>9}  attacker (connections, refused, frames)")
    for row in rows:
        pct = "n/a" if row["percent"] is None else f"{row['percent']:.0f} %"
        counts = row.get("attacker")
        told = "" if not counts else f"{counts['connections']}, {counts['refused']}, {counts['frames']}"
        print(f"{row['scenario']:16} {row['progress']:8.1f} {row['actions']:9.2f} {pct:>13} "
              f"{'yes' if row['join_ok'] else 'NO':>7} {'yes' if row['resume_ok'] else 'NO':>9}  {told}"
              + (f"  rounds {row['rounds']}" if len(row["rounds"]) > 1 else "")
              + (f"  ({row['note']})" if row.get("note") else ""))
    return finish(report, "bench_admission.py")


if __name__ == "__main__":
    sys.exit(main())
