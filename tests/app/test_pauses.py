"""Pauses ('away'): agreed by the transcript, bounded per player, more time for
one move on every peer's clock; one too many is a provable fault of its writer
alone."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from p2pcards.app._direct import DirectTable, direct_table
from p2pcards.app.hosted import TableOptions, start_hosted_table
from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.bots.agent import BotAgent, make_bot_factory
from p2pcards.net.session_events import Decision, SessionResult, TakePause
from p2pcards.protocol import game_wire
from p2pcards.protocol.envelope import seal
from p2pcards.protocol.events import ClockPaused, TableEnded
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_errors import NoPauseLeftHere, NotThisPeersTurn
from p2pcards.protocol.table_records import AWAY, Stage
from p2pcards.protocol.table_settings import MOVE_TIME, PAUSE_SECONDS, PAUSES
from p2pcards.protocol.verify import verify_transcript
from p2pcards.rules.contract import Engine
from p2pcards.rules.topper import TopperConfig
from tests.support import until
from tests.support.typed import present


class _StepsAway:
    """A person who steps away ``times`` times before letting a bot play."""

    def __init__(self, times: int) -> None:
        self.times, self.bot = times, BotAgent(make_bot_factory("topper", "heuristic"), 3)
        self.offered: list[int] = []
        self.back = asyncio.Event()  # set by the test once it has looked at the clocks
        self.waiting = False  # asked again after its last pause: every pause is settled

    async def decide(self, view: Engine, decision: Decision) -> object:
        self.offered.append(decision.pauses_left)
        if self.times > 0:
            self.times -= 1
            raise TakePause("stepping away")
        self.waiting = True
        await self.back.wait()
        return await self.bot.decide(view, decision)


def _config(pauses: int) -> dict[str, int]:
    config = game_wire.by_name("topper").config_to_wire(TopperConfig(target_score=1))
    return {**config, MOVE_TIME: 60, PAUSES: pauses}




def _table_with(me_agent: _StepsAway, pauses: int,
                tmp_path: Path) -> tuple[list[object], list[float], Table, SessionResult]:
    async def run() -> tuple[list[object], list[float], Table, SessionResult]:
        options = TableOptions(game="topper", config=_config(pauses), seed=3, deadline=60,
                               journal_root=tmp_path)
        me = seeded_identity(3, "me", "Me")
        seen: list[object] = []
        hosted = await start_hosted_table(me, me_agent, options, bots=3, on_event=seen.append)
        try:
            await until(lambda: any(isinstance(e, ClockPaused) for e in seen))
            await until(lambda: me_agent.waiting)  # a second pause, if any, was asked for
            await until(lambda: all(present(s.table).paused is not None for s in hosted.sessions))
            loop = asyncio.get_running_loop()
            table = present(hosted.sessions[0].table)
            # Every peer of the table gives the writer the longer time, not only his own.
            lefts = [s.rules.deadline_at - loop.time() for s in hosted.sessions]
            me_agent.back.set()
            result = await asyncio.wait_for(hosted.result(), 60)
            return seen, lefts, table, result
        finally:
            await hosted.close(grace=0.1, linger=0)
    return asyncio.run(run())


def test_a_pause_is_told_to_every_peer_and_gives_more_time(tmp_path: Path) -> None:
    agent = _StepsAway(times=1)
    seen, lefts, table, result = _table_with(agent, pauses=2, tmp_path=tmp_path)
    paused = [e for e in seen if isinstance(e, ClockPaused)]
    assert paused[0].left == 1 and paused[0].seconds == PAUSE_SECONDS
    assert lefts and all(60 + PAUSE_SECONDS - 5 < left <= 60 + PAUSE_SECONDS for left in lefts)
    assert agent.offered[:2] == [2, 1]  # the next decision knows one pause is gone
    assert result.verdict is None  # a pause blames nobody; the match played out
    report = verify_transcript(table.transcript(), None)
    assert report.ok, report.problem


def test_no_pause_left_is_refused_here(tmp_path: Path) -> None:
    agent = _StepsAway(times=2)  # the table allows one: the second is refused locally
    seen, _lefts, table, result = _table_with(agent, pauses=1, tmp_path=tmp_path)
    assert [e.left for e in seen if isinstance(e, ClockPaused)] == [0]
    assert any(isinstance(e, NoPauseLeftHere) for e in seen)
    assert result.verdict is None and table.pauses_left[present(table.me_player)] == 0


def _forged_away(direct: DirectTable, player: int) -> bytes:
    """An ``away`` signed by ``player`` for the next position, past any local refusal."""
    table = direct.tables[player]
    return seal(direct.identities[player], session=table.session, position=table.next_position,
                prev=table.head, player=present(table.me_player), type=AWAY, body={}).raw


def _in_play() -> DirectTable:
    direct = direct_table("topper", seed=12)  # a genesis without 'away': no pauses
    direct.run_until(lambda d: d.tables[0].stage is Stage.PLAY)
    return direct


def test_an_away_with_no_pause_left_names_its_writer_and_the_verdict_is_provable() -> None:
    direct = _in_play()
    writer = present(direct.writer)
    forged = _forged_away(direct, writer)
    others = [t for i, t in enumerate(direct.tables) if i != writer] + [direct.observer]
    ended = [[e for e in t.receive(forged) if isinstance(e, TableEnded)] for t in others]
    verdicts = [found[0].verdict for found in ended]
    assert all(v.rule == "table.away" and v.players == (writer,) for v in verdicts)
    report = verify_transcript(direct.observer.transcript(), verdicts[0])
    assert report.verdict_confirmed is True


def test_nobody_can_take_a_pause_for_another_player() -> None:
    direct = _in_play()
    writer = present(direct.writer)
    other = (writer + 1) % 4
    with pytest.raises(NotThisPeersTurn):
        direct.tables[other].take_pause()
    forged = _forged_away(direct, other)  # signed by a player not in turn
    ended = [e for e in direct.observer.receive(forged) if isinstance(e, TableEnded)]
    assert ended and ended[0].verdict.players == (other,) and ended[0].verdict.rule == "turn"
