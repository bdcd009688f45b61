"""What ``saved``, ``standings`` and ``resume`` say of a table without a result or a
verdict: a table you hosted whose players gave up on you while you were away has
ended (its relay's heartbeat says so); any other was in play when you left (the
others may have ended it since: nothing on this machine can tell)."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from p2pcards.app.hosted import TableOptions, start_hosted_table
from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.cli import main
from p2pcards.net.peer import PeerSession
from p2pcards.net.storage import load_or_create_identity, tables_dir
from p2pcards.protocol import game_wire
from p2pcards.protocol.identity import Identity
from p2pcards.rules.topper import TopperConfig
from tests.app.hosted import topper_bot
from tests.app.test_resume_unreached import _free_port, _sit_and_crash


async def _host_and_crash(identity: Identity, root: Path, elsewhere: Path) -> None:
    """Host a table (two bots, one player in "another process") into its deal, then
    stop as a crash does: nothing signed, every record in play."""
    config = game_wire.by_name("topper").config_to_wire(TopperConfig(target_score=50))
    options = TableOptions(game="topper", config=config, seed=6, deadline=30, journal_root=root)
    hosted = await start_hosted_table(identity, topper_bot(1), options, bots=2)
    own = hosted.sessions[0]
    own.leave_when_stopped = False
    friend = seeded_identity(6, "friend", "Flo")
    joiner = PeerSession(friend, topper_bot(2), hosted.host.local_connector(friend),
                         journal_root=elsewhere, deadline=30, direct=False, listen=False)
    joiner.leave_when_stopped = False
    running = asyncio.create_task(joiner.run())
    try:
        for _ in range(1200):  # bounded: the deal comes within a few seconds
            if own.table is not None and len(own.table.messages) > 12 or running.done():
                break
            await asyncio.sleep(0.05)
        assert not running.done() and own.table is not None
    finally:
        running.cancel()
        await asyncio.wait({running})
        await hosted.close(grace=0, linger=0)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    root = tables_dir()
    root.mkdir(parents=True)
    return root


def _saved(capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    assert main(["saved", "--json"]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def _standings(capsys: pytest.CaptureFixture[str]) -> str:
    main(["standings"])
    return capsys.readouterr().out


def test_a_joined_table_without_result_or_verdict_was_in_play_when_you_left(
        home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    asyncio.run(_sit_and_crash(load_or_create_identity("Ivo"), _free_port(), home, tmp_path / "host"))
    (row,) = _saved(capsys)
    assert row["status"] == "in play when you left" and row["in_play"]
    assert "resume" in row["commands"]
    assert main(["saved"]) == 0
    assert "  in play when you left\n" in capsys.readouterr().out
    assert f"{row['path']}: verifies, but the match did not finish (in play when you left)" \
        in _standings(capsys)
    # verify says the same of it, and what resume does.
    said, report = _verify(capsys, row["session"][:12])
    assert ("before the match ends, and no verdict is saved with it: the table was in play "
            "when you left (nothing on this machine can tell whether the others ended it "
            "since: p2pcards resume takes it up, or says how it ended).") in said, said
    assert (report["status"], report["unfinished"], report["ended_away"]) == (
        "in play when you left", True, False)


def _verify(capsys: pytest.CaptureFixture[str], session: str) -> tuple[str, dict[str, Any]]:
    """``verify SESSION`` in words (one line, however it wraps) and as JSON; both exit 1:
    a record without an end verifies no ending."""
    assert main(["verify", session]) == 1
    said = " ".join(capsys.readouterr().out.split())
    assert main(["verify", "--json", session]) == 1
    return said, json.loads(capsys.readouterr().out)


def _age(relay: Path, seconds: float) -> None:
    """The host was last up ``seconds`` ago: its heartbeat and relay transcript that old."""
    then = time.time() - seconds
    for name in ("alive", "transcript"):
        if (relay / name).exists():
            os.utime(relay / name, (then, then))


def test_a_hosted_table_whose_players_gave_up_on_you_is_said_to_have_ended(
        home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    asyncio.run(_host_and_crash(load_or_create_identity("Hana"), home, tmp_path / "friend"))
    (row,) = _saved(capsys)
    assert row["status"] == "in play when you left" and row["in_play"]  # just now: it may go on
    relay = Path(row["path"]).parent / "relay"
    _age(relay, 300)
    (row,) = _saved(capsys)
    assert row["status"] == ("ended while you were away (you hosted it, and were gone longer than "
                             "its players wait for a host: their records name you, yours nobody)")
    assert not row["in_play"] and "resume" not in row["commands"]
    assert f"{row['path']}: verifies, but the match did not finish (ended while you were away" \
        in _standings(capsys)
    # verify agrees with saved (one function decides it): ended, not "unfinished".
    said, report = _verify(capsys, row["session"][:12])
    assert ("NOT OVER: every message checks; the transcript stops at deal 1, before the match "
            "ends, and no verdict is saved with it: the table ended while you were away (you "
            "hosted it, and were gone longer than its players wait for a host: their records "
            "name you, yours nobody).") in said, said
    assert "unfinished" not in said and "resume" not in said
    assert (report["status"], report["unfinished"], report["ended_away"]) == (
        row["status"], False, True)
    # resume without a session: none in play, and the one that ended is named.
    assert main(["resume", "--plain"]) == 2
    said = capsys.readouterr().err
    assert said.startswith(f"p2pcards: no saved table of yours is in play; {row['session'][:12]} "
                           f"(topper, \"table\") ended while you were away"), said
    # Named, it says that the table ended, as a host back too late is told.
    assert main(["resume", "--plain", row["session"][:12]]) == 3
    assert capsys.readouterr().out.startswith("Table ended: the table ended while you were away")
