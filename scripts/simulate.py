#!/usr/bin/env python3
"""Run the deterministic simulation of a whole match for many seeds.

    python scripts/simulate.py --count 5000             # seeds 0..4999, whole matches
    python scripts/simulate.py --start 50000 --count 5000
    python scripts/simulate.py --stop-at 9 --count 20000  # the seating only
    python scripts/simulate.py --seed 1161 --verbose    # replay one schedule
    python scripts/simulate.py --game bluff --count 500  # one-deal Bluff matches
    python scripts/simulate.py --evenings --count 2000  # end boxes and rematches

Each seed draws a schedule (delays, cuts and restores of links, a coalition of
up to three players that drops, holds back, duplicates, replays, equivocates,
writes out of turn, sends rule-breaking shuffles, shares or actions, withholds,
sends on chosen paths only) and runs the four players' ``SessionRules`` and the
host's ``Relay`` over it, through a one-deal Topper match or (``--game bluff``) a
one-deal Bluff match of two chips a seat, whose challenges show face-down
discards and whose coalition also sends shows with wrong or too few shares and
rule-breaking discards (``tests/sim/simulation.py``). Prints the count, the failing seeds with what
failed, how many runs reached the match's end, how many verdicts with evidence
``check_verdict`` confirmed on the naming peer's record, how many verdicts the
link-churn rule and timed races explain, the time taken and the schedules per
second; exits 1 on a failure. With ``--evenings`` each seed is instead an evening
after a finished match (``tests/sim/evening.py``: the end boxes under presence
floods, link churn and a leave some end boxes never hear, the host's end box, the
rematch's check and its opening with every clock), after the four matches of
``tests/sim/test_evening_simulation.py`` in turn.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.sim.judge import judge  # noqa: E402
from tests.sim.schedule import GAMES, schedule_for  # noqa: E402
from tests.sim.simulation import Simulation  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=2000, help="seeds to run")
    parser.add_argument("--start", type=int, default=0, help="first seed")
    parser.add_argument("--seed", type=int, help="replay this one seed")
    parser.add_argument("--stop-at", type=int, default=None,
                        help="stop each schedule at this position (default: the match's end)")
    parser.add_argument("--game", choices=GAMES, default="topper", help="the game played")
    parser.add_argument("--verbose", action="store_true", help="print each peer's end")
    parser.add_argument("--evenings", action="store_true",
                        help="simulate evenings (end boxes, rematches) instead of matches")
    args = parser.parse_args()
    logging.disable(logging.WARNING)  # the peers log every frame they drop
    if args.evenings:
        return evenings(args.start, args.count if args.seed is None else 1, args.seed)
    seeds = [args.seed] if args.seed is not None else range(args.start, args.start + args.count)
    began = time.perf_counter()
    failing, churn, races, runs, over, confirmed = [], 0, 0, 0, 0, 0
    for seed in seeds:
        sim = Simulation(schedule_for(seed, args.stop_at, args.game)).run()
        outcome = judge(sim)
        runs += 1
        churn += outcome.churn
        races += outcome.races
        over += outcome.over
        confirmed += outcome.confirmed
        if outcome.failures:
            failing.append(seed)
            print(f"FAIL {outcome.schedule.describe()}")
            for failure in outcome.failures:
                print(f"    {failure}")
        if args.verbose:
            print(outcome.schedule.describe(), f"cuts={outcome.schedule.cuts}")
            for peer in sim.peers:
                verdict = peer.verdict
                said = "no verdict" if verdict is None else (
                    f"{verdict.rule} naming {verdict.players} at {peer.verdict_at:.2f}: "
                    f"{verdict.detail}")
                print(f"    player {peer.player} ({'honest' if peer.honest else 'coalition'}): "
                      f"position {peer.table.next_position}, {said}")
    took = time.perf_counter() - began
    print(f"game: {args.game}, schedules: {runs}, failing: {len(failing)}"
          f"{' ' + str(failing[:50]) if failing else ''}, "
          f"reached the match's end: {over}, "
          f"verdicts with evidence confirmed on the record: {confirmed}, "
          f"verdicts by the link-churn rule: {churn}, "
          f"cascades from a message timed to a window's end: {races}, "
          f"{took:.1f} s ({runs / took:.1f} schedules/s)")
    return 1 if failing else 0


def evenings(start: int, count: int, seed: int | None) -> int:
    """``count`` seeded evenings, spread over the four finished matches."""
    from tests.sim.evening import evening_plan, run_evening
    from tests.sim.test_evening_simulation import MATCHES, _match
    began = time.perf_counter()
    seeds = [seed] if seed is not None else list(range(start, start + count))
    names = sorted(MATCHES)
    failing: list[tuple[str, int]] = []
    refusals = unopened = named = 0
    for index, number in enumerate(seeds):
        match = names[index % len(names)]
        outcome = run_evening(_match(match), evening_plan(number))
        refusals += bool(outcome.refusals)
        unopened += sum(1 for v in outcome.verdicts.values()
                        if v is not None and getattr(v, "rule", "") == "evening.unopened")
        named += sum(1 for v in outcome.verdicts.values()
                     if v is not None and getattr(v, "players", ()))
        if outcome.failures:
            failing.append((match, number))
            print(f"FAIL match={match} {outcome.plan.describe()}")
            for failure in outcome.failures:
                print(f"    {failure}")
    took = time.perf_counter() - began
    print(f"evenings: {len(seeds)}, failing: {len(failing)}"
          f"{' ' + str(failing[:50]) if failing else ''}, with a refused genesis: {refusals}, "
          f"rematch verdicts unopened (nobody named): {unopened}, naming someone (the "
          f"coalition): {named}, {took:.1f} s ({len(seeds) / took:.1f} evenings/s)")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
