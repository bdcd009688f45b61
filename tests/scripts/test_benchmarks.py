"""The benchmarks in scripts/ print a number for every figure they name, each time also in
units (one scalar multiplication timed in the same run), and fail a run whose figure is empty."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"


def run_script(name: str, *args: str, timeout: float = 120,
               tmp: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``scripts/NAME ARGS``; with ``tmp``, its temporary folders are made there."""
    env = None if tmp is None else {**os.environ, "TMPDIR": str(tmp)}
    return subprocess.run([sys.executable, str(SCRIPTS / name), *args], capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT, env=env)


def load_figures() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_figures", SCRIPTS / "_figures.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def load_bench_table(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """``scripts/bench_table.py`` as a module (its helpers found beside it, as when it runs)."""
    monkeypatch.syspath_prepend(str(SCRIPTS))
    spec = importlib.util.spec_from_file_location("bench_table", SCRIPTS / "bench_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


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
    # Each phase has its own floor, in seconds and units; together they are the deal's.
    phases = floor["phase_wall_floors"]
    assert sorted(phases) == sorted(f"{p}{end}" for p in ("keys_and_seats", "shuffles", "shares")
                                    for end in ("_s", "_units"))
    assert all(phases[f"{p}_units"] > 0 for p in ("keys_and_seats", "shuffles", "shares"))
    assert sum(phases[f"{p}_s"] for p in ("keys_and_seats", "shuffles", "shares")) == \
        pytest.approx(floor["wall_floor_s"])


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


def fake_traces(*, shuffles: bool = True) -> list[list[dict[str, Any]]]:
    """Four processes' traces of a one-deal match; without ``shuffles``, as a version that
    did not trace ``ShuffleVerified`` would leave them."""
    traces = []
    for seat in range(4):
        events: list[dict[str, Any]] = [{"event": "TableStarted", "t": 100.0, "cpu": 0.1}]
        events.append({"event": "PlayersSeated", "t": 100.1, "cpu": 0.2})
        if shuffles:
            events += [{"event": "ShuffleVerified", "deck": 0, "seat": s, "t": 100.2 + s / 20}
                       for s in range(4)]
        events += [{"event": "HandReceived", "deck": 0, "t": 100.5 + seat / 100, "cpu": 0.6},
                   {"event": "ActionApplied", "position": 20, "t": 100.6 + seat / 1000},
                   {"event": "MatchCompleted", "t": 100.7}]
        traces.append(events)
    return traces


def test_a_figure_the_reference_does_not_trace_is_untraced_and_fails_nothing(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    bench, figures = load_bench_table(monkeypatch), load_figures()
    rest = {"wall_s": 1.0, "transcript_bytes": 10, "wire_bytes_estimate": 30,
            "peak_rss_kib": [1024] * 4, "cpu_s": [0.5] * 4, "rss_growth_kib": [], "outcome": "won"}

    def summary(traces: list[list[dict[str, Any]]], strict: bool) -> dict[str, Any]:
        match = {**bench.analyse("topper", traces, strict=strict), **rest}
        return dict(bench.summarise("topper", [match]), paths="direct")

    ours, theirs = [summary(fake_traces(), True)], {"games": [summary(fake_traces(shuffles=False), False)], "play": []}
    rows = {r["figure"]: r for r in bench.side_by_side(ours, [], theirs)[0]["figures"]}
    assert rows["first deal: shuffles"]["reference_s"] == "untraced"
    assert rows["first deal: shuffles"]["ratio"] == "n/a"
    assert rows["first deal, genesis to every hand"]["ratio"] == pytest.approx(1.0)
    assert "later deals, median" not in rows  # a one-deal match: not a figure on either side
    # Unseeded bots play matches of different lengths: a reference with no later deal lacks
    # nothing, and says so rather than "untraced".
    longer = [dict(ours[0], later_deal_s={"count": 1, "median": 0.3, "max": 0.3})]
    later = {r["figure"]: r for r in bench.side_by_side(longer, [], theirs)[0]["figures"]}
    assert later["later deals, median"]["reference_s"] == bench.NO_LATER_DEAL
    assert later["later deals, median"]["ratio"] == "n/a"
    reference = {"revision": "old", "commit": "0" * 40, **theirs,
                 "side_by_side": bench.side_by_side(ours, [], theirs)}
    report = figures.with_units({"games": ours, "reference": reference}, 0.0001)
    report["reference"] = bench.untraced(report["reference"])
    assert figures.finish(report, "bench") == 0
    bench.print_side_by_side(report["reference"], 1, 0.0001)
    shown = capsys.readouterr().out
    assert "reference old (0000000000)" in shown and "untraced" in shown
    # This tree's own empty figure still fails the run.
    report["games"][0]["first_deal_phases_s"]["shuffles_s"] = None
    assert figures.finish(report, "bench") == 1


def git_revision(revision: str) -> str | None:
    """The commit ``revision`` names in this checkout, or None without git or its history."""
    if shutil.which("git") is None:
        return None
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet",
                           f"{revision}^{{commit}}"], capture_output=True, text=True, timeout=30,
                          check=False)
    return done.stdout.strip() if done.returncode == 0 else None


@pytest.mark.slow
def test_bench_table_plays_a_reference_revision_beside_this_tree(tmp_path: Path) -> None:
    commit = git_revision("HEAD")
    if commit is None:
        pytest.skip("no git, or no history in this checkout: no revision to play beside this tree")
    # Seeded: both sides play the same match (the same code), so neither lacks a later
    # deal the other has (unseeded, the reference once played a one-deal match).
    done = run_script("bench_table.py", "--game", "topper", "--target", "3", "--paths", "direct",
                      "--seeded", "--reference", "HEAD", "--json", timeout=600, tmp=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "null" not in done.stdout and "untraced" not in done.stdout  # HEAD traces every event
    report = json.loads(done.stdout)
    assert numbers_everywhere(report) == [] and time_keys_without_units(report) == []
    reference = report["reference"]
    assert reference["revision"] == "HEAD" and reference["commit"] == commit
    cases = {(c["case"], c["game"]): c["figures"] for c in reference["side_by_side"]}
    assert set(cases) == {("table", "topper"), ("play", "topper")}
    for rows in cases.values():
        assert len(rows) >= 6
        for row in rows:
            sides = [(k.split("_", 1)[0], v) for k, v in row.items()
                     if k.startswith(("this_", "reference_"))]
            assert {side for side, _ in sides} == {"this", "reference"}, row
            assert all(is_number(value) for _, value in sides), row
            assert is_number(row["ratio"]) and row["ratio"] > 0, row
    assert reference["games"][0]["first_deal_units"]["median"] > 0
    assert reference["play"][0]["first_hand_units"]["median"] > 0
    assert os.listdir(tmp_path) == []  # the script's temporary folder (the extraction too) is gone
