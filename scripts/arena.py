#!/usr/bin/env python3
"""Arena: how often each bot wins whole matches, with a 95% interval, and how fast matches run.

Plays ``--matches`` local full-information matches (``play_local_match``: no
cryptography, this measures bots, not the protocol) between the bots named
by ``--bots`` (any kind of the package's registry, ``p2pcards.bots.registry``;
``--level`` sets the level of every ``search`` seat; ``search:normal`` fixes
one seat's level). Match ``i`` seats the bot list rotated by ``i``, so every bot
sits at every seat equally often; the first leader (Bluff) or dealer
(Topper) is drawn per match. Everything is seeded by ``--seed``: the same
command prints the same rates. A win shared by ``k`` players counts ``1/k``
to each, so the rates sum to one. Rotation keeps the list's circular order,
so each bot always has the same neighbours: with two copies of one bot, the
one seated just after the other answers its claims (Bluff) every match, and
their rates may differ for that reason alone. ``--jobs N`` plays the matches
in N processes; each match is seeded by its number alone, so the rates are
those of ``--jobs 1``. The time each bot takes per decision is reported
too (``decision_ms``: median, 95th percentile and maximum, in milliseconds), by the
wall clock and by the process's CPU time (``decision_cpu_ms``: on a shared machine
the wall clock counts the other processes' work too).
In Topper each bot's *tally* says where it wins or loses (``tally`` in the
JSON): hands scored, contracts it named (it was the bidder) and made, its
mean bid against the mean tricks it took as bidder, the bidders it set
while defending and its tricks per defended hand, and its points per hand.
``--minutes M`` (or Ctrl-C) stops counting after M minutes and reports the
matches played so far, in order: each is seeded as in a full run, so a
stopped run's figures are those of a full run of that many matches.

    .venv/bin/python scripts/arena.py --game topper --matches 500 --bots heuristic,random,random,random
    .venv/bin/python scripts/arena.py --game bluff --json
    .venv/bin/python scripts/arena.py --game topper --bots search,heuristic,heuristic,heuristic \
        --level easy --matches 400 --jobs 2 --json
    .venv/bin/python scripts/arena.py --game topper --bots search,counter,counter,counter \
        --matches 400 --jobs 2 --json
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if importlib.util.find_spec("p2pcards") is None:
    # Run from a checkout without an installed package: use the checkout's.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from p2pcards.bots.base import play_local_match  # noqa: E402
from p2pcards.bots.registry import DEFAULT_LEVEL, KINDS, LEVELS, make_bot_factory  # noqa: E402
from p2pcards.rules.games import GAMES  # noqa: E402
from p2pcards.rules.topper.events import HandScored  # noqa: E402

#: Two-sided 95% normal quantile.
Z95 = 1.959963984540054
SEATS = 4


@dataclass(frozen=True)
class ArenaResult:
    game: str
    matches: int
    seed: int
    bots: tuple[str, ...]
    #: Wins of each bot (by its unique name ``kind#position``), shared wins split.
    wins: dict[str, float]
    seconds: float
    steps: int
    level: str = DEFAULT_LEVEL
    #: Seconds of each of the bot's decisions, by bot name.
    decisions: dict[str, list[float]] = field(default_factory=dict)
    #: Topper: each bot's counts over every scored hand (see :class:`Tally`), by bot name.
    tallies: dict[str, Tally] = field(default_factory=dict)
    #: CPU seconds of each decision, by bot name (the wall clock also counts other
    #: processes on a shared machine; this does not).
    cpu: dict[str, list[float]] = field(default_factory=dict)

    @property
    def win_rate(self) -> dict[str, float]:
        return {name: w / self.matches for name, w in self.wins.items()}

    @property
    def ci95(self) -> dict[str, tuple[float, float]]:
        return {name: wilson(w, self.matches) for name, w in self.wins.items()}

    @property
    def matches_per_s(self) -> float:
        return self.matches / self.seconds if self.seconds > 0 else float("inf")

    @property
    def steps_per_match(self) -> float:
        return self.steps / self.matches

    @property
    def decision_ms(self) -> dict[str, dict[str, float]]:
        """Per bot: median, 95th percentile and maximum of its decision times, in ms."""
        return {name: timing_summary(times) for name, times in self.decisions.items() if times}

    @property
    def decision_cpu_ms(self) -> dict[str, dict[str, float]]:
        """Per bot: median, 95th percentile and maximum of its decisions' CPU time, in ms."""
        return {name: timing_summary(times) for name, times in self.cpu.items() if times}

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game, "matches": self.matches, "seed": self.seed,
            "bots": list(self.bots),
            "wins": self.wins,
            "win_rate": self.win_rate,
            "ci95": {name: list(pair) for name, pair in self.ci95.items()},
            "matches_per_s": self.matches_per_s,
            "steps_per_match": self.steps_per_match,
            "seconds": self.seconds,
            "level": self.level,
            "decision_ms": self.decision_ms,
            "decision_cpu_ms": self.decision_cpu_ms,
            "tally": {name: t.to_json() for name, t in self.tallies.items()},
        }


@dataclass
class Tally:
    """One bot's Topper hands: what it bid and took, how it defended, what it scored."""

    hands: int = 0
    contracts: int = 0
    made: int = 0
    bid_total: int = 0
    #: Tricks taken in the hands it named trump.
    bidder_tricks: int = 0
    defended: int = 0
    #: Tricks taken in the hands another seat named trump.
    defence_tricks: int = 0
    #: Hands in which it defended and the bidder fell short.
    sets: int = 0
    points: int = 0

    def add(self, other: Tally) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def count(self, scored: HandScored, seat: int) -> None:
        self.hands += 1
        self.points += scored.changes[seat]
        if scored.bidder == seat:
            self.contracts += 1
            self.made += scored.made
            self.bid_total += scored.bid
            self.bidder_tricks += scored.tricks[seat]
        else:
            self.defended += 1
            self.defence_tricks += scored.tricks[seat]
            self.sets += not scored.made

    def to_json(self) -> dict[str, float]:
        def per(a: float, b: int) -> float:
            return a / b if b else 0.0
        return {
            "hands": self.hands, "contracts": self.contracts, "made": self.made,
            "contract_share": per(self.contracts, self.hands),
            "made_rate": per(self.made, self.contracts),
            "mean_bid": per(self.bid_total, self.contracts),
            "mean_bidder_tricks": per(self.bidder_tricks, self.contracts),
            "sets": self.sets, "set_rate": per(self.sets, self.defended),
            "defence_tricks": per(self.defence_tricks, self.defended),
            "points": self.points, "points_per_hand": per(self.points, self.hands),
        }


def timing_summary(seconds: Sequence[float]) -> dict[str, float]:
    """Median, 95th percentile (nearest rank) and maximum of ``seconds``, in milliseconds."""
    ordered = sorted(seconds)
    p95 = ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]
    return {"median": 1000 * statistics.median(ordered), "p95": 1000 * p95,
            "max": 1000 * ordered[-1]}


def wilson(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion: honest near 0 and 1, unlike p ± z·se."""
    if trials <= 0:
        return (0.0, 1.0)
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    lo = 0.0 if p <= 0 else max(0.0, centre - half)
    hi = 1.0 if p >= 1 else min(1.0, centre + half)
    return (lo, hi)


def bot_names(kinds: Sequence[str]) -> tuple[str, ...]:
    """Unique names by position in the bot list: ``heuristic#0``, ``random#1``, ..."""
    return tuple(f"{kind}#{i}" for i, kind in enumerate(kinds))


class _Timed:
    """A bot whose decisions are timed (the arena's clocks, not the bot's): wall and CPU."""

    def __init__(self, bot: Any, times: list[float], cpu: list[float]) -> None:
        self.bot, self.times, self.cpu = bot, times, cpu
        self.name = bot.name

    def choose(self, view: Any) -> Any:
        start, start_cpu = time.perf_counter(), time.process_time()
        action = self.bot.choose(view)
        self.cpu.append(time.process_time() - start_cpu)
        self.times.append(time.perf_counter() - start)
        return action


def kind_and_level(name: str, level: str) -> tuple[str, str]:
    """``search:hard`` is a search bot at ``hard`` whatever ``--level`` says; ``search`` takes ``level``."""
    kind, _, own = name.partition(":")
    return kind, own or level


MatchResult = tuple[tuple[int, ...], int, list[list[float]], list[list[float]], list[Tally]]


def play_match(game_name: str, kinds: Sequence[str], level: str, seed: int, i: int) -> MatchResult:
    """Match ``i``: the winners (as positions in ``kinds``), its steps, each position's
    decision times (wall, then CPU) and (Topper) tally. Seeded by ``seed`` and ``i`` alone, so any process
    plays it alike."""
    game = GAMES[game_name]
    rng = random.Random(f"{seed}/{i}/table")
    # Seat s gets bot (s + i) mod 4 of the list: the list rotated by i.
    order = [(seat + i) % SEATS for seat in range(SEATS)]
    times: list[list[float]] = [[] for _ in kinds]
    cpu: list[list[float]] = [[] for _ in kinds]
    bots = [_Timed(make_bot_factory(game_name, *kind_and_level(kinds[j], level))(
        random.Random(f"{seed}/{i}/bot{j}")), times[j], cpu[j]) for j in order]
    tallies = [Tally() for _ in kinds]
    steps = 0

    def count(state: Any, action: Any, events: tuple) -> None:
        nonlocal steps
        steps += 1
        for event in events:
            if isinstance(event, HandScored):
                for seat in range(SEATS):
                    tallies[order[seat]].count(event, seat)

    state = play_local_match(game.new(None, rng.randrange(SEATS)), bots, game.deck(), rng,
                             on_step=count)
    return tuple(order[seat] for seat in state.outcome.winners), steps, times, cpu, tallies


def _play_match_args(args: tuple) -> MatchResult:
    return play_match(*args)


class _Inline:
    """``ProcessPoolExecutor``'s ``map`` in this process (for ``--jobs 1``)."""

    def __enter__(self) -> _Inline:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    @staticmethod
    def map(fn: Callable[..., Any], items: Sequence[Any], chunksize: int = 1) -> Any:
        return map(fn, items)

    @staticmethod
    def shutdown(wait: bool = True, cancel_futures: bool = False) -> None:
        return None


def run_arena(game_name: str, kinds: Sequence[str], matches: int, seed: int,
              level: str = DEFAULT_LEVEL, jobs: int = 1,
              progress: Callable[[str], None] | None = None,
              minutes: float | None = None) -> ArenaResult:
    """Play ``matches`` matches between ``kinds`` (one per seat, rotated each match),
    in ``jobs`` processes; the result does not depend on ``jobs`` (but the seconds).
    ``progress``, if given, is told the running wins after each match (in match order).
    After ``minutes`` of play, or on Ctrl-C, no further match is counted: the result is
    that of the first matches, in order (``matches`` says how many), each as seeded."""
    names = bot_names(kinds)
    wins = {name: 0.0 for name in names}
    decisions: dict[str, list[float]] = {name: [] for name in names}
    cpu: dict[str, list[float]] = {name: [] for name in names}
    tallies = {name: Tally() for name in names}
    steps = 0
    work = [(game_name, tuple(kinds), level, seed, i) for i in range(matches)]
    start = time.perf_counter()
    stop_at = math.inf if minutes is None else start + 60 * minutes
    done = 0
    with ProcessPoolExecutor(max_workers=jobs) if jobs > 1 else _Inline() as pool:
        try:
            results = pool.map(_play_match_args, work, chunksize=1)
            for winners, match_steps, times, cpu_times, tally in results:
                _count_match(names, winners, times, cpu_times, tally, wins, decisions, cpu,
                             tallies)
                steps += match_steps
                done += 1
                if progress is not None:
                    progress(f"{done}/{matches} " + " ".join(
                        f"{name} {wins[name] / done:.3f}" for name in names))
                if time.perf_counter() > stop_at:
                    break
        except KeyboardInterrupt:
            pass
        pool.shutdown(wait=False, cancel_futures=True)
    if done == 0:
        raise SystemExit("arena: stopped before the first match ended")
    matches = done
    seconds = time.perf_counter() - start
    if not any(t.hands for t in tallies.values()):
        tallies = {}
    return ArenaResult(game_name, matches, seed, names, wins, seconds, steps, level, decisions,
                       tallies, cpu)


def _count_match(names: Sequence[str], winners: tuple[int, ...],
                 times: list[list[float]], cpu_times: list[list[float]], tally: list[Tally],
                 wins: dict[str, float], decisions: dict[str, list[float]],
                 cpu: dict[str, list[float]], tallies: dict[str, Tally]) -> None:
    """Add one match's winners, decision times and tallies to the running totals."""
    for position in winners:
        wins[names[position]] += 1 / len(winners)
    for position, spent in enumerate(times):
        decisions[names[position]].extend(spent)
        cpu[names[position]].extend(cpu_times[position])
        tallies[names[position]].add(tally[position])


def report(result: ArenaResult) -> str:
    lines = [f"Arena: {result.game}, {result.matches} matches, seed {result.seed} "
             f"(seats rotated every match)",
             f"  {'bot':<14} {'wins':>9}  {'rate':>6}  95% interval"]
    for name in result.bots:
        lo, hi = result.ci95[name]
        lines.append(f"  {name:<14} {result.wins[name]:>9.2f}  {result.win_rate[name]:.4f}  "
                     f"[{lo:.4f}, {hi:.4f}]")
    cpu = result.decision_cpu_ms
    for name, timing in result.decision_ms.items():
        lines.append(f"  {name:<14} decisions: median {timing['median']:.1f} ms, "
                     f"p95 {timing['p95']:.1f} ms, max {timing['max']:.1f} ms"
                     + (f" (CPU: median {cpu[name]['median']:.1f}, p95 {cpu[name]['p95']:.1f}, "
                        f"max {cpu[name]['max']:.1f})" if name in cpu else ""))
    if result.tallies:
        lines.append(f"  {'bot':<14} {'hands':>6} {'named':>6} {'made':>6} {'bid':>5} {'took':>5} "
                     f"{'set':>6} {'def':>5} {'pts/hand':>8}")
    for name, tally in result.tallies.items():
        t = tally.to_json()
        lines.append(f"  {name:<14} {t['hands']:>6} {t['contract_share']:>6.1%} {t['made_rate']:>6.1%} "
                     f"{t['mean_bid']:>5.2f} {t['mean_bidder_tricks']:>5.2f} {t['set_rate']:>6.1%} "
                     f"{t['defence_tricks']:>5.2f} {t['points_per_hand']:>8.3f}")
    if result.tallies:
        lines.append("  (named: share of hands it named trump; made: of those; bid, took: mean bid and "
                     "tricks as bidder; set: share of defended hands whose bidder fell short; "
                     "def: tricks per defended hand)")
    lines.append(f"  {result.matches_per_s:.1f} matches/s, {result.steps_per_match:.1f} steps "
                 f"per match (deals and actions), {result.seconds:.2f} s")
    return "\n".join(lines)


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=sorted(GAMES), default="bluff")
    parser.add_argument("--matches", type=int, default=2000, help="matches to play (2000)")
    parser.add_argument("--bots", default="heuristic,random,random,random",
                        help=f"four bot kinds, comma-separated: {', '.join(KINDS)}; "
                             "search:LEVEL fixes that seat's level")
    parser.add_argument("--level", choices=LEVELS, default=DEFAULT_LEVEL,
                        help=f"level of every search bot (default {DEFAULT_LEVEL})")
    parser.add_argument("--jobs", type=int, default=1, metavar="N",
                        help="matches played in N processes at once (default 1; same results)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--minutes", type=float, default=None, metavar="M",
                        help="stop counting matches after M minutes (or on Ctrl-C) and report "
                             "the matches played, in order")
    parser.add_argument("--progress", action="store_true",
                        help="print each bot's running win rate to stderr after every match")
    args = parser.parse_args(argv)
    args.kinds = [k.strip().lower() for k in args.bots.split(",") if k.strip()]
    if len(args.kinds) != SEATS:
        parser.error(f"--bots needs {SEATS} bot kinds, not {len(args.kinds)}")
    unknown = sorted(k for k in args.kinds if kind_and_level(k, args.level)[0] not in KINDS)
    if unknown:
        parser.error(f"unknown bot kind {unknown[0]!r} (known: {', '.join(KINDS)})")
    levels = sorted(k for k in args.kinds if kind_and_level(k, args.level)[1] not in LEVELS)
    if levels:
        parser.error(f"unknown level in {levels[0]!r} (levels: {', '.join(LEVELS)})")
    if args.matches < 1:
        parser.error("--matches must be at least 1")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    progress = (lambda line: print(line, file=sys.stderr, flush=True)) if args.progress else None
    result = run_arena(args.game, args.kinds, args.matches, args.seed, args.level, args.jobs, progress,
                       args.minutes)
    if args.json:
        print(json.dumps(result.to_json(), indent=None, sort_keys=True))
    else:
        print(report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
