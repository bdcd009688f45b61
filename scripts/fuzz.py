#!/usr/bin/env python3
"""Fuzz every door bytes come in by, for as long as you like.

    python scripts/fuzz.py --count 200000 --seed 1
    python scripts/fuzz.py --count 5000 --seed 7 --target table --target relay
    python scripts/fuzz.py --replay 7:1234          # input 1234 of a run with seed 7

Targets: the frame decoder, the link (handshake messages and sealed frames),
the strict msgpack decoder, ``SignedMessage.parse``, ``frames.decode``, a
joining peer's ``Table`` built from a genesis, ``Table.receive``/``receive_alert``
at points of two whole seeded matches, and ``Relay.frame``. Inputs are random bytes and mutations of that real traffic
(see ``tests/hostile/fuzzing.py``). A failure is any exception other than the
target's defined protocol or network errors, a refused input that changed a
state machine, or an input that ran longer than ``--hang`` seconds. Prints the
count, the seed, the failures, time and peak memory; exits 1 on a failure.
"""

from __future__ import annotations

import argparse
import collections
import gc
import os
import signal
import sys
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.hostile.fuzzing import (  # noqa: E402
    Failure,
    Mutator,
    default_corpus,
    schedule,
    stream_rng,
    targets,
)


class Hang(BaseException):
    """An input took longer than the per-input limit."""


def _on_alarm(signum: int, frame: object) -> None:
    raise Hang()


def _rss_mib() -> float:
    """Peak resident memory of this process so far, in MiB (Linux reports KiB)."""
    import resource  # POSIX only (main says so on Windows)
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _current_rss_mib() -> float:
    import resource
    try:
        with open("/proc/self/statm") as statm:
            pages = int(statm.read().split()[1])
        return pages * resource.getpagesize() / 2**20
    except OSError:
        return float("nan")


def main() -> int:
    if os.name != "posix":
        sys.exit("fuzz.py needs Linux or macOS: it stops a hung case with SIGALRM and reads its memory with resource")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10_000, help="inputs to try")
    parser.add_argument("--seed", type=int, default=1, help="run seed (inputs are reproducible)")
    parser.add_argument("--target", action="append", help="only these targets (repeatable)")
    parser.add_argument("--hang", type=float, default=10.0, help="seconds one input may take")
    parser.add_argument("--replay", help="SEED:INDEX: run that one input and show what happens")
    parser.add_argument("--progress", type=int, default=0, help="print a line every N inputs")
    args = parser.parse_args()

    started = time.monotonic()
    corpus = default_corpus()
    all_targets = targets(corpus)
    if args.target:
        unknown = set(args.target) - {t.name for t in all_targets}
        if unknown:
            parser.error(f"unknown target(s) {sorted(unknown)}; known: "
                         f"{', '.join(t.name for t in all_targets)}")
        all_targets = [t for t in all_targets if t.name in args.target]
    setup = time.monotonic() - started
    signal.signal(signal.SIGALRM, _on_alarm)

    if args.replay:
        seed, index = (int(x) for x in args.replay.split(":"))
        rng = stream_rng(seed, index)
        target = schedule(all_targets, rng)
        item = target.make(rng, Mutator(rng, corpus.everything))
        print(f"input {index} of seed {seed}: target {target.name}: {item!r}"[:2000])
        target.check(item)
        print("no failure")
        return 0

    counts: collections.Counter[str] = collections.Counter()
    failures: list[tuple[int, str, str]] = []
    rss_after_setup = _current_rss_mib()
    slowest = (0.0, "", -1)
    for index in range(args.count):
        rng = stream_rng(args.seed, index)
        target = schedule(all_targets, rng)
        counts[target.name] += 1
        t0 = time.monotonic()
        try:
            item = target.make(rng, Mutator(rng, corpus.everything))
            signal.setitimer(signal.ITIMER_REAL, args.hang)
            try:
                target.check(item)
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except Hang:
            failures.append((index, target.name, f"no answer within {args.hang:g} s"))
        except Failure as failure:
            failures.append((index, target.name, str(failure)))
        except Exception as error:  # in making the input: a bug of the fuzzer, report it too
            failures.append((index, target.name, "fuzzer: " + "".join(
                traceback.format_exception_only(type(error), error)).strip()))
        spent = time.monotonic() - t0
        if spent > slowest[0]:
            slowest = (spent, target.name, index)
        if args.progress and (index + 1) % args.progress == 0:
            print(f"  {index + 1} inputs, {len(failures)} failures, "
                  f"{_current_rss_mib():.0f} MiB", flush=True)
        if index % 5000 == 4999:
            gc.collect()

    elapsed = time.monotonic() - started
    print(f"count: {args.count}")
    print(f"seed: {args.seed}")
    print("per target: " + ", ".join(f"{name} {n}" for name, n in sorted(counts.items())))
    print(f"failures: {len(failures)}")
    for index, name, what in failures[:50]:
        print(f"  input {index} ({name}): {what[:300]}  [replay: --replay {args.seed}:{index}]")
    print(f"time: {elapsed:.1f} s (setup {setup:.1f} s), slowest input {slowest[0] * 1000:.1f} ms "
          f"({slowest[1]} #{slowest[2]})")
    print(f"memory: peak RSS {_rss_mib():.0f} MiB; RSS after setup {rss_after_setup:.0f} MiB, "
          f"at the end {_current_rss_mib():.0f} MiB")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
