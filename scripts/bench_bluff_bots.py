#!/usr/bin/env python3
"""Benchmark the Bluff bots' decisions: this tree's code against a git revision's, in one run.

Both versions decide the same seeded positions: every decision of seat 0
in ``--seeds`` matches of four ``heuristic`` bots (a kind both versions
share unchanged, whose choices are the ones played, so the positions are
the same whatever the measured bots choose). At each, one bot of each
measured kind (``--kinds``, default ``search`` at ``normal`` and
``counter``), kept for the whole match as a table keeps it (a learning bot
sees the views of its seat in order), chooses from seat 0's view; the CPU
time of that choice is recorded. Each version runs in its own process: the
reference is the ``p2pcards`` package of ``--reference`` (default ``main``)
extracted from git into a temporary directory. Prints, per version and
kind, the decisions' CPU time (median, p95, max) and decisions per CPU
second. The bots' choices differ between versions when their play changed:
only the times are compared.

CPU time is what the machine's load does not count, but a loaded machine
still slows a run (caches, frequency): compare the two versions' figures of
one run, and ``--repeat N`` runs each version N times, alternately, keeping
each decision's least CPU time.

Usage: ``python scripts/bench_bluff_bots.py [--reference REV] [--kinds search,counter]
[--seeds N] [--repeat N] [--json]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from typing import Any

from bench_topper_search import REPO, extract  # the same git extraction of the reference


def measure(root: str, kinds: Sequence[str], seeds: int) -> dict[str, Any]:
    """Decide every position with the ``p2pcards`` found at ``root``: CPU times per kind."""
    sys.path.insert(0, root)
    import p2pcards
    from p2pcards.bots.base import shuffled_faces
    from p2pcards.bots.registry import make_bot_factory
    from p2pcards.cards import FULL_DECK
    from p2pcards.rules.bluff import BluffConfig, BluffState

    where = os.path.dirname(os.path.dirname(os.path.abspath(p2pcards.__file__)))
    if os.path.realpath(where) != os.path.realpath(root):
        raise SystemExit(f"bench: p2pcards came from {where}, not {root}")
    times: dict[str, list[float]] = {kind: [] for kind in kinds}
    for seed in range(seeds):
        rng = random.Random(seed)
        players = [make_bot_factory("bluff", "heuristic")(random.Random(seed * 4 + s)) for s in range(4)]
        measured = [make_bot_factory("bluff", *kind.split(":"))(random.Random(seed)) for kind in kinds]
        state = BluffState.new(BluffConfig(), seed % 4)
        for _ in range(100_000):
            if state.outcome is not None:
                break
            if state.awaiting_deal:
                state.deal(shuffled_faces(FULL_DECK, rng))
                continue
            seat = state.to_act
            view = state.view(seat)
            if seat == 0 and state.forced_action() is None:
                for kind, bot in zip(kinds, measured, strict=True):
                    mine = view.copy()
                    started = time.thread_time()
                    bot.choose(mine)
                    times[kind].append(time.thread_time() - started)
            state.apply(players[seat].choose(view))
    return {"root": where, "times": times}


def run_child(root: str, args: argparse.Namespace) -> dict[str, Any]:
    command = [sys.executable, os.path.abspath(__file__), "--measure", root, "--kinds", args.kinds,
               "--seeds", str(args.seeds)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"bench: measuring {root} failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def least(runs: Sequence[dict[str, Any]], kind: str) -> list[float]:
    """Each decision's least CPU time over ``runs`` (the positions are the same in each)."""
    return [min(values) for values in zip(*(run["times"][kind] for run in runs), strict=True)]


def summary(cpu: Sequence[float]) -> dict[str, float]:
    ordered = sorted(cpu)
    return {
        "decisions": len(ordered),
        "median_ms": 1000 * statistics.median(ordered),
        "p95_ms": 1000 * ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))],
        "max_ms": 1000 * ordered[-1],
        "per_second": len(ordered) / sum(ordered) if sum(ordered) > 0 else float("inf"),
    }


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", default="main", help="git revision to compare with (default main)")
    parser.add_argument("--kinds", default="search:normal,counter",
                        help="bot kinds to time, comma-separated (kind:LEVEL for a search)")
    parser.add_argument("--seeds", type=int, default=3, help="seeded matches (default 3)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs of each version, alternately; each decision's least CPU counts")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--measure", metavar="ROOT", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    kinds = [kind.strip() for kind in args.kinds.split(",") if kind.strip()]
    if args.measure:
        json.dump(measure(args.measure, kinds, args.seeds), sys.stdout)
        return 0
    runs: dict[str, list[dict[str, Any]]] = {"reference": [], "current": []}
    with tempfile.TemporaryDirectory(prefix="bench-bluff-") as tmp:
        roots = {"reference": extract(args.reference, tmp), "current": os.path.abspath(REPO)}
        for _ in range(args.repeat):  # alternately, so both see the same spells of load
            for name, root in roots.items():
                runs[name].append(run_child(root, args))
    report = {"reference": args.reference, "seeds": args.seeds, "repeat": args.repeat,
              "figures": {kind: {name: summary(least(runs[name], kind)) for name in runs}
                          for kind in kinds}}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"Bluff bots' decisions at seat 0 of {args.seeds} seeded matches of heuristic bots, "
          f"least CPU over {args.repeat} run(s) each")
    print(f"{'bot':<16}{'code':<20}{'decisions':>10}{'median ms':>10}{'p95 ms':>9}{'max ms':>9}"
          f"{'dec/s':>9}")
    for kind, by_code in report["figures"].items():
        for name, label in (("reference", f"reference {args.reference}"), ("current", "this tree")):
            fig = by_code[name]
            print(f"{kind:<16}{label[:19]:<20}{fig['decisions']:>10}{fig['median_ms']:>10.2f}"
                  f"{fig['p95_ms']:>9.2f}{fig['max_ms']:>9.2f}{fig['per_second']:>9.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
