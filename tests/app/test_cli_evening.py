"""``p2pcards verify`` of an evening: several transcripts, each alone and chained."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2pcards.protocol.rematch_genesis import After
from tests.app.test_cli import run_cli
from tests.protocol.played_match import played_match


def _save(path: Path, messages: list[bytes]) -> Path:
    """A transcript file as a player saves it (PROTOCOL.md §10)."""
    path.write_bytes(b"".join(len(raw).to_bytes(4, "big") + raw for raw in messages))
    return path


@pytest.fixture(scope="module")
def evening(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    folder = tmp_path_factory.mktemp("evening")
    first = played_match(71)
    second = played_match(72, before=first)
    record = first.tables[0].finished()
    forged = played_match(73, before=first, after=After(record.session, record.final, record.seats[::-1]))
    files = [_save(folder / name, table.tables[0].transcript())
             for name, table in (("one", first), ("two", second), ("forged", forged))]
    return folder, files


def test_an_evening_given_in_any_order_verifies_match_by_match_and_whole(evening: tuple[Path, list[Path]]) -> None:
    home, (one, two, _) = evening
    checked = run_cli(["verify", str(two), str(one)], home)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    lines = checked.stdout.splitlines()
    assert lines[0].startswith("Match 1: session ") and lines[0].endswith(": verifies")
    assert lines[1].startswith("Match 2: session ") and lines[1].endswith(": verifies")
    assert lines[2] == "The evening verifies: 2 matches, each the rematch of the one before."


def test_a_tampered_link_is_refused_with_a_sentence_naming_the_match(evening: tuple[Path, list[Path]]) -> None:
    home, (one, _, forged) = evening
    checked = run_cli(["verify", str(one), str(forged)], home)
    assert checked.returncode == 1
    last = checked.stdout.splitlines()[-1]
    assert last.startswith("The evening FAILED: match 2 is not the rematch of match 1: ")
    assert "[evening.rotation]" in last


def test_verify_json_of_an_evening_lists_each_match_in_order(evening: tuple[Path, list[Path]]) -> None:
    home, (one, two, _) = evening
    report = json.loads(run_cli(["verify", "--json", str(two), str(one)], home).stdout)
    assert report["ok"] is True and report["problem"] is None
    assert [m["ok"] for m in report["matches"]] == [True, True]
    assert report["matches"][0]["outcome"] is not None and len(report["matches"]) == 2
