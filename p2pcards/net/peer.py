"""One player at a table over a link: receive, verify, answer, save, reconnect.

A :class:`PeerSession` is the asyncio driver of this player's sans-IO
:class:`Table` and of its session rules,
:class:`~p2pcards.protocol.session.SessionRules` — the clock, which path each
message goes on, the echo, ``sync`` answers, speculation gating, whom a
missed deadline names and how long an ended table still answers all live
there, where the deterministic simulation (``tests/sim``) checks them. This
module only carries out what they say: it feeds the frames of its links
(:mod:`~p2pcards.net.seat_links`: the host link, redialled by
:mod:`~p2pcards.net.host_link`, and with ``direct=True`` the direct links),
the clock and the agent's decisions to the rules through one queue read by
the one task that touches the table (which rule hears which frame:
:mod:`~p2pcards.net.seat_routing`); sends the cryptographic steps as they
fall due; asks its :class:`Agent` (a bot, or a person through a front end)
for game decisions; and saves every message before it goes out
(:mod:`~p2pcards.net.seat_record`), so that after a lost link or a crash it
resumes from what it saved (:mod:`p2pcards.net.resume`). Heavy cryptography
(a shuffle, a deal's shares, and whatever is made ahead:
:mod:`p2pcards.net.ahead`) runs in worker threads, so the event loop (and a
screen drawn on it) never stalls for long; a small message is checked and
written on the loop, where a thread's hand-off would cost more than the work
(:mod:`p2pcards.net.work_place`). Table talk goes beside the table
(:mod:`~p2pcards.net.seat_talk`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from pathlib import Path

from p2pcards.net import work_place
from p2pcards.net.ahead import Ahead
from p2pcards.net.connection import Connection
from p2pcards.net.host_link import HostLink
from p2pcards.net.inbox import Inbox
from p2pcards.net.journal import Journal
from p2pcards.net.mesh import Mesh
from p2pcards.net.resume import Step, rebuild, resumed_steps, show_record, turn_age
from p2pcards.net.seat_links import SeatLinks, SessionRejected
from p2pcards.net.seat_record import SeatRecord
from p2pcards.net.seat_routing import SeatDriver, SeatRouting
from p2pcards.net.seat_talk import SeatTalk
from p2pcards.net.seat_view import closing_notice, decision_of, result_of
from p2pcards.net.seat_writing import write_action, write_automatic, write_hint, write_pause
from p2pcards.net.session_events import Agent, LeaveTable, SessionEvent, SessionResult, TakePause, Waiting
from p2pcards.net.stopping import stop_task
from p2pcards.protocol.again import AgainCount, check_rematch
from p2pcards.protocol.errors import ProtocolError, SeatPlayedElsewhere
from p2pcards.protocol.events import TableEvent
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.rematch_genesis import FinishedMatch
from p2pcards.protocol.seat_fill import check_newcomer
from p2pcards.protocol.session import HOST as HOST_PATH
from p2pcards.protocol.session import (
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
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_ahead import precompute_decks
from p2pcards.protocol.table_errors import StageNotReached
from p2pcards.protocol.table_records import Stage, Written
from p2pcards.protocol.talk import TalkBook, TalkLine
from p2pcards.wiremap import WireMap

Connector = Callable[[], Awaitable[Connection]]
RandomnessFor = Callable[[int], Callable[[int], bytes]]


class PeerSession:
    """Runs one player's table over a link to the host (and, with ``direct``,
    direct links to the other players), with saving and reconnecting."""

    #: Whether being stopped from outside (Ctrl-C) is this player's signed leave.
    #: Off for a bot seat in a host's process: stopped as that process winds down
    #: (its own seat ended, crashed or left), which is no decision of the bot's.
    leave_when_stopped = True

    def __init__(
        self, identity: Identity, agent: Agent, connector: Connector, *, bot: bool = False,
        deadline: float = 120.0, reconnect_window: float = 60.0, journal_root: Path | None = None,
        randomness_for: RandomnessFor | None = None, on_event: Callable[[SessionEvent], None] | None = None,
        meta: WireMap | None = None, direct: bool = False, listen: bool = True,
        listen_host: str | None = None,
        announce: bool = False,
    ) -> None:
        """``direct``: link directly to the other players (a player in its own
        process); ``listen``: accept direct links (off: only dial, e.g. behind a
        firewall); ``listen_host``: where to listen (default: this end's address
        of the link to the host)."""
        self.identity, self.agent, self.connector = identity, agent, connector
        self.bot, self.deadline, self.reconnect_window = bot, deadline, reconnect_window
        self.journal_root, self.randomness_for = journal_root, randomness_for
        self.on_event = on_event or (lambda event: None)
        self.meta = dict(meta or {})
        self.direct = direct
        #: The session's rules (clock, paths, echo, sync, blame): this class drives them.
        self.rules = SessionRules(deadline)
        # The links and the talk tell whatever on_event is now (a front end may swap it).
        def tell(event: SessionEvent) -> None:
            self.on_event(event)
        self.links = SeatLinks(identity, tell, bot=bot, direct=direct, listen=listen,
                               listen_host=listen_host, reconnect_window=reconnect_window,
                               announce=announce)
        self.record = SeatRecord()
        self.chat = SeatTalk(tell)
        #: Work made while the players think, and speculative shuffles (see ahead.py).
        self.ahead = Ahead()
        self._leaving = False
        #: Wall time the resumed table's transcript was last written (resume_from).
        self._saved_at: float | None = None
        self._host_link: HostLink | None = None
        self._resumed = False
        #: This seat's record of the match before, when this session is its rematch:
        #: a genesis that does not name it is refused before anything is signed.
        self.previous: FinishedMatch | None = None
        #: The choices its end box counted (its own, the ones the host showed): a
        #: genesis that drops an "again" or keeps a "leave" among them is refused too.
        self.held: AgainCount | None = None
        #: The saved messages' events a resumed session tells its front end first.
        self._record: list[Step] = []
        #: The step of the record being told again (its view is that moment's), else None.
        self.replaying: Step | None = None
        #: A player's session, with a seat (see :mod:`p2pcards.net.session_snapshot`).
        self.spectator = False
        #: The one queue the table task reads (opened when :meth:`run` starts).
        self.inbox = Inbox()
        #: Which rule, or which part of this seat, each item and frame goes to.
        self.routing = SeatRouting(self.rules, self.links, self.chat, self.inbox, SeatDriver(
            apply=self._apply, start_table=self._start_table,
            finished=lambda: self._result() if self._table_done() else None,
            give_up=self._give_up, hosted=lambda: bool(self.meta.get("hosted"))))

    # -- public -----------------------------------------------------------------

    @property
    def table(self) -> Table | None:
        return self.rules.table

    @table.setter
    def table(self, table: Table | None) -> None:
        self.rules.table = table

    @property
    def mesh(self) -> Mesh | None:
        return self.links.mesh

    @mesh.setter
    def mesh(self, mesh: Mesh | None) -> None:
        self.links.mesh = mesh

    @property
    def journal(self) -> Journal | None:
        return self.record.journal

    @property
    def talk(self) -> TalkBook | None:
        """The table talk's checks and this player's counter (once the table is known)."""
        return self.chat.book

    @talk.setter
    def talk(self, book: TalkBook | None) -> None:
        self.chat.book = book

    def resume_from(self, journal: Journal) -> Table:
        """Rebuild the table from a saved journal before :meth:`run`, and return it
        (raises :class:`~p2pcards.net.journal.JournalInUse` if another process plays it)."""
        resumed = rebuild(journal, self.identity, self.randomness_for)
        self.table, self._saved_at = resumed.table, resumed.saved_at
        self.record.resumed(journal, resumed.table)  # the rebuild rewrote exactly these
        self._resumed, self._record = True, resumed.steps
        self.meta.update(resumed.meta)
        return resumed.table

    async def run(self) -> SessionResult:
        """Play until the match ends, a verdict ends it, or the host refuses us."""
        try:
            return await self._run()
        finally:
            self.record.release()

    async def _run(self) -> SessionResult:
        if self._resumed and self.table is not None:
            show_record(self, resumed_steps(self.table, self.meta, self._record))
        if self._table_done():  # resumed from a journal whose table had already ended
            return self._result()
        self.inbox.open()
        if self.table is None:
            self.ahead.run(precompute_decks)  # while the lobby fills and the keys are set up
        if self.direct:
            self.links.open_mesh(self.routing.direct, lambda: self.table, self.routing.mesh_changed)
        if self.table is not None:
            # Resumed from a journal: the writer's turn began when its predecessor's
            # message was saved (the transcript's last write), not now; no fresh time.
            self._start_rules(self.table, elapsed=self._saved_turn_age())
            self._table_known()
        self._host_link = HostLink(self.connector, self.inbox.put, self.reconnect_window,
                                   churn_ends=lambda: self.table is None)
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
            try:
                await stop_task(host_link, quiet=True)  # a stop of this task still lands
            finally:
                self.ahead.close()
                self.chat.close()
                await self.links.close()
                self.record.close()

    def say(self, text: str) -> TalkLine:
        """Sign a chat line and send it to the host and every direct peer; the
        line as the others will see it. It goes beside the table, never into its
        transcript, so it can change no verdict. Raises :class:`TalkRefused` (no
        table yet, an empty line, faster than the others accept)."""
        ended = self.chat.book is not None and self._table_done()
        return self.chat.say(self.identity, text, ended, self.mesh, self._to_host)

    async def hint(self, position: int | None = None) -> None:
        """Write and send this seat's ``hint`` before its coach answers (a table whose
        host allowed hints, in this seat's turn, for the decision at ``position``):
        every peer then marks it coached. Raises the table's refusal, and then sends
        nothing."""
        await write_hint(self._known_table, self._publish, position)

    async def leave(self) -> None:
        """Tell the others (signed) that this player leaves, and stop."""
        self._leaving = True
        await self._send_leave_notice()
        self.inbox.wake()

    async def _send_leave_notice(self) -> None:
        if self.table is None or self.table.stage in (Stage.OVER, Stage.ENDED):
            return
        notice = self.table.leave()
        if await self._send_notice(notice) and self.table.verdict:
            # Your own record ends as the others' do: with your signed leave as its verdict.
            # (Nobody heard it, as in a crash with the links dead first: still resumable.)
            self.record.verdict(self.table, self.table.verdict)

    # -- the links --------------------------------------------------------------------

    async def _host_hello(self, connection: Connection) -> WireMap:
        """A new link to the host: listen for direct links (once), then the hello."""
        await self.links.open_listener(connection)
        return self.links.hello_body(self.table)

    async def _to_host(self, frame: bytes) -> bool:
        """Send to the host if the link is up; whether the frame went out."""
        return await self.links.to_host(frame)

    @property
    def _known_table(self) -> Table:
        """The table, where code runs only once it is known (a decision, an action);
        raises :class:`StageNotReached` before the host's genesis."""
        if self.table is None:
            raise StageNotReached("no table yet: the host has not sent its genesis")
        return self.table

    def paths(self) -> dict[int, str]:
        """How each other player's messages reach this one (see :class:`Paths`)."""
        return self.links.paths(self.table)

    def presence(self) -> dict[int, str]:
        """Each other player's presence (see :class:`Presence`)."""
        return self.links.presence(self.table)

    # -- the table task ---------------------------------------------------------------

    async def _play(self) -> SessionResult:
        decision: asyncio.Task[object] | None = None
        try:
            while True:
                if self.table is not None:
                    await write_automatic(self.table, self.ahead, self._publish)
                if self._table_done():
                    await self._send_alert()
                    if not self._leaving:
                        await self._linger()
                    return self._result()
                if self._leaving:
                    return self._result()
                if decision is None and self.table is not None and self.table.awaiting_my_action:
                    decision = asyncio.create_task(self.agent.decide(
                        self.table.view(), decision_of(self.table, self.rules.deadline_at)))
                woken = await self.inbox.next(decision, self.rules.wake_at())
                if decision is not None and woken.decided:
                    finished, decision = decision, None
                    try:
                        action = finished.result()
                    except LeaveTable:
                        await self.leave()
                        return self._result()
                    except TakePause:
                        await write_pause(self._known_table, self.on_event, self._publish)
                    else:
                        await write_action(self._known_table, action, self.on_event, self._publish)
                if woken.item is not None:  # also when a decision came at once: the item is taken
                    result = await self.routing.item(woken.item)
                    if result is not None:
                        return result
                if woken.timed_out:
                    # The timer fired: the rules' time is (at least) the wake-up time.
                    now = max(asyncio.get_running_loop().time(), self.rules.wake_at())
                    await self._apply(self.rules.tick(now))
        finally:
            # Cancel and reap the decision's task, so none is left pending behind us.
            if decision is not None and not decision.done():
                decision.cancel()
                await asyncio.wait([decision], timeout=1)

    async def _linger(self) -> None:
        """The table ended: keep the links and answer what comes while the rules
        say a linked player may still lack the end (the grace of
        :meth:`SessionRules.ended`). Nothing here changes the result."""
        loop = asyncio.get_running_loop()
        await self._apply(self.rules.ended(loop.time()))
        while self.rules.lingering(loop.time()):
            timeout = max(0.0, self.rules.linger_until() - loop.time())
            try:
                item = await asyncio.wait_for(self.inbox.queue.get(), timeout)
            except TimeoutError:
                return
            with contextlib.suppress(SessionRejected, SeatPlayedElsewhere):
                await self.routing.item(item)  # a lost host link ends no grace: direct links may be up

    async def _apply(self, outputs: list[Output]) -> None:
        """Carry out what the rules said, in order."""
        for out in outputs:
            if isinstance(out, Send):
                if out.path is HOST_PATH:
                    await self._to_host(out.frame)
                else:
                    self.links.send(out.path, out.frame)
            elif isinstance(out, Emit):
                self._emit(out.events)
            elif isinstance(out, Save):
                self.record.save_held(self.table, sync=False)
            elif isinstance(out, Clock):
                self.on_event(Waiting(out.writer, out.deadline))
            elif isinstance(out, Check):
                await self._check(out)
            elif isinstance(out, Speculate):
                self.ahead.speculate(out.position, out.job)
            elif isinstance(out, Settle):
                await self.ahead.settle(out.position, out.keep)

    async def _check(self, check: Check) -> None:
        """The table's full check of a message (on the loop if the message is small,
        else in a worker thread: :mod:`~p2pcards.net.work_place`); the rules hear
        how it went."""
        events: list[TableEvent] | None = None
        error: ProtocolError | None = None
        try:
            events = await work_place.check(check.raw, check.job)
        except SeatPlayedElsewhere:
            raise  # ends the session (see _run)
        except ProtocolError as failed:
            error = failed
        await self._apply(self.rules.checked(check, events, error,
                                             asyncio.get_running_loop().time()))

    def _start_table(self, genesis: bytes) -> None:
        if self.previous is not None:
            try:
                check_rematch(genesis, self.previous, self.held)
            except ProtocolError as error:
                raise SessionRejected(f"the host's rematch is not the match played here: "
                                      f"{error}") from None
        elif self.links.taken is not None and self.links.host_key is not None:
            try:  # a newcomer in a freed seat: no record of the match before (§14)
                check_newcomer(genesis, self.links.host_key, self.links.taken)
            except ProtocolError as error:
                raise SessionRejected(f"the host's rematch does not seat this newcomer as "
                                      f"it said: {error}") from None
        try:
            table = Table(genesis, self.identity, randomness=self.randomness_for)
        except ProtocolError as error:
            raise SessionRejected(f"the host sent an unusable genesis: {error}") from None
        self.table = table
        if self.journal_root is not None:
            self.record.create(self.journal_root, table, self.identity, self.meta, self.links.bots, genesis)
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
        if table is not None:
            self.chat.table_known(table)
            self.links.table_known(table)

    # -- writing ----------------------------------------------------------------------

    async def _publish(self, written: Written) -> None:
        """Save first, then send (direct links, then the host): a crash can never
        make this peer sign twice.

        The next writer's time starts once the message is sent: a send that
        stalls (a full socket, this process suspended) is not their delay."""
        self.record.save_held(self.table, sync=True)
        self._emit(written.events)
        await self._apply(self.rules.published(written.raw))
        self._reset_deadline()

    async def _send_alert(self) -> None:
        notice = closing_notice(self.table)
        if notice is not None:
            await self._send_notice(notice)

    async def _send_notice(self, notice: bytes) -> bool:
        """A signed notice to the host and every direct peer (bounded: the table is
        ending). Whether it went out on any link."""
        heard = bool(self.links.linked())
        for out in self.rules.notice(notice):
            if out.path is not HOST_PATH:
                self.links.send(out.path, out.frame)
                continue
            with contextlib.suppress(asyncio.TimeoutError):
                heard = await asyncio.wait_for(self._to_host(out.frame), 2) or heard
        return heard

    # -- helpers ------------------------------------------------------------------

    def _emit(self, events: list[TableEvent]) -> None:
        table = self.table
        if table is not None:
            self.ahead.after(table, events)
        for event in events:
            self.record.events(table, [event])  # saved before it is shown
            self.on_event(event)

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
        return result_of(self.table)

    def _give_up(self, reason: str, detail: str = "(the host) could not be reached") -> SessionResult:
        link = self._host_link
        if self._resumed and link is not None and not link.connected_once:
            # A resume that never reached the host blames nobody: the host may be
            # down itself (a power cut for both), and will resume its table later.
            return SessionResult(reason=reason, unreached=link.unreached or reason)
        if self.table is not None and self.table.stage not in (Stage.OVER, Stage.ENDED):
            self._emit(self.table.declare_deadline_missed(0, detail))
            return self._result()
        return SessionResult(reason=reason)

