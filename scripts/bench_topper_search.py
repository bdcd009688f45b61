#!/usr/bin/env python3
"""Benchmark the Topper search's decisions: this tree's code against a git revision's, in one run.

Both versions decide the same seeded positions (tests/bots/seeded_matches.py:
every decision of the first ``--steps`` steps of ``--seeds`` matches of uniformly
random legal actions, the positions of tests/bots/test_topper_search_decisions.py
among them), each in
its own process: the reference is the ``p2pcards`` package of ``--reference``
(default ``main``) extracted from git into a temporary directory. Prints, per
version, the decisions' CPU time of the thinking thread (median, p95, max),
decisions per CPU second, and the total CPU of bidding and trump decisions
and of play decisions apart, then the speed-up, and whether both versions
chose the same actions and left their random generators in the same state
(they must, for arena figures measured with one to hold for the other).

The ceilings are out of reach unless ``--keep-ceilings``, so both versions do
the level's whole budget. CPU time is what the machine's load does not
count, but a loaded machine still slows a run (caches, frequency): compare
the two versions' figures of one run, not figures of different runs, and
``--repeat N`` runs each version N times, alternately, keeping each
decision's least CPU time.

Usage: ``python scripts/bench_topper_search.py [--reference REV] [--level easy|normal|hard]
[--seeds N] [--steps N] [--repeat N] [--json]``
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Sequence
from typing import Any

from _figures import ScalarmultUnit, finish, unit_line, with_units

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def measure(root: str, level: str, seeds: int, steps: int, keep_ceilings: bool) -> dict[str, Any]:
    """Decide every position with the ``p2pcards`` found at ``root``: choices, draws, CPU times."""
    sys.path.insert(0, root)
    sys.path.append(REPO)  # the positions' maker, after root: root's p2pcards makes them
    import p2pcards
    from p2pcards.bots.registry import make_bot_factory
    from p2pcards.rules.topper import Phase
    from tests.bots.seeded_matches import seeded_positions

    where = os.path.dirname(os.path.dirname(os.path.abspath(p2pcards.__file__)))
    if os.path.realpath(where) != os.path.realpath(root):
        raise SystemExit(f"bench: p2pcards came from {where}, not {root}")
    make = make_bot_factory("topper", "search", level)
    decisions = []
    for seed in range(seeds):
        for step, state in seeded_positions(seed, steps):
            view = state.view(state.to_act)
            if len(list(view.legal_actions())) > 1:
                bot_rng = random.Random(1000 + step)
                bot = make(bot_rng)
                if not keep_ceilings:
                    bot.ceiling = bot.wall_ceiling = 3600.0
                started = time.thread_time()
                action = bot.choose(view)
                cpu = time.thread_time() - started
                decisions.append({"seed": seed, "step": step, "play": state.phase is Phase.PLAY,
                                  "action": repr(action), "draw": bot_rng.random(), "cpu": cpu})
    return {"root": where, "decisions": decisions}


def run_child(root: str, args: argparse.Namespace) -> dict[str, Any]:
    command = [sys.executable, os.path.abspath(__file__), "--measure", root, "--level", args.level,
               "--seeds", str(args.seeds), "--steps", str(args.steps)]
    if args.keep_ceilings:
        command.append("--keep-ceilings")
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"bench: measuring {root} failed:\n{done.stderr}")
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def resolve(revision: str) -> str:
    """The commit ``revision`` names in this repository; a precise exit naming it when git
    cannot resolve it (or is missing), rather than a traceback of a failed pipe."""
    try:
        done = subprocess.run(["git", "-C", REPO, "rev-parse", "--verify", "--quiet",
                               "--end-of-options", f"{revision}^{{commit}}"],
                              capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise SystemExit(f"bench: git is not installed: cannot read the reference revision "
                         f"{revision!r}") from None
    if done.returncode != 0:
        raise SystemExit(f"bench: git cannot resolve the reference revision {revision!r} "
                         f"to a commit of {os.path.abspath(REPO)}")
    return done.stdout.strip()


def extract(revision: str, into: str) -> str:
    """The ``p2pcards`` package of ``revision``, written under ``into`` (its import root):
    ``git archive REV p2pcards``, untarred (data only: no links out of ``into``)."""
    commit = resolve(revision)
    done = subprocess.run(["git", "-C", REPO, "archive", commit, "p2pcards"],
                          capture_output=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"bench: git archive {revision} p2pcards failed: "
                         f"{done.stderr.decode(errors='replace').strip()}")
    archive = done.stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def fastest(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One run of decisions with each decision's least CPU time over ``runs`` (which must
    have decided alike: a seeded search repeats itself)."""
    first = runs[0]["decisions"]
    for other in runs[1:]:
        if [(d["action"], d["draw"]) for d in other["decisions"]] != [(d["action"], d["draw"]) for d in first]:
            raise SystemExit("bench: one version decided differently in two runs")
    decisions = [dict(d, cpu=min(run["decisions"][i]["cpu"] for run in runs)) for i, d in enumerate(first)]
    return {"root": runs[0]["root"], "decisions": decisions}


def summary(decisions: Sequence[dict[str, Any]]) -> dict[str, float]:
    cpu = sorted(d["cpu"] for d in decisions)
    return {
        "decisions": len(cpu),
        "median_ms": 1000 * statistics.median(cpu),
        "p95_ms": 1000 * cpu[min(len(cpu) - 1, round(0.95 * (len(cpu) - 1)))],
        "max_ms": 1000 * cpu[-1],
        "per_second": len(cpu) / sum(cpu),
        "bid_cpu_s": sum(d["cpu"] for d in decisions if not d["play"]),
        "play_cpu_s": sum(d["cpu"] for d in decisions if d["play"]),
    }


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", default="main", help="git revision to compare with (default main)")
    parser.add_argument("--level", default="normal", choices=("easy", "normal", "hard"))
    parser.add_argument("--seeds", type=int, default=2, help="seeded matches (default 2)")
    parser.add_argument("--steps", type=int, default=60,
                        help="steps of each match, deals included (default 60: about two hands)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs of each version, alternately; each decision's least CPU counts")
    parser.add_argument("--keep-ceilings", action="store_true",
                        help="keep the level's CPU and clock ceilings (default: out of reach)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--measure", metavar="ROOT", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.measure:
        json.dump(measure(args.measure, args.level, args.seeds, args.steps, args.keep_ceilings),
                  sys.stdout)
        return 0
    runs: dict[str, list[dict[str, Any]]] = {"reference": [], "current": []}
    unit = ScalarmultUnit()
    with tempfile.TemporaryDirectory(prefix="bench-topper-") as tmp, unit.sampling():
        roots = {"reference": extract(args.reference, tmp), "current": os.path.abspath(REPO)}
        for _ in range(args.repeat):  # alternately, so both see the same spells of load
            for name, root in roots.items():
                runs[name].append(run_child(root, args))
    reference, current = (fastest(runs["reference"]), fastest(runs["current"]))
    ref, cur = summary(reference["decisions"]), summary(current["decisions"])
    differ = [(a["seed"], a["step"]) for a, b in zip(reference["decisions"], current["decisions"], strict=True)
              if (a["action"], a["draw"]) != (b["action"], b["draw"])]
    report = {"level": args.level, "reference": args.reference, "reference_figures": ref,
              "current_figures": cur, "speedup": ref["per_second"] and cur["per_second"] / ref["per_second"],
              "play_speedup": cur["play_cpu_s"] and ref["play_cpu_s"] / cur["play_cpu_s"],
              "bid_speedup": cur["bid_cpu_s"] and ref["bid_cpu_s"] / cur["bid_cpu_s"],
              "differing_decisions": differ, "unit": unit.describe()}
    report = with_units(report, unit.seconds)
    if args.json:
        print(json.dumps(report, indent=2))
        return 1 if differ else finish(report, "bench_topper_search.py")
    print(unit_line(unit))
    print(f"Topper search, level {args.level}: {cur['decisions']} decisions, least CPU of the "
          f"thinking thread over {args.repeat} run(s) each, "
          f"ceilings {'kept' if args.keep_ceilings else 'out of reach'}")
    print(f"{'code':<22}{'median ms':>10}{'p95 ms':>9}{'max ms':>9}{'dec/s':>8}{'bid s':>8}{'play s':>8}")
    for name, fig in ((f"reference {args.reference}", ref), ("this tree", cur)):
        print(f"{name[:21]:<22}{fig['median_ms']:>10.1f}{fig['p95_ms']:>9.1f}{fig['max_ms']:>9.1f}"
              f"{fig['per_second']:>8.1f}{fig['bid_cpu_s']:>8.2f}{fig['play_cpu_s']:>8.2f}")
    print(f"speed-up: {report['speedup']:.2f}x overall, {report['play_speedup']:.2f}x on play, "
          f"{report['bid_speedup']:.2f}x on bidding and trump")
    if differ:
        print(f"DIFFERENT DECISIONS at {len(differ)} of {cur['decisions']} (seed, step): {differ[:10]}")
        return 1
    print(f"same decisions and draws: all {cur['decisions']}")
    return finish(report, "bench_topper_search.py")


if __name__ == "__main__":
    sys.exit(main())
