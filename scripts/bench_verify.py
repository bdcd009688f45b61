#!/usr/bin/env python3
"""Benchmark ``verify`` of a saved Bluff match against the libsodium floor of its checks.

The transcript is a seeded bot match played here by ``p2pcards play`` (the
same bytes at every run with the same ``--deals`` and ``--seed``), or the
file given with ``--transcript``. It is verified in this process as
``p2pcards verify`` does (:func:`p2pcards.protocol.verify.verify_transcript`),
with one worker and with one per core, and, for comparison in the same run,
replayed one proof at a time with every point validated as it is decoded, as
before (:func:`p2pcards.protocol.verify.replay_strictly`); the three interleaved,
``--repeat`` times each: CPU seconds (every thread) and wall seconds, the
median of each kept.

Two floors, each the libsodium operations of a piece of work counted (every
signature, every proof; see ``scripts/_floor.py``) times each operation's cost
timed here, in the same run:

* the per-proof floor: the operations of checking each proof alone, every
  distinct received point validated once as it is decoded (what the
  construction cost one proof at a time, as checked before);
* the batched floor: the operations ``verify`` makes, the shuffle proofs'
  equations checked together and points validated by the multiplications
  that use them (CRYPTO.md §10, "Verifying many shuffles at once").

The wall floor on ``C`` cores is a CPU floor over ``C``. Printed: each figure in
seconds and in units (one variable-base scalar multiplication timed here), and
measured over each floor. Goal for a 20-deal match: ``verify`` within 1.1x the
per-proof floor, as the issue set it before batching; the batched floor is the
lower bar left.

Run with the project's interpreter: ``.venv/bin/python scripts/bench_verify.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _figures import ScalarmultUnit, finish, fmt, unit_line, with_units  # noqa: E402
from _floor import counted, describe, op_units, operations_line  # noqa: E402

from p2pcards.crypto.group import DEFERRAL, VALID_POINTS  # noqa: E402
from p2pcards.net.journal import read_records  # noqa: E402
from p2pcards.protocol.verify import (  # noqa: E402
    Report,
    default_workers,
    replay_strictly,
    verify_transcript,
)
from tests.system.harness import make_homes  # noqa: E402

GOAL_OVER_FLOOR = 1.1


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--transcript", type=Path, default=None,
                        help="a saved transcript to verify (default: play a seeded Bluff match)")
    parser.add_argument("--deals", type=int, default=20, help="deals of the match played (default 20)")
    parser.add_argument("--seed", type=int, default=1, help="the played match's seed (default 1)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of each case, interleaved; medians kept (default 3)")
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


def timed(work: Callable[[], Report]) -> dict[str, Any]:
    """One verification as a fresh process makes it (no point validated before)."""
    VALID_POINTS.clear()
    began, cpu = time.perf_counter(), os.times()
    report = work()
    wall, after = time.perf_counter() - began, os.times()
    used = sum(getattr(after, f) - getattr(cpu, f)
               for f in ("user", "system", "children_user", "children_system"))
    if not report.ok:
        raise SystemExit(f"the transcript does not verify: {report.problem}")
    return {"wall_s": wall, "cpu_s": used}


def as_before(work: Callable[[], Report]) -> Report:
    """``work`` validating every point as it is decoded (no point's validation left to
    the multiplication that uses it): the construction as it was checked before."""
    DEFERRAL.enabled = False
    try:
        return work()
    finally:
        DEFERRAL.enabled = True


def floor_of(work: Callable[[], Report], costs: dict[str, float], unit: ScalarmultUnit,
             ) -> dict[str, Any]:
    VALID_POINTS.clear()
    with counted() as counts:
        work()
    return describe(counts, costs, unit.seconds)


def measure(messages: list[bytes], repeat: int, unit: ScalarmultUnit) -> dict[str, Any]:
    """Counts, floors and timed runs of verifying ``messages`` (see the module's doc)."""
    cores = default_workers()
    cases: dict[str, tuple[int, Callable[[], Report]]] = {
        "one_by_one": (1, lambda: as_before(lambda: replay_strictly(messages))),
        "verify_1": (1, lambda: verify_transcript(messages, workers=1)),
        f"verify_{max(2, cores)}": (max(2, cores),
                                    lambda: verify_transcript(messages, workers=max(2, cores))),
    }
    report = verify_transcript(messages, workers=1)
    samples: dict[str, list[dict[str, Any]]] = {name: [] for name in cases}
    for _ in range(max(1, repeat)):
        for name, (_, work) in cases.items():
            unit.sample()
            samples[name].append(timed(work))
    unit.sample()
    costs = op_units()
    floors = {"per_proof": floor_of(cases["one_by_one"][1], costs, unit),
              "batched": floor_of(cases["verify_1"][1], costs, unit)}
    runs: dict[str, dict[str, Any]] = {}
    for name, (workers, _) in cases.items():
        cpu = statistics.median(s["cpu_s"] for s in samples[name])
        wall = statistics.median(s["wall_s"] for s in samples[name])
        on = min(workers, cores)
        runs[name] = {"workers": workers, "cpu_s": cpu, "wall_s": wall,
                      "cpu_over": {k: cpu / f["cpu_floor_s"] for k, f in floors.items()},
                      "wall_over": {k: wall / (f["cpu_floor_s"] / on) for k, f in floors.items()}}
    return {"transcript": {"messages": len(messages), "bytes": sum(len(m) for m in messages),
                           "deals": report.deals, "shuffles": report.shuffles,
                           "shares": report.shares, "reveals": report.reveals,
                           "actions": report.actions},
            "cores": cores, "repeat": max(1, repeat), "floors": floors, "runs": runs}


def print_human(found: dict[str, Any], unit: ScalarmultUnit) -> None:
    t = found["transcript"]
    print(f"== verify of a saved Bluff match: {t['messages']} messages ({t['bytes']:,} bytes), "
          f"{t['deals']} deals, {t['shuffles']} shuffles, {t['shares']} shares, "
          f"{t['reveals']} reveals, {t['actions']} actions")
    print(f"  {unit_line(unit)}; load average {os.getloadavg()[0]:.2f}; medians of "
          f"{found['repeat']} interleaved runs")
    names = {"per_proof": "per-proof floor (each proof alone, each point validated)",
             "batched": "batched floor (what verify does)"}
    for key, floor in found["floors"].items():
        print(f"  {names[key]}: {fmt(floor['cpu_floor_s'], unit)} CPU")
        print(f"    {operations_line(floor['operations'])}")
    costs = found["floors"]["batched"]["cost_units"]
    print("  each operation in units: " + ", ".join(f"{op} {cost:.2f}" for op, cost in costs.items()))
    for name, run in found["runs"].items():
        label = ("one proof at a time, every point validated on receipt (as before)"
                 if name == "one_by_one"
                 else f"verify, {run['workers']} worker(s)")
        print(f"  {label}: CPU {fmt(run['cpu_s'], unit)}, wall {fmt(run['wall_s'], unit)}")
        print(f"    CPU {run['cpu_over']['per_proof']:.2f}x the per-proof floor "
              f"(goal {GOAL_OVER_FLOOR}x), {run['cpu_over']['batched']:.2f}x the batched floor; "
              f"wall on {min(run['workers'], found['cores'])} core(s) "
              f"{run['wall_over']['per_proof']:.2f}x / {run['wall_over']['batched']:.2f}x")


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
    found["goal_cpu_over_per_proof_floor"] = GOAL_OVER_FLOOR
    if args.json:
        print(json.dumps(found))
    else:
        print_human(found, unit)
    return finish(found, "bench_verify.py")


if __name__ == "__main__":
    sys.exit(main())
