"""Deadlines: a silent writer is blamed; a host that stops relaying is blamed instead."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from p2pcards.app.hosted import HostedTable, TableOptions, start_hosted_table
from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.bots.agent import BotAgent, make_bot_factory
from p2pcards.net.peer import PeerSession
from p2pcards.protocol import game_wire
from p2pcards.protocol.verdict import Verdict
from p2pcards.rules.topper import TopperConfig
from tests.app.hosted import Silent
from tests.support import until
from tests.support.typed import present


def _options(tmp_path: Path) -> TableOptions:
    config = game_wire.by_name("topper").config_to_wire(TopperConfig(target_score=3))
    return TableOptions(game="topper", config=config, seed=4, deadline=1.5, journal_root=tmp_path)


async def _verdicts_of_bots(hosted: HostedTable, timeout: float = 30) -> list[Verdict]:
    results = await asyncio.wait_for(asyncio.gather(*hosted.tasks[1:]), timeout)
    return [present(r.verdict) for r in results]


@pytest.mark.slow
def test_a_silent_writer_is_blamed_once_the_host_answers_a_ping(tmp_path: Path) -> None:
    async def run() -> list[Verdict]:
        me = seeded_identity(4, "me", "Me")
        hosted = await start_hosted_table(
            me, BotAgent(make_bot_factory("topper", "heuristic"), 4), _options(tmp_path), bots=3)
        hosted.sessions[2].agent = Silent()  # the second bot (player 2) stops answering
        try:
            others = [t for i, t in enumerate(hosted.tasks) if i != 2]
            results = await asyncio.wait_for(asyncio.gather(*others), 30)
            return [present(r.verdict) for r in results]
        finally:
            await hosted.close(grace=0.1)
    verdicts = asyncio.run(run())
    assert all(v.rule == "deadline" and v.players == (2,) for v in verdicts)


@pytest.mark.slow
def test_a_host_that_stops_relaying_is_blamed_not_the_writer(tmp_path: Path) -> None:
    async def run() -> list[Verdict]:
        me = seeded_identity(4, "me", "Me")
        bot_agent = BotAgent(make_bot_factory("topper", "heuristic"), 4)
        hosted = await start_hosted_table(me, bot_agent, _options(tmp_path), bots=3)
        try:
            # Freeze the relay once the cards are dealt: it forwards and answers nothing.
            await asyncio.wait_for(until(lambda: all(
                s.table is not None and s.table.engine is not None and s.table.hand
                for s in hosted.sessions)), 30)
            hosted.host._apply = lambda outputs: None  # type: ignore[method-assign]
            return await _verdicts_of_bots(hosted)
        finally:
            await hosted.close(grace=0.1)
    verdicts = asyncio.run(run())
    assert all(v.rule == "deadline" and v.players == (0,) for v in verdicts)
    assert all("stopped relaying" in v.detail for v in verdicts)




def _later_clock_at_a_host_that_closes(tmp_path: Path,
                                       linger: float | None) -> tuple[int, Verdict, Verdict]:
    """The host's seat and its bot time out a silent player first; a player whose
    own clock is longer is still waiting when the host closes its table."""
    async def run() -> tuple[int, Verdict, Verdict]:
        me = seeded_identity(4, "me", "Me")
        hosted = await start_hosted_table(
            me, BotAgent(make_bot_factory("topper", "heuristic"), 4), _options(tmp_path), bots=1)
        silent = PeerSession(seeded_identity(4, "mute", "Mute"), Silent(),
                             hosted.host.local_connector(seeded_identity(4, "mute", "Mute")),
                             deadline=1.5, reconnect_window=1.0)
        watcher = PeerSession(seeded_identity(4, "late", "Late"),
                              BotAgent(make_bot_factory("topper", "heuristic"), 5),
                              hosted.host.local_connector(seeded_identity(4, "late", "Late")),
                              deadline=3.0, reconnect_window=1.0)
        silent_task = asyncio.create_task(silent.run())
        await until(lambda: len(hosted.host.lobby.players) == 3)
        watcher_task = asyncio.create_task(watcher.run())
        try:
            mine = await asyncio.wait_for(hosted.result(), 30)
            await hosted.close(grace=5, linger=linger)
            theirs = await asyncio.wait_for(watcher_task, 30)
            return present(present(silent.table).me_player), present(mine.verdict), present(theirs.verdict)
        finally:
            silent_task.cancel()
            await asyncio.gather(silent_task, watcher_task, return_exceptions=True)
    return asyncio.run(run())


@pytest.mark.slow
def test_a_host_whose_seat_timed_out_a_player_keeps_relaying_for_the_others(tmp_path: Path) -> None:
    silent, mine, theirs = _later_clock_at_a_host_that_closes(tmp_path, linger=None)
    assert mine.rule == "deadline" and mine.players == (silent,)
    # The slower clock ran out while the relay was still up: it names the silent player.
    assert theirs.rule == "deadline" and theirs.players == (silent,)


@pytest.mark.slow
def test_a_host_that_closed_at_once_would_be_named_by_the_slower_clock(tmp_path: Path) -> None:
    """Why the host lingers: without it the other player's own clock names the host."""
    silent, mine, theirs = _later_clock_at_a_host_that_closes(tmp_path, linger=0)
    assert mine.players == (silent,)
    assert theirs.players == (0,)
