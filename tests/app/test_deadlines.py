"""Deadlines: a silent writer is blamed; a host that stops relaying is blamed instead."""

from __future__ import annotations

import asyncio

from p2pcards.app import TableOptions, seeded_identity, start_hosted_table
from p2pcards.bots.agent import BotAgent, make_bot_factory
from p2pcards.protocol import games
from p2pcards.rules.topper import TopperConfig


class _Silent:
    """A player who never answers."""

    def __init__(self) -> None:
        self.asked = asyncio.Event()

    async def decide(self, view, decision):
        self.asked.set()
        await asyncio.Event().wait()


def _options(tmp_path) -> TableOptions:
    config = games.by_name("topper").config_to_wire(TopperConfig(target_score=3))
    return TableOptions(game="topper", config=config, seed=4, deadline=1.5, journal_root=tmp_path)


async def _verdicts_of_bots(hosted, timeout: float = 30):
    results = await asyncio.wait_for(asyncio.gather(*hosted.tasks[1:]), timeout)
    return [r.verdict for r in results]


def test_a_silent_writer_is_blamed_once_the_host_answers_a_ping(tmp_path):
    async def run():
        me = seeded_identity(4, "me", "Me")
        hosted = await start_hosted_table(
            me, BotAgent(make_bot_factory("topper", "heuristic"), 4), _options(tmp_path), bots=3)
        hosted.sessions[2].agent = _Silent()  # the second bot (player 2) stops answering
        try:
            others = [t for i, t in enumerate(hosted.tasks) if i != 2]
            results = await asyncio.wait_for(asyncio.gather(*others), 30)
            return [r.verdict for r in results]
        finally:
            await hosted.close(grace=0.1)
    verdicts = asyncio.run(run())
    assert all(v.rule == "deadline" and v.players == (2,) for v in verdicts)


def test_a_host_that_stops_relaying_is_blamed_not_the_writer(tmp_path):
    async def run():
        me = seeded_identity(4, "me", "Me")
        bot_agent = BotAgent(make_bot_factory("topper", "heuristic"), 4)
        hosted = await start_hosted_table(me, bot_agent, _options(tmp_path), bots=3)
        try:
            # Freeze the relay once the cards are dealt: it forwards and answers nothing.
            await asyncio.wait_for(_until(lambda: all(
                s.table is not None and s.table.engine is not None and s.table.hand
                for s in hosted.sessions)), 30)
            hosted.host._apply = lambda outputs: None
            return await _verdicts_of_bots(hosted)
        finally:
            await hosted.close(grace=0.1)
    verdicts = asyncio.run(run())
    assert all(v.rule == "deadline" and v.players == (0,) for v in verdicts)
    assert all("stopped relaying" in v.detail for v in verdicts)


async def _until(predicate) -> None:
    while not predicate():
        await asyncio.sleep(0.01)
