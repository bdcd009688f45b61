"""The one typed reader of a live session: what a front end may see of it, as a frozen snapshot.

A front end (the line-based printer, the full-screen table) reads its own
session between the session's steps, when it hands over an event: no worker
thread changes the table then. :func:`snapshot` takes everything such a
reader needs at that moment — this seat's view (its own cards and what the
rules revealed), a spectator's public view, the players of the signed
genesis, the seating — and never a table secret or another seat's cards.
Whether the session is a spectator's, and whether a resumed session is
telling its record again, are plain attributes of both sessions
(:class:`~p2pcards.net.peer.PeerSession`, :class:`~p2pcards.net.watch.WatchSession`),
cheap to read at any event.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from p2pcards.net.session_events import Step
from p2pcards.protocol.errors import LocalProtocolError
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_records import Player
from p2pcards.protocol.verdict import Verdict
from p2pcards.rules.contract import Engine


class LiveSession(Protocol):
    """What the reader needs of a session: a player's or a spectator's."""

    @property
    def table(self) -> Table | None: ...

    @property
    def spectator(self) -> bool:
        """No seat, no hand: the session shows the public view."""

    @property
    def replaying(self) -> Step | None:
        """The step of its saved record a resumed session is telling again, else None."""

    async def leave(self) -> None:
        """This player leaves (a spectator stops watching)."""


def seat_view(table: Table) -> Engine | None:
    """The referee's view for ``table``'s own seat (a copy), or None before the seats
    are drawn and a game is on, or for a table with no seat of this peer's."""
    if table.engine is None or table.my_seat is None:
        return None
    try:
        return table.view()
    except LocalProtocolError:
        return None


@dataclass(frozen=True)
class SessionSnapshot:
    """A live session at one moment between its steps, as its front end may read it."""

    #: The session is a spectator's (no seat, no hand).
    spectator: bool = False
    #: This seat's view: while a resumed session tells its record again, the view of
    #: that moment; None before the seats are drawn and for a spectator.
    seat_view: Engine | None = None
    #: A spectator's public view of the game (no hidden card), else None.
    public_view: Engine | None = None
    #: The table's players by player index (join order), from its genesis; empty before it.
    players: tuple[Player, ...] = ()
    #: The player at each seat, once the joint draw seated them.
    seating: tuple[int, ...] | None = None
    me_player: int | None = None
    my_seat: int | None = None
    #: The game's name, once there is a table.
    game: str | None = None
    verdict: Verdict | None = None
    #: The table exists (the host's genesis came).
    started: bool = False

    @property
    def view(self) -> Engine | None:
        """What the screen shows: this seat's view, else a spectator's public one."""
        return self.seat_view if self.seat_view is not None else self.public_view

    @property
    def seat_names(self) -> list[str]:
        """The players' names by seat, once seated; else empty."""
        if self.seating is None:
            return []
        return [self.players[player].name for player in self.seating]


def snapshot(session: LiveSession | None) -> SessionSnapshot:
    """Read ``session`` now (call it between the session's steps); an empty snapshot for none."""
    if session is None:
        return SessionSnapshot()
    spectator = session.spectator
    replaying = session.replaying
    table = session.table
    # A resumed session telling its record again: that moment's view, not the table's.
    view = replaying.view if replaying is not None else (seat_view(table) if table is not None else None)
    if table is None:
        return SessionSnapshot(spectator=spectator, seat_view=view)
    public = (table.engine.copy() if spectator and replaying is None and table.my_seat is None
              and table.engine is not None else None)
    return SessionSnapshot(spectator=spectator, seat_view=view, public_view=public,
                           players=tuple(table.players), seating=table.player_at_seat,
                           me_player=table.me_player, my_seat=table.my_seat, game=table.game.name,
                           verdict=table.verdict, started=True)
