"""A seat's record reaches its verdict: a message the table accepted as Ctrl-C
cancelled the session (its check done in the worker thread, the rules never told)
is saved before the signed leave's verdict, which is dated after it."""

from __future__ import annotations

import asyncio
import contextlib

from p2pcards.app import TableOptions, seeded_identity, start_hosted_table
from p2pcards.bots.agent import BotAgent, make_bot_factory
from p2pcards.net.peer import PeerSession
from p2pcards.protocol import games
from p2pcards.protocol.errors import PlayerLeft
from p2pcards.rules.topper import TopperConfig

from .polling import until

#: From this position on, the first message checked is "cancelled" as its check finishes.
CUT_FROM = 10


def _bot(seed: int) -> BotAgent:
    return BotAgent(make_bot_factory("topper", "heuristic"), seed)


async def _cancelled_as_a_check_finished(tmp_path):
    config = games.by_name("topper").config_to_wire(TopperConfig(target_score=3))
    options = TableOptions(game="topper", config=config, seed=7, deadline=30,
                           journal_root=tmp_path / "host")
    hosted = await start_hosted_table(seeded_identity(7, "me", "Me"), _bot(1), options, bots=2)
    try:
        seat = seeded_identity(7, "x", "Xan")
        session = PeerSession(seat, _bot(2), hosted.host.local_connector(seat),
                              journal_root=tmp_path / "seat")
        checked = session._check

        async def cancelled_once_accepted(check):
            table = session.table
            if table is not None and table.next_position >= CUT_FROM and not session.cut_at:
                session.cut_at.append(table.next_position)
                check.job()  # the worker thread's receive ran to its end ...
                raise asyncio.CancelledError  # ... and Ctrl-C came before the rules heard it
            await checked(check)

        session.cut_at = []  # type: ignore[attr-defined]

        session._check = cancelled_once_accepted  # type: ignore[method-assign]
        playing = asyncio.create_task(session.run())
        await until(lambda: playing.done(), timeout=60)
        with contextlib.suppress(asyncio.CancelledError):
            await playing
        return session
    finally:
        await hosted.close(grace=0, linger=0)


def test_a_leave_signed_as_a_check_finished_is_dated_where_the_record_ends(tmp_path):
    session = asyncio.run(_cancelled_as_a_check_finished(tmp_path))
    table, journal = session.table, session.journal
    assert table is not None and journal is not None
    verdict = table.verdict
    assert verdict is not None and verdict.rule == PlayerLeft.rule
    (cut,) = session.cut_at
    assert verdict.position == cut + 1  # the accepted message, then the leave
    assert len(journal.read_messages()) == verdict.position
    assert journal.read_messages() == table.transcript()
