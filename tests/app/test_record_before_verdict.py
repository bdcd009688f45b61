"""A seat's record reaches its verdict: a message the table accepted as Ctrl-C
cancelled the session (its check done in the worker thread, the rules never told)
is saved before the signed leave's verdict, which is dated after it."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path
from typing import Any

from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.net.peer import PeerSession
from p2pcards.protocol.errors import PlayerLeft
from tests.support import until

from .hosted import hosted_topper, topper_bot

#: From this position on, the first message checked is "cancelled" as its check finishes.
CUT_FROM = 10


async def _cancelled_as_a_check_finished(tmp_path: Path) -> Any:  # a PeerSession with the test's cut_at
    async with hosted_topper(tmp_path, 7) as hosted:
        seat = seeded_identity(7, "x", "Xan")
        session = PeerSession(seat, topper_bot(2), hosted.host.local_connector(seat),
                              journal_root=tmp_path / "seat")
        checked = session._check

        async def cancelled_once_accepted(check: Any) -> None:
            table = session.table
            if table is not None and table.next_position >= CUT_FROM and not session.cut_at:  # type: ignore[attr-defined]
                session.cut_at.append(table.next_position)  # type: ignore[attr-defined]
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


def test_a_leave_signed_as_a_check_finished_is_dated_where_the_record_ends(tmp_path: Path) -> None:
    session = asyncio.run(_cancelled_as_a_check_finished(tmp_path))
    table, journal = session.table, session.journal
    assert table is not None and journal is not None
    verdict = table.verdict
    assert verdict is not None and verdict.rule == PlayerLeft.rule
    (cut,) = session.cut_at
    assert verdict.position == cut + 1  # the accepted message, then the leave
    assert len(journal.read_messages()) == verdict.position
    assert journal.read_messages() == table.transcript()
