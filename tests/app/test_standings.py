"""The evening's standings: a seeded evening of three matches against bots, counted only
from records that verify (a tampered one is left out, and said so), grouped by day and players."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from p2pcards.app.hosted import TableOptions, play_local
from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.bots.agent import BotAgent, make_bot_factory
from p2pcards.evening.standings import collect, evening_of, own_records, records_under, standings_lines
from p2pcards.net.session_events import LobbyUpdate
from p2pcards.protocol import game_wire
from p2pcards.protocol.events import PlayersSeated
from p2pcards.rules.topper import TopperConfig, TopperOutcome

from .test_cli import run_cli

ME = seeded_identity(1, "me", "Me")
#: A short Topper match (the first hand that reaches 3 points ends it): cheap to play and verify.
CONFIG = game_wire.by_name("topper").config_to_wire(TopperConfig(target_score=3))


def _play(root: Path, seed: int) -> dict[str, Any]:
    """One seeded match against three bots; what it gave each name: points, and a win."""
    events: list[object] = []
    options = TableOptions(game="topper", config=CONFIG, seed=seed, deadline=30, journal_root=root)
    result = asyncio.run(asyncio.wait_for(play_local(
        ME, BotAgent(make_bot_factory("topper", "heuristic"), seed), options,
        on_event=events.append), timeout=120))
    outcome = result.outcome
    assert isinstance(outcome, TopperOutcome)
    lobby = [e for e in events if isinstance(e, LobbyUpdate)][-1]
    seating = next(e for e in events if isinstance(e, PlayersSeated)).player_at_seat
    names = [lobby.players[p][1] for p in seating]
    return {"points": dict(zip(names, outcome.scores, strict=True)),
            "won": [names[s] for s in outcome.winners]}


@pytest.fixture(scope="module")
def evening(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """Three matches of one evening, in the order played (sessions by transcript time)."""
    root = tmp_path_factory.mktemp("evening")
    return root, [_play(root, seed) for seed in (21, 22, 23)]


def _expected(results: list[dict[str, Any]]) -> tuple[Counter[str], Counter[str]]:
    wins: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    for r in results:
        wins.update(r["won"])
        totals.update(r["points"])
    return wins, totals


def _mine_in_order(root: Path) -> list[Path]:
    return sorted(own_records(root, ME.fingerprint), key=lambda p: (p / "transcript").stat().st_mtime)


def test_an_evening_of_three_matches_counts_each_players_wins_and_points(
        evening: tuple[Path, list[dict[str, Any]]]) -> None:
    root, results = evening
    standings = collect(own_records(root, ME.fingerprint))
    assert standings.not_counted == []
    assert len(standings.evenings) == 1  # the same four (bots by name) on one day
    night = standings.evenings[0]
    assert len(night.matches) == 3
    wins, totals = _expected(results)
    rows = {r.name: r for r in night.lines()}
    assert set(rows) == {"Me", "Ada", "Bob", "Cy"}
    assert {n: r.wins for n, r in rows.items()} == {n: wins[n] for n in rows}
    assert {n: r.totals["topper"] for n, r in rows.items()} == {n: totals[n] for n in rows}
    assert not rows["Me"].bot and rows["Ada"].bot
    last = results[-1]
    assert [s.name for s in night.last.seats if s.won] == last["won"]
    text = "\n".join(standings_lines(standings))
    assert f"Evening {night.id}" in text and "3 matches played" in text
    assert "Last match: Topper" in text
    assert " and ".join(last["won"]) in text.split("Last match:")[1]


def test_a_tampered_record_is_not_counted_and_is_named_with_why(evening: tuple[Path, list[dict[str, Any]]],
                                                                tmp_path: Path) -> None:
    root, results = evening
    copy = tmp_path / "tables"
    shutil.copytree(root, copy)
    first = _mine_in_order(copy)[0]
    transcript = first / "transcript"
    data = bytearray(transcript.read_bytes())
    data[len(data) // 2] ^= 0xFF
    transcript.write_bytes(bytes(data))
    standings = collect(own_records(copy, ME.fingerprint))
    assert [n.path for n in standings.not_counted] == [first]
    assert standings.not_counted[0].failed and "fail" in standings.not_counted[0].why
    night = standings.evenings[0]
    assert len(night.matches) == 2
    wins, totals = _expected(results[1:])
    rows = {r.name: r for r in night.lines()}
    assert {n: r.wins for n, r in rows.items()} == {n: wins[n] for n in rows}
    assert {n: r.totals["topper"] for n, r in rows.items()} == {n: totals[n] for n in rows}
    text = "\n".join(standings_lines(standings))
    assert "Not counted: 1 record that fails verify:" in text and str(first) in text


def test_another_day_is_another_evening_and_saved_names_the_same_evenings(evening: tuple[Path, list[dict[str, Any]]],
                                                                          tmp_path: Path) -> None:
    root, _ = evening
    copy = tmp_path / "tables"
    shutil.copytree(root, copy)
    first = _mine_in_order(copy)[0] / "transcript"
    earlier = first.stat().st_mtime - 3 * 86400
    os.utime(first, (earlier, earlier))
    standings = collect(own_records(copy, ME.fingerprint))
    assert [len(e.matches) for e in standings.evenings] == [1, 2]  # oldest evening first
    for night in standings.evenings:
        for match in night.matches:
            assert evening_of(match.path) == (night.id, night.day)


def test_copies_of_one_match_count_once(evening: tuple[Path, list[dict[str, Any]]]) -> None:
    root, _ = evening
    everything = records_under(root)  # every seat's copy and the relay's: 5 per match
    assert len(everything) == 15
    standings = collect(everything)
    assert [len(e.matches) for e in standings.evenings] == [3]
    assert {r.name: r.bot for r in standings.evenings[0].lines()} == {
        "Me": False, "Ada": True, "Bob": True, "Cy": True}


@pytest.mark.slow
def test_the_standings_command_counts_the_folders_given_and_says_what_it_left_out(
        evening: tuple[Path, list[dict[str, Any]]], tmp_path: Path) -> None:
    root, results = evening
    copy = tmp_path / "friend"
    shutil.copytree(root, copy)
    mine = _mine_in_order(copy)
    transcript = mine[0] / "transcript"
    transcript.write_bytes(transcript.read_bytes()[:-7])  # cut inside its last record
    home = tmp_path / "home"
    shown = run_cli(["standings", *map(str, mine)], home)
    assert shown.returncode == 1, shown.stderr  # a record failed verify
    assert "2 matches played" in shown.stdout
    assert "Not counted: 1 record that fails verify:" in shown.stdout
    as_json = json.loads(run_cli(["standings", "--json", *map(str, mine)], home).stdout)
    night = as_json["evenings"][0]
    assert night["matches"] == 2
    assert [n["fails_verify"] for n in as_json["not_counted"]] == [True]
    wins, _ = _expected(results[1:])
    assert {p["name"]: p["wins"] for p in night["players"]} == {
        n: wins[n] for n in ("Me", "Ada", "Bob", "Cy")}
    picked = run_cli(["standings", "--evening", night["evening"][:4], str(mine[1])], home)
    assert picked.returncode == 0 and "1 match played" in picked.stdout
    none = run_cli(["standings", "--evening", "zzzz", str(mine[1])], home)
    assert none.returncode == 2 and "no evening 'zzzz'" in none.stderr
