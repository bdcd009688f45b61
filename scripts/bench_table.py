#!/usr/bin/env python3
"""Benchmark whole tables: four ``p2pcards`` processes on loopback playing bot matches.

The timings come from the processes' own ``--trace`` JSON lines (wall-clock
``t`` per event; all four processes share this machine's clock):

- deal: from the host's ``TableStarted`` (the genesis) until every seat has
  traced ``HandReceived`` for deck 0 (key setup, four shuffles with proofs, four
  rounds of decryption shares; 52 cards in Bluff, 24 in Topper), with its
  phases; and each later deal, from the action that closed the previous one.
- action latency: for each transcript position holding a game action, the
  last minus the first of the four processes' ``ActionApplied`` times (the
  first is the writer itself, which traces before sending).
- match: ``TableStarted`` to the last ``MatchCompleted``; and the wall time of
  the four processes.
- bytes: the saved transcript (the signed messages, as every peer keeps
  them); on the wire, the kernel's TCP byte counters of the host's three
  connections (``ss -ti``, polled), next to what the transcript predicts:
  each message crosses TCP three times (a joiner's to the host and on to two
  joiners, the host's own to three), before link framing.
- memory: each process's peak resident size (``ru_maxrss`` when reaped), and
  its resident size sampled through the match (``VmRSS``): the growth over the
  first quarter of the match against the growth over the last quarter (flat
  memory: the last quarter grows by about the transcript's own bytes at most).

The ``play`` case is one process, as ``p2pcards play`` runs it: the player's
seat (here a bot agent) and three bots hosted in-process. It reports the time
from the process's start (interpreter and imports included) to the player's
first hand, and from the action that closes a deal to the next hand; and the
time of ``p2pcards --version`` (interpreter and the command's imports alone).
Every process starts with the package's bytecode compiled beforehand, as an
installed copy has it (``--compile-each-time``: compiling every module it
loads, as under ``PYTHONDONTWRITEBYTECODE`` with no cache).

Every time is also given in units: one variable-base scalar multiplication,
timed in this process through the run (``scripts/_figures.py``). The first
deal of four processes is set against its CPU floor: the libsodium
operations of the whole set-up as four separate machines make them (counted
by four tables dealing in this process, none sparing another a check), each
timed here, over the machine's cores; each of its phases (keys and seats,
shuffles, shares) beside its own share of that floor, so a phase whose time is
latency (the key messages, one after another) reads apart from one whose time
is the cores' work (the shuffles). A figure of this tree that comes out
empty fails the run (exit status 1, the figure named on stderr).

The offline check of a saved match has its own benchmark,
``scripts/bench_verify.py`` (``--cases verify`` runs it on this run's match).

The tables are not seeded, as no real table is: a seeded table cannot make a
shuffle or its shares ahead (their randomness depends on positions not yet
known). The bots then play differently in each run, so the figures are
medians over a match's deals; ``--seeded`` seeds the tables and ``play`` with
the run's number, so with the same identities (as this tree and a reference
share in one run) both play the same match.

``--long`` plays the matches that memory is judged on: Topper to 100 points,
Bluff over its 20 deals.

``--reference REV`` compares this tree with an older revision in one run: the
``p2pcards/`` package of git revision REV (``git archive REV p2pcards``,
untarred into the run's temporary folder; a revision git cannot resolve stops
the run before anything is played, naming it) plays every selected case too.
Each process of a reference run (the four of a table, ``play``, ``p2pcards
--version``) imports that package: it runs from that folder, first on its
``PYTHONPATH`` (checked before the first run; ``python -m`` would otherwise
find this checkout first). Runs alternate, this tree's then the reference's,
``--runs`` times over, so the machine's noise falls on both alike; the
figures are then printed side by side: this tree's, the reference's, and
this over the reference, in seconds and units. A figure the reference cannot
give (its traces lack an event, its ``--version`` fails) is printed
"untraced" and does not fail the run ("no later deal" where its matches, of
other lengths than this tree's as unseeded bots play, had one deal each). ``--json`` holds the reference's
summaries and the side-by-side figures under ``reference``. The CPU floor and
``--cases verify`` are this tree's alone.

Run with the project's interpreter: ``.venv/bin/python scripts/bench_table.py``.
Goals on a 2-core machine (reported, not asserted): four processes, a 52-card
deal within 1.4x its CPU floor, action latency median within 5 ms and p99
within 20 ms; ``play``, the first hand within 8,000 units (0.75 s at 93 µs) of
start and each later deal within 0.5 s; every process's peak memory within 60
MB (a host with bots 80 MB).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _figures import ScalarmultUnit, finish, fmt, fmt_ms, unit_line, with_units  # noqa: E402
from _floor import counted, describe, op_units, operations_line  # noqa: E402
from _samplers import RssSampler, WireCounter  # noqa: E402
from bench_topper_search import extract, resolve  # noqa: E402  (the reference's git extraction)

from p2pcards.net.journal import read_records  # noqa: E402
from p2pcards.protocol.events import HandReceived, MatchCompleted  # noqa: E402
from p2pcards.protocol.relay_outputs import TableStarted  # noqa: E402
from tests.system.harness import REPO_ROOT, Home, ProcessTable, TablePlan, make_homes  # noqa: E402
from tests.system.scenarios import SEAT_NAMES  # noqa: E402

# The traced events the figures are read from, by the classes' own names: a renamed
# event fails here, at import, instead of leaving a figure empty.
STARTED, DEALT, ENDED = TableStarted.__name__, HandReceived.__name__, MatchCompleted.__name__

DECK_CARDS = {"bluff": 52, "topper": 24}
GOAL_DEAL_OVER_FLOOR = 1.4
GOAL_LATENCY_MS = 5.0
GOAL_P99_MS = 20.0
GOAL_PLAY_FIRST_UNITS = 8000
GOAL_PLAY_LATER_S = 0.5
GOAL_PEAK_MB = 60
GOAL_PEAK_HOST_BOTS_MB = 80
LONG_SETTINGS = {"bluff": ("--deals", "20"), "topper": ("--target", "100")}
CASES = ("table", "play", "verify")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=("bluff", "topper", "both"), default="both")
    parser.add_argument("--runs", type=int, default=1, help="matches per game (default 1)")
    parser.add_argument("--deals", type=int, default=None,
                        help="Bluff deal cap (default: the game's, 20)")
    parser.add_argument("--target", type=int, default=None,
                        help="Topper target score (default: the game's, 21)")
    parser.add_argument("--seed", type=int, default=1,
                        help="number of the first run (its folder; with --seeded, its table seed)")
    parser.add_argument("--seeded", action="store_true",
                        help="seed the four-process tables: reproducible bytes and bots, but "
                             "nothing made ahead (a seeded table's randomness depends on positions "
                             "not yet known), so slower deals than a real table's")
    parser.add_argument("--paths", choices=("direct", "host", "both"), default="both",
                        help="players linked directly as well as through the host (the default "
                             "of join), only through the host (join --no-direct), or both, "
                             "compared in one run (default both)")
    parser.add_argument("--cases", default="table,play",
                        help="comma-separated: table (four processes on loopback), play (one "
                             "process: your seat and three bots), verify (the offline check of a "
                             "saved Bluff match, one worker against one per core) "
                             "(default table,play)")
    parser.add_argument("--long", action="store_true",
                        help="the long matches memory is judged on: Topper to 100, Bluff 20 deals")
    parser.add_argument("--reference", metavar="REV", default=None,
                        help="also play every selected case with the p2pcards package of git "
                             "revision REV, alternating runs with this tree's, and print the "
                             "figures side by side (this tree, REV, this/REV)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--compile-each-time", action="store_true",
                        help="start every process as with PYTHONDONTWRITEBYTECODE and no cached "
                             "bytecode, compiling each module it loads (default: bytecode compiled "
                             "once beforehand, as an installed copy has it)")
    parser.add_argument("--profile", action="store_true",
                        help="instead, deal once per game in this process (four tables, no network, "
                             "one thread) and show where the time goes")
    return parser.parse_args(argv)


def percentile(values: list[float], fraction: float) -> float | None:
    """Nearest-rank percentile (``fraction`` in 0..1), None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(fraction * len(ordered) + 0.5)))
    return ordered[rank - 1]


def _first(events: list[dict], name: str, **fields: Any) -> float | None:
    for event in events:
        if event.get("event") == name and all(event.get(k) == v for k, v in fields.items()):
            return event["t"]
    return None


def _cpu_at(events: list[dict], name: str, **fields: Any) -> float | None:
    """The process's CPU seconds (since its start) when it traced ``name``."""
    for event in events:
        if event.get("event") == name and all(event.get(k) == v for k, v in fields.items()):
            return event.get("cpu")
    return None


def _deal_cpu(traces: list[list[dict]], started: float) -> float | None:
    """CPU seconds the four processes spent from the genesis to their first hand: each
    one's CPU at its hand less its CPU at its first event from the genesis on."""
    total = 0.0
    for trace in traces:
        after = [e["cpu"] for e in trace if "cpu" in e and e.get("t", started - 1) >= started]
        dealt = _cpu_at(trace, DEALT, deck=0)
        if not after or dealt is None:
            return None
        total += dealt - after[0]
    return total


def _all(events: list[dict], name: str) -> list[dict]:
    return [e for e in events if e.get("event") == name]


def analyse(game: str, traces: list[list[dict]], *, strict: bool = True) -> dict[str, Any]:
    """Figures of one match from the four processes' traces (host first). Not ``strict``
    (a reference revision's traces): a figure its events cannot give is None, not an error."""
    started = _first(traces[0], STARTED)
    if started is None and strict:
        raise RuntimeError(f"the host traced no {STARTED}")

    def since(t: float | None) -> float | None:
        return None if t is None or started is None else t - started
    decks = sorted({e["deck"] for e in _all(traces[0], DEALT)})

    def everyone(name: str, **fields: Any) -> float | None:
        times = [_first(trace, name, **fields) for trace in traces]
        return None if None in times else max(times)  # type: ignore[type-var]

    seated = everyone("PlayersSeated")
    shuffled = everyone("ShuffleVerified", deck=0, seat=3)
    dealt = everyone(DEALT, deck=0)
    first_deal = {
        "cards": DECK_CARDS[game],
        "total_s": since(dealt),
        "keys_and_seats_s": since(seated),
        "shuffles_s": None if None in (seated, shuffled) else shuffled - seated,
        "shares_s": None if None in (shuffled, dealt) else dealt - shuffled,
        "each_shuffle_s": _shuffle_steps(traces[0], 0),
        "cpu_s": None if started is None else _deal_cpu(traces, started),
    }

    by_position: dict[int, list[float]] = {}
    for trace in traces:
        for event in _all(trace, "ActionApplied"):
            by_position.setdefault(event["position"], []).append(event["t"])
    latencies = [(max(ts) - min(ts)) * 1000 for ts in by_position.values() if len(ts) == 4]

    ended = everyone(ENDED)
    return {
        "first_deal": first_deal,
        "later_deals_s": later_deals(traces),
        "deals": len(decks),
        "actions": len(latencies),
        "latencies_ms": latencies,
        "match_s": since(ended),
    }


def later_deals(traces: list[list[dict]]) -> list[float]:
    """Seconds from the action that closed each deal (by its writer's clock, the
    earliest) until every process traced its hand of the next deal."""
    by_position: dict[int, list[float]] = {}
    for trace in traces:
        for event in _all(trace, "ActionApplied"):
            by_position.setdefault(event["position"], []).append(event["t"])
    decks = sorted({e["deck"] for e in _all(traces[0], DEALT)})
    redeals = []
    for deck in decks[1:]:
        first_shuffle = _first(traces[0], "ShuffleVerified", deck=deck)
        before = [e["position"] for e in _all(traces[0], "ActionApplied")
                  if first_shuffle is not None and e["t"] <= first_shuffle]
        dealt = [_first(trace, DEALT, deck=deck) for trace in traces]
        if before and None not in dealt:
            redeals.append(max(dealt) - min(by_position[max(before)]))  # type: ignore[type-var]
    return redeals


def _shuffle_steps(trace: list[dict], deck: int) -> list[float]:
    """Seconds each seat's shuffle took to arrive, as the host saw them, in seat order."""
    seated = _first(trace, "PlayersSeated") if deck == 0 else None
    times = [e["t"] for e in _all(trace, "ShuffleVerified") if e.get("deck") == deck]
    previous = [seated] + times[:-1] if seated is not None else times[:1] + times[:-1]
    return [round(t - p, 4) for t, p in zip(times, previous, strict=False)]


#: The saved transcript of the last match of each game (for the verify case).
SAVED: dict[str, bytes] = {}


def bench_match(game: str, seed: int, args: argparse.Namespace, root: Path,
                identities: list, paths: str = "direct",
                package_root: Path | None = None) -> dict[str, Any]:
    """One match of four processes; with ``package_root``, of the ``p2pcards`` found there
    (a reference revision's: its figures may be None where its traces lack an event)."""
    plan = TablePlan(game, seed=seed if args.seeded else None, deadline=120.0,
                     settings=match_settings(game, args))
    reference = package_root is not None
    homes = make_homes(root / f"{game}-{seed}-{paths}{'-reference' if reference else ''}",
                       SEAT_NAMES, identities=identities, package_root=package_root)
    table = ProcessTable(plan, homes)
    began = time.monotonic()
    wire = WireCounter(0)
    sampler = RssSampler()
    try:
        sampler.add(table.start_host())
        wire = WireCounter(table.port).start()
        sampler.start()
        for index in range(1, 4):
            join = plan.join_args(f"{plan.bind}:{table.port}")
            sampler.add(table.add_joiner(index, join + (["--no-direct"] if paths == "host" else [])))
        codes = table.wait(timeout=1800)
    finally:
        sampler.stop()
        wire.stop()
        table.stop()
    wall = time.monotonic() - began
    if codes != [0, 0, 0, 0]:
        raise RuntimeError(f"{game} seed {seed}{' (reference)' if reference else ''}: exit codes "
                           f"{codes}: {[p.summary for p in table.processes]}")
    figures = analyse(game, [p.events() for p in table.processes], strict=not reference)
    relays = [p for p in homes[0].transcripts() if p.parent.name == "relay"]
    if not relays and not reference:
        raise RuntimeError(f"{game} seed {seed}: the host saved no relay transcript")
    size = relays[0].stat().st_size if relays else None
    if not reference:
        SAVED[game] = relays[0].read_bytes()
    figures.update({**({} if wire.total is None else {"wire_bytes_measured": wire.total}),
        "wall_s": wall,
        "transcript_bytes": size,
        "wire_bytes_estimate": None if size is None else 3 * size,
        "peak_rss_kib": [p.peak_rss_kib for p in table.processes],
        "cpu_s": [p.cpu_s for p in table.processes],
        "rss_growth_kib": sampler.quarters(*_match_span(table.processes[0].events())),
        "outcome": table.processes[0].summary,
    })
    return figures


def match_settings(game: str, args: argparse.Namespace) -> tuple[str, ...]:
    """The game settings of a benchmarked match (``--long`` first, then the caps)."""
    if game == "bluff" and args.deals is not None:
        return ("--deals", str(args.deals))
    if game == "topper" and args.target is not None:
        return ("--target", str(args.target))
    return LONG_SETTINGS[game] if args.long else ()


def _match_span(events: list[dict]) -> tuple[float | None, float | None]:
    """Wall-clock start (the genesis) and end (the match's end) in one process's trace."""
    return _first(events, STARTED) or _first(events, "PlayersSeated"), \
        _first(events, ENDED)


def bench_play(game: str, seed: int, args: argparse.Namespace, root: Path,
               identities: list, package_root: Path | None = None) -> dict[str, Any]:
    """``p2pcards play``: one process with the player's seat (a bot agent here)
    and three bots; start-to-first-hand, the later deals, and memory. With
    ``package_root``, the ``p2pcards`` found there plays (and answers ``--version``)."""
    reference = package_root is not None
    home = make_homes(root / f"play-{game}-{seed}{'-reference' if reference else ''}",
                      SEAT_NAMES[:1], identities=identities[:1], package_root=package_root)[0]
    # Unseeded unless asked: a seeded table cannot prepare the next deal's first shuffle
    # ahead (its bytes depend on a position not yet known), and nobody plays seeded.
    argv = ["play", game, *match_settings(game, args), "--bot", "heuristic", "--trace", "--plain",
            *(["--seed", str(seed)] if args.seeded else [])]
    sampler = RssSampler()
    process = sampler.add(home.spawn(*argv))
    sampler.start()
    try:
        code = process.wait(timeout=1800)
    finally:
        sampler.stop()
        process.stop()
    if code != 0:
        raise RuntimeError(f"play {game} seed {seed}{' (reference)' if reference else ''}: "
                           f"exit code {code}: {process.stderr()[-400:]}")
    events = process.events()
    if not reference:
        SAVED.setdefault(game, home.transcripts()[0].read_bytes())
    dealt = _first(events, DEALT, deck=0)
    started, ended = _match_span(events)
    return {
        "version_s": _version_time(home, strict=not reference),
        "first_hand_s": None if dealt is None else dealt - process.started_at,
        "first_hand_cpu_s": _cpu_at(events, DEALT, deck=0),
        "later_deals_s": later_deals([events]),
        "deals": len({e["deck"] for e in _all(events, DEALT)}),
        "match_s": None if None in (started, ended) else ended - started,  # type: ignore[operator]
        "peak_rss_kib": process.peak_rss_kib,
        "rss_growth_kib": sampler.quarters(*_match_span(events)),
        "outcome": process.summary,
    }


def _times(values: list[float], *, p90: bool = False) -> dict[str, Any]:
    """Median and max (and p90) of some times, or only their count when there are none:
    a figure with nothing to measure (no later deal in a one-deal match) is not named."""
    if not values:
        return {"count": 0}
    found = {"count": len(values), "median": statistics.median(values), "max": max(values)}
    if p90:
        found["p90"] = percentile(values, 0.9)
    return found


def _version_time(home: Home, *, strict: bool = True) -> float | None:
    """Seconds of ``p2pcards --version`` in ``home``: the interpreter and the command's
    imports, the part of every command's start that no table work hides. Not ``strict``
    (a reference revision that may lack the option): None when it fails."""
    began = time.perf_counter()
    done = home.run("--version", timeout=60)
    if done.returncode != 0:
        if not strict:
            return None
        raise RuntimeError(f"p2pcards --version failed: {done.stderr[-400:]}")
    return time.perf_counter() - began


def summarise(game: str, matches: list[dict[str, Any]]) -> dict[str, Any]:
    latencies = [x for m in matches for x in m["latencies_ms"]]
    first_deals = [m["first_deal"]["total_s"] for m in matches]
    later = [x for m in matches for x in m["later_deals_s"]]
    measured = [m["wire_bytes_measured"] for m in matches if "wire_bytes_measured" in m]
    return {
        "game": game,
        "cards": DECK_CARDS[game],
        "runs": len(matches),
        "first_deal_s": {"median": _median(first_deals), "max": _max(first_deals)},
        "first_deal_cpu_s": {"median": _median([m["first_deal"]["cpu_s"] for m in matches])},
        "first_deal_phases_s": {k: _median([m["first_deal"][k] for m in matches])
                                for k in ("keys_and_seats_s", "shuffles_s", "shares_s")},
        "each_shuffle_s": matches[0]["first_deal"]["each_shuffle_s"],
        "later_deal_s": _times(later),
        "action_latency_ms": {"count": len(latencies), "median": _median(latencies),
                              "p99": percentile(latencies, 0.99),
                              "max": max(latencies, default=None)},
        "match_s": [m["match_s"] for m in matches],
        "deals_per_match": [m["deals"] for m in matches],
        "actions_per_match": [m["actions"] for m in matches],
        "wall_s": [m["wall_s"] for m in matches],
        "transcript_bytes": [m["transcript_bytes"] for m in matches],
        "wire_bytes_estimate": [m["wire_bytes_estimate"] for m in matches],
        **({"wire_bytes_measured": measured} if measured else {}),
        "peak_rss_kib": [m["peak_rss_kib"] for m in matches],
        "cpu_s": [m["cpu_s"] for m in matches],
        "rss_growth_kib": [m["rss_growth_kib"] for m in matches],
        "outcomes": [m["outcome"] for m in matches],
    }


def _median(values: list[Any]) -> float | None:
    """The median, or None (an empty figure, which fails the run) if any value is missing."""
    return None if not values or None in values else statistics.median(values)


def _max(values: list[Any]) -> float | None:
    return None if not values or None in values else max(values)


def _phase(phases: dict[str, Any], floor: dict[str, Any] | None, key: str, u: float) -> str:
    """One phase of the first deal, beside its share of the CPU floor when there is one."""
    if floor is None:
        return fmt(phases[key], u)
    return f"{fmt(phases[key], u)} [floor {floor['phase_wall_floors'][key] / u:,.0f} u]"


def print_human(report: dict[str, Any], u: float) -> None:
    for s in report["games"]:
        via = "direct links and the host" if s["paths"] == "direct" else "the host only"
        print(f"== {s['game']} ({s['cards']} cards), {s['runs']} match(es), via {via}")
        deal = s["first_deal_s"]["median"]
        floor = report["deal_floor"].get(s["game"])
        against = "" if floor is None else (
            f"; CPU floor on {report['machine_cpus']} cores {fmt(floor['wall_floor_s'], u)}: "
            f"{deal / floor['wall_floor_s']:.2f}x (goal {GOAL_DEAL_OVER_FLOOR}x)")
        print(f"  first deal, genesis to every seat's verified hand: {fmt(deal, u)}{against}")
        cpu = s["first_deal_cpu_s"]["median"]
        if floor is not None:
            print(f"    its libsodium operations on the four machines: "
                  f"{operations_line(floor['operations'])}; CPU {fmt(floor['cpu_floor_s'], u)}")
            print(f"    CPU of the four processes over that deal: {fmt(cpu, u)}, "
                  f"{cpu / floor['cpu_floor_s']:.2f}x the CPU floor (the figure load does not "
                  f"change: on {report['machine_cpus']} idle cores the deal takes at least "
                  f"{fmt(cpu / report['machine_cpus'], u)})")
        phases = s["first_deal_phases_s"]
        print(f"    keys and seats {_phase(phases, floor, 'keys_and_seats_s', u)}, "
              f"shuffles {_phase(phases, floor, 'shuffles_s', u)} "
              f"(each, as the host saw them: {s['each_shuffle_s']} s), "
              f"shares {_phase(phases, floor, 'shares_s', u)}")
        print(f"  later deals: {_later(s['later_deal_s'], u)}")
        lat = s["action_latency_ms"]
        print(f"  action latency over {lat['count']} actions: median {fmt_ms(lat['median'], u)}, "
              f"p99 {fmt_ms(lat['p99'], u)}, max {fmt_ms(lat['max'], u)} (goal: median "
              f"{GOAL_LATENCY_MS} ms, p99 {GOAL_P99_MS} ms)")
        print(f"  match: {[fmt(x, u, 2) for x in s['match_s']]} from genesis; "
              f"{s['deals_per_match']} deals, {s['actions_per_match']} actions; "
              f"wall {[round(x, 2) for x in s['wall_s']]} s")
        measured = s.get("wire_bytes_measured", "not measured (no ss)")
        print(f"  bytes: transcript {s['transcript_bytes']}; on the wire (TCP payload both ways, "
              f"from ss, may miss the last 0.5 s) {measured}; "
              f"expected about {s['wire_bytes_estimate']} (3 crossings per message, unframed)")
        print(f"  peak memory per process (host first): "
              f"{' '.join(_mib(run) for run in s['peak_rss_kib'])} (goal {GOAL_PEAK_MB} MB)")
        print(f"  memory growth per process (host first): {_growth(s['rss_growth_kib'])}")
        cpu = [sum(run) for run in s["cpu_s"]]
        print(f"  CPU of the four processes: {[fmt(c, u, 2) for c in cpu]}, "
              f"{[fmt(c / max(1, d), u) for c, d in zip(cpu, s['deals_per_match'], strict=True)]} "
              f"per deal (on {report['machine_cpus']} cores, a deal takes at least its CPU / cores)")
        print(f"  outcome: {s['outcomes']}")


def _later(later: dict[str, Any], u: float, goal: str = "") -> str:
    if not later["count"]:
        return "none (a one-deal match)"
    p90 = f", p90 {fmt(later['p90'], u)}" if "p90" in later else ""
    return (f"median {fmt(later['median'], u)}{p90}, max {fmt(later['max'], u)} "
            f"over {later['count']}{goal}")


#: The first deal's phases as the run times them, and the stages whose messages each holds.
PHASES = {"keys_and_seats_s": ("commit", "open"), "shuffles_s": ("shuffle",), "shares_s": ("shares",)}


def deal_floor(game: str, cores: int, costs: dict[str, float], unit_s: float) -> dict[str, Any]:
    """The CPU floor of a first deal among four processes: the libsodium operations of
    four in-process tables dealing, as four separate machines would (each validates
    every point and checks every proof itself), each timed here, over ``cores``."""
    from p2pcards.crypto.group import VALID_POINTS

    VALID_POINTS.enabled = False
    by_phase: dict[str, dict[str, int]] = {}
    try:
        with counted() as counts:
            _deal_in_process(game, separate=True, by_phase=by_phase, so_far=counts.so_far)
    finally:
        VALID_POINTS.enabled = True
    found = describe(counts, costs, unit_s)
    found["wall_floor_s"] = found["cpu_floor_s"] / cores
    # Each phase's share (its messages written and received), as the run's phases are
    # timed: keys and seats, shuffles (each made and checked), shares.
    found["phase_wall_floors"] = {phase: describe(by_phase.get(phase, {}), costs, unit_s)[
        "cpu_floor_s"] / cores for phase in PHASES}
    return found


def _deal_in_process(game: str, *, separate: bool = False,
                     steps: dict[str, dict[str, list[float]]] | None = None,
                     by_phase: dict[str, dict[str, int]] | None = None,
                     so_far: Callable[[], dict[str, int]] | None = None) -> None:
    """Four tables of this process deal once (keys, seats, shuffles, shares), every
    message written by its writer and received by the three others. ``separate``:
    no table spares another a proof check (as on four machines). With ``by_phase``
    and ``so_far`` (the operations counted so far), each phase's operations
    (:data:`PHASES`) are added up in ``by_phase``."""
    from p2pcards.crypto.checks import VerifiedChecks
    from p2pcards.protocol import game_wire as protocol_games
    from p2pcards.protocol.identity import Identity
    from p2pcards.protocol.lobby import Lobby
    from p2pcards.protocol.table import Table
    from p2pcards.protocol.table_records import Stage
    from p2pcards.rules.bluff import BluffConfig
    from p2pcards.rules.topper import TopperConfig

    adapter = protocol_games.by_name(game)
    config = BluffConfig() if game == "bluff" else TopperConfig()
    identities = [Identity.generate(name) for name in SEAT_NAMES]
    lobby = Lobby(identities[0], game, adapter.config_to_wire(config), "profile")
    for identity in identities[1:]:
        lobby.join(identity.public_key, identity.name)
    genesis = lobby.genesis().raw
    tables = [Table(genesis, identity, checker=VerifiedChecks().check if separate else None)
              for identity in identities]
    counted_before: dict[str, int] = {}
    for _ in range(64):  # 4 commits, 4 opens, 4 shuffles, 4 shares: bounded well above 16
        if tables[0].stage is Stage.PLAY:
            return
        writer = tables[tables[0].writer]
        stage = writer.stage.value
        began = time.perf_counter()
        written = writer.outgoing()
        timing = (steps if steps is not None else {}).setdefault(stage, {"write": [], "receive": []})
        timing["write"].append(time.perf_counter() - began)
        for table in tables:
            if table is not writer:
                began = time.perf_counter()
                table.receive(written.raw)
                timing["receive"].append(time.perf_counter() - began)
        if by_phase is not None and so_far is not None:
            # Since the last message (the first: since the count began, the genesis's
            # signature and its checks included), so the phases add up to the whole.
            now = so_far()
            phase = next(p for p, stages in PHASES.items() if stage in stages)
            tally = by_phase.setdefault(phase, {})
            for op, count in now.items():
                tally[op] = tally.get(op, 0) + count - counted_before.get(op, 0)
            counted_before = now
    raise RuntimeError(f"{game}: four in-process tables did not reach play in 64 messages")


def profile_deal(game: str, top: int = 8) -> dict[str, Any]:
    """One deal (keys, shuffles, shares) among four in-process tables, each step timed,
    with cProfile's busiest functions: where a deal's time goes, without the network."""
    import cProfile
    import io
    import pstats

    steps: dict[str, dict[str, list[float]]] = {}
    profiler = cProfile.Profile()
    profiler.enable()
    _deal_in_process(game, steps=steps)
    profiler.disable()
    text = io.StringIO()
    pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(top)
    per_step = {stage: {"write_ms": 1000 * statistics.mean(t["write"]),
                        "receive_ms": 1000 * statistics.mean(t["receive"]), "count": len(t["write"])}
                for stage, t in steps.items()}
    # Writers take turns; the three receivers of each message could run at once.
    critical = sum(sum(t["write"]) + sum(t["receive"]) / 3 for t in steps.values())
    return {"game": game, "cards": DECK_CARDS[game], "steps": per_step,
            "critical_path_s": critical, "profile": text.getvalue()}


def print_profiles(profiles: list[dict[str, Any]]) -> None:
    for found in profiles:
        print(f"== {found['game']} ({found['cards']} cards): one deal in one process")
        for stage, t in found["steps"].items():
            print(f"  {stage:8} write {t['write_ms']:7.1f} ms, each receiver "
                  f"{t['receive_ms']:7.1f} ms  (x{t['count']})")
        print(f"  critical path (writers in turn, receivers in parallel): "
              f"{found['critical_path_s']:.3f} s")
        print(found["profile"])


def main(argv: list[str] | None = None) -> int:
    if os.name != "posix":
        sys.exit("bench_table.py needs Linux or macOS: it reaps its peers with os.wait4 to read their peak memory")
    args = parse_args(argv)
    games = ["bluff", "topper"] if args.game == "both" else [args.game]
    if args.profile:
        if args.reference is not None:
            raise SystemExit("--reference compares whole runs; --profile deals in this process only")
        profiles = [profile_deal(game) for game in games]
        if args.json:
            print(json.dumps(profiles))
        else:
            print_profiles(profiles)
        return 0
    cases = [c for c in args.cases.split(",") if c]
    unknown = set(cases) - set(CASES)
    if unknown:
        raise SystemExit(f"unknown case(s) {sorted(unknown)}; choose from {CASES}")
    commit = None if args.reference is None else resolve(args.reference)  # fails before any work
    unit = ScalarmultUnit()
    root = Path(tempfile.mkdtemp(prefix="p2pcards-bench-"))
    try:
        reference = None if commit is None else reference_package(commit, root)
        packages = [REPO_ROOT / "p2pcards"] + ([] if reference is None else [reference / "p2pcards"])
        bytecode = ("compiled each time" if args.compile_each_time
                    else cache_bytecode(root, packages))
        with unit.sampling():
            identities = make_homes(root / "identities", SEAT_NAMES)
            summaries, plays = [], []
            theirs: dict[str, list[dict[str, Any]]] = {"games": [], "play": []}
            for game in games:
                if "table" in cases:
                    for paths in (["direct", "host"] if args.paths == "both" else [args.paths]):
                        matches = alternate(partial(bench_match, game, args=args, root=root,
                                                    identities=identities, paths=paths),
                                            args, reference)
                        summaries.append(dict(summarise(game, matches[0]), paths=paths))
                        if reference is not None:
                            theirs["games"].append(dict(summarise(game, matches[1]), paths=paths))
                if "play" in cases:
                    runs = alternate(partial(bench_play, game, args=args, root=root,
                                             identities=identities), args, reference)
                    plays.append(summarise_play(game, runs[0]))
                    if reference is not None:
                        theirs["play"].append(summarise_play(game, runs[1]))
            verified = bench_verify(args, root, identities, unit) if "verify" in cases else None
        costs = op_units()
        floors = {s["game"]: deal_floor(s["game"], _cpus(), costs, unit.seconds)
                  for s in summaries if s["paths"] == summaries[0]["paths"]}
    finally:
        shutil.rmtree(root, ignore_errors=True)
    report = {"machine_cpus": _cpus(), "load_average": os.getloadavg()[0], "unit": unit.describe(),
              "bytecode": bytecode,
              "games": summaries, "play": plays, "deal_floor": floors,
              **({} if verified is None else {"verify": verified})}
    if args.reference is not None:
        report["reference"] = {"revision": args.reference, "commit": commit, **theirs,
                               "side_by_side": side_by_side(summaries, plays, theirs)}
    report["goals"] = {"deal_over_cpu_floor": GOAL_DEAL_OVER_FLOOR,
                       "latency_median_ms": GOAL_LATENCY_MS, "latency_p99_ms": GOAL_P99_MS,
                       "play_first_hand_units": GOAL_PLAY_FIRST_UNITS,
                       "play_later_deal_s": GOAL_PLAY_LATER_S, "peak_mb": GOAL_PEAK_MB,
                       "peak_host_with_bots_mb": GOAL_PEAK_HOST_BOTS_MB}
    report = with_units(report, unit.seconds)
    if "reference" in report:
        # The reference's empty figures say what its traces lack; they do not fail the run.
        report["reference"] = untraced(report["reference"])
    if args.json:
        print(json.dumps(report))
    else:
        against = "" if commit is None else (
            f"; this tree first, then beside reference {args.reference} ({commit[:10]})")
        print(f"{unit_line(unit)}; load average {report['load_average']:.2f}; "
              f"bytecode {bytecode}{against}")
        print_human(report, unit.seconds)
        print_comparison(summaries)
        print_play(plays, unit.seconds)
        if verified is not None:
            from bench_verify import print_human as print_verify
            print_verify(verified, unit)
        if "reference" in report:
            print_side_by_side(report["reference"], args.runs, unit.seconds)
    return finish(report, "bench_table.py")


def reference_package(commit: str, root: Path) -> Path:
    """The ``p2pcards`` package of ``commit``, extracted under ``root``: the folder to put
    first on the reference processes' path, checked to be the package they import."""
    folder = root / "reference"
    folder.mkdir()
    extract(commit, str(folder))
    probe = Home(root / "probe", "reference", package_root=folder)
    found = probe.imported_package()
    if found != (folder / "p2pcards").resolve():
        raise SystemExit(f"bench_table.py: the reference's processes import p2pcards from {found}, "
                         f"not from the extracted {folder / 'p2pcards'}")
    return folder


def alternate(run_one: Callable[..., dict[str, Any]], args: argparse.Namespace,
              reference: Path | None) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``--runs`` runs of this tree (``run_one(seed=, package_root=None)``), each followed by
    one of the reference when there is one: this, reference, this, reference..., so that the
    machine's noise (load, frequency, a neighbour's burst) falls on both alike. This tree's
    runs, then the reference's."""
    ours, theirs = [], []
    for run in range(args.runs):
        ours.append(run_one(seed=args.seed + run, package_root=None))
        if reference is not None:
            theirs.append(run_one(seed=args.seed + run, package_root=reference))
    return ours, theirs


#: What each side-by-side figure is in (the suffix of its keys): seconds and milliseconds
#: also in units, like every time the script prints.
_KINDS = ("s", "ms", "bytes", "mib", "count")


def _figures_of_table(s: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """The figures of a summary of matches of four processes that two versions compare by."""
    phases, later, lat = s["first_deal_phases_s"], s["later_deal_s"], s["action_latency_ms"]
    return [
        ("first deal, genesis to every hand", "s", s["first_deal_s"]["median"]),
        ("first deal: keys and seats", "s", phases["keys_and_seats_s"]),
        ("first deal: shuffles", "s", phases["shuffles_s"]),
        ("first deal: shares", "s", phases["shares_s"]),
        ("first deal: CPU of the four processes", "s", s["first_deal_cpu_s"]["median"]),
        ("later deals, median", "s", _later_median(later)),
        ("action latency, median", "ms", lat["median"]),
        ("action latency, p99", "ms", lat["p99"]),
        ("match from genesis, median", "s", _median(s["match_s"])),
        ("match: deals, median", "count", _median(s["deals_per_match"])),
        ("match: actions, median", "count", _median(s["actions_per_match"])),
        ("CPU of the four processes, median", "s", _median([_sum(run) for run in s["cpu_s"]])),
        ("wall time, median", "s", _median(s["wall_s"])),
        ("transcript, median", "bytes", _median(s["transcript_bytes"])),
        ("peak memory, largest process", "mib", _peak_mib(s["peak_rss_kib"])),
    ]


def _figures_of_play(s: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """The figures of a summary of ``play`` runs that two versions compare by."""
    return [
        ("p2pcards --version", "s", s["version_s"]["median"]),
        ("first hand from the start, median", "s", s["first_hand_s"]["median"]),
        ("first hand: the process's CPU by then", "s", s["first_hand_cpu_s"]["median"]),
        ("later deals, median", "s", _later_median(s["later_deal_s"])),
        ("match from genesis, median", "s", _median(s["match_s"])),
        ("match: deals, median", "count", _median(s["deals_per_match"])),
        ("peak memory", "mib", _peak_mib([s["peak_rss_kib"]])),
    ]


#: A side's later-deal figure when its matches had one deal each (unseeded bots play
#: matches of different lengths): nothing was measured, and nothing is missing.
NO_LATER_DEAL = "no later deal"


def _later_median(later: dict[str, Any]) -> float | str | None:
    return NO_LATER_DEAL if not later["count"] else later["median"]


def _sum(values: list[Any]) -> float | None:
    return None if None in values else sum(values)


def _peak_mib(per_run: list[list[int | None]]) -> float | None:
    """The largest peak resident size of any process of any run, in MiB."""
    values = [v for run in per_run for v in run]
    known = [v for v in values if v is not None]
    return None if not values or len(known) < len(values) else max(known) / 1024


def side_by_side(ours: list[dict[str, Any]], plays: list[dict[str, Any]],
                 theirs: dict[str, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Per case, each figure of this tree beside the reference's and their ratio (this over
    the reference). A figure this tree does not name (no later deal in a one-deal match) is
    left out; one the reference cannot give is ``"untraced"``, and its ratio ``"n/a"``
    (as when the reference had nothing to measure: ``NO_LATER_DEAL``)."""
    cases = [({"case": "table", "game": a["game"], "paths": a["paths"]}, _figures_of_table(a),
              _figures_of_table(b)) for a, b in zip(ours, theirs["games"], strict=True)]
    cases += [({"case": "play", "game": a["game"]}, _figures_of_play(a), _figures_of_play(b))
              for a, b in zip(plays, theirs["play"], strict=True)]
    out = []
    for head, mine, other in cases:
        rows = []
        for (name, kind, this), (_, _, that) in zip(mine, other, strict=True):
            if this == NO_LATER_DEAL:
                continue  # nothing to measure here (one-deal matches): not a figure
            ratio = (this / that if isinstance(this, (int, float)) and isinstance(that, (int, float))
                     and that else "n/a")
            rows.append({"figure": name, f"this_{kind}": this,
                         f"reference_{kind}": "untraced" if that is None else that,
                         "ratio": ratio})
        out.append({**head, "figures": rows})
    return out


def untraced(value: Any) -> Any:
    """``value`` with every None (a figure the reference's traces cannot give) as ``"untraced"``;
    this tree's figures beside them (keys ``this_...``) stay as they are, an empty one failing."""
    if value is None:
        return "untraced"
    if isinstance(value, dict):
        return {k: v if k.startswith("this_") else untraced(v) for k, v in value.items()}
    if isinstance(value, list):
        return [untraced(v) for v in value]
    return value


def _cell(row: dict[str, Any], side: str, u: float) -> str:
    """One side's figure, as the rest of the output prints it."""
    kind = next(k for k in _KINDS if f"{side}_{k}" in row)
    value = row[f"{side}_{kind}"]
    if not isinstance(value, (int, float)):
        return "empty" if value is None else str(value)  # "untraced", NO_LATER_DEAL
    return {"s": lambda: fmt(value, u), "ms": lambda: fmt_ms(value, u),
            "bytes": lambda: f"{value:,.0f} B", "mib": lambda: f"{value:.1f} MiB",
            "count": lambda: f"{value:g}"}[kind]()


def print_side_by_side(reference: dict[str, Any], runs: int, u: float) -> None:
    """Each case's figures: this tree, the reference revision, and this over the reference."""
    revision = f"{reference['revision']} ({reference['commit'][:10]})"
    for case in reference["side_by_side"]:
        what = (f"{case['game']}, four processes via "
                f"{'direct links and the host' if case['paths'] == 'direct' else 'the host only'}"
                if case["case"] == "table" else f"play {case['game']}, one process")
        print(f"== {what}: this tree against reference {revision}, {runs} run(s) each, alternated")
        table = [("figure", "this tree", f"reference {reference['revision']}", "this/ref")]
        for row in case["figures"]:
            ratio = row["ratio"]
            table.append((row["figure"], _cell(row, "this", u), _cell(row, "reference", u),
                          f"{ratio:.2f}x" if isinstance(ratio, (int, float)) else ratio))
        widths = [max(len(line[i]) for line in table) for i in range(3)]
        for line in table:
            print(f"  {line[0]:<{widths[0]}}  {line[1]:>{widths[1]}}  {line[2]:>{widths[2]}}  "
                  f"{line[3]:>8}")


def cache_bytecode(root: Path, packages: list[Path]) -> str:
    """Compile the packages' bytecode once (this tree's, and a reference's: both start alike),
    into a cache under ``root`` that every process started from here reads
    (``PYTHONPYCACHEPREFIX``): a process then starts as from an installed copy, whatever this
    environment says (PYTHONDONTWRITEBYTECODE, which makes each start compile every module
    it loads, about 0.25 s of CPU here)."""
    cache = root / "pycache"
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(cache)
    done = subprocess.run([sys.executable, "-m", "compileall", "-q", *map(str, packages)],
                          capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"compileall failed: {done.stdout[-400:]} {done.stderr[-400:]}")
    return f"cached beforehand in {cache.name}/ (as installed)"


def bench_verify(args: argparse.Namespace, root: Path, identities: list,
                 unit: ScalarmultUnit) -> dict[str, Any]:
    """``scripts/bench_verify.py``'s figures for the last Bluff match played here."""
    from bench_verify import measure

    if "bluff" not in SAVED:
        bench_play("bluff", args.seed, args, root, identities)
    path = root / "verify-transcript"
    path.write_bytes(SAVED["bluff"])
    return measure(read_records(path), 1, unit)


def summarise_play(game: str, runs: list[dict[str, Any]]) -> dict[str, Any]:
    firsts = [r["first_hand_s"] for r in runs]
    cpus = [r["first_hand_cpu_s"] for r in runs]
    return {
        "game": game, "cards": DECK_CARDS[game], "runs": len(runs),
        "version_s": {"median": _median([r["version_s"] for r in runs])},
        "first_hand_s": {"median": _median(firsts), "max": _max(firsts)},
        "first_hand_cpu_s": {"median": _median(cpus), "max": _max(cpus)},
        "later_deal_s": _times([x for r in runs for x in r["later_deals_s"]], p90=True),
        "deals_per_match": [r["deals"] for r in runs],
        "match_s": [r["match_s"] for r in runs],
        "peak_rss_kib": [r["peak_rss_kib"] for r in runs],
        "rss_growth_kib": [r["rss_growth_kib"] for r in runs],
        "outcomes": [r["outcome"] for r in runs],
    }


def print_play(plays: list[dict[str, Any]], u: float) -> None:
    for s in plays:
        print(f"== play {s['game']} ({s['cards']} cards), {s['runs']} match(es): one process, "
              f"your seat and three bots")
        first = s["first_hand_s"]
        print(f"  p2pcards --version: {fmt(s['version_s']['median'], u)}")
        print(f"  start of the process to your first hand: median {fmt(first['median'], u)}, "
              f"max {fmt(first['max'], u)} (goal {GOAL_PLAY_FIRST_UNITS:,} u)")
        cpu = s["first_hand_cpu_s"]
        print(f"    the process's CPU by then (interpreter and imports included): median "
              f"{fmt(cpu['median'], u)}, max {fmt(cpu['max'], u)}")
        print(f"  later deals, closing action to your next hand: "
              f"{_later(s['later_deal_s'], u, f' (goal {GOAL_PLAY_LATER_S} s)')}")
        print(f"  match: {[fmt(x, u, 2) for x in s['match_s']]}, {s['deals_per_match']} deals")
        print(f"  peak memory: {_mib(s['peak_rss_kib'])} (goal for a host with bots: "
              f"{GOAL_PEAK_HOST_BOTS_MB} MB); growth {_growth(s['rss_growth_kib'])}")


def _mib(values: list[int | None]) -> str:
    return "[" + ", ".join("n/a" if v is None else f"{v / 1024:.1f}" for v in values) + "] MiB"


def _growth(per_run: list[list[dict[str, Any]]]) -> str:
    """First-quarter against last-quarter growth of each process, in MiB."""
    parts = []
    for processes in per_run:
        parts.append("; ".join(
            f"{g['first_quarter_kib'] / 1024:+.1f} first quarter, "
            f"{g['last_quarter_kib'] / 1024:+.1f} last" if g else "n/a" for g in processes))
    return " | ".join(parts) or "n/a"


def print_comparison(summaries: list[dict[str, Any]]) -> None:
    """Direct links against the host only, per game: what the mesh costs."""
    for game in dict.fromkeys(s["game"] for s in summaries):
        by = {s["paths"]: s for s in summaries if s["game"] == game}
        if set(by) != {"direct", "host"}:
            continue
        figures = [("first deal", by["direct"]["first_deal_s"]["median"],
                    by["host"]["first_deal_s"]["median"]),
                   ("action latency median", by["direct"]["action_latency_ms"]["median"],
                    by["host"]["action_latency_ms"]["median"]),
                   ("match", _median(by["direct"]["match_s"]), _median(by["host"]["match_s"]))]
        said = ", ".join(f"{name} {direct / host:.2f}x" for name, direct, host in figures
                         if direct is not None and host)
        print(f"== {game}: direct links against the host only: {said}")


def _cpus() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


if __name__ == "__main__":
    sys.exit(main())
