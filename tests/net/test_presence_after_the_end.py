"""Status lines name who actually left (issue 32): once a table has ended (its match
over, or a verdict), the host's ``presence`` frames (players' links going as they go
home, the host's own seat among them) are no longer told as "dropped; reconnecting".
And a newcomer waiting at an end box is told the host's word: the time left, and an
evening that ended before the rematch ends its session with the reason."""

from __future__ import annotations

from types import SimpleNamespace
from typing import cast

from p2pcards.net.seat_links import SeatLinks
from p2pcards.net.session_events import Presence, SessionEvent
from p2pcards.protocol import frames
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_records import Stage


def _told(stage: Stage) -> list[SessionEvent]:
    told: list[SessionEvent] = []
    links = SeatLinks(Identity.generate("me"), told.append, bot=False, direct=False,
                      listen=False, listen_host=None, reconnect_window=60.0)
    table = cast(Table, SimpleNamespace(stage=stage, players=[object()] * 4, me_player=1))
    for linked in ([1, 1, 1, 1], [0, 1, 0, 1]):  # the host's seat and player 2 go
        links.host_frame(frames.decode(frames.encode("presence", {"linked": linked})), table)
    return told


def test_a_drop_in_play_is_told_as_reconnecting() -> None:
    told = [e for e in _told(Stage.PLAY) if isinstance(e, Presence)]
    assert told and set(told[-1].changed) == {0, 2}


def test_after_the_end_nobody_is_told_as_dropped_and_reconnecting() -> None:
    assert [e for e in _told(Stage.OVER) if isinstance(e, Presence)] == []
    assert [e for e in _told(Stage.ENDED) if isinstance(e, Presence)] == []


def test_a_newcomer_at_the_end_box_hears_the_time_left_and_how_the_evening_ended() -> None:
    import pytest

    from p2pcards.net.seat_links import SessionRejected
    from p2pcards.net.session_events import EndBoxWord
    from p2pcards.protocol.end_box import Ending, statement
    from p2pcards.protocol.seat_fill import Fill

    told: list[SessionEvent] = []
    links = SeatLinks(Identity.generate("nia"), told.append, bot=False, direct=False,
                      listen=False, listen_host=None, reconnect_window=60.0)
    links.taken = Fill(bytes(32), bytes(32), 3, 0, bytes(32), "Nia", False)
    assert links.host_frame(frames.decode(statement(84.0)), None)
    with pytest.raises(SessionRejected, match="its wait ran out"):
        links.host_frame(frames.decode(statement(0, Ending.TIMED_OUT)), None)
    assert told == [EndBoxWord(84, 0), EndBoxWord(0, 2)]
