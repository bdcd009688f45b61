#!/usr/bin/env python3
"""Arena: how often each bot wins whole matches, with a 95% interval, and how fast matches run.

Plays ``--matches`` local full-information matches (``play_local_match``: no
cryptography, this measures bots, not the protocol) between the bots named
by ``--bots``. Match ``i`` seats the bot list rotated by ``i``, so every bot
sits at every seat equally often; the first leader (Bluff) or dealer
(Topper) is drawn per match. Everything is seeded by ``--seed``: the same
command prints the same rates. A win shared by ``k`` players counts ``1/k``
to each, so the rates sum to one. Rotation keeps the list's circular order,
so each bot always has the same neighbours: with two copies of one bot, the
one seated just after the other answers its claims (Bluff) every match, and
their rates may differ for that reason alone.

    .venv/bin/python scripts/arena.py --game topper --matches 500 --bots heuristic,random,random,random
    .venv/bin/python scripts/arena.py --game bluff --json
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

if importlib.util.find_spec("p2pcards") is None:
    # Run from a checkout without an installed package: use the checkout's.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from p2pcards.bots.base import play_local_match  # noqa: E402
from p2pcards.bots.bluff import HeuristicBluffBot, RandomBluffBot  # noqa: E402
from p2pcards.bots.topper import HeuristicTopperBot, RandomTopperBot  # noqa: E402
from p2pcards.cards import FULL_DECK, TOPPER_DECK, Card  # noqa: E402
from p2pcards.rules.bluff import BluffState  # noqa: E402
from p2pcards.rules.topper import TopperState  # noqa: E402

#: Two-sided 95% normal quantile.
Z95 = 1.959963984540054
SEATS = 4


@dataclass(frozen=True)
class Game:
    """What the arena needs of a game: a new match, its deck and its bots by name."""

    new_match: Callable[[int], Any]
    deck: tuple[Card, ...]
    bots: dict[str, Callable[[random.Random], Any]]


GAMES: dict[str, Game] = {
    "bluff": Game(lambda first: BluffState.new(None, first), FULL_DECK,
                  {"random": RandomBluffBot, "heuristic": HeuristicBluffBot}),
    "topper": Game(lambda first: TopperState.new(None, first), TOPPER_DECK,
                   {"random": RandomTopperBot, "heuristic": HeuristicTopperBot}),
}


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
        }


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


def run_arena(game_name: str, kinds: Sequence[str], matches: int, seed: int) -> ArenaResult:
    """Play ``matches`` matches between ``kinds`` (one per seat, rotated each match)."""
    game = GAMES[game_name]
    names = bot_names(kinds)
    wins = {name: 0.0 for name in names}
    steps = 0

    def count(state: Any, action: Any, events: tuple) -> None:
        nonlocal steps
        steps += 1

    start = time.perf_counter()
    for i in range(matches):
        rng = random.Random(f"{seed}/{i}/table")
        # Seat s gets bot (s + i) mod 4 of the list: the list rotated by i.
        order = [(seat + i) % SEATS for seat in range(SEATS)]
        bots = [game.bots[kinds[j]](random.Random(f"{seed}/{i}/bot{j}")) for j in order]
        state = play_local_match(game.new_match(rng.randrange(SEATS)), bots, game.deck, rng,
                                 on_step=count)
        winners = state.outcome.winners
        for seat in winners:
            wins[names[order[seat]]] += 1 / len(winners)
    seconds = time.perf_counter() - start
    return ArenaResult(game_name, matches, seed, names, wins, seconds, steps)


def report(result: ArenaResult) -> str:
    lines = [f"Arena: {result.game}, {result.matches} matches, seed {result.seed} "
             f"(seats rotated every match)",
             f"  {'bot':<14} {'wins':>9}  {'rate':>6}  95% interval"]
    for name in result.bots:
        lo, hi = result.ci95[name]
        lines.append(f"  {name:<14} {result.wins[name]:>9.2f}  {result.win_rate[name]:.4f}  "
                     f"[{lo:.4f}, {hi:.4f}]")
    lines.append(f"  {result.matches_per_s:.1f} matches/s, {result.steps_per_match:.1f} steps "
                 f"per match (deals and actions), {result.seconds:.2f} s")
    return "\n".join(lines)


def parse_args(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=sorted(GAMES), default="bluff")
    parser.add_argument("--matches", type=int, default=2000, help="matches to play (2000)")
    parser.add_argument("--bots", default="heuristic,random,random,random",
                        help="four bot kinds, comma-separated: heuristic or random")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    args.kinds = [k.strip().lower() for k in args.bots.split(",") if k.strip()]
    if len(args.kinds) != SEATS:
        parser.error(f"--bots needs {SEATS} bot kinds, not {len(args.kinds)}")
    unknown = sorted(set(args.kinds) - set(GAMES[args.game].bots))
    if unknown:
        parser.error(f"unknown bot kind {unknown[0]!r} (known: "
                     f"{', '.join(sorted(GAMES[args.game].bots))})")
    if args.matches < 1:
        parser.error("--matches must be at least 1")
    return args


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = parse_args(argv)
    result = run_arena(args.game, args.kinds, args.matches, args.seed)
    if args.json:
        print(json.dumps(result.to_json(), indent=None, sort_keys=True))
    else:
        print(report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
