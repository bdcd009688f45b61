"""Back to the end box (issue 32): ``join`` to a table, or ``resume`` with no table in
play, finds a joined table whose match ended moments ago (its end box may still wait
for this player) and no other: not one hosted here, not one at another host, not one
over longer than the end box waits, not one that ended with a verdict."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from p2pcards.app.records import SavedTable
from p2pcards.commands import rematching, resuming
from p2pcards.net.journal import Journal
from p2pcards.protocol.end_box import END_BOX_SLACK, END_BOX_WAIT
from p2pcards.protocol.identity import Identity
from p2pcards.wiremap import WireMap

NOW = 1_000_000.0


def _row(tmp_path: Path, name: str, *, ago: float, result: bool = True, hosted: bool = False,
         host: str = "10.0.0.5", port: int = 4000, pin: str = "", now: float = NOW) -> SavedTable:
    directory = tmp_path / name
    directory.mkdir()
    if result:
        Journal(directory).write_result({"winners": ["Ada"]})
    meta: WireMap = {"host": host, "port": port, "pin": pin, **({"hosted": True} if hosted else {})}
    return SavedTable(directory, meta, "bluff", name, ("Ada", "Bo"), now - ago, "over: won by Ada",
                      in_play=False)


def test_only_a_joined_match_just_over_at_that_host_goes_back_to_its_end_box(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rows = [_row(tmp_path, "hosted", ago=5, hosted=True),
            _row(tmp_path, "verdict", ago=6, result=False),
            _row(tmp_path, "elsewhere", ago=7, host="10.0.0.9"),
            _row(tmp_path, "mine", ago=20, pin="ab12cd34ef56"),
            _row(tmp_path, "old", ago=END_BOX_WAIT + END_BOX_SLACK + 1)]
    monkeypatch.setattr("p2pcards.commands.listing.my_tables", lambda identity: rows)
    me = Identity.generate("Me")
    assert rematching.end_box_seat(me, now=NOW) == rows[2]  # the newest, whoever hosted it
    assert rematching.end_box_seat(me, "10.0.0.5", 4000, "ab12cd34ef56", now=NOW) == rows[3]
    assert rematching.end_box_seat(me, "10.0.0.5", 4000, "other-key", now=NOW) is None
    assert rematching.end_box_seat(me, "10.0.0.9", 4000, None, now=NOW) == rows[2]
    assert rematching.end_box_seat(me, now=NOW + END_BOX_WAIT + END_BOX_SLACK) is None


def test_resume_without_a_table_in_play_takes_the_match_just_over(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    row = _row(tmp_path, "mine", ago=1, now=time.time())
    monkeypatch.setattr("p2pcards.commands.listing.my_tables", lambda identity: [row])
    monkeypatch.setattr("p2pcards.commands.resuming.my_tables", lambda identity: [row])
    assert resuming._pick_saved(Identity.generate("Me"), None) == row
