"""Where each thing a seat hears goes: frames, link news, the loss of the host.

The table task (:mod:`p2pcards.net.peer`) reads one queue
(:mod:`~p2pcards.net.inbox`); this says, per item and per frame kind (and when
the direct links change), which
of the session's rules (:class:`~p2pcards.protocol.session.SessionRules`) or
which part of the seat hears it. It decides nothing itself: kept apart so the
driver stays a driver, and so that a frame any path may carry is routed the
same way whichever path brought it (the host link or a direct link).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from p2pcards.net.failing import LocalFailure
from p2pcards.net.inbox import InboxItem
from p2pcards.net.session_events import SessionResult
from p2pcards.protocol import frames
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.session import HOST as HOST_PATH

if TYPE_CHECKING:
    from p2pcards.net.peer import PeerSession

log = logging.getLogger(__name__)

#: Frame kinds from the host that the seat's links do not take for themselves.
PATH_KINDS = ("msg", "alert", "pong", "sync", "talk")


class SeatRouting:
    """Routes one session's inbox items, frames and direct-link changes."""

    def __init__(self, seat: PeerSession) -> None:
        self.seat = seat

    async def direct(self, player: int, data: bytes) -> None:
        """A direct link's reader: its frames queue for the table task like the host's."""
        await self.seat.inbox.put(("direct", player, data))

    def mesh_changed(self) -> None:
        """A direct link came up or went down. Each end of a new link asks the other
        for what it lacks (``sync``): a message written before the link existed
        (and withheld by the host) must not wait for a deadline."""
        seat = self.seat
        if seat.mesh is None:
            return
        for out in seat.rules.direct_links(seat.mesh.linked()):
            if out.path is not HOST_PATH:
                seat.mesh.send(out.path, out.frame)
        if seat.rules.ended_at is not None:
            seat.inbox.wake()  # an ended table's grace may be over: the links changed
        seat.links.emit_paths(seat.table)
        seat.links.emit_presence(seat.table)

    async def item(self, item: InboxItem) -> SessionResult | None:
        """One inbox item; the session's result if it ends the session."""
        seat = self.seat
        if item[0] == "host":
            await self.host_frame(item[2])
        elif item[0] == "direct":
            await self.direct_frame(item[1], item[2])
        elif item[0] == "up":
            seat.links.host_up(item[1], own_host=bool(seat.meta.get("hosted")))
            # What this peer wrote after the hello named its count, while the link was
            # not yet this task's, went nowhere: the host would never ask for it. No
            # fresh deadline: a reconnect is not progress (see the peer module's doc).
            await seat._apply(seat.rules.host_link_up(item[2]))
        elif item[0] == "down":
            seat.rules.host_link_down()
            seat.links.host_down(item[1], item[2])
            if seat._table_done():
                return seat._result()
        elif item[0] == "lost":
            return seat._give_up(item[2])
        elif item[0] == "failed":
            raise LocalFailure("setting up your link to the host", item[2])
        return None

    async def host_frame(self, data: bytes) -> None:
        """A frame on the link to the host: the links' own kinds stay with the links."""
        try:
            frame = frames.decode(data)
        except ProtocolError as error:
            log.warning("dropped a malformed frame from the host: %s", error)
            return
        if not self.seat.links.host_frame(frame, self.seat.table) and frame.kind in PATH_KINDS:
            await self.path_frame(frame, HOST_PATH)  # the host answers its own pings

    async def direct_frame(self, player: int, data: bytes) -> None:
        """A frame on the direct link to ``player`` (only after both said hello)."""
        try:
            frame = frames.decode(data)
        except ProtocolError as error:
            log.info("dropped a malformed frame from player %d: %s", player, error)
            return
        await self.path_frame(frame, player)

    async def path_frame(self, frame: frames.Frame, source: int | None) -> None:
        """A frame any path may carry (a ``ping`` only a direct one: the host answers its own)."""
        seat, rules = self.seat, self.seat.rules
        kind, body = frame.kind, frame.body
        if kind == "msg":
            await self.message(body, source)
        elif kind == "alert":
            await self.alert(body, source)
        elif kind == "sync":
            await seat._apply(rules.sync(source, body["have"]))
        elif kind == "ping" and source is not HOST_PATH:
            await seat._apply(rules.ping(source, body))
        elif kind == "pong":
            await seat._apply(rules.pong(source, body["n"]))
        elif kind == "talk":
            seat.chat.receive(body, source, seat.mesh)

    async def message(self, raw: bytes, source: int | None) -> None:
        """A transcript message from the host (``source`` None) or a direct link:
        the rules say what becomes of it (see :mod:`p2pcards.protocol.session`);
        before the table is known, only the host's genesis counts."""
        if self.seat.table is None:
            if source is None:
                self.seat._start_table(raw)
            return
        await self.seat._apply(self.seat.rules.message(source, raw))

    async def alert(self, raw: bytes, source: int | None) -> None:
        """A signed notice (a verdict or a leave): the rules judge it."""
        await self.seat._apply(self.seat.rules.alert(source, raw))
