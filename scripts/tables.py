#!/usr/bin/env python3
"""Play K tables at once on this machine, as other people at a LAN party would, until stopped.

Each table is four real ``p2pcards`` processes (a host and three joiners that
find it by name), all bots, playing evenings of a few matches one after
another, announced with zeroconf on loopback (``--interface``, default
127.0.0.1): run it beside a test, a table of your own or the suite to see
that they behave the same while other tables are announced and played.

    .venv/bin/python scripts/tables.py --tables 4                 # until Ctrl-C
    .venv/bin/python scripts/tables.py --tables 4 --seconds 600   # ten minutes

Ctrl-C or SIGTERM (``kill PID``) stops every table's processes before it exits.

It prints each minute, and at the end, how many evenings and matches the
tables played and any evening that went wrong (``tests/support/other_tables.py``).
"""

from __future__ import annotations

import argparse
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.other_tables import OtherTables  # noqa: E402


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=4, help="tables at once (default 4)")
    parser.add_argument("--game", choices=("topper", "bluff"), default="topper")
    parser.add_argument("--matches", type=int, default=3, help="matches per evening (default 3)")
    parser.add_argument("--seconds", type=float, default=0.0, help="stop after this long (0: at Ctrl-C)")
    parser.add_argument("--interface", default="127.0.0.1",
                        help="where to announce and browse (default 127.0.0.1; 'all': every interface)")
    parser.add_argument("--label", default="Other", help="table names start with this (default Other)")
    parser.add_argument("--keep", action="store_true", help="keep the homes and logs (printed at the end)")
    return parser.parse_args(argv)


def said(tables: OtherTables, seconds: float) -> str:
    tally = tables.tally
    return (f"{seconds:.0f} s: {tally.evenings} evenings begun, {tally.evenings_ended_well} ended well, "
            f"{tables.matches_finished()} matches played, {tables.playing()} tables seated now, "
            f"{len(tally.problems)} problems")


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # Ctrl-C or SIGTERM stop the tables cleanly (a shell's background job ignores SIGINT
    # unless it is asked for again).
    signal.signal(signal.SIGINT, _interrupt)
    signal.signal(signal.SIGTERM, _interrupt)
    root = Path(tempfile.mkdtemp(prefix="p2pcards-tables-"))
    interface = None if args.interface == "all" else args.interface
    tables = OtherTables(args.tables, root, game=args.game, matches=args.matches,
                         interface=interface, label=args.label)
    began = time.monotonic()
    print(f"{args.tables} {args.game} tables on {args.interface}: {', '.join(tables.names)}", flush=True)
    try:
        tables.start()
        while not args.seconds or time.monotonic() - began < args.seconds:
            time.sleep(min(60.0, args.seconds - (time.monotonic() - began)) if args.seconds else 60.0)
            print(said(tables, time.monotonic() - began), flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second signal must not cut the clean-up
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        tally = tables.stop()
        print(said(tables, time.monotonic() - began), flush=True)
        for problem in tally.problems:
            print(f"  {problem}", flush=True)
        if args.keep:
            print(f"homes and logs kept in {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)
    return 0 if not tally.problems else 1


if __name__ == "__main__":
    sys.exit(main())
