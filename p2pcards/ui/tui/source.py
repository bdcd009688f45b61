"""What the screen may read from its own peer session: its seat's view and the players' keys.

Only this seat's referee view (``table.view()``: its own cards and what the
rules revealed) and the players listed in the signed genesis (names and
public keys) are read; never the table's secrets or another seat's cards.
Reads happen when the session hands over an event, between its steps, so
no worker thread is changing the table at that moment.
"""

from __future__ import annotations

from collections.abc import Callable

from p2pcards.net.resume import Step
from p2pcards.net.session_events import LEFT_IN_LOBBY, SessionResult
from p2pcards.net.session_snapshot import LiveSession, SessionSnapshot, snapshot
from p2pcards.protocol.identity import fingerprint
from p2pcards.rules.contract import Engine
from p2pcards.ui.text_common import clean
from p2pcards.ui.tui.model import SeatInfo

SessionGetter = Callable[[], LiveSession | None]


class SessionSource:
    """Reads one :class:`~p2pcards.net.peer.PeerSession` (or a spectator's
    :class:`~p2pcards.net.watch.WatchSession`), found by ``get_session`` when asked
    (the session may be created after the screen), through one
    :func:`~p2pcards.net.session_snapshot.snapshot` at a time."""

    def __init__(self, get_session: SessionGetter) -> None:
        self.get_session = get_session

    @property
    def session(self) -> LiveSession | None:
        return self.get_session()

    def snapshot(self) -> SessionSnapshot:
        """The session now (read it between the session's steps)."""
        return snapshot(self.session)

    def view(self) -> Engine | None:
        """This seat's view, or None before the seats are drawn and a game is on; while
        a resumed session tells its saved record again, the view of that moment."""
        return self.snapshot().view

    def replaying(self) -> Step | None:
        """The step of its saved record a resumed session is telling again, else None
        (see :func:`p2pcards.net.resume.show_record`)."""
        session = self.session
        return None if session is None else session.replaying

    def spectating(self) -> bool:
        """The session is a spectator's (no seat, no hand): known as soon as it exists."""
        session = self.session
        return session is not None and session.spectator

    def players(self) -> tuple[SeatInfo, ...]:
        """The table's players by player index (join order), from its genesis."""
        return players_of(self.snapshot())

    def seating(self) -> tuple[int, ...] | None:
        return self.snapshot().seating

    def me_player(self) -> int | None:
        """This seat's player index (join order), once the table started."""
        return self.snapshot().me_player

    def my_seat(self) -> int | None:
        return self.snapshot().my_seat

    def game(self) -> str | None:
        return self.snapshot().game

    async def leave(self) -> None:
        """Tell the other players (a signed notice) that this player leaves."""
        session = self.session
        if session is not None:
            await session.leave()

    def left_result(self) -> SessionResult:
        """The session's result after this player left outside a decision."""
        seen = self.snapshot()
        if not seen.started:
            return SessionResult(reason=LEFT_IN_LOBBY)
        return SessionResult(verdict=seen.verdict)


def players_of(seen: SessionSnapshot) -> tuple[SeatInfo, ...]:
    """The players of a snapshot as the screen lists them (names cleaned, fingerprints)."""
    return tuple(SeatInfo(clean(p.name, 32), fingerprint(p.public_key)) for p in seen.players)
