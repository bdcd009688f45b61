#!/usr/bin/env python3
"""How soon the first hand shows in the browser after ``p2pcards play GAME --web``.

Each run starts the real command (``--no-browser``, in a fresh home whose identity is
made beforehand, as a player's is), reads the address it prints, opens it in a headless
Chromium that is already running (a person's browser usually is) and waits for the
hand's cards on the page. Printed per run: when the address was printed, when the page's
socket opened, when the first hand was drawn, all from the command's start, and the
command's CPU time at each (Linux: ``/proc``; the figure a loaded machine does not
change); then the medians, each also in units (one variable-base scalar multiplication
timed here before and after every run, ``scripts/_figures.py``). Nothing is asserted:
the goal (the first hand within 2 s on a warm venv) is read off the figures. A figure
that comes out empty fails the run.

Usage: ``python scripts/bench_web.py [--game bluff|topper] [--runs N] [--json]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from _figures import ScalarmultUnit, finish, fmt, unit_line, with_units  # noqa: E402

from tests.support.browser import chromium, find_chromium  # noqa: E402

#: Seconds one run may take before it is given up (a loaded machine is slow, not stuck).
RUN_TIMEOUT = 60.0


def home_env(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.update({"XDG_CONFIG_HOME": str(root / "config"), "XDG_STATE_HOME": str(root / "state"),
                "PYTHONUNBUFFERED": "1", "USER": "bench"})
    return env


async def read_address(process: asyncio.subprocess.Process) -> str:
    assert process.stdout is not None
    while True:
        line = (await process.stdout.readline()).decode()
        if not line:
            raise RuntimeError("the command ended before printing the table's address")
        if "http://127.0.0.1:" in line:
            return line[line.index("http://"):].split()[0]


def process_cpu(pid: int) -> float:
    """CPU seconds (user and system) the process has used so far (Linux: ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def one_run(game: str, browser: object, root: Path) -> dict[str, float]:
    from tests.support.browser import Browser
    assert isinstance(browser, Browser)
    env = home_env(root)
    subprocess.run([sys.executable, "-m", "p2pcards", "whoami", "--name", "Bench"], env=env,
                   check=True, capture_output=True, timeout=60)
    page = await browser.new_page()
    start = time.monotonic()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "p2pcards", "play", game, "--web", "--no-browser",
        env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        address = await asyncio.wait_for(read_address(process), RUN_TIMEOUT)
        printed, printed_cpu = time.monotonic() - start, process_cpu(process.pid)
        await page.goto(address)
        await page.wait_for("document.body.dataset.connected === 'yes'", "the socket", RUN_TIMEOUT)
        connected, connected_cpu = time.monotonic() - start, process_cpu(process.pid)
        await page.wait_for("document.querySelectorAll('#hand .card').length > 0",
                            "the first hand", RUN_TIMEOUT)
        hand, hand_cpu = time.monotonic() - start, process_cpu(process.pid)
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGINT)  # Ctrl-C: leaves the table
            try:
                await asyncio.wait_for(process.wait(), 20)
            except TimeoutError:
                process.kill()
                await process.wait()
    return {"address": printed, "connected": connected, "first_hand": hand,
            "address_cpu": printed_cpu, "connected_cpu": connected_cpu, "first_hand_cpu": hand_cpu}


async def bench(game: str, runs: int, unit: ScalarmultUnit) -> list[dict[str, float]]:
    results = []
    async with chromium() as browser:
        for number in range(runs):
            unit.sample()
            with tempfile.TemporaryDirectory(prefix="p2pcards-bench-web-") as root:
                result = await one_run(game, browser, Path(root))
            unit.sample()
            results.append(result)
            print(f"run {number + 1}: address printed {result['address']:.2f} s, page connected "
                  f"{result['connected']:.2f} s, first hand {result['first_hand']:.2f} s; the "
                  f"command's CPU by then {result['address_cpu']:.2f}, "
                  f"{result['connected_cpu']:.2f}, {result['first_hand_cpu']:.2f} s",
                  file=sys.stderr, flush=True)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", choices=("bluff", "topper"), default="bluff")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    binary, why = find_chromium()
    if binary is None:
        print(f"bench_web: {why}", file=sys.stderr)
        return 1
    unit = ScalarmultUnit()
    results = asyncio.run(bench(args.game, args.runs, unit))
    medians = {f"{key}_s": statistics.median(r[key] for r in results) for key in results[0]}
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    report = with_units({"game": args.game, "runs": [{f"{k}_s": v for k, v in r.items()}
                                                      for r in results],
                         "median": medians, "load": load, "unit": unit.describe()}, unit.seconds)
    if args.json:
        print(json.dumps(report))
    else:
        m = medians
        print(f"play {args.game} --web, median of {len(results)} runs (load average {load:.1f}); "
              f"{unit_line(unit)}")
        print(f"  address printed {fmt(m['address_s'], unit)}, page connected "
              f"{fmt(m['connected_s'], unit)}, first hand in the browser "
              f"{fmt(m['first_hand_s'], unit)} (goal: within 2 s on a warm venv)")
        print(f"  the command's CPU by then: {fmt(m['address_cpu_s'], unit)}, "
              f"{fmt(m['connected_cpu_s'], unit)}, {fmt(m['first_hand_cpu_s'], unit)}")
    return finish(report, "bench_web.py")


if __name__ == "__main__":
    sys.exit(main())
