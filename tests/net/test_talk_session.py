"""A peer session's table talk without a network: dropped lines are logged with
their reason, but a flood of them cannot flood the person's screen (warnings,
which the full screen shows, are bounded); nothing touches the table."""

from __future__ import annotations

import asyncio
import logging

import pytest

from p2pcards.net.peer import PeerSession
from p2pcards.net.seat_talk import TALK_WARNINGS
from p2pcards.net.session_events import SessionEvent
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.talk import TalkBook, TalkLine, TalkRefused, seal_talk

SID = bytes(range(32))


def session_with_talk(ids: list[Identity], events: list[SessionEvent]) -> PeerSession:
    session = PeerSession(ids[1], agent=None, connector=None, on_event=events.append)  # type: ignore[arg-type]  # no play
    session.talk = TalkBook(SID, [i.public_key for i in ids], 1)
    return session


def test_a_flood_of_bad_lines_warns_a_bounded_number_of_times(caplog: pytest.LogCaptureFixture) -> None:
    ids = [Identity.generate(f"p{i}") for i in range(4)]
    events: list[SessionEvent] = []
    session = session_with_talk(ids, events)
    caplog.set_level(logging.INFO, logger="p2pcards.net.seat_talk")

    async def flood() -> None:
        for n in range(1, 31):
            forged = seal_talk(ids[0], session=SID, player=2, counter=n, text="forged")
            session.chat.receive(forged.raw, None, session.mesh)
    asyncio.run(flood())
    drops = [r for r in caplog.records if "dropped a chat line" in r.getMessage()]
    assert len(drops) == 30  # every drop is logged, with its reason
    assert all("signature is not player 2's" in r.getMessage() for r in drops)
    assert sum(r.levelno == logging.WARNING for r in drops) == TALK_WARNINGS
    assert events == []  # nothing shown


def test_say_before_the_table_and_a_good_line_after() -> None:
    ids = [Identity.generate(f"p{i}") for i in range(4)]
    events: list[SessionEvent] = []
    bare = PeerSession(ids[1], agent=None, connector=None)  # type: ignore[arg-type]  # no play

    async def scene() -> None:
        with pytest.raises(TalkRefused, match="not started"):
            bare.say("hello?")
        session = session_with_talk(ids, events)
        good = seal_talk(ids[3], session=SID, player=3, counter=1, text="hi")
        session.chat.receive(good.raw, None, session.mesh)
        session.chat.receive(good.raw, 2, session.mesh)  # the same line again on a direct link: a copy
    asyncio.run(scene())
    assert events == [TalkLine(3, "hi")]
