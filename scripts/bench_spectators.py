#!/usr/bin/env python3
"""Benchmark a table's pace under spectators flooding the host with ``sync``.

Four ``p2pcards`` processes on loopback play a bot match, as
``scripts/bench_table.py`` runs them (host and three joiners, direct links).
The action rate is the host's traced ``ActionApplied`` events per second, from
its first action to ``MatchCompleted``. Each match is played twice, in turn:

- undisturbed;
- with ``--flooders`` spectators (default 8, the table's default number of
  places) started from this process once the host traces ``TableStarted``:
  each says a spectator's ``hello`` and then asks ``sync`` for the last 200
  messages every ``--every`` milliseconds, and when the host closes its link
  it dials again at once (as a determined flooder would), until the match ends.

Printed: both rates, their ratio (target: at least 70 %), and how many sync
frames the flooders sent, how many messages they were answered and how often
they were closed. Bounded: each match has a timeout, and the flood stops with it.

Run with the project's interpreter: ``.venv/bin/python scripts/bench_spectators.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _figures import ScalarmultUnit, finish, unit_line, with_units  # noqa: E402

from p2pcards.errors import P2PCardsError  # noqa: E402
from p2pcards.net.connection import connect  # noqa: E402
from p2pcards.protocol import frames  # noqa: E402
from p2pcards.protocol.envelope import PROTOCOL_VERSION  # noqa: E402
from p2pcards.protocol.events import MatchCompleted  # noqa: E402
from p2pcards.protocol.identity import Identity  # noqa: E402
from p2pcards.protocol.relay_outputs import TableStarted  # noqa: E402
from tests.system.harness import STARTUP_TIMEOUT, ProcessTable, TablePlan, make_homes  # noqa: E402
from tests.system.scenarios import SEAT_NAMES  # noqa: E402

GOAL_RATIO = 0.70
MATCH_TIMEOUT = 900.0
LAST = 200  # messages each flooding sync asks for


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=("bluff", "topper"), default="topper")
    parser.add_argument("--target", type=int, default=10, help="Topper's target (default 10)")
    parser.add_argument("--deals", type=int, default=2, help="Bluff's deals (default 2)")
    parser.add_argument("--runs", type=int, default=1, help="pairs of matches (default 1)")
    parser.add_argument("--flooders", type=int, default=8)
    parser.add_argument("--every", type=float, default=3.0, help="ms between a flooder's syncs")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser.parse_args(argv)


@dataclass
class FloodCount:
    syncs: int = 0
    answered: int = 0
    closed: int = 0
    dials: int = 0


async def _read(connection: Any, heard: list[int], count: FloodCount) -> None:
    """Count the messages the host sends this flooder, until its link closes."""
    while True:
        frame = frames.decode(await connection.recv())
        if frame.kind == "msg":
            heard[0] += 1
            count.answered += 1


async def _flooder(port: int, count: FloodCount, stop: asyncio.Event, every: float) -> None:
    """One spectator that asks for the last ``LAST`` messages every ``every`` seconds."""
    identity = Identity.generate("flood")
    while not stop.is_set():
        count.dials += 1
        try:
            connection = await connect("127.0.0.1", port, identity, timeout=5.0)
        except (OSError, TimeoutError, P2PCardsError):
            await asyncio.sleep(0.05)
            continue
        heard = [0]
        reader = asyncio.create_task(_read(connection, heard, count))
        try:
            await connection.send(frames.encode("hello", {
                "v": PROTOCOL_VERSION, "name": "flood", "sid": b"", "have": 0, "bot": 0, "watch": 1}))
            while not stop.is_set() and not reader.done():
                await connection.send(frames.encode("sync", {"have": max(0, heard[0] - LAST)}))
                count.syncs += 1
                await asyncio.sleep(every)
        except P2PCardsError:
            pass
        finally:
            reader.cancel()
            await asyncio.gather(reader, return_exceptions=True)
            connection.close()
        if not stop.is_set():
            count.closed += 1


def _flood(port: int, n: int, every: float, stop: threading.Event, count: FloodCount) -> None:
    async def run() -> None:
        done = asyncio.Event()
        tasks = [asyncio.create_task(_flooder(port, count, done, every)) for _ in range(n)]
        while not stop.is_set():
            await asyncio.sleep(0.05)
        done.set()
        await asyncio.wait(tasks, timeout=10)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(run())


def _settings(args: argparse.Namespace) -> tuple[str, ...]:
    return ("--target", str(args.target)) if args.game == "topper" else ("--deals", str(args.deals))


def match(args: argparse.Namespace, root: Path, flooders: int) -> dict[str, Any]:
    """One match; its host's action rate, and what the flooders did."""
    plan = TablePlan(args.game, seed=None, deadline=120.0, settings=_settings(args))
    homes = make_homes(root, SEAT_NAMES)
    table = ProcessTable(plan, homes)
    count, stop = FloodCount(), threading.Event()
    flood: threading.Thread | None = None
    try:
        host = table.start_host()
        for index in range(1, 4):
            table.add_joiner(index, plan.join_args(f"{plan.bind}:{table.port}"))
        if flooders:
            host.wait_event(TableStarted.__name__, STARTUP_TIMEOUT)
            flood = threading.Thread(target=_flood, args=(table.port, flooders, args.every / 1000,
                                                          stop, count))
            flood.start()
        codes = table.wait(timeout=MATCH_TIMEOUT)
    finally:
        stop.set()
        if flood is not None:
            flood.join(timeout=30)
        table.stop()
    if codes != [0, 0, 0, 0]:
        raise RuntimeError(f"exit codes {codes}: {[p.summary for p in table.processes]}")
    events = table.processes[0].events()
    actions = [e["t"] for e in events if e.get("event") == "ActionApplied"]
    ended = next(e["t"] for e in events if e.get("event") == MatchCompleted.__name__)
    span = ended - actions[0]
    return {"actions": len(actions), "span_s": span, "rate": len(actions) / span,
            "flood": vars(count)}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    plain, flooded = [], []
    unit = ScalarmultUnit()
    with tempfile.TemporaryDirectory(prefix="bench-spectators-") as tmp, unit.sampling():
        for run in range(args.runs):
            plain.append(match(args, Path(tmp) / f"plain{run}", 0))
            flooded.append(match(args, Path(tmp) / f"flood{run}", args.flooders))
    rate_plain = sum(m["actions"] for m in plain) / sum(m["span_s"] for m in plain)
    rate_flood = sum(m["actions"] for m in flooded) / sum(m["span_s"] for m in flooded)
    report = {"game": args.game, "settings": list(_settings(args)), "flooders": args.flooders,
              "every_ms": args.every, "undisturbed_actions_per_s": rate_plain,
              "flooded_actions_per_s": rate_flood, "ratio": rate_flood / rate_plain,
              "goal_ratio": GOAL_RATIO, "matches": {"undisturbed": plain, "flooded": flooded},
              "unit": unit.describe()}
    report = with_units(report, unit.seconds)
    if args.json:
        print(json.dumps(report))
        return finish(report, "bench_spectators.py")
    syncs = sum(m["flood"]["syncs"] for m in flooded)
    answered = sum(m["flood"]["answered"] for m in flooded)
    closed = sum(m["flood"]["closed"] for m in flooded)
    dials = sum(m["flood"]["dials"] for m in flooded)
    print(f"{args.game} {' '.join(_settings(args))}, {args.runs} pair(s) of matches; {unit_line(unit)}")
    print(f"undisturbed: {rate_plain:.1f} actions/s "
          f"({sum(m['actions'] for m in plain)} actions)")
    print(f"{args.flooders} spectators flooding sync every {args.every:g} ms: {rate_flood:.1f} "
          f"actions/s ({sum(m['actions'] for m in flooded)} actions)")
    print(f"ratio: {100 * rate_flood / rate_plain:.0f} % (goal: at least {100 * GOAL_RATIO:.0f} %)")
    print(f"flooders: {syncs} syncs sent, {answered} messages received, "
          f"{closed} links closed by the host, {dials} dials")
    return finish(report, "bench_spectators.py")


if __name__ == "__main__":
    raise SystemExit(main())
