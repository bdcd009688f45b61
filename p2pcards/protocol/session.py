"""The session's rules of blame as one sans-IO machine: clock, paths, echo, sync.

A :class:`SessionRules` decides, for one player at a table, everything that
can end with somebody named: when the writer's time is up, whom to ask and
what to hand them before blaming anyone, whom a missed deadline names (the
writer, or the host that dropped our link or stopped relaying), which path a
message goes on, which copies are dropped, which ``sync`` is answered, and
which speculative work may start. It is fed events — a frame from a path
(``HOST`` is the link to the host, an ``int`` the direct link to that
player), a link up or down, the time ``now``, work finished — and returns
what to do as a list of outputs. It never reads a clock, sleeps or touches a
socket, so the same rules run under :class:`~p2pcards.net.peer.PeerSession`
(its asyncio driver) and in the deterministic simulation of the test suite
(``tests/sim``, ``scripts/simulate.py``), where an adversary schedules every
delivery from a seed.

The rules, each held on every path:

* **Every path carries everything.** A message this peer accepts goes on
  every path it did not come from — every direct link but its writer's, and
  the host link too when it came from a direct link (``FORWARD_DELAY`` later,
  unless the host's own copy came first; at once when it came late, past half
  the writer's time, when others' clocks may be about to run out) — so a
  writer that tells only some
  players cannot starve a relay-only seat (the host's own seat, a
  ``--no-direct`` player): the relay accepts a correctly signed next message
  from any player's link and drops copies.
* **Hand over before blaming.** When the writer's time is up, this peer hands
  the host and every direct peer its latest message and asks them for what
  it lacks (``sync``), pings the host (and the writer, on a direct link), and
  gives them a further window (a full deadline, at least ``PROBE_TIMEOUT``)
  before it names anyone: a writer that was only behind, or that told only
  some players, has its message reach every peer before any clock runs out.
* **Whom a deadline names** (once that window is up too). A writer whose own
  direct link answered is silent by choice; a host that dropped our link
  during the wait (and the window), when the writer had no other path to us,
  is named instead (it broke the link); a host that answers nothing is named
  for not relaying; otherwise the writer.
* **Cheap checks before any work.** A speculative shuffle (this seat's
  shuffle of a deck not yet checked) starts only for a message that parses,
  is for this session, is the next position, names the head as ``prev``, is
  written by the current writer and carries that writer's valid signature;
  at most one per position, settled (kept or dropped) by the message's check.
* **An ended table still answers.** A peer whose table ended (a verdict, the
  match's end) says how many messages it holds (``sync {have}``) on every
  direct link and keeps its links for up to ``END_GRACE`` seconds, answering
  ``sync``, while a linked player is not known to hold all of them (known:
  it said so with a ``sync`` of its own). A player that is late to learn the
  end asks for it (a ``sync`` whose ``have`` is beyond its own count is
  answered with a ``sync`` of that count, once per link and count) and gets
  it from anyone, before any clock of its own runs out: one verdict does not
  cascade into the next. The host link needs no grace: the relay keeps what
  this peer passed on to it and answers for itself.
"""

from __future__ import annotations

import hashlib
import logging
import math

from p2pcards.protocol import frames
from p2pcards.protocol.envelope import SignedMessage, SignedNotice
from p2pcards.protocol.errors import BrokenChain, ProtocolError, SeatPlayedElsewhere
from p2pcards.protocol.events import TableEvent
from p2pcards.protocol.session_outputs import (
    HOST,
    Check,
    Clock,
    Emit,
    Output,
    Path,
    Save,
    Send,
    Settle,
    Speculate,
)
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_errors import Gap
from p2pcards.protocol.table_records import Stage
from p2pcards.protocol.table_settings import PAUSE_SECONDS
from p2pcards.protocol.verdict import Verdict
from p2pcards.wiremap import WireMap

log = logging.getLogger(__name__)

#: Seconds a host has, at least, to answer once a writer's deadline ran out.
PROBE_TIMEOUT = 3.0
#: Seconds a message accepted from a direct link waits for the host's own copy
#: before this peer passes it on to the host: an honest writer's copy through the
#: host usually comes first, so only a withheld one costs the extra bytes.
FORWARD_DELAY = 0.5
#: Seconds a peer whose table ended keeps its direct links up and answers
#: ``sync`` for a linked player not yet known to hold everything it holds.
END_GRACE = 10.0


def digest(raw: bytes) -> bytes:
    """A cheap dedupe key for a signed message or notice (its bytes' digest)."""
    return hashlib.blake2b(raw, digest_size=16).digest()


def _msg(raw: bytes) -> bytes:
    return frames.encode("msg", raw)


class SessionRules:
    """One player's session rules (see the module docstring); sans-IO."""

    def __init__(self, deadline: float = 120.0, probe_timeout: float = PROBE_TIMEOUT,
                 grace: float = END_GRACE) -> None:
        #: Seconds a writer has when the genesis sets no table clock.
        self.default_deadline = deadline
        self.probe_timeout = probe_timeout
        #: Seconds an ended table keeps answering (see :meth:`ended`).
        self.grace = grace
        #: When the table ended here (None: still in play).
        self.ended_at: float | None = None
        #: Per direct peer, the most messages it said it holds (its ``sync``'s ``have``).
        self._held_by: dict[int, int] = {}
        #: Per direct peer, the count we last told it in a ``sync`` (once per count).
        self._told: dict[int, int] = {}
        self.table: Table | None = None
        #: When the writer's time (or the probe's) is up; inf: no clock.
        self.deadline_at = math.inf
        self.probe: int | None = None
        self._probes = 0
        self._host_answered = False
        self._writer_answered = False
        #: Losses of the link to the host since the last transcript progress.
        self.drops = 0
        self.host_up = False
        #: Players with a live direct link.
        self.linked: set[int] = set()
        self.seen: set[bytes] = set()
        self._seen_notices: set[bytes] = set()
        self._forks_asked: set[tuple[Path, int | None]] = set()
        #: Messages accepted from a direct link, to pass on to the host when due
        #: (digest -> (raw, due)) unless the host's own copy comes first.
        self._forward: dict[bytes, tuple[bytes, float]] = {}
        #: Position -> digest of the one message whose speculative shuffle runs.
        self._speculated: dict[int, bytes] = {}

    # -- the table and its clock ---------------------------------------------------

    def start(self, table: Table, now: float, elapsed: float = 0.0) -> list[Output]:
        """The table is known (a genesis, or a journal resumed): its clock starts."""
        self.table = table
        self.seen.update(digest(raw) for raw in table.transcript())
        return self.progress(now, elapsed)

    @property
    def done(self) -> bool:
        return self.table is not None and self.table.stage in (Stage.OVER, Stage.ENDED)

    def move_time(self) -> float:
        """Seconds a writer has: the table clock its genesis sets (0 is no limit),
        else this session's own deadline."""
        chosen = self.table.move_time if self.table is not None else None
        if chosen is None:
            return self.default_deadline
        return math.inf if chosen == 0 else float(chosen)

    def progress(self, now: float, elapsed: float = 0.0) -> list[Output]:
        """Transcript progress (or the start): the next writer's time starts now
        (``elapsed`` seconds ago for a resumed turn); earlier link losses are
        forgiven."""
        table = self.table
        paused = table is not None and table.paused is not None and table.paused == table.writer
        extra = PAUSE_SECONDS if paused else 0  # the writer took a pause for this move
        self.deadline_at = now + self.move_time() + extra - max(0.0, elapsed)
        self.probe = None
        self.drops = 0
        return [Clock(table.writer if table is not None else None, self.deadline_at)]

    def wake_at(self) -> float:
        """When :meth:`tick` next has something to do (inf: never)."""
        return min([self.deadline_at, *(due for _, due in self._forward.values())])

    def tick(self, now: float) -> list[Output]:
        """The time is ``now``: pass on to the host what is due; if the writer's
        time (or the probe's) is up, hand over, probe, or name someone (see the
        module docstring)."""
        out = self._pass_on(now)
        if now < self.deadline_at or self.done:
            return out
        table = self.table
        if table is None:
            return out + self.progress(now)
        if table.my_turn:
            # Our own time is up: the others may now name us. The clock is not
            # restarted; writing restarts it for the next writer.
            self.deadline_at = math.inf
            return out + [Clock(table.writer, self.deadline_at)]
        if self.probe is None:
            return out + self._hand_over(table, now)
        return out + self._decide(table)

    def _pass_on(self, now: float) -> list[Output]:
        due = [key for key, (_, when) in self._forward.items() if when <= now]
        out: list[Output] = []
        for key in due:
            raw, _ = self._forward.pop(key)
            if self.host_up:  # else the next hello's count makes us send it anyway
                out.append(Send(HOST, _msg(raw)))
        return out

    def _hand_over(self, table: Table, now: float) -> list[Output]:
        writer, linked = table.writer, set(self.linked)
        self._probes += 1
        self.probe = self._probes
        self._host_answered = self._writer_answered = False
        self.deadline_at = now + max(self.probe_timeout, self.move_time())
        latest = _msg(table.transcript()[-1])
        sync = frames.encode("sync", {"have": table.next_position})
        ping = frames.encode("ping", {"n": self.probe})
        out: list[Output] = []
        if self.host_up:
            # The host first: it relays to every seat without a direct link.
            out += [Send(HOST, latest), Send(HOST, sync), Send(HOST, ping)]
        for player in sorted(linked):
            out += [Send(player, latest), self._tell(player)]
        if writer in linked:
            out.append(Send(writer, ping))
        return out

    def _decide(self, table: Table) -> list[Output]:
        self.probe = None
        writer, linked = table.writer, self.linked
        if self._writer_answered:
            events = self._name_writer(
                table, "did not write before the deadline (its direct link is up)")
        elif self.drops and writer not in linked:
            # The host cut our link during this wait and the writer could reach us
            # only through it: the one who broke the link is the host.
            events = table.declare_deadline_missed(0, self._drops_detail())
        elif self._host_answered or writer in linked:
            events = self._name_writer(table)
        else:
            events = table.declare_deadline_missed(
                0, "(the host) stopped relaying: no answer to a ping")
        return [Emit(events)]

    @staticmethod
    def _name_writer(table: Table, detail: str = "did not write before the deadline") -> list[TableEvent]:
        """The writer's time is up: it is named, unless this is a rematch it has written
        nothing in (it never opened it; it may have refused the genesis for a choice its
        end box holds): then the rematch ends naming nobody (PROTOCOL.md §14)."""
        if table.unopened:
            return table.declare_unopened()
        return table.declare_deadline_missed(None, detail)

    def pong(self, source: Path, n: int) -> list[Output]:
        """An answer to our probe's ping, from the host or a direct link."""
        table = self.table
        if self.probe != n or table is None or self.done:
            return []
        # Weighed when the window is up: what we handed over may still let the
        # writer (or a peer it told) bring its message.
        if source is HOST:
            self._host_answered = True
        elif source == table.writer:
            self._writer_answered = True
        return []

    def _drops_detail(self) -> str:
        times = "once" if self.drops == 1 else f"{self.drops} times"
        return f"(the host) dropped our link {times} without progress"

    # -- links ------------------------------------------------------------------------

    def host_link_up(self, have: int) -> list[Output]:
        """The link to the host is up; its hello said we had ``have`` messages:
        what we wrote (or accepted) since goes to the host. No fresh deadline: a
        reconnect is not progress."""
        self.host_up = True
        if self.table is None:
            return []
        out: list[Output] = [Send(HOST, _msg(raw)) for raw in self.table.transcript()[have:]]
        return out + [Clock(self.table.writer, self.deadline_at)]

    def host_link_down(self) -> list[Output]:
        self.host_up = False
        self.drops += 1
        return []

    def direct_links(self, linked: set[int]) -> list[Send]:
        """The live direct links changed: each new one is asked for what we lack
        (a message written before it existed must not wait for a deadline)."""
        new, self.linked = linked - self.linked, set(linked)
        if self.table is None:
            return []
        return [self._tell(player) for player in sorted(new)]

    def _tell(self, player: int) -> Send:
        """A ``sync`` of our count to a direct peer: asks for what we lack, and
        says what we hold."""
        assert self.table is not None
        have = self.table.next_position
        self._told[player] = have
        return Send(player, frames.encode("sync", {"have": have}))

    # -- frames ---------------------------------------------------------------------

    def sync(self, source: Path, have: int) -> list[Output]:
        """Answer a ``sync`` from our transcript (also once the table ended). A
        direct peer that holds at least as much as we do is told our count, once
        per count: it asks for what we lack, or learns we hold what it holds."""
        if self.table is None:
            return []
        held = self.table.transcript()
        out: list[Output] = [Send(source, _msg(raw)) for raw in held[max(0, have):]]
        if source is not HOST:
            self._held_by[source] = max(have, self._held_by.get(source, 0))
            if have >= len(held) and self._told.get(source) != len(held):
                out.append(self._tell(source))
        return out

    def ping(self, source: Path, body: WireMap) -> list[Output]:
        """A direct peer's ping is answered on its link (the host answers its own)."""
        return [] if source is HOST else [Send(source, frames.encode("pong", body))]

    def message(self, source: Path, raw: bytes) -> list[Output]:
        """A transcript message from ``source``: a copy is dropped at once; else the
        cheap checks gate any speculative work, and the full check is work to run."""
        table = self.table
        if table is None or self.ended_at is not None:
            return []  # an ended table takes nothing more: no work for a late frame
        key = digest(raw)
        if key in self.seen:
            if source is HOST:
                self._forward.pop(key, None)  # the host has it: nothing to pass on
            return []
        out: list[Output] = []
        position = table.next_position
        if position not in self._speculated:
            job = table.ahead.speculative_job(raw)
            if job is not None:
                self._speculated[position] = digest(raw)
                out.append(Speculate(position, job))
        out.append(Check(raw, source, position, lambda: table.receive(raw)))
        return out

    def checked(self, check: Check, events: list[TableEvent] | None,
                error: ProtocolError | None, now: float) -> list[Output]:
        """The full check of ``check.raw`` finished with ``events`` or ``error``."""
        out = self._checked(check, events, error, now)
        if self.done:
            # The table ended or the match is over here: the session stops soon,
            # so whatever the host may still lack goes to it now.
            out = self._pass_on(math.inf) + out
        return out

    def _checked(self, check: Check, events: list[TableEvent] | None,
                 error: ProtocolError | None, now: float) -> list[Output]:
        table = self.table
        if table is None:
            return []
        source, before = check.source, check.before
        mine = self._speculated.get(before) == digest(check.raw)
        settle: list[Output] = [Settle(before, False)] if mine else []
        if error is not None:
            if mine:
                del self._speculated[before]  # a valid one may still come
            if isinstance(error, Gap):
                return settle + [Send(source, frames.encode("sync", {"have": table.next_position}))]
            if isinstance(error, BrokenChain):
                # Another version of our last message exists: whoever sent this one
                # (and any direct peer) holds it, and it proves its writer equivocated.
                log.warning("a message continues another history: %s", error)
                if (source, error.position) in self._forks_asked:
                    return settle  # asked this path once: no sync storm with a replaying host
                self._forks_asked.add((source, error.position))
                ask = frames.encode("sync", {"have": max(0, table.next_position - 1)})
                return settle + [Send(source, ask)] + [
                    Send(p, ask) for p in sorted(self.linked) if p != source]
            log.warning("dropped a message: %s", error)
            return settle
        events = events or []
        if table.next_position <= before:
            return settle + [Emit(events)]
        self.seen.add(digest(check.raw))
        # Late (past half the writer's time, or after it): others' clocks may be
        # about to run out, so it goes on to the host at once, not FORWARD_DELAY later.
        late = self.probe is not None or now >= self.deadline_at - self.move_time() / 2
        out: list[Output] = [Save(check.raw), *self.progress(now)]
        # Every path it did not come from: the direct peers (a writer cannot tell
        # two players two things unseen; it knows what it signed) and the host,
        # which relays to the seats that have no direct link.
        writer = table.messages[before].player
        frame = _msg(check.raw)
        out += [Send(p, frame) for p in sorted(self.linked) if p not in (source, writer)]
        if source is not HOST and late:
            out.append(Send(HOST, frame))
        elif source is not HOST:
            self._forward[digest(check.raw)] = (check.raw, now + FORWARD_DELAY)

        if before in self._speculated:
            out.append(Settle(before, mine))
        out.append(Emit(events))
        return out

    def published(self, raw: bytes) -> list[Output]:
        """This peer wrote ``raw`` (already saved): it goes on every path. The
        driver calls :meth:`progress` once the send is done (a stalled send is
        not the next writer's delay)."""
        self.seen.add(digest(raw))
        frame = _msg(raw)
        out: list[Output] = [Send(p, frame) for p in sorted(self.linked)]
        return out + [Send(HOST, frame)]

    def alert(self, source: Path, raw: bytes) -> list[Output]:
        """A signed notice: checked before it goes further (passing on a bad one
        would make the host close our link, on a direct peer's word), then on every
        other path, the host included when it came from a direct link."""
        table = self.table
        if table is None:
            return []
        key = digest(raw)
        if key in self._seen_notices:
            return []
        try:
            events = table.receive_alert(raw)
        except SeatPlayedElsewhere:
            raise  # another process signs for this seat: the driver ends the session
        except ProtocolError as error:
            log.warning("dropped an alert: %s", error)
            return []
        self._seen_notices.add(key)
        frame = frames.encode("alert", raw)
        out: list[Output] = [Send(p, frame) for p in sorted(self.linked) if p != source]
        if source is not HOST:
            out.append(Send(HOST, frame))
        return out + [Emit(events)] + self._next_in_evidence(source, raw)

    def _next_in_evidence(self, source: Path, raw: bytes) -> list[Output]:
        """An alert's evidence may be the writer's own next message (one that breaks
        a rule, sent to some players only): the table cannot judge it from the
        alert without applying it, so it is checked as if it came on ``source``,
        and this peer names its writer with that evidence rather than by its clock
        (or, a good message, simply accepts it)."""
        table = self.table
        if table is None or self.done:
            return []
        notice = SignedNotice.parse(raw)
        if notice.type != "alert":
            return []
        try:
            evidence = Verdict.from_wire(notice.body).evidence
        except ProtocolError:
            return []
        out: list[Output] = []
        for item in evidence:
            try:
                position = SignedMessage.parse(item).position
            except ProtocolError:
                continue
            if position == table.next_position:
                out += self.message(source, item)
        return out

    def notice(self, raw: bytes) -> list[Send]:
        """This peer's own notice (a leave, an alert): on every path."""
        self._seen_notices.add(digest(raw))
        frame = frames.encode("alert", raw)
        return [Send(p, frame) for p in sorted(self.linked)] + [Send(HOST, frame)]

    # -- the end ----------------------------------------------------------------------

    def ended(self, now: float) -> list[Output]:
        """The table ended here (the driver saw it): no more clock; whatever waits
        for the host goes now; every direct peer not told our count yet is told it,
        so one that lacks the end asks for it and one that holds it knows we do
        (see the module doc)."""
        if self.table is None or self.ended_at is not None:
            return []
        self.ended_at = now
        self.deadline_at = math.inf
        self.probe = None
        count = self.table.next_position
        out = self._pass_on(math.inf)
        return out + [self._tell(p) for p in sorted(self.linked) if self._told.get(p) != count]

    def lingering(self, now: float) -> bool:
        """Whether an ended table keeps its links and answers: within the grace,
        while a linked player is not known to hold everything we hold."""
        if self.table is None or self.ended_at is None or now >= self.ended_at + self.grace:
            return False
        count = self.table.next_position
        return any(self._held_by.get(p, 0) < count for p in self.linked)

    def linger_until(self) -> float:
        """When the grace of an ended table is up (inf: still in play)."""
        return math.inf if self.ended_at is None else self.ended_at + self.grace


#: The outputs and the paths are named from here too (they are :mod:`.session_outputs`').
__all__ = ["END_GRACE", "FORWARD_DELAY", "HOST", "PROBE_TIMEOUT", "Check", "Clock", "Emit", "Output",
           "Path", "Save", "Send", "SessionRules", "Settle", "Speculate", "digest"]
