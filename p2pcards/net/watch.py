"""A spectator's session: the table as it grows, checked as an observer.

A spectator links to the host with a ``hello`` that says ``watch: 1``. The
host hands it the lobby, then every transcript message, notice and presence
frame the players hear; the spectator replays each message on an observer
:class:`~p2pcards.protocol.table.Table` (no seat, no secret), so every
signature, proof and rule is checked here as at any player's, and only what
the rules reveal is ever known. It writes nothing: it cannot delay anyone,
and no clock or verdict counts it; it shows the table clock as the players
run it (their time starts when a message arrives). A lost link is redialled (with the
session id and what it holds), with backoff and jitter
(:class:`~p2pcards.net.redial.Redial`), until ``reconnect_window`` runs out.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from p2pcards.errors import P2PCardsError
from p2pcards.net.errors import NetError
from p2pcards.net.host_link import why_unreached
from p2pcards.net.redial import Redial
from p2pcards.net.session_events import (
    CONNECTED,
    RECONNECTING,
    LinkDown,
    LinkUp,
    LobbyUpdate,
    Rejected,
    SessionEvent,
    Waiting,
    presence_news,
)
from p2pcards.protocol import frames
from p2pcards.protocol.envelope import PROTOCOL_VERSION
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.events import TableEvent
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_errors import Gap
from p2pcards.protocol.table_records import Stage
from p2pcards.protocol.table_settings import MOVE_TIME, PAUSE_SECONDS
from p2pcards.protocol.talk import TalkBook, TalkDropped
from p2pcards.protocol.verdict import Verdict
from p2pcards.rules.contract import Engine, Outcome

if TYPE_CHECKING:
    from p2pcards.net.resume import Step

log = logging.getLogger(__name__)

#: Seconds before redialling a lost link (doubling per failed dial, at most
#: ``MAX_REDIAL_DELAY``, with jitter: :class:`~p2pcards.net.redial.Redial`).
REDIAL_DELAY = 0.2
MAX_REDIAL_DELAY = 2.0


class WatchLink(Protocol):
    """What a spectator needs of its link to the host: a ``Connection`` has it."""

    async def send(self, payload: bytes) -> None: ...

    async def recv(self) -> bytes: ...

    def close(self) -> None: ...


Connector = Callable[[], Awaitable[WatchLink]]


class WatchRefused(P2PCardsError):
    """The host turned this spectator away (no spectators, full, not that table)."""


@dataclass(frozen=True)
class WatchResult:
    """How watching ended: the match's outcome, a verdict, or why it stopped."""

    outcome: Outcome | None = None
    verdict: Verdict | None = None
    reason: str = ""
    stopped: bool = False
    """The spectator chose to stop watching."""
    left_in_lobby: bool = False  # a spectator never holds a seat (as SessionResult says)


class WatchSession:
    """Watch one table from the host's side of it, as an observer (see the module doc)."""

    def __init__(self, identity: Identity, connector: Connector, *,
                 on_event: Callable[[SessionEvent], None] | None = None,
                 reconnect_window: float = 30.0) -> None:
        self.identity = identity
        self.connector = connector
        self.on_event = on_event or (lambda event: None)
        self.reconnect_window = reconnect_window
        self.table: Table | None = None
        self.talk: TalkBook | None = None
        #: A spectator keeps no record of its own (``p2pcards verify`` a player's).
        self.journal = None
        self._connection: WatchLink | None = None
        self._stopped = False
        self._told_presence: dict[int, str] = {}
        #: Which players are bots, by key, from the lobby frame (the genesis does not say).
        self._bots: dict[bytes, bool] = {}

    # -- what a front end reads ----------------------------------------------------------

    def view(self) -> Engine | None:
        """The public view of the game (no seat's hidden card: none is known here)."""
        table = self.table
        if table is None or table.engine is None:
            return None
        return table.engine.copy()

    spectator = True
    """Front ends show this session's public view (it has no seat)."""

    replaying: Step | None = None
    """A spectator keeps no record, so never tells one again."""

    async def leave(self) -> None:
        """Stop watching: the link closes; nobody at the table needs telling."""
        self._stopped = True
        if self._connection is not None:
            self._connection.close()

    @property
    def done(self) -> bool:
        return self.table is not None and self.table.stage in (Stage.OVER, Stage.ENDED)

    # -- running -------------------------------------------------------------------------

    async def run(self) -> WatchResult:
        """Watch until the match ends, a verdict ends it, or the host is gone."""
        redial = Redial(first=REDIAL_DELAY, most=MAX_REDIAL_DELAY, window=self.reconnect_window)
        connected_once = False
        try:
            while True:
                try:
                    self._connection = await self.connector()
                except (TimeoutError, OSError, NetError) as error:
                    if not connected_once or not await redial.failed():
                        return self._result(f"could not reach the table's host ({why_unreached(error)})")
                    continue
                self.on_event(LinkUp(reconnect=connected_once, own_host=False))
                connected_once = True
                try:
                    await self._hello()
                    await self._read()
                except NetError as error:
                    if not self._stopped:
                        self.on_event(LinkDown(str(error)))
                finally:
                    self._connection.close()
                if self._stopped:
                    return WatchResult(reason="you stopped watching", stopped=True)
                if self.done:
                    return self._result()
                redial.restart()
                await redial.failed()  # the first pause (the window has just begun)
        except WatchRefused as refused:
            return WatchResult(reason=str(refused))
        finally:
            if self._connection is not None:
                self._connection.close()

    async def _hello(self) -> None:
        table = self.table
        assert self._connection is not None  # run() dialled it
        await self._connection.send(frames.encode("hello", {
            "v": PROTOCOL_VERSION, "name": self.identity.name[:32] or "spectator",
            "sid": table.session if table is not None else b"",
            "have": table.next_position if table is not None else 0,
            "bot": 0, "watch": 1}))

    async def _read(self) -> None:
        assert self._connection is not None  # run() dialled it
        while not self.done:
            data = await self._connection.recv()
            try:
                frame = frames.decode(data)
            except ProtocolError as error:
                log.warning("dropped a malformed frame from the host: %s", error)
                continue
            await self._on_frame(frame)

    async def _on_frame(self, frame: frames.Frame) -> None:
        body = frame.body
        if frame.kind == "lobby":
            self._bots = {pk: bool(bot) for pk, _name, bot in body["players"]}
            self.on_event(LobbyUpdate(body["game"], body["table"], body["config"], tuple(
                (pk, name, bool(bot)) for pk, name, bot in body["players"])))
        elif frame.kind == "reject":
            self.on_event(Rejected(body["reason"]))
            raise WatchRefused(body["reason"])
        elif frame.kind == "msg":
            await self._on_message(body)
        elif frame.kind == "alert" and (table := self.table) is not None:
            self._apply(lambda: table.receive_alert(body), "notice")
        elif frame.kind == "presence" and self.table is not None:
            states = {p: CONNECTED if linked else RECONNECTING
                      for p, linked in enumerate(body["linked"])}
            news = presence_news(self._told_presence, states, self.reconnect_window)
            self._told_presence = states
            if news is not None and news.changed:
                self.on_event(news)
        elif frame.kind == "talk" and self.talk is not None:
            try:
                line = self.talk.receive(body, asyncio.get_running_loop().time())
            except TalkDropped as dropped:
                log.info("dropped a chat line: %s", dropped.reason)
                return
            if line is not None:
                self.on_event(line)

    async def _on_message(self, raw: bytes) -> None:
        if self.table is None:
            try:
                self.table = Table(raw)
            except ProtocolError as error:
                log.warning("the host's first message is not a genesis: %s", error)
                return
            self.talk = TalkBook(self.table.session, [p.public_key for p in self.table.players])
            clock = {} if self.table.move_time is None else {MOVE_TIME: self.table.move_time}
            self.on_event(LobbyUpdate(self.table.game.name, self.table.table_name,
                                      clock, tuple((p.public_key, p.name,
                                                 self._bots.get(p.public_key, False))
                                                for p in self.table.players)))
            self._tell_clock()
            return
        table = self.table
        try:
            events = await asyncio.to_thread(table.receive, raw)
        except Gap:
            assert self._connection is not None  # a frame came over it
            await self._connection.send(frames.encode("sync", {"have": table.next_position}))
            return
        except ProtocolError as error:
            log.warning("dropped a message: %s", error)
            return
        for event in events:
            self.on_event(event)
        self._tell_clock()

    def _tell_clock(self) -> None:
        """Who writes next and until when, as the players' sessions count it: the
        genesis's table clock from now (plus a pause the writer took). Advisory:
        no verdict comes from a spectator."""
        table = self.table
        if table is None or table.move_time is None or self.done:
            return
        seconds = math.inf if table.move_time == 0 else float(table.move_time)
        if table.paused is not None and table.paused == table.writer:
            seconds += PAUSE_SECONDS
        self.on_event(Waiting(table.writer, asyncio.get_running_loop().time() + seconds))

    def _apply(self, receive: Callable[[], list[TableEvent]], what: str) -> None:
        try:
            events = receive()
        except ProtocolError as error:
            log.info("dropped a %s: %s", what, error)
            return
        for event in events:
            self.on_event(event)

    def _result(self, reason: str = "") -> WatchResult:
        table = self.table
        if table is None:
            return WatchResult(reason=reason or "the table never started")
        outcome = table.engine.outcome if table.engine is not None else None
        return WatchResult(outcome=outcome, verdict=table.verdict, reason=reason)


__all__ = ["WatchRefused", "WatchResult", "WatchSession"]
