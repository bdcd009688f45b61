#!/usr/bin/env python3
"""Soak: many back-to-back bot matches of four ``p2pcards`` processes over loopback TCP.

Every match is four fresh processes (a host and three joiners, each with its
own XDG directories and the same four identities throughout). A match counts
as completed when all four report the same outcome and ``p2pcards verify``
accepts every saved transcript; anything else is an error, listed.

With ``--kill-every K``, every K-th match is played twice with the same seed:
once clean, then with one random peer (host included) SIGKILLed at a random
point and restarted with ``p2pcards resume``. The faulted run must end as the
clean one did, or with every other peer's verdict naming the seat that did
not come back in time (a host hosts its table again); every honest peer's transcript must
still verify.

Memory: each seat's resident size once the table has started (``VmRSS``) and
its peak (``ru_maxrss`` of the reaped process), in the first and the last
match. Run it with the project's interpreter: ``.venv/bin/python scripts/soak.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.system.harness import HarnessError, ProcessTable, make_homes  # noqa: E402
from tests.system.scenarios import (  # noqa: E402
    SEAT_NAMES,
    MatchRecord,
    after_lines,
    judge_fault,
    match_problems,
    play_recorded,
    random_kill_line,
    run_with_kill,
    standard_plan,
)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=10, help="matches to play (default 10)")
    parser.add_argument("--game", choices=("bluff", "topper", "both"), default="both",
                        help="which game (both: alternate, default)")
    parser.add_argument("--kill-every", type=int, default=0, metavar="K",
                        help="inject a kill-and-restart fault into every K-th match (0: never)")
    parser.add_argument("--seed", type=int, default=1, help="first table seed; match i uses seed+i")
    parser.add_argument("--fault-seed", type=int, default=None,
                        help="seed of the random victims and kill points (default: random)")
    parser.add_argument("--json", action="store_true", help="print one JSON object at the end")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directories")
    return parser.parse_args(argv)


class Soak:
    def __init__(self, args: argparse.Namespace, root: Path) -> None:
        self.args = args
        self.root = root
        self.fault_seed = (args.fault_seed if args.fault_seed is not None
                           else random.randrange(2**31))
        self.rng = random.Random(self.fault_seed)
        self.identities = make_homes(root / "identities", SEAT_NAMES)
        self.completed = 0
        self.played = 0
        self.errors: list[str] = []
        self.faults: list[dict[str, Any]] = []
        self.memory: dict[str, Any] = {}

    def game(self, index: int) -> str:
        if self.args.game != "both":
            return self.args.game
        return ("bluff", "topper")[index % 2]

    def homes(self, label: str) -> list:
        return make_homes(self.root / label, SEAT_NAMES, identities=self.identities)

    def _sample_start(self, store: dict[str, Any]) -> Any:
        def sample(table: ProcessTable) -> None:
            store["rss_at_start_kib"] = [p.rss_kib() for p in table.processes]
        return sample

    def play_clean(self, index: int, game: str, seed: int) -> MatchRecord | None:
        sample: dict[str, Any] = {}
        try:
            run = play_recorded(standard_plan(game, seed=seed), self.homes(f"m{index}"),
                                after_start=self._sample_start(sample))
        except HarnessError as error:
            self.errors.append(f"match {index} ({game}, seed {seed}): {error}")
            return None
        finally:
            self.played += 1
        problems = match_problems(run)
        if problems:
            self.errors.append(f"match {index} ({game}, seed {seed}): {'; '.join(problems)}")
            return None
        self.completed += 1
        memory = {**sample, "peak_kib": run.peak_rss_kib}
        self.memory.setdefault("first", {"match": index, **memory})
        self.memory["last"] = {"match": index, **memory}
        return run

    def play_faulted(self, index: int, game: str, seed: int, clean: MatchRecord) -> None:
        victim = self.rng.randrange(4)
        kill_after = random_kill_line(self.rng, clean.seats[victim])
        fault: dict[str, Any] = {"match": index, "game": game, "seed": seed, "victim": victim,
                                 "kill_after_lines": kill_after}
        try:
            run = run_with_kill(standard_plan(game, seed=seed, reconnect_window=2.0),
                                self.homes(f"m{index}-fault"), victim, after_lines(kill_after))
        except HarnessError as error:
            fault.update(result="error", problems=[str(error)])
            self.errors.append(f"fault in match {index}: {error}")
            self.faults.append(fault)
            return
        finally:
            self.played += 1
        problems = judge_fault(run, clean)
        same = all(run.record.seats[i].summary == clean.seats[i].summary for i in run.honest)
        result = "error" if problems else ("same result" if same else "verdict naming it")
        fault.update(killed=run.killed, restart=run.restart_note, result=result,
                     problems=problems, ends=[s.summary for s in run.record.seats])
        if problems:
            self.errors.append(f"fault in match {index}: {'; '.join(problems)}")
        self.faults.append(fault)

    def run(self) -> None:
        for index in range(self.args.count):
            game, seed = self.game(index), self.args.seed + index
            clean = self.play_clean(index, game, seed)
            kill = self.args.kill_every and (index + 1) % self.args.kill_every == 0
            if kill and clean is not None:
                self.play_faulted(index, game, seed, clean)
            if not self.args.keep:
                for label in (f"m{index}", f"m{index}-fault"):
                    shutil.rmtree(self.root / label, ignore_errors=True)
            if not self.args.json:
                last = self.faults[-1] if kill and self.faults else None
                note = f"; fault: seat {last['victim']} -> {last['result']}" if last else ""
                print(f"match {index + 1}/{self.args.count} {game}: completed {self.completed}, "
                      f"errors {len(self.errors)}{note}", flush=True)

    def report(self, seconds: float) -> dict[str, Any]:
        return {
            "matches": self.args.count, "played": self.played, "completed": self.completed,
            "errors": self.errors, "faults_injected": len(self.faults),
            "fault_results": {r: sum(f["result"] == r for f in self.faults)
                              for r in ("same result", "verdict naming it", "error")},
            "faults": self.faults, "fault_seed": self.fault_seed, "memory": self.memory,
            "seconds": round(seconds, 1),
        }


def main(argv: list[str] | None = None) -> int:
    if os.name != "posix":
        sys.exit("soak.py needs Linux or macOS: it kills peers with SIGKILL and reads their peak memory with os.wait4")
    args = parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="p2pcards-soak-"))
    began = time.monotonic()
    soak = Soak(args, root)
    try:
        soak.run()
    except KeyboardInterrupt:
        soak.errors.append("interrupted")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)
    report = soak.report(time.monotonic() - began)
    if args.json:
        print(json.dumps(report))
    else:
        print(f"Matches completed: {report['completed']} of {report['matches']} "
              f"({report['played']} tables played, {report['seconds']} s)")
        print(f"Errors: {len(report['errors'])}")
        for error in report["errors"]:
            print(f"  {error}")
        if report["faults_injected"]:
            print(f"Faults injected: {report['faults_injected']} (seed {report['fault_seed']}): "
                  + ", ".join(f"{n} {r}" for r, n in report["fault_results"].items()))
        for which in ("first", "last"):
            if which in report["memory"]:
                m = report["memory"][which]
                print(f"Memory, match {m['match'] + 1}: at start {m['rss_at_start_kib']} KiB, "
                      f"peak {m['peak_kib']} KiB (host, then joiners)")
    return 0 if not report["errors"] else 1


if __name__ == "__main__":
    sys.exit(main())
