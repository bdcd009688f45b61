"""Where each thing a seat hears goes: frames, link news, the loss of the host.

The table task (:mod:`p2pcards.net.peer`) reads one queue
(:mod:`~p2pcards.net.inbox`); this says, per item and per frame kind (and when
the direct links change), which
of the session's rules (:class:`~p2pcards.protocol.session.SessionRules`) or
which part of the seat hears it. It decides nothing itself: kept apart so the
driver stays a driver, and so that a frame any path may carry is routed the
same way whichever path brought it (the host link or a direct link). It holds
the parts of the seat it feeds (the rules, the links, the talk, the queue) and
asks the session only for what :class:`SeatDriver` names.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from p2pcards.net.failing import LocalFailure
from p2pcards.net.inbox import Inbox, InboxItem
from p2pcards.net.seat_links import SeatLinks
from p2pcards.net.seat_talk import SeatTalk
from p2pcards.net.session_events import SessionResult
from p2pcards.protocol import frames
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.session import HOST as HOST_PATH
from p2pcards.protocol.session import Output, SessionRules

log = logging.getLogger(__name__)

#: Frame kinds from the host that the seat's links do not take for themselves.
PATH_KINDS = ("msg", "alert", "pong", "sync", "talk")


@dataclass(frozen=True)
class SeatDriver:
    """What routing asks of the session that drives the rules (its own steps)."""

    #: Carry out what the rules said, in order.
    apply: Callable[[list[Output]], Awaitable[None]]
    #: The host's genesis came: make the table (raises ``SessionRejected``).
    start_table: Callable[[bytes], None]
    #: The session's result if its table is over or ended, else None.
    finished: Callable[[], SessionResult | None]
    #: The host cannot be reached any more (``reason``): how the session ends.
    give_up: Callable[[str], SessionResult]
    #: This seat is in the process that hosts the table.
    hosted: Callable[[], bool]


class SeatRouting:
    """Routes one session's inbox items, frames and direct-link changes."""

    def __init__(self, rules: SessionRules, links: SeatLinks, chat: SeatTalk, inbox: Inbox,
                 driver: SeatDriver) -> None:
        self.rules, self.links, self.chat, self.inbox = rules, links, chat, inbox
        self.driver = driver

    async def direct(self, player: int, data: bytes) -> None:
        """A direct link's reader: its frames queue for the table task like the host's."""
        await self.inbox.put(("direct", player, data))

    def mesh_changed(self) -> None:
        """A direct link came up or went down. Each end of a new link asks the other
        for what it lacks (``sync``): a message written before the link existed
        (and withheld by the host) must not wait for a deadline."""
        mesh, rules = self.links.mesh, self.rules
        if mesh is None:
            return
        for out in rules.direct_links(mesh.linked()):
            if out.path is not HOST_PATH:
                mesh.send(out.path, out.frame)
        if rules.ended_at is not None:
            self.inbox.wake()  # an ended table's grace may be over: the links changed
        self.links.emit_paths(rules.table)
        self.links.emit_presence(rules.table)

    async def item(self, item: InboxItem) -> SessionResult | None:
        """One inbox item; the session's result if it ends the session."""
        if item[0] == "host":
            await self.host_frame(item[2])
        elif item[0] == "direct":
            await self.direct_frame(item[1], item[2])
        elif item[0] == "up":
            self.links.host_up(item[1], own_host=self.driver.hosted())
            # What this peer wrote after the hello named its count, while the link was
            # not yet this task's, went nowhere: the host would never ask for it. No
            # fresh deadline: a reconnect is not progress (see the peer module's doc).
            await self.driver.apply(self.rules.host_link_up(item[2]))
        elif item[0] == "down":
            self.rules.host_link_down()
            self.links.host_down(item[1], item[2])
            return self.driver.finished()
        elif item[0] == "lost":
            return self.driver.give_up(item[2])
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
        if not self.links.host_frame(frame, self.rules.table) and frame.kind in PATH_KINDS:
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
        rules, apply = self.rules, self.driver.apply
        kind, body = frame.kind, frame.body
        if kind == "msg":
            await self.message(body, source)
        elif kind == "alert":
            await self.alert(body, source)
        elif kind == "sync":
            await apply(rules.sync(source, body["have"]))
        elif kind == "ping" and source is not HOST_PATH:
            await apply(rules.ping(source, body))
        elif kind == "pong":
            await apply(rules.pong(source, body["n"]))
        elif kind == "talk":
            self.chat.receive(body, source, self.links.mesh)

    async def message(self, raw: bytes, source: int | None) -> None:
        """A transcript message from the host (``source`` None) or a direct link:
        the rules say what becomes of it (see :mod:`p2pcards.protocol.session`);
        before the table is known, only the host's genesis counts."""
        if self.rules.table is None:
            if source is None:
                self.driver.start_table(raw)
            return
        await self.driver.apply(self.rules.message(source, raw))

    async def alert(self, raw: bytes, source: int | None) -> None:
        """A signed notice (a verdict or a leave): the rules judge it."""
        await self.driver.apply(self.rules.alert(source, raw))
