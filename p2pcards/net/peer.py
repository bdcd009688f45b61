"""One player at a table over a link: receive, verify, answer, save, reconnect.

A :class:`PeerSession` is the asyncio driver of this player's sans-IO
:class:`Table` and of its session rules,
:class:`~p2pcards.protocol.session.SessionRules` — the clock, which path each
message goes on, the echo, ``sync`` answers, speculation gating and whom a
missed deadline names all live there, where the deterministic simulation
(``tests/sim``) checks them. This module only carries out what they say: it
keeps the link to the host (redialling within the reconnect window) and, with
``direct=True``, the direct links (:class:`~p2pcards.net.mesh.Mesh`); feeds
their frames, the clock and the agent's decisions to the rules through one
queue read by the one task that touches the table; sends the cryptographic
steps as they fall due; asks its :class:`Agent` (a bot, or a person through a
front end) for game decisions; and saves every message before it goes out,
so that after a lost link or a crash it resumes from what it saved
(:mod:`p2pcards.net.resume`). Heavy cryptography runs in worker threads
(:mod:`p2pcards.net.ahead`), so the event loop (and a screen drawn on it)
never stalls.

Table talk (:meth:`PeerSession.say`, ``talk`` frames) goes beside the table,
never into it: a line is signed under its own domain, sent to the host and on
every direct link, checked by a :class:`~p2pcards.protocol.talk.TalkBook`
(copies, forgeries, replays, other tables and floods are dropped with a
logged reason, blaming nobody), echoed once on the direct links, and shown
as a :class:`~p2pcards.protocol.talk.TalkLine` event.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import logging
import math
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from p2pcards.errors import P2PCardsError
from p2pcards.net.ahead import Ahead
from p2pcards.net.errors import NetError, NotRunning
from p2pcards.net.host_link import HostLink
from p2pcards.net.journal import Journal
from p2pcards.net.mesh import Mesh
from p2pcards.net.resume import rebuild, resumed_events, turn_age
from p2pcards.net.session_events import (
    CONNECTED,
    DIRECT,
    HOST,
    LEFT_IN_LOBBY,
    RECONNECTING,
    VIA_HOST,
    Agent,
    Decision,
    LeaveTable,
    LinkDown,
    LinkUp,
    LobbyUpdate,
    Paths,
    Presence,
    Rejected,
    SessionResult,
    TakePause,
    Waiting,
    paths_of,
    presence_news,  # re-exported: the session's vocabulary
    presence_of,
)
from p2pcards.protocol import frames
from p2pcards.protocol.envelope import PROTOCOL_VERSION
from p2pcards.protocol.errors import PlayerLeft, ProtocolError, SeatPlayedElsewhere
from p2pcards.protocol.events import HandDealt, MatchEnded, ShuffleVerified, TableEnded
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.session import (
    HOST as HOST_PATH,
)
from p2pcards.protocol.session import (
    PROBE_TIMEOUT,
    Check,
    Clock,
    Emit,
    Output,
    Save,
    Send,
    SessionRules,
    Settle,
    Speculate,
)
from p2pcards.protocol.table import (
    Stage,
    StageNotReached,
    Table,
    Written,
)
from p2pcards.protocol.talk import TalkBook, TalkDropped, TalkLine, TalkRefused

log = logging.getLogger(__name__)

Connector = Callable[[], Awaitable[Any]]
#: What the table task reads: (kind, source, payload), as the links put them.
InboxItem = tuple[str, Any, Any]
RandomnessFor = Callable[[int], Callable[[int], bytes]]
#: Seconds to read what already arrived before a deadline counts as missed.
LAST_LOOK = 0.05
#: Frames waiting for the table task before the links' readers wait (backpressure).
INBOX_SIZE = 1024
#: Dropped chat lines logged as warnings (which a full screen shows) per
#: ``TALK_WARN_WINDOW`` seconds; the rest are logged at info level, so a
#: flood of bad lines cannot flood the person's screen.
TALK_WARNINGS = 5
TALK_WARN_WINDOW = 10.0
class SessionRejected(P2PCardsError):
    """The host answered with a ``reject`` frame."""


class PeerSession:
    """Runs one player's table over a link to the host (and, with ``direct``,
    direct links to the other players), with saving and reconnecting."""

    #: Whether being stopped from outside (Ctrl-C) is this player's signed leave.
    #: Off for a bot seat in a host's process: stopped as that process winds down
    #: (its own seat ended, crashed or left), which is no decision of the bot's.
    leave_when_stopped = True

    def __init__(
        self,
        identity: Identity,
        agent: Agent,
        connector: Connector,
        *,
        bot: bool = False,
        deadline: float = 120.0,
        reconnect_window: float = 60.0,
        journal_root: Path | None = None,
        randomness_for: RandomnessFor | None = None,
        on_event: Callable[[Any], None] | None = None,
        meta: dict | None = None,
        direct: bool = False,
        listen: bool = True,
        listen_host: str | None = None,
    ) -> None:
        self.identity = identity
        self.agent = agent
        self.connector = connector
        self.bot = bot
        self.deadline = deadline
        self.reconnect_window = reconnect_window
        self.journal_root = journal_root
        self.randomness_for = randomness_for
        self.on_event = on_event or (lambda event: None)
        self.meta = dict(meta or {})
        self.direct = direct
        """Link directly to the other players (a player in its own process)."""
        self.listen = listen
        """Accept direct links (off: this player only dials, e.g. behind a firewall)."""
        self.listen_host = listen_host
        """Where to listen; default: this end's address of the link to the host."""
        #: The session's rules (clock, paths, echo, sync, blame): this class drives them.
        self.rules = SessionRules(deadline)
        self.journal: Journal | None = None
        self.mesh: Mesh | None = None
        self._leaving = False
        #: The host's last word on who is linked to it (player order), if any.
        self._host_presence: list[int] | None = None
        self._told_presence: dict[int, str] = {}
        #: Wall time the resumed table's transcript was last written (resume_from).
        self._saved_at: float | None = None
        #: How many of the table's messages its record holds (see _save_held).
        self._journaled = 0
        self._connection: Any = None
        self._host_link: HostLink | None = None
        self._links_up = 0
        self._resumed = False
        #: The latest lobby's bot marks by public key (saved with the table's meta).
        self._bots: dict[bytes, bool] = {}
        #: The one queue the table task reads (made when :meth:`run` starts).
        self._inbox: asyncio.Queue[InboxItem] | None = None
        self._addrs: list[list] = []
        self._pending_peers: list | None = None
        self._host_key: bytes | None = None
        #: Work made while the players think, and speculative shuffles (see ahead.py).
        self.ahead = Ahead()
        #: The table talk's checks and this player's counter (once the table is known).
        self.talk: TalkBook | None = None
        self._talk_sends: set[asyncio.Task] = set()
        self._talk_warned: collections.deque = collections.deque()

    # -- public -----------------------------------------------------------------

    @property
    def table(self) -> Table | None:
        return self.rules.table

    @table.setter
    def table(self, table: Table | None) -> None:
        self.rules.table = table

    @property
    def _deadline_at(self) -> float:
        """When the writer's time (or the probe's) is up, in event-loop time."""
        return self.rules.deadline_at

    def resume_from(self, journal: Journal) -> Table:
        """Rebuild the table from a saved journal before :meth:`run`, and return it
        (raises :class:`~p2pcards.net.journal.JournalInUse` if another process plays it)."""
        resumed = rebuild(journal, self.identity, self.randomness_for)
        self.table, self.journal, self._saved_at = resumed.table, journal, resumed.saved_at
        self._journaled = len(resumed.table.transcript())  # the rebuild rewrote exactly these
        self._resumed = True
        self.meta.update(resumed.meta)
        return resumed.table

    async def run(self) -> SessionResult:
        """Play until the match ends, a verdict ends it, or the host refuses us."""
        try:
            return await self._run()
        finally:
            if self.journal is not None:
                self.journal.release()

    async def _run(self) -> SessionResult:
        if self._resumed and self.table is not None:
            for event in resumed_events(self.table, self.meta):
                self.on_event(event)
        if self._table_done():  # resumed from a journal whose table had already ended
            return self._result()
        self._inbox = asyncio.Queue(INBOX_SIZE)
        if self.direct:
            self.mesh = Mesh(self.identity, self._deliver_direct, self._direct_hello,
                             on_change=self._on_mesh_change)
        if self.table is not None:
            # Resumed from a journal: the writer's turn began when its predecessor's
            # message was saved (the transcript's last write), not now; no fresh time.
            self._start_rules(self.table, elapsed=self._saved_turn_age())
            self._table_known()
        self._host_link = HostLink(self.connector, self._post, self.reconnect_window)
        host_link = asyncio.create_task(self._host_link.run(self._host_hello))
        try:
            try:
                return await self._play()
            except asyncio.CancelledError:
                # Stopped from outside (Ctrl-C): the others are told while the links are up.
                if self.leave_when_stopped:
                    await self._send_leave_notice()
                raise
            except SessionRejected as rejected:
                # Refused while the table is in play: the host no longer holds it.
                return self._give_up(str(rejected), f"(the host) refused to go on: {rejected}")
            except SeatPlayedElsewhere as elsewhere:  # stop at once, signing and naming nothing
                return SessionResult(reason=elsewhere.detail)
        finally:
            host_link.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await host_link
            self.ahead.close()
            for send in list(self._talk_sends):  # a chat line still on its way: dropped
                send.cancel()
            if self._connection is not None:
                self._connection.close()
            if self.mesh is not None:
                await self.mesh.close()
            if self.journal is not None:
                self.journal.close()  # a later append (a resumed run) opens it again

    def say(self, text: str) -> TalkLine:
        """Sign a chat line and send it to the host and every direct peer; the
        line as the others will see it. It goes beside the table, never into its
        transcript, so it can change no verdict. Raises :class:`TalkRefused` (no
        table yet, an empty line, faster than the others accept)."""
        if self.talk is None:
            raise TalkRefused("the table has not started: nobody to talk to yet")
        if self._table_done():
            raise TalkRefused("the table is over: nobody is listening any more")
        signed = self.talk.write(self.identity, text, asyncio.get_running_loop().time())
        frame = frames.encode("talk", signed.raw)
        if self.mesh is not None:
            self.mesh.broadcast(frame)
        task = asyncio.get_running_loop().create_task(self._to_host(frame))
        self._talk_sends.add(task)
        task.add_done_callback(self._talk_sends.discard)
        line = TalkLine(signed.player, signed.text, own=True)
        self.on_event(line)
        return line

    async def leave(self) -> None:
        """Tell the others (signed) that this player leaves, and stop."""
        self._leaving = True
        await self._send_leave_notice()
        self._wake()

    async def _send_leave_notice(self) -> None:
        if self.table is None or self.table.stage in (Stage.OVER, Stage.ENDED):
            return
        notice = self.table.leave()
        if await self._send_notice(notice) and self.journal is not None and self.table.verdict:
            self._save_held(sync=True)
            # Your own record ends as the others' do: with your signed leave as its verdict.
            # (Nobody heard it, as in a crash with the links dead first: still resumable.)
            self.journal.write_verdict(self.table.verdict.to_wire())

    # -- the link to the host -------------------------------------------------------

    async def _host_hello(self, connection: Any) -> dict:
        """A new link to the host: listen for direct links (once), then the hello."""
        await self._open_listener(connection)
        return self._hello_body(with_addrs=True)

    def _hello_body(self, with_addrs: bool) -> dict:
        table = self.table
        body = {
            "v": PROTOCOL_VERSION, "name": self.identity.name[:frames.MAX_NAME] or "player",
            "sid": table.session if table else b"", "have": table.next_position if table else 0,
            "bot": int(self.bot),
        }
        if with_addrs and self.direct:
            body["addrs"] = self._addrs
        return body

    def _direct_hello(self) -> dict:
        return self._hello_body(with_addrs=True)

    async def _open_listener(self, connection: Any) -> None:
        """Listen for direct links once, on this end's address of the host link
        (the interface that reaches the table: the LAN's, a namespace's, loopback)."""
        if self._host_key is None:
            self._host_key = getattr(connection, "peer_public_key", None)
        if self.mesh is None or not self.listen or self._addrs:
            return
        host = self.listen_host
        if host is None:
            local = getattr(connection, "local_address", None)
            host = str(local[0]) if local else None
        if host:
            self._addrs = await self.mesh.listen(host)

    @property
    def _queue(self) -> asyncio.Queue[InboxItem]:
        """The table task's inbox; raises :class:`NotRunning` before :meth:`run`."""
        if self._inbox is None:
            raise NotRunning("the session's inbox exists only once it runs")
        return self._inbox

    @property
    def _known_table(self) -> Table:
        """The table, where code runs only once it is known (a decision, an action);
        raises :class:`StageNotReached` before the host's genesis."""
        if self.table is None:
            raise StageNotReached("no table yet: the host has not sent its genesis")
        return self.table

    async def _post(self, item: InboxItem) -> None:
        await self._queue.put(item)

    async def _deliver_direct(self, player: int, data: bytes) -> None:
        await self._queue.put(("direct", player, data))

    def _wake(self) -> None:
        if self._inbox is not None:
            with contextlib.suppress(asyncio.QueueFull):
                self._inbox.put_nowait(("wake", None, None))

    # -- the table task ---------------------------------------------------------------

    async def _play(self) -> SessionResult:
        decision: asyncio.Task | None = None
        getter: asyncio.Task | None = None
        try:
            while True:
                await self._send_automatic()
                if self._table_done():
                    await self._send_alert()
                    if not self._leaving:
                        await self._linger()
                    return self._result()
                if self._leaving:
                    return self._result()
                if decision is None and self.table is not None and self.table.awaiting_my_action:
                    decision = asyncio.create_task(self.agent.decide(
                        self.table.view(), self._decision()))
                getter = asyncio.create_task(self._queue.get())
                waiting = {getter} | ({decision} if decision else set())
                wake_at = self.rules.wake_at()
                timeout = (None if math.isinf(wake_at) else  # a table without a clock
                           max(0.0, wake_at - asyncio.get_running_loop().time()))
                done, _ = await asyncio.wait(waiting, timeout=timeout,
                                             return_when=asyncio.FIRST_COMPLETED)
                if not done:
                    # Look once more before blaming anyone: after this process was
                    # suspended, its clock ran on while the socket filled, and the
                    # first poll after waking reports the timer before the socket.
                    done, _ = await asyncio.wait(waiting, timeout=LAST_LOOK,
                                                 return_when=asyncio.FIRST_COMPLETED)
                if getter not in done:
                    getter.cancel()
                if decision is not None and decision in done:
                    finished, decision = decision, None
                    try:
                        action = finished.result()
                    except LeaveTable:
                        await self.leave()
                        return self._result()
                    except TakePause:
                        await self._take_pause()
                    else:
                        await self._act(action)
                if getter in done:  # also when a decision came at once: the item is taken
                    result = await self._on_item(getter.result())
                    if result is not None:
                        return result
                if not done:
                    # The timer fired: the rules' time is (at least) the wake-up time.
                    now = max(asyncio.get_running_loop().time(), self.rules.wake_at())
                    await self._apply(self.rules.tick(now))
        finally:
            # Cancel and reap every helper task, so none is left pending behind us.
            helpers = [t for t in (getter, decision) if t is not None and not t.done()]
            for task in helpers:
                task.cancel()
            if helpers:
                await asyncio.wait(helpers, timeout=1)

    async def _linger(self) -> None:
        """The table ended: keep the links and answer what comes while the rules
        say a linked player may still lack the end (the grace of
        :meth:`SessionRules.ended`). Nothing here changes the result."""
        loop = asyncio.get_running_loop()
        await self._apply(self.rules.ended(loop.time()))
        while self.rules.lingering(loop.time()):
            timeout = max(0.0, self.rules.linger_until() - loop.time())
            try:
                item = await asyncio.wait_for(self._queue.get(), timeout)
            except TimeoutError:
                return
            with contextlib.suppress(SessionRejected, SeatPlayedElsewhere):
                await self._on_item(item)  # a lost host link ends no grace: direct links may be up

    async def _on_item(self, item: InboxItem) -> SessionResult | None:
        kind, source, payload = item
        if kind == "host":
            await self._on_frame(payload)
        elif kind == "direct":
            await self._on_direct_frame(source, payload)
        elif kind == "up":
            self._connection = source
            self.on_event(LinkUp(reconnect=self._links_up > 0, own_host=bool(self.meta.get("hosted"))))
            self._links_up += 1
            # What this peer wrote after the hello named its count, while the link was
            # not yet this task's, went nowhere: the host would never ask for it. No
            # fresh deadline: a reconnect is not progress (see the module doc).
            await self._apply(self.rules.host_link_up(payload))
        elif kind == "down":
            if source is self._connection:
                self._connection = None
            self.rules.host_link_down()
            self.on_event(LinkDown(str(payload)))
            if self._table_done():
                return self._result()
        elif kind == "lost":
            return self._give_up(payload)
        return None

    async def _on_frame(self, data: bytes) -> None:
        try:
            frame = frames.decode(data)
        except ProtocolError as error:
            log.warning("dropped a malformed frame from the host: %s", error)
            return
        if frame.kind == "lobby":
            body = frame.body
            self._bots = {bytes(pk): bool(bot) for pk, _name, bot in body["players"]}
            self.on_event(LobbyUpdate(body["game"], body["table"], body["config"], tuple(
                (pk, name, bool(bot)) for pk, name, bot in body["players"])))
        elif frame.kind == "reject":
            self.on_event(Rejected(frame.body["reason"]))
            raise SessionRejected(frame.body["reason"])
        elif frame.kind == "msg":
            await self._on_message(frame.body, None)
        elif frame.kind == "alert":
            await self._on_alert(frame.body, None)
        elif frame.kind == "pong":
            await self._apply(self.rules.pong(HOST_PATH, frame.body["n"]))
        elif frame.kind == "sync":
            await self._apply(self.rules.sync(HOST_PATH, frame.body["have"]))
        elif frame.kind == "peers":
            self._on_peers(frame.body["players"])
        elif frame.kind == "presence":
            self._host_presence = list(frame.body["linked"])
            self._emit_presence()
        elif frame.kind == "talk":
            self._on_talk(frame.body, None)

    async def _on_direct_frame(self, player: int, data: bytes) -> None:
        """A frame on the direct link to ``player`` (only after both said hello)."""
        try:
            frame = frames.decode(data)
        except ProtocolError as error:
            log.info("dropped a malformed frame from player %d: %s", player, error)
            return
        if frame.kind == "msg":
            await self._on_message(frame.body, player)
        elif frame.kind == "alert":
            await self._on_alert(frame.body, player)
        elif frame.kind == "sync":
            await self._apply(self.rules.sync(player, frame.body["have"]))
        elif frame.kind == "ping":
            await self._apply(self.rules.ping(player, frame.body))
        elif frame.kind == "pong":
            await self._apply(self.rules.pong(player, frame.body["n"]))
        elif frame.kind == "talk":
            self._on_talk(frame.body, player)

    async def _on_message(self, raw: bytes, source: int | None) -> None:
        """A transcript message from the host (``source`` None) or a direct link:
        the rules say what becomes of it (see :mod:`p2pcards.protocol.session`)."""
        if self.table is None:
            if source is None:
                self._start_table(raw)
            return
        await self._apply(self.rules.message(source, raw))

    async def _on_alert(self, raw: bytes, source: int | None) -> None:
        await self._apply(self.rules.alert(source, raw))

    async def _apply(self, outputs: list[Output]) -> None:
        """Carry out what the rules said, in order."""
        for out in outputs:
            if isinstance(out, Send):
                if out.path is HOST_PATH:
                    await self._to_host(out.frame)
                elif self.mesh is not None:
                    self.mesh.send(out.path, out.frame)
            elif isinstance(out, Emit):
                self._emit(out.events)
            elif isinstance(out, Save):
                self._save_held(sync=False)
            elif isinstance(out, Clock):
                self.on_event(Waiting(out.writer, out.deadline))
            elif isinstance(out, Check):
                await self._check(out)
            elif isinstance(out, Speculate):
                self.ahead.speculate(out.position, out.job)
            elif isinstance(out, Settle):
                await self.ahead.settle(self.table, out.position, out.keep)

    async def _check(self, check: Check) -> None:
        """The table's full check of a message, in a worker thread (the loop, and a
        screen drawn on it, never stalls); the rules hear how it went."""
        events: list[Any] | None = None
        error: ProtocolError | None = None
        try:
            events = await asyncio.to_thread(check.job)
        except SeatPlayedElsewhere:
            raise  # ends the session (see _run)
        except ProtocolError as failed:
            error = failed
        await self._apply(self.rules.checked(check, events, error,
                                             asyncio.get_running_loop().time()))

    def _on_talk(self, raw: bytes, source: int | None) -> None:
        """A chat line from the host (``source`` None) or a direct peer: shown once
        if it checks, echoed once on the other direct links (not to its speaker),
        else dropped with its reason logged. Nothing here touches the table."""
        if self.talk is None:
            log.info("dropped a chat line: the table has not started here")
            return
        try:
            line = self.talk.receive(raw, asyncio.get_running_loop().time())
        except TalkDropped as dropped:
            where = "the host" if source is None else f"player {source}'s direct link"
            log.log(self._talk_drop_level(), "dropped a chat line from %s: %s", where,
                    dropped.reason)
            return
        if line is None:
            return  # a copy (the host's and a direct link's): shown once
        if self.mesh is not None:
            self.mesh.broadcast(frames.encode("talk", raw), exclude=source, also_exclude=line.player)
        self.on_event(line)

    def _talk_drop_level(self) -> int:
        """WARNING for the first few dropped lines in a window, INFO beyond."""
        now = asyncio.get_running_loop().time()
        warned = self._talk_warned
        while warned and warned[0] <= now - TALK_WARN_WINDOW:
            warned.popleft()
        if len(warned) >= TALK_WARNINGS:
            return logging.INFO
        warned.append(now)
        return logging.WARNING

    def _on_peers(self, players: list) -> None:
        if self.mesh is None:
            return
        if self.table is None:
            self._pending_peers = players
            return
        self.mesh.set_peers(players)

    async def _to_host(self, frame: bytes) -> bool:
        """Send to the host if the link is up; a lost link is the host task's to
        notice (what the host misses it asks for with ``sync`` after the hello).
        Whether the frame went out."""
        connection = self._connection
        if connection is None or connection.closed:
            return False
        try:
            await connection.send(frame)
        except NetError:
            return False
        return True

    def _start_table(self, genesis: bytes) -> None:
        try:
            table = Table(genesis, self.identity, randomness=self.randomness_for)
        except ProtocolError as error:
            raise SessionRejected(f"the host sent an unusable genesis: {error}") from None
        self.table = table
        if self.journal_root is not None:
            directory = Path(self.journal_root) / table.session.hex() / self.identity.fingerprint
            self.journal = Journal(directory)
            self.journal.claim()
            # Which players the lobby said are bots (the genesis does not say), so a
            # resumed table still marks them.
            bots = [int(self._bots.get(p.public_key, False)) for p in table.players]
            self.journal.write_meta({**self.meta, "v": 1, "player": table.me_player,
                                     "name": self.identity.name, "bots": bots,
                                     "secrets": table.member.secrets.to_wire()})
            self.journal.append(genesis, sync=True)
            self._journaled = 1
        self._start_rules(table)
        self._table_known()

    def _start_rules(self, table: Table, elapsed: float = 0.0) -> None:
        for out in self.rules.start(table, asyncio.get_running_loop().time(), elapsed):
            if isinstance(out, Clock):
                self.on_event(Waiting(out.writer, out.deadline))

    def _saved_turn_age(self) -> float:
        """Seconds a resumed turn has already run (see :func:`resume.turn_age`)."""
        return turn_age(self._saved_at, self.move_time())

    def _table_known(self) -> None:
        table = self.table
        if table is not None and self.talk is None and table.me_player is not None:
            self.talk = TalkBook(table.session, [p.public_key for p in table.players],
                                 table.me_player)
        if self.mesh is not None and table is not None and table.me_player is not None:
            self.mesh.set_table(table.session, [p.public_key for p in table.players],
                                table.me_player)
            if self._pending_peers is not None:
                self.mesh.set_peers(self._pending_peers)
                self._pending_peers = None
            self._emit_paths()

    async def _send_automatic(self) -> None:
        table = self.table
        while table is not None and table.my_turn and not self._table_done():
            await self.ahead.offer_shares(table)  # begun when the last shuffle passed
            written = await asyncio.to_thread(table.outgoing)
            if written is None:
                return
            await self._publish(written)

    async def _act(self, action: Any) -> None:
        table = self._known_table
        try:
            written = await asyncio.to_thread(table.act, action)
        except ProtocolError as error:
            log.warning("own action refused: %s", error)
            self.on_event(error)
            return
        await self._publish(written)

    async def _take_pause(self) -> None:
        try:
            written = self._known_table.take_pause()
        except ProtocolError as error:
            self.on_event(error)
            return
        await self._publish(written)

    async def _publish(self, written: Written) -> None:
        """Save first, then send (direct links, then the host): a crash can never
        make this peer sign twice.

        The next writer's time starts once the message is sent: a send that
        stalls (a full socket, this process suspended) is not their delay."""
        self._save_held(sync=True)
        self._emit(written.events)
        await self._apply(self.rules.published(written.raw))
        self._reset_deadline()

    async def _send_alert(self) -> None:
        table = self.table
        if table is not None and table.verdict is not None:
            verdict = table.verdict
            if verdict.rule == PlayerLeft.rule and verdict.players == (table.me_player,):
                # This player left: its signed leave notice is what the others act on.
                notice = verdict.evidence[0] if verdict.evidence else None
            else:
                notice = table.alert()
            if notice is not None:
                await self._send_notice(notice)

    async def _send_notice(self, notice: bytes) -> bool:
        """A signed notice to the host and every direct peer (bounded: the table is
        ending). Whether it went out on any link."""
        heard = False
        if self.mesh is not None:
            heard = bool(self.mesh.linked())
        for out in self.rules.notice(notice):
            if out.path is not HOST_PATH:
                if self.mesh is not None:
                    self.mesh.send(out.path, out.frame)
                continue
            with contextlib.suppress(asyncio.TimeoutError):
                heard = await asyncio.wait_for(self._to_host(out.frame), 2) or heard
        return heard

    # -- helpers ------------------------------------------------------------------

    def _save_held(self, sync: bool) -> None:
        """Save, in order and once each, every message the table holds beyond what
        its record has. A message accepted just as this task was cancelled (Ctrl-C
        while its check ran in a worker thread) would otherwise be missing from a
        record whose verdict, signed next, is dated after it (``verify`` refuses a
        leave dated past the record's end)."""
        if self.journal is None or self.table is None:
            return
        held = self.table.transcript()
        for raw in held[self._journaled:]:
            self.journal.append(raw, sync=sync)
        self._journaled = len(held)

    def _decision(self) -> Decision:
        table = self._known_table
        names = tuple(table.players[p].name for p in table.match.player_at_seat)
        return Decision(table.next_position, table.own_seat, self._deadline_at, names,
                        table.pauses_left[table.member.player])

    def _emit(self, events: list[Any]) -> None:
        if any(isinstance(event, HandDealt) for event in events) and self.table is not None:
            self.ahead.next_shuffle(self.table)  # while the players think
        if any(isinstance(event, ShuffleVerified) for event in events) and self.table is not None:
            self.ahead.our_shares(self.table)  # the last shuffle passed: its deck is final
        for event in events:
            if isinstance(event, TableEnded) and self.journal is not None:
                self._save_held(sync=True)  # the record reaches the verdict's position
                self.journal.write_verdict(event.verdict.to_wire())
            if isinstance(event, MatchEnded) and self.journal is not None and self.table:
                table = self.table
                self.journal.write_result({"winners": [
                    table.players[table.match.player_at_seat[seat]].name
                    for seat in event.outcome.winners]})
            self.on_event(event)

    def paths(self) -> dict[int, str]:
        """How each other player's messages reach this one (see :class:`Paths`)."""
        table = self.table
        if table is None or table.me_player is None:
            return {}
        return paths_of([p.public_key for p in table.players], table.me_player,
                        self.mesh.linked() if self.mesh is not None else set(), self._host_key)

    def _on_mesh_change(self) -> None:
        """A direct link came up or went down. Each end of a new link asks the other
        for what it lacks (``sync``): a message written before the link existed
        (and withheld by the host) must not wait for a deadline."""
        if self.mesh is None:
            return
        for out in self.rules.direct_links(self.mesh.linked()):
            if out.path is not HOST_PATH:
                self.mesh.send(out.path, out.frame)
        if self.rules.ended_at is not None:
            self._wake()  # an ended table's grace may be over: the links changed
        self._emit_paths()
        self._emit_presence()

    def _emit_paths(self) -> None:
        if self.mesh is not None and self.table is not None:
            self.on_event(Paths(self.paths()))

    def presence(self) -> dict[int, str]:
        """Each other player's presence (see :class:`Presence`)."""
        table = self.table
        if table is None or table.me_player is None:
            return {}
        return presence_of(len(table.players), table.me_player,
                           self.mesh.linked() if self.mesh is not None else set(),
                           self._host_presence)

    def _emit_presence(self) -> None:
        news = presence_news(self._told_presence, self.presence(), self.reconnect_window)
        if news is not None:
            self._told_presence = news.states
            self.on_event(news)

    def move_time(self) -> float:
        """Seconds a writer has: the table clock its genesis sets (the host's setting,
        the same for every peer; 0 is no limit), else this session's own ``deadline``."""
        return self.rules.move_time()

    def _reset_deadline(self, elapsed: float = 0.0) -> None:
        """Transcript progress (or the table's start or resume): the next writer's
        time starts now (``elapsed`` seconds ago, for a resumed turn)."""
        for out in self.rules.progress(asyncio.get_running_loop().time(), elapsed):
            if isinstance(out, Clock):
                self.on_event(Waiting(out.writer, out.deadline))

    def _table_done(self) -> bool:
        return self.table is not None and self.table.stage in (Stage.OVER, Stage.ENDED)

    def _result(self) -> SessionResult:
        table = self.table
        if table is None:
            return SessionResult(reason=LEFT_IN_LOBBY)
        if table.stage is Stage.OVER:
            return SessionResult(outcome=table.engine.outcome)
        return SessionResult(verdict=table.verdict)

    def _give_up(self, reason: str, detail: str = "(the host) could not be reached") -> SessionResult:
        if self.table is not None and self.table.stage not in (Stage.OVER, Stage.ENDED):
            self._emit(self.table.declare_deadline_missed(0, detail))
            return self._result()
        return SessionResult(reason=reason)


__all__ = ["PROBE_TIMEOUT", "DIRECT", "HOST", "VIA_HOST", "Agent", "Decision", "LEFT_IN_LOBBY",
           "LeaveTable", "TakePause", "PeerSession",
           "SessionResult", "LobbyUpdate", "LinkUp", "LinkDown", "Waiting", "Paths", "Presence",
           "CONNECTED", "RECONNECTING", "Rejected", "MatchEnded", "TableEnded", "TalkLine",
           "TalkRefused"]
