#!/usr/bin/env python3
"""Keep N processes runnable at once: a CPU load to run tests or tables under.

    .venv/bin/python scripts/load.py 8                 # load 8 until Ctrl-C
    .venv/bin/python scripts/load.py 8 --seconds 900   # for fifteen minutes

Each of the N processes spins (no I/O, no memory to speak of), so the run
queue holds N more than it would: on two cores, ``uptime``'s load average
climbs towards N plus whatever else runs. They run at the normal priority
(``--nice`` to lower it), and all stop with this script (Ctrl-C, SIGTERM or
``--seconds``). It prints the load average each minute and at the end.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import signal
import sys
import time


def spin(niceness: int, parent: int) -> None:
    """Busy arithmetic until the parent ends us, or is gone (killed without a clean-up)."""
    if niceness:
        os.nice(niceness)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent ends us
    value = 0
    while os.getppid() == parent:
        for _ in range(200_000):
            value = (value * 1103515245 + 12345) & 0xFFFFFFFF


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("processes", type=int, help="how many spinning processes (the load to add)")
    parser.add_argument("--seconds", type=float, default=0.0, help="stop after this long (0: at Ctrl-C)")
    parser.add_argument("--nice", type=int, default=0, help="their niceness (default 0)")
    args = parser.parse_args(argv)
    if args.processes < 1:
        parser.error("processes: at least 1")
    # Ctrl-C or SIGTERM end every spinner (a shell's background job ignores SIGINT
    # unless it is asked for again).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    spinners = [multiprocessing.Process(target=spin, args=(args.nice, os.getpid()), daemon=True)
                for _ in range(args.processes)]
    for process in spinners:
        process.start()
    began = time.monotonic()
    print(f"{args.processes} spinning processes ({', '.join(str(p.pid) for p in spinners)}); "
          f"load average {load_average()}", flush=True)
    try:
        while not args.seconds or time.monotonic() - began < args.seconds:
            left = args.seconds - (time.monotonic() - began) if args.seconds else 60.0
            time.sleep(max(0.0, min(60.0, left)))
            print(f"{time.monotonic() - began:.0f} s: load average {load_average()}", flush=True)
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        for process in spinners:
            process.terminate()
        for process in spinners:
            process.join(timeout=5)
    return 0


if __name__ == "__main__":
    sys.exit(main())
