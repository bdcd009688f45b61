"""One player at a table over a link: receive, verify, answer, save, reconnect.

A :class:`PeerSession` drives this player's sans-IO :class:`Table` over a
connection to the host. It sends the cryptographic steps as they fall due,
asks its :class:`Agent` (a bot, or a person through a front end) for game
decisions, saves every message before it goes out, and after a lost link
reconnects and resumes from what it saved. Its clock is the only clock: if
the player who must write stays silent past the deadline, it ends the table
with a verdict naming that player.

The deadline runs from transcript progress as this peer saw it (a message
accepted into its chain, its own message sent, the table's start or this
process resuming it); a reconnect does not restart it, or a host that cuts
links a little more often than once per deadline would stall the table for
ever. Each loss of the link to the host during the current wait is counted:
if any happened and the writer had no other path to this peer, the deadline
names the host (it dropped the link without progress), not the writer.

Heavy cryptography runs in a worker thread, so the event loop (and a screen
drawn on it) never stalls; the table is only ever touched by one task.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Awaitable, Callable, Optional, Protocol

from p2pcards.net.errors import NetError
from p2pcards.net.journal import Journal
from p2pcards.protocol import frames
from p2pcards.protocol.envelope import PROTOCOL_VERSION
from p2pcards.protocol.errors import PlayerLeft, ProtocolError, RemoteProtocolError
from p2pcards.protocol.events import MatchEnded, TableEnded
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.table import Gap, SessionSecrets, Stage, Table, Written
from p2pcards.protocol.verdict import Verdict

log = logging.getLogger(__name__)

Connector = Callable[[], Awaitable[Any]]
RandomnessFor = Callable[[int], Callable[[int], bytes]]
#: Seconds to read what already arrived before a deadline counts as missed.
LAST_LOOK = 0.05
#: Seconds a host has to answer a ping once a writer's deadline ran out.
PROBE_TIMEOUT = 3.0


@dataclass(frozen=True)
class Decision:
    """What an agent is told besides its view when it must act."""

    position: int
    """The transcript position the action will take (seeds reproducible bots)."""
    seat: int
    deadline: float
    """Event-loop time after which the others will blame this seat."""
    names: tuple[str, ...]
    """Display names by seat."""


class LeaveTable(Exception):
    """Raised by an agent whose player wants to leave: the session tells the
    others with a signed notice and ends."""


class Agent(Protocol):
    """Decides this seat's game actions from its view (a bot, or a person)."""

    async def decide(self, view: Any, decision: Decision) -> Any: ...


@dataclass(frozen=True)
class LobbyUpdate:
    """The host's list of joined players changed (before the table starts)."""

    game: str
    table: str
    config: dict
    players: tuple[tuple[bytes, str, bool], ...]


@dataclass(frozen=True)
class LinkUp:
    """Connected (or reconnected) to the host."""

    reconnect: bool


@dataclass(frozen=True)
class LinkDown:
    """The link to the host broke; the session will try to reconnect."""

    reason: str


@dataclass(frozen=True)
class Waiting:
    """Who must write next and until when (event-loop time), for a countdown."""

    player: Optional[int]
    deadline: float


@dataclass(frozen=True)
class Rejected:
    """The host refused this peer; the session ends."""

    reason: str


@dataclass(frozen=True)
class SessionResult:
    """How the session ended: an outcome, a verdict, or neither (a rejection)."""

    outcome: Any = None
    verdict: Optional[Verdict] = None
    reason: str = ""


class SessionRejected(Exception):
    """The host answered with a ``reject`` frame."""


class PeerSession:
    """Runs one player's table over a link to the host, with saving and reconnecting."""

    def __init__(
        self,
        identity: Identity,
        agent: Agent,
        connector: Connector,
        *,
        bot: bool = False,
        deadline: float = 120.0,
        reconnect_window: float = 60.0,
        journal_root: Optional[Path] = None,
        randomness_for: Optional[RandomnessFor] = None,
        on_event: Optional[Callable[[Any], None]] = None,
        meta: Optional[dict] = None,
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
        self.table: Optional[Table] = None
        self.journal: Optional[Journal] = None
        self._deadline_at = 0.0
        self._leaving = False
        self._probe: Optional[int] = None
        self._probes = 0
        self._connection: Any = None
        self._connected_once = False
        #: Losses of the link to the host since the last transcript progress.
        self._drops = 0

    # -- public -----------------------------------------------------------------

    def resume_from(self, journal: Journal) -> None:
        """Rebuild the table from a saved journal before :meth:`run` (raises
        :class:`~p2pcards.net.journal.JournalInUse` if another process plays it)."""
        journal.claim()
        meta = journal.read_meta()
        messages = journal.read_messages()
        secrets = SessionSecrets.from_wire(meta["secrets"])
        table = Table(messages[0], self.identity, secrets, randomness=self.randomness_for)
        for raw in messages[1:]:
            try:
                table.receive(raw)
            except RemoteProtocolError:
                break
        journal.rewrite(table.transcript())
        saved_verdict = journal.read_verdict()
        if saved_verdict is not None and table.stage is not Stage.ENDED:
            table.restore_verdict(Verdict.from_wire(saved_verdict))  # it ended: no play resumes
        self.table, self.journal = table, journal
        self.meta.update({k: v for k, v in meta.items() if k not in ("secrets",)})

    async def run(self) -> SessionResult:
        """Play until the match ends, a verdict ends it, or the host refuses us."""
        try:
            return await self._run()
        finally:
            if self.journal is not None:
                self.journal.release()

    async def _run(self) -> SessionResult:
        if self._table_done():  # resumed from a journal whose table had already ended
            return self._result()
        loop = asyncio.get_running_loop()
        give_up_at = loop.time() + self.reconnect_window
        if self.table is not None:
            self._reset_deadline()  # resumed from a journal: the wait starts now
        while True:
            try:
                connection = await self.connector()
            except (OSError, NetError, asyncio.TimeoutError) as error:
                if not self._connected_once or loop.time() > give_up_at:
                    return self._give_up(f"cannot reach the host: {error}")
                if self._waiting_past_deadline():
                    return self._give_up(f"cannot reach the host: {error}", self._drops_detail())
                await asyncio.sleep(0.2)
                continue
            self._connection = connection
            self.on_event(LinkUp(reconnect=self._connected_once))
            self._connected_once = True
            try:
                result = await self._serve(connection)
            except asyncio.CancelledError:
                # Stopped from outside (Ctrl-C): the others are told while the link is up.
                await self._send_leave_notice(connection)
                raise
            except SessionRejected as rejected:
                # Refused while the table is in play: the host no longer holds it.
                return self._give_up(str(rejected), f"(the host) refused to go on: {rejected}")
            except NetError as error:
                self._drops += 1
                self.on_event(LinkDown(str(error)))
                give_up_at = loop.time() + self.reconnect_window
                if self._table_done():
                    return self._result()
                continue
            finally:
                connection.close()
            if result is not None:
                return result

    async def leave(self) -> None:
        """Tell the others (signed) that this player leaves, and stop."""
        self._leaving = True
        if self._connection is not None:
            await self._send_leave_notice(self._connection)

    async def _send_leave_notice(self, connection: Any) -> None:
        if self.table is None or self.table.stage in (Stage.OVER, Stage.ENDED):
            return
        notice = self.table.leave()
        if not connection.closed:
            try:
                await asyncio.wait_for(connection.send(frames.encode("alert", notice)), 2)
            except (NetError, asyncio.TimeoutError):
                pass

    # -- one link ---------------------------------------------------------------

    async def _serve(self, connection: Any) -> Optional[SessionResult]:
        table = self.table
        await connection.send(frames.encode("hello", {
            "v": PROTOCOL_VERSION, "name": self.identity.name[:frames.MAX_NAME] or "player",
            "sid": table.session if table else b"", "have": table.next_position if table else 0,
            "bot": int(self.bot),
        }))
        incoming: asyncio.Queue = asyncio.Queue()
        reader = asyncio.create_task(self._read(connection, incoming))
        decision: Optional[asyncio.Task] = None
        getter: Optional[asyncio.Task] = None
        # No fresh deadline here: a reconnect is not progress (see the module doc).
        if self.table is not None:
            self.on_event(Waiting(self.table.writer, self._deadline_at))
        try:
            while True:
                await self._send_automatic(connection)
                if self._table_done():
                    await self._send_alert(connection)
                    return self._result()
                if self._leaving:
                    return self._result()
                if decision is None and self.table is not None and self.table.awaiting_my_action:
                    decision = asyncio.create_task(self.agent.decide(
                        self.table.view(), self._decision()))
                getter = asyncio.create_task(incoming.get())
                waiting = {getter} | ({decision} if decision else set())
                timeout = max(0.0, self._deadline_at - asyncio.get_running_loop().time())
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
                    await self._act(connection, action)
                if getter in done:  # also when a decision came at once: the frame is taken
                    item = getter.result()
                    if isinstance(item, BaseException):
                        raise item
                    await self._on_frame(connection, item)
                if not done:
                    await self._on_deadline(connection)
        finally:
            # Cancel and reap every helper task, so none is left pending behind us.
            helpers = [t for t in (reader, getter, decision) if t is not None and not t.done()]
            for task in helpers:
                task.cancel()
            if helpers:
                await asyncio.wait(helpers, timeout=1)

    async def _read(self, connection: Any, queue: asyncio.Queue) -> None:
        try:
            while True:
                await queue.put(await connection.recv())
        except NetError as error:
            await queue.put(error)

    async def _on_frame(self, connection: Any, data: bytes) -> None:
        try:
            frame = frames.decode(data)
        except ProtocolError as error:
            log.warning("dropped a malformed frame from the host: %s", error)
            return
        if frame.kind == "lobby":
            body = frame.body
            self.on_event(LobbyUpdate(body["game"], body["table"], body["config"], tuple(
                (pk, name, bool(bot)) for pk, name, bot in body["players"])))
        elif frame.kind == "reject":
            self.on_event(Rejected(frame.body["reason"]))
            raise SessionRejected(frame.body["reason"])
        elif frame.kind == "msg":
            await self._on_message(connection, frame.body)
        elif frame.kind == "alert":
            await self._on_alert(frame.body)
        elif frame.kind == "pong":
            self._on_pong(frame.body["n"])
        elif frame.kind == "sync" and self.table is not None:
            for raw in self.table.transcript()[frame.body["have"]:]:
                await connection.send(frames.encode("msg", raw))

    async def _on_message(self, connection: Any, raw: bytes) -> None:
        if self.table is None:
            self._start_table(raw)
            return
        before = self.table.next_position
        try:
            events = await asyncio.to_thread(self.table.receive, raw)
        except Gap:
            await connection.send(frames.encode("sync", {"have": self.table.next_position}))
            return
        except ProtocolError as error:
            log.warning("dropped a message: %s", error)
            return
        if self.table.next_position > before:
            self.journal_append(raw, sync=False)
            self._reset_deadline()
        self._emit(events)

    async def _on_alert(self, raw: bytes) -> None:
        if self.table is None:
            return
        try:
            self._emit(self.table.receive_alert(raw))
        except ProtocolError as error:
            log.warning("dropped an alert: %s", error)

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
            self.journal.write_meta({**self.meta, "v": 1, "player": table.me_player,
                                     "name": self.identity.name,
                                     "secrets": table.secrets.to_wire()})
            self.journal.append(genesis, sync=True)
        self._reset_deadline()

    async def _send_automatic(self, connection: Any) -> None:
        table = self.table
        while table is not None and table.my_turn and not self._table_done():
            written = await asyncio.to_thread(table.outgoing)
            if written is None:
                return
            await self._publish(connection, written)

    async def _act(self, connection: Any, action: Any) -> None:
        table = self.table
        try:
            written = await asyncio.to_thread(table.act, action)
        except ProtocolError as error:
            log.warning("own action refused: %s", error)
            self.on_event(error)
            return
        await self._publish(connection, written)

    async def _publish(self, connection: Any, written: Written) -> None:
        """Save first, then send: a crash can never make this peer sign twice.

        The next writer's time starts once the message is sent: a send that
        stalls (a full socket, this process suspended) is not their delay."""
        self.journal_append(written.raw, sync=True)
        self._emit(written.events)
        await connection.send(frames.encode("msg", written.raw))
        self._reset_deadline()

    async def _send_alert(self, connection: Any) -> None:
        table = self.table
        if table is not None and table.verdict is not None:
            verdict = table.verdict
            if verdict.rule == PlayerLeft.rule and verdict.players == (table.me_player,):
                # This player left: its signed leave notice is what the others act on.
                notice = verdict.evidence[0] if verdict.evidence else None
            else:
                notice = table.alert()
            if notice is not None:
                try:
                    await connection.send(frames.encode("alert", notice))
                except NetError:
                    pass

    # -- helpers ------------------------------------------------------------------

    def journal_append(self, raw: bytes, sync: bool) -> None:
        if self.journal is not None:
            self.journal.append(raw, sync=sync)

    def _decision(self) -> Decision:
        table = self.table
        names = tuple(table.players[p].name for p in table.player_at_seat)
        return Decision(table.next_position, table.my_seat, self._deadline_at, names)

    def _emit(self, events: list[Any]) -> None:
        for event in events:
            if isinstance(event, TableEnded) and self.journal is not None:
                self.journal.write_verdict(event.verdict.to_wire())
            self.on_event(event)

    def _reset_deadline(self) -> None:
        """Transcript progress (or the table's start or resume): the next
        writer's time starts now, and earlier link losses are forgiven."""
        loop = asyncio.get_running_loop()
        self._deadline_at = loop.time() + self.deadline
        self._probe = None
        self._drops = 0
        writer = self.table.writer if self.table is not None else None
        self.on_event(Waiting(writer, self._deadline_at))

    async def _on_deadline(self, connection: Any) -> None:
        """The writer's time is up. First ask the host whether it is still there:
        only a host that answers lets this peer blame the writer; a host that
        does not is itself to blame (it stopped relaying)."""
        table = self.table
        if table is None or table.my_turn:
            self._reset_deadline()
            return
        if self._drops and not self._writer_has_other_path():
            # The host cut our link during this wait and the writer could reach us
            # only through it: nobody can tell a silent writer from a withholding
            # host, and the one who broke the link is the host.
            self._probe = None
            self._emit(table.declare_deadline_missed(0, self._drops_detail()))
            return
        if self._probe is None:
            self._probes += 1
            self._probe = self._probes
            self._deadline_at = asyncio.get_running_loop().time() + PROBE_TIMEOUT
            await connection.send(frames.encode("ping", {"n": self._probe}))
            return
        self._probe = None
        self._emit(table.declare_deadline_missed(0, "(the host) stopped relaying: no answer to a ping"))

    def _on_pong(self, n: int) -> None:
        if self._probe == n and self.table is not None and not self._table_done():
            self._probe = None
            self._emit(self.table.declare_deadline_missed())

    def _writer_has_other_path(self) -> bool:
        """Whether the current writer's messages could reach this peer other than
        through the host (a direct link; none without a mesh)."""
        return False

    def _drops_detail(self) -> str:
        times = "once" if self._drops == 1 else f"{self._drops} times"
        return f"(the host) dropped our link {times} without progress"

    def _waiting_past_deadline(self) -> bool:
        """Disconnected, the writer's time is up and this peer is not the writer."""
        table = self.table
        return (table is not None and not self._table_done() and not table.my_turn
                and self._drops > 0 and not self._writer_has_other_path()
                and asyncio.get_running_loop().time() > self._deadline_at)

    def _table_done(self) -> bool:
        return self.table is not None and self.table.stage in (Stage.OVER, Stage.ENDED)

    def _result(self) -> SessionResult:
        table = self.table
        if table is None:
            return SessionResult(reason="left before the table started")
        if table.stage is Stage.OVER:
            return SessionResult(outcome=table.engine.outcome)
        return SessionResult(verdict=table.verdict)

    def _give_up(self, reason: str, detail: str = "(the host) could not be reached") -> SessionResult:
        if self.table is not None and self.table.stage not in (Stage.OVER, Stage.ENDED):
            self._emit(self.table.declare_deadline_missed(0, detail))
            return self._result()
        return SessionResult(reason=reason)


__all__ = ["Agent", "Decision", "LeaveTable", "PeerSession", "SessionResult", "LobbyUpdate", "LinkUp", "LinkDown",
           "Waiting", "Rejected", "MatchEnded", "TableEnded"]
