"""The benchmarks in scripts/ print a number for every figure they name, each time also in
units (one scalar multiplication timed in the same run), and fail a run whose figure is empty."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"


def run_script(name: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPTS / name), *args], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)


def load_figures() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_figures", SCRIPTS / "_figures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def numbers_everywhere(report: Any, path: str = "") -> list[str]:
    """Paths of every value that is not a number, string, bool, list or dict of them."""
    if isinstance(report, dict):
        return [p for k, v in report.items() for p in numbers_everywhere(v, f"{path}.{k}")]
    if isinstance(report, list):
        return [p for i, v in enumerate(report) for p in numbers_everywhere(v, f"{path}[{i}]")]
    return [] if isinstance(report, (int, float, str, bool)) else [path]


def time_keys_without_units(report: Any) -> list[str]:
    """Keys of times (``_s``, ``_ms``) with no ``_units`` twin beside them (the times
    inside a time's value are in its twin's value)."""
    missing = []
    if isinstance(report, dict):
        for key, value in report.items():
            if key.endswith(("_s", "_ms")):
                if key.rsplit("_", 1)[0] + "_units" not in report:
                    missing.append(key)
            else:
                missing += time_keys_without_units(value)
    elif isinstance(report, list):
        for value in report:
            missing += time_keys_without_units(value)
    return missing


def test_every_time_gets_its_units_and_counts_stay_counts() -> None:
    figures = load_figures()
    report = {"deal_s": 0.5, "latency_ms": {"median": 2.0, "count": 7}, "bytes": 10,
              "each_s": [0.1, 0.2]}
    out = figures.with_units(report, 0.0001)
    assert out["deal_units"] == pytest.approx(5000)
    assert out["latency_units"] == {"median": pytest.approx(20), "count": 7}
    phases = figures.with_units({"phases_s": {"keys_s": 0.1, "shares_ms": 20.0}}, 0.0001)
    assert phases["phases_units"] == {"keys_units": pytest.approx(1000),
                                      "shares_units": pytest.approx(200)}
    assert out["each_units"] == [pytest.approx(1000), pytest.approx(2000)]
    assert out["bytes"] == 10 and "bytes_units" not in out


def test_an_empty_figure_fails_the_run_and_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    figures = load_figures()
    assert figures.finish({"a_s": 1.0, "b": [1, 2]}, "bench") == 0
    assert figures.finish({"deal": {"median_s": None}, "n": [1, float("nan")]}, "bench") == 1
    said = capsys.readouterr().err
    assert "deal.median_s" in said and "n[1]" in said


def test_the_unit_is_a_time_measured_here() -> None:
    unit = load_figures().ScalarmultUnit()
    unit.sample(5)
    assert len(unit.samples) == 5 and 0 < unit.seconds < 0.1
    assert unit.units(unit.seconds * 3) == pytest.approx(3)


def test_bench_deck_prints_every_figure() -> None:
    done = run_script("bench_deck.py", "--cards", "24", "--repeat", "1", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert numbers_everywhere(report) == [] and "null" not in done.stdout
    assert report["total_units"] > 0 and report["total_in_scalarmults"] > 0
    assert time_keys_without_units(report) == []


@pytest.mark.parametrize("script", ["bench_admission.py", "bench_spectators.py",
                                    "bench_topper_search.py", "bench_candidates.py"])
def test_the_other_benchmarks_load_with_the_events_they_wait_for(script: str) -> None:
    # Each names the traced events it waits for by their classes: a renamed event fails here.
    done = run_script(script, "--help", timeout=60)
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
def test_bench_table_prints_every_figure_of_a_short_match() -> None:
    done = run_script("bench_table.py", "--game", "bluff", "--deals", "2", "--paths", "direct",
                      "--json", timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "null" not in done.stdout and "NaN" not in done.stdout
    report = json.loads(done.stdout)
    assert numbers_everywhere(report) == []
    assert time_keys_without_units(report) == []
    game, play = report["games"][0], report["play"][0]
    assert game["deals_per_match"] == [2] and game["first_deal_units"]["median"] > 0
    assert all(isinstance(x, float) for x in game["first_deal_phases_s"].values())
    assert game["later_deal_s"]["count"] == 1 and play["first_hand_units"]["median"] > 0
    assert game["first_deal_cpu_units"]["median"] > 0 and play["first_hand_cpu_units"]["median"] > 0
    floor = report["deal_floor"]["bluff"]
    assert floor["operations"]["scalarmult"] > 0 and floor["wall_floor_units"] > 0


@pytest.mark.slow
def test_bench_verify_prints_every_figure_beside_its_floor() -> None:
    done = run_script("bench_verify.py", "--deals", "1", "--repeat", "1", "--json", timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "null" not in done.stdout
    report = json.loads(done.stdout)
    assert numbers_everywhere(report) == [] and time_keys_without_units(report) == []
    assert report["transcript"]["deals"] == 1 and report["transcript"]["shuffles"] == 4
    floors = report["floors"]
    assert floors["per_proof"]["operations"]["sign_verify"] == report["transcript"]["messages"]
    assert 0 < floors["batched"]["operations"]["scalarmult"] < floors["per_proof"]["operations"]["scalarmult"]
    assert floors["per_proof"]["operations"]["validate"] > 0 == floors["batched"]["operations"]["validate"]
    assert set(report["runs"]) >= {"one_by_one", "verify_1"}
    for run in report["runs"].values():
        assert run["cpu_over"]["per_proof"] > 0 and run["wall_over"]["batched"] > 0
        assert run["cpu_units"] > 0
