#!/usr/bin/env python3
"""Benchmark ``verify`` of a saved Bluff match against the libsodium floor of its checks.

The transcript is a seeded bot match played here by ``p2pcards play`` (the
same bytes at every run with the same ``--deals`` and ``--seed``), or the
file given with ``--transcript``. It is verified in this process as
``p2pcards verify`` does (:func:`p2pcards.protocol.verify.verify_transcript`),
with one worker and with one per core, each ``--repeat`` times (the fastest
run kept): wall and CPU seconds (worker processes included).

The floor: every libsodium operation a one-worker verification makes is
counted (every signature, every proof, every distinct received point
validated once; see ``scripts/_floor.py``) and each operation's cost is timed
here, in the same run. The CPU floor is their sum; the wall floor on ``C``
cores is the CPU floor over ``C`` (the checks are independent, so perfectly
spread). Printed: each figure in seconds and in units (one variable-base
scalar multiplication timed here), and measured over floor. Goal for a
20-deal match: wall with every core within 1.1x the wall floor.

Run with the project's interpreter: ``.venv/bin/python scripts/bench_verify.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _figures import ScalarmultUnit, finish, fmt, unit_line, with_units  # noqa: E402
from _floor import counted, describe, op_units, operations_line  # noqa: E402

from p2pcards.crypto.group import VALID_POINTS  # noqa: E402
from p2pcards.net.journal import read_records  # noqa: E402
from p2pcards.protocol.verify import default_workers, verify_transcript  # noqa: E402
from tests.system.harness import make_homes  # noqa: E402

GOAL_OVER_FLOOR = 1.1


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--transcript", type=Path, default=None,
                        help="a saved transcript to verify (default: play a seeded Bluff match)")
    parser.add_argument("--deals", type=int, default=20, help="deals of the match played (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="the played match's seed (default 1)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="verify this many times per worker count, keep the fastest (default 3)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser.parse_args(argv)


def play_match(deals: int, seed: int, root: Path) -> bytes:
    """A seeded Bluff match of ``deals`` deals between bots, played by ``p2pcards play``:
    the host's own record of it."""
    home = make_homes(root, ("Hana",))[0]
    done = home.run("play", "bluff", "--deals", str(deals), "--seed", str(seed), "--autoplay",
                    "heuristic", "--bot-kind", "heuristic", "--plain", timeout=1800)
    if done.returncode != 0:
        raise SystemExit(f"play failed ({done.returncode}): {done.stderr[-400:]}")
    mine = [p for p in home.transcripts() if p.parent.name != "relay"]
    return mine[0].read_bytes()


def timed_verify(messages: list[bytes], workers: int) -> dict[str, Any]:
    """One verification as a fresh process makes it (no point validated before)."""
    VALID_POINTS.clear()
    began, cpu = time.perf_counter(), os.times()
    report = verify_transcript(messages, workers=workers)
    wall, after = time.perf_counter() - began, os.times()
    used = sum(getattr(after, f) - getattr(cpu, f)
               for f in ("user", "system", "children_user", "children_system"))
    if not report.ok:
        raise SystemExit(f"the transcript does not verify: {report.problem}")
    return {"wall_s": wall, "cpu_s": used, "report": report}


def measure(messages: list[bytes], repeat: int, unit: ScalarmultUnit) -> dict[str, Any]:
    """Counts, floor and timed runs of verifying ``messages`` (see the module's doc)."""
    VALID_POINTS.clear()
    with counted() as counts:
        report = verify_transcript(messages, workers=1)
    costs = op_units()
    cores = default_workers()
    runs: dict[str, dict[str, Any]] = {}
    for workers in sorted({1, max(2, cores)}):
        best = None
        for _ in range(max(1, repeat)):
            unit.sample()
            run = timed_verify(messages, workers)
            if best is None or run["wall_s"] < best["wall_s"]:
                best = run
        assert best is not None
        runs[str(workers)] = {"workers": workers, "wall_s": best["wall_s"], "cpu_s": best["cpu_s"]}
    unit.sample()
    floor = describe(counts, costs, unit.seconds)  # in the run's unit, now that it is measured
    for run in runs.values():
        run["wall_floor_s"] = floor["cpu_floor_s"] / min(run["workers"], cores)
        run["wall_over_floor"] = run["wall_s"] / run["wall_floor_s"]
        run["cpu_over_floor"] = run["cpu_s"] / floor["cpu_floor_s"]
    return {"transcript": {"messages": len(messages), "bytes": sum(len(m) for m in messages),
                           "deals": report.deals, "shuffles": report.shuffles,
                           "shares": report.shares, "reveals": report.reveals,
                           "actions": report.actions},
            "cores": cores, "floor": floor, "runs": runs}


def print_human(found: dict[str, Any], unit: ScalarmultUnit) -> None:
    t = found["transcript"]
    print(f"== verify of a saved Bluff match: {t['messages']} messages ({t['bytes']:,} bytes), "
          f"{t['deals']} deals, {t['shuffles']} shuffles, {t['shares']} shares, "
          f"{t['reveals']} reveals, {t['actions']} actions")
    print(f"  {unit_line(unit)}; load average {os.getloadavg()[0]:.2f}")
    floor = found["floor"]
    print(f"  libsodium operations: {operations_line(floor['operations'])}")
    print("  each in units: " + ", ".join(f"{op} {cost:.2f}" for op, cost in floor["cost_units"].items()))
    print(f"  CPU floor {fmt(floor['cpu_floor_s'], unit)}")
    for run in found["runs"].values():
        print(f"  {run['workers']} worker(s): wall {fmt(run['wall_s'], unit)}, "
              f"CPU {fmt(run['cpu_s'], unit)}; floor on {min(run['workers'], found['cores'])} "
              f"core(s) {fmt(run['wall_floor_s'], unit)}: wall {run['wall_over_floor']:.2f}x the "
              f"floor, CPU {run['cpu_over_floor']:.2f}x (goal {GOAL_OVER_FLOOR}x with every core)")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    unit = ScalarmultUnit()
    if args.transcript is not None:
        messages = read_records(args.transcript)
    else:
        with tempfile.TemporaryDirectory(prefix="p2pcards-bench-verify-") as root:
            path = Path(root) / "transcript"
            path.write_bytes(play_match(args.deals, args.seed, Path(root)))
            messages = read_records(path)
    unit.sample()
    found = measure(messages, args.repeat, unit)
    found["unit"] = unit.describe()
    found["load_average"] = os.getloadavg()[0]
    found = with_units(found, unit.seconds)
    found["goal_wall_over_floor"] = GOAL_OVER_FLOOR
    if args.json:
        print(json.dumps(found))
    else:
        print_human(found, unit)
    return finish(found, "bench_verify.py")


if __name__ == "__main__":
    sys.exit(main())
