#!/usr/bin/env python3
"""Fit the counter bot's Topper hand evaluation by simulation, and print the constants.

For each of ``--deals`` seeded random deals, seat 0 is made the bidder (a bid
of one, every other seat passing, dealer 3) and plays the hand out, leading,
with all four seats playing the counter bot's card play
(``p2pcards.bots.topper_counter``); this is done under two trumps per deal:
the suit the current evaluation names, and one other at random, so the fit
both predicts the named suit and ranks the suits. The tricks seat 0 takes
are fitted by least squares (a small ridge) to the features of
``features(hand, trump)``; the residuals' deciles give the spread of the
estimate, and the mean tricks of the three defenders under the named suit
give the value of passing. It prints the three constants to paste into
``topper_counter.py`` (``WEIGHTS``, ``RESIDUALS``, ``DEFEND_TRICKS``), with R².

    .venv/bin/python scripts/fit_counter.py --deals 3000 --seed 26
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path

if importlib.util.find_spec("p2pcards") is None:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from p2pcards.bots.topper_counter import CounterTopperBot, best_suit, features  # noqa: E402
from p2pcards.cards import TOPPER_DECK, Suit  # noqa: E402
from p2pcards.rules.topper import Phase, TopperState  # noqa: E402


def play_hand(hands: list[list], trump: Suit, rng: random.Random) -> tuple[int, ...]:
    """The tricks each seat takes when seat 0 bids one, names ``trump`` and leads."""
    state = TopperState.position(first=3, hands=dict(enumerate(hands)), bidder=0, bid=1, trump=trump)
    bots = [CounterTopperBot(random.Random(rng.random())) for _ in range(4)]
    for _ in range(4 * len(hands[0])):
        seat = state.to_act
        state.apply(bots[seat].choose(state.view(seat)))
        if state.phase is not Phase.PLAY:  # scored: the tricks stay until the next deal
            return state.tricks_taken
    raise RuntimeError("the hand did not end")


def solve(rows: list[list[float]], ys: list[float], ridge: float = 1e-3) -> list[float]:
    """Least squares with a small ridge, by Gaussian elimination on the normal equations."""
    k = len(rows[0])
    a = [[sum(r[i] * r[j] for r in rows) + (ridge if i == j and i else 0.0) for j in range(k)]
         for i in range(k)]
    b = [sum(r[i] * y for r, y in zip(rows, ys, strict=True)) for i in range(k)]
    for col in range(k):
        pivot = max(range(col, k), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        b[col], b[pivot] = b[pivot], b[col]
        for r in range(k):
            if r != col and a[col][col]:
                f = a[r][col] / a[col][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col], strict=True)]
                b[r] -= f * b[col]
    return [b[i] / a[i][i] if a[i][i] else 0.0 for i in range(k)]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=26)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    rows: list[list[float]] = []
    ys: list[float] = []
    defend: list[float] = []
    for _ in range(args.deals):
        deck = list(TOPPER_DECK)
        rng.shuffle(deck)
        hands = [deck[6 * s:6 * s + 6] for s in range(4)]
        named = best_suit(hands[0])[0]
        other = rng.choice([s for s in Suit if s != named])
        for trump in (named, other):
            taken = play_hand(hands, trump, rng)
            rows.append([1.0] + features(hands[0], trump))
            ys.append(float(taken[0]))
            if trump == named:
                defend.extend(float(t) for t in taken[1:])
    weights = solve(rows, ys)
    fitted = [sum(w * x for w, x in zip(weights, r, strict=True)) for r in rows]
    residuals = sorted(y - f for y, f in zip(ys, fitted, strict=True))
    mean = statistics.fmean(ys)
    ss_tot = sum((y - mean) ** 2 for y in ys)
    ss_res = sum(r * r for r in residuals)
    deciles = [residuals[min(len(residuals) - 1, int((q + 0.5) / 10 * len(residuals)))]
               for q in range(10)]
    print(f"# {len(ys)} hands from {args.deals} deals, seed {args.seed}: R² {1 - ss_res / ss_tot:.3f}, "
          f"mean tricks {mean:.3f}")
    print("WEIGHTS = (" + ", ".join(f"{w:.3f}" for w in weights) + ")")
    print("RESIDUALS = (" + ", ".join(f"{r:.2f}" for r in deciles) + ")")
    print(f"DEFEND_TRICKS = {statistics.fmean(defend):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
