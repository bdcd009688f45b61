"""What the screen may read from its own peer session: its seat's view and the players' keys.

Only this seat's referee view (``table.view()``: its own cards and what the
rules revealed) and the players listed in the signed genesis (names and
public keys) are read; never the table's secrets or another seat's cards.
Reads happen when the session hands over an event, between its steps, so
no worker thread is changing the table at that moment.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from p2pcards.protocol.errors import LocalProtocolError
from p2pcards.protocol.identity import fingerprint
from p2pcards.ui.text_common import clean
from p2pcards.ui.tui.model import SeatInfo

SessionGetter = Callable[[], Any]


class SessionSource:
    """Reads one :class:`~p2pcards.net.peer.PeerSession`, found by ``get_session`` when asked
    (the session may be created after the screen)."""

    def __init__(self, get_session: SessionGetter) -> None:
        self.get_session = get_session

    @property
    def session(self) -> Any:
        return self.get_session()

    def _table(self) -> Any:
        session = self.session
        return getattr(session, "table", None) if session is not None else None

    def view(self) -> Any:
        """This seat's view, or None before the seats are drawn and a game is on; while
        a resumed session tells its saved record again, the view of that moment."""
        replaying = self.replaying()
        if replaying is not None:
            return replaying.view
        table = self._table()
        if table is None or table.engine is None:
            return None
        if table.my_seat is None:
            # A spectator's session has no seat: its public view (no hidden card).
            return self.session.view() if self.spectating() else None
        try:
            return table.view()
        except LocalProtocolError:
            return None

    def replaying(self) -> Any:
        """The step of its saved record a resumed session is telling again, else None
        (see :func:`p2pcards.net.resume.show_record`)."""
        return getattr(self.session, "replaying", None)

    def spectating(self) -> bool:
        """The session is a spectator's (no seat, no hand): known as soon as it exists."""
        return bool(getattr(self.session, "spectator", False))

    def players(self) -> tuple[SeatInfo, ...]:
        """The table's players by player index (join order), from its genesis."""
        table = self._table()
        if table is None:
            return ()
        return tuple(SeatInfo(clean(p.name, 32), fingerprint(p.public_key))
                     for p in table.players)

    def seating(self) -> tuple[int, ...] | None:
        table = self._table()
        return None if table is None else table.player_at_seat

    def me_player(self) -> int | None:
        """This seat's player index (join order), once the table started."""
        table = self._table()
        return None if table is None else table.me_player

    def my_seat(self) -> int | None:
        table = self._table()
        return None if table is None else table.my_seat

    def game(self) -> str | None:
        table = self._table()
        return None if table is None else table.game.name

    async def leave(self) -> None:
        """Tell the other players (a signed notice) that this player leaves."""
        session = self.session
        if session is not None:
            await session.leave()

    def left_result(self) -> Any:
        """The session's result after this player left outside a decision."""
        from p2pcards.net.session_events import LEFT_IN_LOBBY, SessionResult
        table = self._table()
        if table is None:
            return SessionResult(reason=LEFT_IN_LOBBY)
        return SessionResult(verdict=table.verdict)
