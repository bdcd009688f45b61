"""One table clock: the host's genesis sets every peer's time per move; play has none."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from p2pcards.app._direct import direct_table
from p2pcards.app.hosted import HostedTable, TableOptions, start_hosted_table
from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.bots.agent import BotAgent, make_bot_factory
from p2pcards.commands.options import build_parser
from p2pcards.commands.settings import table_config
from p2pcards.net.journal import Journal
from p2pcards.net.peer import PeerSession
from p2pcards.protocol import game_wire
from p2pcards.protocol.errors import MalformedMessage
from p2pcards.protocol.table_records import Stage
from p2pcards.protocol.table_settings import MOVE_TIME, move_time_of
from p2pcards.protocol.verdict import Verdict
from p2pcards.rules.topper import TopperConfig
from tests.app.hosted import Silent
from tests.support import until
from tests.support.typed import present


def _config(move_time: int | None) -> dict[str, int]:
    config = game_wire.by_name("topper").config_to_wire(TopperConfig(target_score=3))
    return config if move_time is None else {**config, MOVE_TIME: move_time}


async def _hosted(tmp_path: Path, move_time: int | None, session_deadline: float) -> HostedTable:
    options = TableOptions(game="topper", config=_config(move_time), seed=4,
                           deadline=session_deadline, journal_root=tmp_path)
    me = seeded_identity(4, "me", "Me")
    return await start_hosted_table(
        me, BotAgent(make_bot_factory("topper", "heuristic"), 4), options, bots=3)


@pytest.mark.slow
def test_every_peer_times_a_silent_player_by_the_hosts_clock_not_its_own(tmp_path: Path) -> None:
    async def run() -> list[Verdict | None]:
        # Every session's own deadline is long; the genesis gives each writer 1 s.
        hosted = await _hosted(tmp_path, move_time=1, session_deadline=600)
        hosted.sessions[2].agent = Silent()
        try:
            assert all(s.move_time() == 1.0 for s in hosted.sessions if s.table is not None)
            others = [t for i, t in enumerate(hosted.tasks) if i != 2]
            return [r.verdict for r in await asyncio.wait_for(asyncio.gather(*others), 60)]
        finally:
            await hosted.close(grace=0.1, linger=0)
    verdicts = asyncio.run(run())
    assert all(v is not None and v.rule == "deadline" and v.players == (2,) for v in verdicts)


def test_a_table_without_a_clock_never_names_a_slow_player(tmp_path: Path) -> None:
    async def run() -> tuple[list[float], list[Verdict | None]]:
        hosted = await _hosted(tmp_path, move_time=0, session_deadline=0.5)
        hosted.sessions[2].agent = Silent()
        try:
            # Every peer reaches the silent player's turn and its (sans-IO) rules set that
            # turn's deadline to never, not to the sessions' own 0.5 s: no tick names him.
            await until(lambda: all((table := s.table) is not None and table.writer == 2
                                    and s.rules.deadline_at == float("inf")
                                    for s in hosted.sessions))
            sessions = [s for s in hosted.sessions if s.table is not None]
            return [s.move_time() for s in sessions], [present(s.table).verdict for s in sessions]
        finally:
            await hosted.close(grace=0.1, linger=0)
    clocks, verdicts = asyncio.run(run())
    assert clocks and all(c == float("inf") for c in clocks)
    assert verdicts == [None] * len(verdicts)


def test_a_genesis_without_a_clock_leaves_each_peer_its_own_and_a_bad_one_is_refused() -> None:
    assert move_time_of(None) is None and move_time_of(0) == 0 and move_time_of(90) == 90
    with pytest.raises(MalformedMessage, match="move_time must be 0..3600 seconds, not 3601"):
        move_time_of(3601)


@pytest.mark.parametrize("spent, left_expected", [
    (60, 60),           # 120 s less the 60 already spent, not a fresh 120
    (3 * 3600, 30),     # a table resumed hours later: the grace, not an instant verdict
])
def test_a_resumed_turn_keeps_the_time_already_spent(tmp_path: Path, spent: int, left_expected: int) -> None:
    # A player's saved table, mid-hand, whose last message was saved `spent` s ago.
    direct = direct_table("topper", seed=7)
    direct.run_until(lambda d: d.tables[0].stage is Stage.PLAY)
    table = direct.tables[1]
    journal = Journal(tmp_path / "saved")
    journal.claim()
    journal.write_meta({"v": 1, "player": 1, "name": "P1", "bots": [0, 0, 0, 0],
                        "secrets": present(table.secrets).to_wire()})
    for raw in table.transcript():
        journal.append(raw)
    journal.release()
    began = time.time() - spent
    os.utime(journal.transcript_path, (began, began))

    async def run() -> float:
        session = PeerSession(direct.identities[1], Silent(), None, deadline=120)  # type: ignore[arg-type]  # never dials
        session.resume_from(journal)  # rewrites the transcript: its old age must be kept
        try:
            session._reset_deadline(elapsed=session._saved_turn_age())
            return session.rules.deadline_at - asyncio.get_running_loop().time()
        finally:
            journal.release()
    left = asyncio.run(run())
    assert left_expected - 5 < left <= left_expected + 0.5




@pytest.mark.parametrize("argv, move_time", [
    (["play", "bluff"], 0),                           # against bots: no limit on you
    (["play", "bluff", "--deadline", "45"], 45),
    (["host", "topper"], 120),
    (["host", "topper", "--deadline", "30"], 30),
])
def test_the_clock_is_a_table_setting_of_play_and_host(argv: list[str], move_time: int) -> None:
    from p2pcards.commands.settings import HOST_MOVE_TIME
    from p2pcards.commands.settings import clock_seconds as _clock_seconds
    args = build_parser().parse_args(argv)
    default = 0 if argv[0] == "play" else HOST_MOVE_TIME
    config = table_config(args.game, args, _clock_seconds(args, default))
    assert config[MOVE_TIME] == move_time


@pytest.mark.slow
def test_a_silent_players_own_clock_stays_run_out_instead_of_starting_again(tmp_path: Path) -> None:
    async def run() -> tuple[bool, float, Verdict | None]:
        hosted = await _hosted(tmp_path, move_time=1, session_deadline=600)
        silent = hosted.sessions[2]
        silent.agent = Silent()
        try:
            others = [t for i, t in enumerate(hosted.tasks) if i != 2]
            await asyncio.wait_for(asyncio.gather(*others), 60)
            table = present(silent.table)
            return table.my_turn, silent.rules.deadline_at, table.verdict
        finally:
            await hosted.close(grace=0.1, linger=0)
    my_turn, deadline_at, verdict = asyncio.run(run())
    assert my_turn and verdict is None  # it blames nobody, least of all itself
    assert deadline_at == float("inf")  # no fresh minute shown while the others have ended
