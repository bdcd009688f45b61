"""One seat's paths: its link to the host, its direct links, and what its
front end is told about them.

The session (:mod:`p2pcards.net.peer`) decides nothing here: this keeps the
connection to the host it was handed, the :class:`~p2pcards.net.mesh.Mesh`
of direct links (listening once, on this end's address of the host link),
the hello each link opens with, the host's ``peers`` addresses until the
table is known, and turns who is linked into :class:`Paths` and
:class:`Presence` events.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from p2pcards.errors import P2PCardsError
from p2pcards.net.connection import Connection
from p2pcards.net.errors import NetError
from p2pcards.net.mesh import Mesh
from p2pcards.net.seat_view import bot_marks, lobby_update
from p2pcards.net.session_events import (
    Degraded,
    EndBoxWord,
    LinkDown,
    LinkUp,
    Paths,
    Rejected,
    SeatFilled,
    SessionEvent,
    paths_of,
    presence_news,
    presence_of,
)
from p2pcards.protocol import frames
from p2pcards.protocol.end_box import Ending
from p2pcards.protocol.envelope import PROTOCOL_VERSION
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.seat_fill import Fill
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_records import Stage
from p2pcards.wiremap import WireList, WireMap

log = logging.getLogger(__name__)


class SessionRejected(P2PCardsError):
    """The host answered with a ``reject`` frame."""


class SeatLinks:
    """The links of one seat (see the module docstring)."""

    def __init__(self, identity: Identity, on_event: Callable[[SessionEvent], None], *, bot: bool,
                 direct: bool, listen: bool, listen_host: str | None,
                 reconnect_window: float, announce: bool = False) -> None:
        self.identity, self.on_event, self.bot = identity, on_event, bot
        #: Also announce the listener, signed, on the LAN, and dial the others' (zeroconf).
        self.announce = announce
        self.direct, self.listen, self.listen_host = direct, listen, listen_host
        self.reconnect_window = reconnect_window
        #: The live link to the host (None while there is none).
        self.connection: Connection | None = None
        self.mesh: Mesh | None = None
        self.host_key: bytes | None = None
        self.addrs: list[WireList] = []
        self._pending_peers: list[WireList] | None = None
        #: The host's last word on who is linked to it (player order), if any.
        self.host_presence: list[int] | None = None
        self._told_presence: dict[int, str] = {}
        #: The latest lobby's bot marks by public key (saved with the table's meta).
        self.bots: dict[bytes, bool] = {}
        #: The freed seat this newcomer was given at a finished table's end box (its
        #: rematch's genesis is checked against it), if any.
        self.taken: Fill | None = None
        self._ups = 0

    def open_mesh(self, deliver: Callable[[int, bytes], Awaitable[None]],
                  table: Callable[[], Table | None], on_change: Callable[[], None]) -> None:
        """Direct links to the other players (their hello says what ``table()`` holds)."""
        self.mesh = Mesh(self.identity, deliver, lambda: self.hello_body(table()),
                         on_change=on_change, announce=self.announce,
                         on_degraded=lambda text: self.on_event(Degraded(text)))

    async def close(self) -> None:
        """Close the link to the host and the direct links (what is queued goes first)."""
        if self.connection is not None:
            self.connection.close()
        if self.mesh is not None:
            await self.mesh.close()

    # -- the host ---------------------------------------------------------------------

    async def to_host(self, frame: bytes) -> bool:
        """Send to the host if the link is up; a lost link is the host task's to
        notice (what the host misses it asks for with ``sync`` after the hello).
        Whether the frame went out."""
        connection = self.connection
        if connection is None or connection.closed:
            return False
        try:
            await connection.send(frame)
        except NetError:
            return False
        return True

    def host_up(self, connection: Connection, own_host: bool) -> None:
        """A new link to the host said its hello: sends go on it from now on."""
        self.connection = connection
        self.on_event(LinkUp(reconnect=self._ups > 0, own_host=own_host))
        self._ups += 1

    def host_down(self, connection: Connection, error: object) -> None:
        if connection is self.connection:
            self.connection = None
        self.on_event(LinkDown(str(error)))

    def host_frame(self, frame: frames.Frame, table: Table | None) -> bool:
        """The host's own frames (``lobby``, ``reject``, ``peers``, ``presence``):
        whether ``frame`` was one (a ``reject`` raises :class:`SessionRejected`)."""
        body = frame.body
        if frame.kind == "lobby":
            self.bots = bot_marks(body)
            self.on_event(lobby_update(body))
        elif frame.kind == "reject":
            self.on_event(Rejected(body["reason"]))
            raise SessionRejected(body["reason"])
        elif frame.kind == "peers":
            self.on_peers(body["players"], table)
        elif frame.kind == "presence":
            self.host_presence = list(body["linked"])
            self.emit_presence(table)
        elif frame.kind == "fill":
            self.heard_fill(body, table)
        elif frame.kind == "endbox":
            self.heard_end_box(body["left"], body["end"], table)
        else:
            return False
        return True

    def heard_end_box(self, left: int, ending: int, table: Table | None) -> None:
        """The host's word on its end box: a newcomer waiting there is told the time left,
        and how it ended; an evening that ended without the rematch ends its session
        (a player with a table is at its own end box: nothing for this session)."""
        if table is not None or self.taken is None:
            return
        self.on_event(EndBoxWord(left, ending))
        if ending in (Ending.TIMED_OUT, Ending.HOST_LEFT):
            raise SessionRejected("the evening ended at the host's end box before the rematch "
                                  "(" + ("its wait ran out" if ending == Ending.TIMED_OUT
                                         else "the host left") + ")")

    def heard_fill(self, body: WireMap, table: Table | None) -> None:
        """A finished table's end box said who took a freed seat (a newcomer hears
        its own there, before it has any table); an unusable one is dropped."""
        try:
            made = Fill.from_wire(body)
        except ProtocolError as bad:
            log.info("dropped a fill frame from the host: %s", bad)
            return
        if table is None and made.public_key == self.identity.public_key and self.taken is None:
            self.taken = made
        self.on_event(SeatFilled(made))

    def hello_body(self, table: Table | None, with_addrs: bool = True) -> WireMap:
        body = {
            "v": PROTOCOL_VERSION, "name": self.identity.name[:frames.MAX_NAME] or "player",
            "sid": table.session if table else b"", "have": table.next_position if table else 0,
            "bot": int(self.bot),
        }
        if with_addrs and self.direct:
            body["addrs"] = self.addrs
        return body

    async def open_listener(self, connection: Connection) -> None:
        """Listen for direct links once, on this end's address of the host link
        (the interface that reaches the table: the LAN's, a namespace's, loopback)."""
        if self.host_key is None:
            self.host_key = getattr(connection, "peer_public_key", None)
        if self.mesh is None:
            return
        host = self.listen_host
        if host is None:
            local = getattr(connection, "local_address", None)
            host = str(local[0]) if local else None
        if host and (not self.listen or self.addrs):
            self.mesh.reached_from(host)  # where to look for the others' announcements
        elif host:
            self.addrs = await self.mesh.listen(host)

    # -- direct links -------------------------------------------------------------------

    def send(self, player: int, frame: bytes) -> None:
        if self.mesh is not None:
            self.mesh.send(player, frame)

    def linked(self) -> set[int]:
        return self.mesh.linked() if self.mesh is not None else set()

    def on_peers(self, players: list[WireList], table: Table | None) -> None:
        """The host's ``peers`` addresses: dialled once the table is known."""
        if self.mesh is None:
            return
        if table is None:
            self._pending_peers = players
            return
        self.mesh.set_peers(players)

    def table_known(self, table: Table) -> None:
        if self.mesh is not None and table.me_player is not None:
            self.mesh.set_table(table.session, [p.public_key for p in table.players], table.me_player)
            if self._pending_peers is not None:
                self.mesh.set_peers(self._pending_peers)
                self._pending_peers = None
            self.emit_paths(table)

    # -- what the front end is told -------------------------------------------------------

    def paths(self, table: Table | None) -> dict[int, str]:
        """How each other player's messages reach this one (see :class:`Paths`)."""
        if table is None or table.me_player is None:
            return {}
        return paths_of([p.public_key for p in table.players], table.me_player, self.linked(),
                        self.host_key)

    def emit_paths(self, table: Table | None) -> None:
        if self.mesh is not None and table is not None:
            self.on_event(Paths(self.paths(table)))

    def presence(self, table: Table | None) -> dict[int, str]:
        """Each other player's presence (see :class:`Presence`)."""
        if table is None or table.me_player is None:
            return {}
        return presence_of(len(table.players), table.me_player, self.linked(), self.host_presence)

    def emit_presence(self, table: Table | None) -> None:
        if table is not None and table.stage in (Stage.OVER, Stage.ENDED):
            return  # after the end, links going are players going home, not reconnecting
        news = presence_news(self._told_presence, self.presence(table), self.reconnect_window)
        if news is not None:
            self._told_presence = news.states
            self.on_event(news)


__all__ = ["SeatLinks", "SessionRejected"]
