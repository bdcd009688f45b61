"""scripts/arena.py: whole bot matches, win rates with Wilson intervals, JSON output."""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
ARENA = ROOT / "scripts" / "arena.py"


def run_arena(*args: str, isolated: bool = False) -> subprocess.CompletedProcess[str]:
    # -I -S: no site-packages and no current directory, as in a fresh checkout with nothing
    # installed; the script must find the package from the repository root itself.
    flags = ["-I", "-S"] if isolated else []
    return subprocess.run([sys.executable, *flags, str(ARENA), *args], capture_output=True,
                          text=True, timeout=120, cwd="/")


def load_arena() -> ModuleType:
    spec = importlib.util.spec_from_file_location("arena_script", ARENA)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it loads
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("game", ["bluff", "topper"])
def test_json_has_the_fields_and_rates_that_sum_to_one(game: str) -> None:
    done = run_arena("--game", game, "--matches", "20", "--seed", "3", "--json",
                     "--bots", "heuristic,random,heuristic,random", isolated=True)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["game"] == game and report["matches"] == 20
    names = ["heuristic#0", "random#1", "heuristic#2", "random#3"]
    assert sorted(report["win_rate"]) == sorted(names) == sorted(report["ci95"])
    assert math.isclose(sum(report["win_rate"].values()), 1.0, abs_tol=1e-9)
    for name in names:
        lo, hi = report["ci95"][name]
        assert 0.0 <= lo <= report["win_rate"][name] <= hi <= 1.0
    assert report["matches_per_s"] > 0 and report["steps_per_match"] > 0


def test_the_same_seed_gives_the_same_rates_and_another_seed_other_matches() -> None:
    module = load_arena()
    kinds = ["heuristic", "heuristic", "random", "random"]
    first = module.run_arena("bluff", kinds, 12, seed=8)
    again = module.run_arena("bluff", kinds, 12, seed=8)
    assert first.wins == again.wins and first.steps == again.steps
    other = module.run_arena("bluff", kinds, 12, seed=9)
    assert other.steps != first.steps


def test_plain_report_lists_each_bot_with_its_interval() -> None:
    done = run_arena("--game", "topper", "--matches", "8", "--seed", "1")
    assert done.returncode == 0, done.stderr
    for name in ("heuristic#0", "random#1", "random#2", "random#3"):
        assert name in done.stdout
    assert "matches/s" in done.stdout and "steps per match" in done.stdout


def test_bad_bot_lists_are_refused() -> None:
    assert run_arena("--bots", "heuristic,random").returncode == 2
    wrong = run_arena("--bots", "heuristic,random,random,genius", "--matches", "1")
    assert wrong.returncode == 2 and "unknown bot kind 'genius'" in wrong.stderr


def test_wilson_interval() -> None:
    wilson = load_arena().wilson
    assert wilson(0, 20)[0] == 0.0 and wilson(20, 20)[1] == 1.0
    lo, hi = wilson(50, 100)
    assert math.isclose(lo, 0.4038, abs_tol=1e-3) and math.isclose(hi, 0.5962, abs_tol=1e-3)
    lo, hi = wilson(2.5, 10)  # shared wins count fractionally
    assert lo < 0.25 < hi


def test_shared_wins_are_split_between_the_winners(monkeypatch: pytest.MonkeyPatch) -> None:
    module = load_arena()

    class Outcome:
        winners = (0, 2)

    class Done:
        outcome = Outcome()

    monkeypatch.setattr(module, "play_local_match", lambda *args, **kwargs: Done())
    result = module.run_arena("topper", ["random"] * 4, 4, seed=0)
    # Each match: seats 0 and 2 share, i.e. bots i and i+2 of the list rotated by i.
    assert result.wins == {"random#0": 1.0, "random#1": 1.0, "random#2": 1.0, "random#3": 1.0}
    assert math.isclose(sum(result.win_rate.values()), 1.0)
