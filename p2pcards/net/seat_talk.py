"""One seat's table talk: lines beside the table, never in it.

A line is signed under its own domain, sent to the host and on every direct
link, checked by a :class:`~p2pcards.protocol.talk.TalkBook` (copies,
forgeries, replays, other tables and floods are dropped with a logged reason,
blaming nobody), echoed once on the direct links, and shown as a
:class:`~p2pcards.protocol.talk.TalkLine` event. Nothing here touches the
table, so talk can change no verdict.
"""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING

from p2pcards.net.session_events import SessionEvent
from p2pcards.protocol import frames
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.table import Table
from p2pcards.protocol.talk import TalkBook, TalkDropped, TalkLine, TalkRefused

if TYPE_CHECKING:
    from p2pcards.net.mesh import Mesh

log = logging.getLogger(__name__)

#: Dropped chat lines logged as warnings (which a full screen shows) per
#: ``TALK_WARN_WINDOW`` seconds; the rest are logged at info level, so a
#: flood of bad lines cannot flood the person's screen.
TALK_WARNINGS = 5
TALK_WARN_WINDOW = 10.0


class SeatTalk:
    """The talk of one seat: its :class:`TalkBook` once the table is known."""

    def __init__(self, on_event: Callable[[SessionEvent], None]) -> None:
        self.on_event = on_event
        self.book: TalkBook | None = None
        self._sends: set[asyncio.Task[bool]] = set()
        self._warned: collections.deque[float] = collections.deque()

    def table_known(self, table: Table | None) -> None:
        if table is not None and self.book is None and table.me_player is not None:
            self.book = TalkBook(table.session, [p.public_key for p in table.players], table.me_player)

    def say(self, identity: Identity, text: str, ended: bool, mesh: Mesh | None,
            to_host: Callable[[bytes], Coroutine[object, object, bool]]) -> TalkLine:
        """Sign a line, send it on every direct link and to the host; the line as
        the others will see it (raises :class:`TalkRefused`)."""
        if self.book is None:
            raise TalkRefused("the table has not started: nobody to talk to yet")
        if ended:
            raise TalkRefused("the table is over: nobody is listening any more")
        loop = asyncio.get_running_loop()
        signed = self.book.write(identity, text, loop.time())
        frame = frames.encode("talk", signed.raw)
        if mesh is not None:
            mesh.broadcast(frame)
        task = loop.create_task(to_host(frame))
        self._sends.add(task)
        task.add_done_callback(self._sends.discard)
        line = TalkLine(signed.player, signed.text, own=True)
        self.on_event(line)
        return line

    def receive(self, raw: bytes, source: int | None, mesh: Mesh | None) -> None:
        """A line from the host (``source`` None) or a direct peer: shown once if it
        checks, echoed once on the other direct links (not to its speaker), else
        dropped with its reason logged."""
        if self.book is None:
            log.info("dropped a chat line: the table has not started here")
            return
        try:
            line = self.book.receive(raw, asyncio.get_running_loop().time())
        except TalkDropped as dropped:
            where = "the host" if source is None else f"player {source}'s direct link"
            log.log(self._drop_level(), "dropped a chat line from %s: %s", where, dropped.reason)
            return
        if line is None:
            return  # a copy (the host's and a direct link's): shown once
        if mesh is not None:
            mesh.broadcast(frames.encode("talk", raw), exclude=source, also_exclude=line.player)
        self.on_event(line)

    def _drop_level(self) -> int:
        """WARNING for the first few dropped lines in a window, INFO beyond."""
        now = asyncio.get_running_loop().time()
        warned = self._warned
        while warned and warned[0] <= now - TALK_WARN_WINDOW:
            warned.popleft()
        if len(warned) >= TALK_WARNINGS:
            return logging.INFO
        warned.append(now)
        return logging.WARNING

    def close(self) -> None:
        """A line still on its way to the host is dropped."""
        for send in list(self._sends):
            send.cancel()


__all__ = ["TALK_WARNINGS", "TALK_WARN_WINDOW", "SeatTalk"]
