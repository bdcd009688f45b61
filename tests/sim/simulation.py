"""Deterministic simulation of a whole match: four session machines, a relay, an adversary.

Four :class:`~p2pcards.protocol.session.SessionRules` (one per player, each with
its seeded table, ``tables.py``) and the host's
:class:`~p2pcards.protocol.relay.Relay` run over in-memory links (``links.py``)
whose delivery a :class:`~tests.sim.schedule.Schedule`, drawn from one integer,
decides: when each frame arrives, which links are cut and restored, and what a
coalition of up to three players (the host included or not) does
(``adversary.py``). Everything is sans-IO, so one schedule is a loop over a heap
of timed events (``clock.py``); nothing sleeps. The judge (``judge.py``) then
holds the run to the blame properties; its docstring lists each verdict rule and
where it is checked both ways.

The table plays a whole Topper match of one deal (``target 1, deals 1``): the
seating (four commits, four opens), four proven shuffles of the 24-card deck,
four ``shares`` messages (the private deal), the bidding, trump and 24 plays,
each play revealing its card with a proven share, and the match's end; a
schedule may stop earlier (:attr:`Schedule.stop_at`). Honest players choose a
legal action seeded by the position (:func:`choose`), so an undisturbed run
writes the same transcript every time.

With ``Schedule.game = "bluff"`` the table plays a short Bluff match instead
(``tables.BLUFF_CONFIG``: one deal, two chips a seat, a chip a pass, discards of
at most two cards; Bluff's deck is always the 52 cards): the seating, four
shuffles of the 52 cards, four ``shares``, then discards, passes and
challenges, each challenge answered by the discarder's ``show`` (the shares
that turn its face-down cards up), about 32 positions. Honest players choose a
kind of action first, then one of it, so challenges and shows happen.

A schedule may also kill one player's process and start it again from its
record (:attr:`Schedule.crash`, finding 3: ``join`` again resumes; one seeded
schedule in seven draws one) and let spectators flood the relay with ``sync``
(finding 5).

*Hints* (``schedule.hint_schedule_for``, ``tests/sim/test_hint_simulation.py``):
with ``Schedule.hints`` the genesis allows the coach's hints (``config.hints = 1``)
and every player, before some of its moves (seeded by the position), signs a
``hint``. Pauses likewise (``Schedule.pauses``: ``config.away``), and leaves
(``Schedule.leave_at``). The coalition's breaches of each are ``adversary.py``'s.

*The evening* after a finished match (the end box's signed choices, the
relay's store of them, every count, the rematch's genesis and each joiner's
check of it) is simulated in ``tests/sim/evening.py``
(``tests/sim/test_evening_simulation.py``).
"""

from __future__ import annotations

import math
import random
from typing import Any

from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.protocol import frames
from p2pcards.protocol.envelope import SignedNotice
from p2pcards.protocol.errors import ProtocolError, SeatPlayedElsewhere
from p2pcards.protocol.events import TableEnded
from p2pcards.protocol.relay import Broadcast, Close, Relay
from p2pcards.protocol.relay import Send as RelaySend
from p2pcards.protocol.session import HOST, Check, Emit, Path, Send, SessionRules, Settle, Speculate
from p2pcards.protocol.table_records import Stage, Written
from p2pcards.protocol.table_settings import HINTS, PAUSES
from p2pcards.protocol.verdict import Verdict

from .adversary import Coalition
from .clock import Clock
from .links import RELAY, Link, Links, Node, hello, link_of
from .peer import Peer
from .schedule import DEADLINE, PLAYERS, Schedule
from .tables import SimTable, lobby, randomness, seating

#: The most events one schedule may run (every loop is bounded).
MAX_EVENTS = 400_000
#: Simulated seconds after which a schedule stops whatever happens.
MAX_TIME = 80 * DEADLINE
#: Spectators' relay links are numbered from here (players' are 0..3).
SPECTATOR_LINK = 100
#: The chance an honest player at a hints table asks the coach before a move.
HINT_CHANCE = 0.3
#: The chance a player with a pause left takes one before a move (``away``).
PAUSE_CHANCE = 0.1


class Simulation(Clock):
    """One schedule's run (see the module docstring)."""

    def __init__(self, schedule: Schedule) -> None:
        super().__init__()
        self.schedule = schedule
        self.stop_at = math.inf if schedule.stop_at is None else schedule.stop_at
        self.rng = random.Random(schedule.seed * 7919 + 1)
        #: Frames the relay sent each spectator, and the spectators it closed.
        self.to_spectator: dict[int, int] = {}
        self.closed_spectators: set[int] = set()
        seat = seating(schedule.game)
        self.identities = seat.identities
        self.coalition = Coalition(schedule, self.identities, self.rng, self, self.send_on)
        host_lobby = lobby(seat)
        if schedule.hints:
            host_lobby.config[HINTS] = 1
        if schedule.pauses:
            host_lobby.config[PAUSES] = schedule.pauses
        self.relay = Relay(host_lobby, seat.nonce, clock=lambda: self.now)
        for player in range(PLAYERS):
            self.relay.connected(player, self.identities[player].public_key)
        genesis = None
        for player in range(PLAYERS):
            for out in self.relay.frame(player, hello(f"p{player}", 0, b"")):
                if isinstance(out, (RelaySend, Broadcast)) and genesis is None:
                    frame = frames.decode(out.frame)
                    if frame.kind == "msg":
                        genesis = frame.body
        assert genesis is not None, "the relay made no genesis"
        self.genesis: bytes = genesis
        self.peers: list[Peer] = []
        for player in range(PLAYERS):
            table = SimTable(genesis, self.identities[player],
                             randomness=randomness(f"seat{player}"))
            rules = SessionRules(DEADLINE)
            rules.host_up = True
            self.peers.append(Peer(player, player not in schedule.coalition, rules, table))
        self.links = Links(schedule.no_direct)
        #: Every cut of the run: the schedule's, and a crashed player's links.
        self.cuts = list(schedule.cuts)
        if schedule.crash is not None:
            player, down, back = schedule.crash
            self.cuts += [(down, back, link) for link in sorted(self.links.up, key=repr)
                          if player in link[1:]]
            self.at(down, lambda: self._crash(self.peers[player]))
            self.at(back, lambda: self._start_again(self.peers[player]))
        for peer in self.peers:
            peer.rules.linked = self.links.direct(peer.player)
            self._run(peer, peer.rules.start(peer.table, 0.0))
        for start, end, link in self.cuts:
            self.at(start, lambda link=link: self.cut(link))  # type: ignore[misc]
            self.at(end, lambda link=link: self.restore(link))  # type: ignore[misc]
        for n in range(schedule.spectators):
            self.at(0.5 + n * 0.01, lambda link=SPECTATOR_LINK + n: self._watch(link))  # type: ignore[misc]

    @property
    def evidence(self) -> list[tuple[Any, ...]]:
        """What the coalition signed that breaks a rule (``Coalition.evidence``)."""
        return self.coalition.evidence

    def run(self) -> Simulation:
        self.run_until(MAX_TIME, MAX_EVENTS, self._settled)
        return self

    def _finished(self, peer: Peer) -> bool:
        return (peer.table.next_position >= self.stop_at or peer.verdict is not None
                or peer.table.stage is Stage.OVER)

    def _settled(self) -> bool:
        return all(self._finished(p) or p.stopped for p in self.peers if p.honest)

    # -- links going down and up -----------------------------------------------------

    def cut(self, link: Link) -> None:
        """``link`` goes down: the relay and the peers at its ends hear it."""
        if not self.links.cut(link):
            return
        if link[0] == "host":
            player = link[1]
            self.relay.disconnected(player)
            peer = self.peers[player]
            if not peer.down:
                self._run(peer, peer.rules.host_link_down())
        else:
            for player in link[1:]:
                self.relink(self.peers[player])

    def restore(self, link: Link) -> None:
        """``link`` is up again: a host link says hello (the relay syncs it)."""
        if not self.links.restore(link):
            return
        if link[0] == "host":
            peer = self.peers[link[1]]
            have = peer.table.next_position
            self.relay.connected(peer.player, self.identities[peer.player].public_key)
            self._relay_out(self.relay.frame(peer.player, hello(
                f"p{peer.player}", have, peer.table.session)))
            if not peer.down:
                self._run(peer, peer.rules.host_link_up(have))
        else:
            for player in link[1:]:
                self.relink(self.peers[player])

    def relink(self, peer: Peer) -> None:
        """Tell ``peer``'s rules which direct links it has now."""
        if peer.down:
            return
        self._run(peer, peer.rules.direct_links(self.links.direct(peer.player)))

    # -- a crash, and the process started again -------------------------------------

    def _crash(self, peer: Peer) -> None:
        """``kill -9``: the process stops at once; its links go down (the cuts)."""
        peer.down = True

    def _start_again(self, peer: Peer) -> None:
        """The player starts it again: ``p2pcards resume``, or ``p2pcards join``, which
        for a table its folder holds a record of goes on from that record (cli.py):
        the transcript it saved (each message saved before it was sent) and its
        secrets, never fresh ones."""
        old = peer.table
        table = SimTable(self.genesis, self.identities[peer.player], secrets=old.secrets,
                         randomness=randomness(f"seat{peer.player}"))
        for raw in old.transcript()[1:]:
            table.receive(raw, saved=True)
        peer.table, peer.down, peer.wakes = table, False, set()
        peer.written = {k: v for k, v in peer.written.items() if k < table.next_position}
        peer.rules = SessionRules(DEADLINE)
        self._run(peer, peer.rules.start(table, self.now))
        # Its links come back at this same instant (the cuts end now): hello, syncs.

    # -- spectators -------------------------------------------------------------------

    def _watch(self, link: int) -> None:
        key = seeded_identity(21, f"spectator{link}", "s").public_key
        self._relay_out(self.relay.connected(link, key))
        self._relay_out(self.relay.frame(link, hello(f"p{link}", 0, b"", watch=1)))
        self.at(self.now + self.schedule.flood, lambda: self._flood(link))

    def _flood(self, link: int) -> None:
        """Ask for the last 200 messages again, as finding 5's spectators did."""
        if link in self.closed_spectators or self._settled():
            return
        have = max(0, len(self.relay.messages) - 200)
        self._relay_out(self.relay.frame(link, frames.encode("sync", {"have": have})))
        self.at(self.now + self.schedule.flood, lambda: self._flood(link))

    # -- sending ------------------------------------------------------------------

    def send(self, src: Node, dst: Node, frame: bytes) -> None:
        """Put ``frame`` on the link from ``src`` to ``dst`` (lost if it is down)."""
        link = link_of(src, dst)
        if link not in self.links.up:
            return
        epoch = self.links.epoch(link)
        if self.coalition.hostile(src):
            arrivals = self.coalition.arrivals()
        else:
            delay = self.rng.uniform(0, self.schedule.max_delay)
            arrivals = [self.links.in_order(src, dst, self.now + delay)]
        for when in arrivals:
            self.at(when, lambda: self._deliver(src, dst, frame, link, epoch))

    def send_on(self, player: int, path: Path, frame: bytes) -> None:
        """``player``'s process puts ``frame`` on ``path`` (the host's relay, or a player)."""
        self.send(player, RELAY if path is HOST else path, frame)

    def _deliver(self, src: Node, dst: Node, frame: bytes, link: Link, epoch: int) -> None:
        if not self.links.carries(link, epoch):
            return  # the link was cut while the frame was on it
        if dst == RELAY:
            assert isinstance(src, int)
            self._relay_out(self.relay.frame(src, frame))
        else:
            assert isinstance(dst, int)
            self._on_frame(self.peers[dst], HOST if src == RELAY else src, frame)  # type: ignore[arg-type]

    def _relay_out(self, outputs: list[Any]) -> None:
        for out in outputs:
            if isinstance(out, RelaySend):
                if out.link >= SPECTATOR_LINK:
                    self.to_spectator[out.link] = self.to_spectator.get(out.link, 0) + 1
                else:
                    self.send(RELAY, out.link, out.frame)
            elif isinstance(out, Broadcast):
                for player in range(PLAYERS):
                    if player != out.exclude and self.relay.hears(player):
                        self.send(RELAY, player, out.frame)
                for link in range(SPECTATOR_LINK, SPECTATOR_LINK + self.schedule.spectators):
                    if link != out.exclude and self.relay.hears(link):
                        self.to_spectator[link] = self.to_spectator.get(link, 0) + 1
            elif isinstance(out, Close):
                if out.link >= SPECTATOR_LINK:
                    self.closed_spectators.add(out.link)
                    self.relay.disconnected(out.link)
                else:
                    self.cut(("host", out.link))

    def _send_path(self, peer: Peer, path: Path, frame: bytes) -> None:
        """What ``peer``'s rules send: on the paths a coalition member chose, never
        a message of its own that a rule-breaking one replaced."""
        if not peer.honest and not self.coalition.may_use(peer, path, frame):
            return
        decoded = frames.decode(frame)
        if peer.withheld and decoded.kind == "msg" and decoded.body in peer.withheld:
            return  # the message a rule-breaking one replaced: never sent, nor synced
        self.send_on(peer.player, path, frame)

    # -- a peer ---------------------------------------------------------------------

    def _on_frame(self, peer: Peer, path: Path, data: bytes) -> None:
        if peer.stopped or peer.down:
            return
        try:
            frame = frames.decode(data)
        except ProtocolError:
            return
        rules = peer.rules
        if frame.kind == "msg":
            peer.received.append((frame.body, peer.table.next_position, peer.verdict is not None))
            self._run(peer, rules.message(path, frame.body))
        elif frame.kind == "alert":
            for raw in _evidence_of(frame.body):  # evidence comes in alerts too
                peer.received.append((raw, peer.table.next_position, peer.verdict is not None))
            try:
                outputs = rules.alert(path, frame.body)
            except SeatPlayedElsewhere:
                peer.stopped = True
                return
            self._run(peer, outputs)
        elif frame.kind == "sync":
            self._run(peer, rules.sync(path, frame.body["have"]))
        elif frame.kind == "ping":
            self._run(peer, rules.ping(path, frame.body))
        elif frame.kind == "pong":
            self._run(peer, rules.pong(path, frame.body["n"]))

    def _run(self, peer: Peer, outputs: list[Any]) -> None:
        for out in outputs:
            if peer.stopped:
                return
            if isinstance(out, Send):
                self._send_path(peer, out.path, out.frame)
            elif isinstance(out, Emit):
                self._emit(peer, out.events)
            elif isinstance(out, Speculate):
                # Counted, not run: the seeded table's own shuffle is memoized anyway.
                peer.speculated[out.position] = peer.speculated.get(out.position, 0) + 1
            elif isinstance(out, Settle):
                if out.keep:
                    peer.kept.add(out.position)
            elif isinstance(out, Check):
                events: list[Any] | None = None
                error: ProtocolError | None = None
                try:
                    events = out.job()
                except SeatPlayedElsewhere:
                    peer.stopped = True
                    return
                except ProtocolError as failed:
                    error = failed
                if peer.table.next_position > out.before:
                    peer.accepted_at.setdefault(out.before, self.now)
                self._run(peer, peer.rules.checked(out, events, error, self.now))
        self._write(peer)
        self._schedule_wake(peer)

    def _emit(self, peer: Peer, events: list[Any]) -> None:
        if peer.table.stage is Stage.OVER and peer.over_at is None:
            peer.over_at = self.now
        for event in events:
            if isinstance(event, TableEnded) and peer.verdict is None:
                peer.verdict, peer.verdict_at = event.verdict, self.now
                alert = peer.table.alert()
                if alert is not None:
                    for out in peer.rules.notice(alert):
                        self._send_path(peer, out.path, out.frame)

    def _schedule_wake(self, peer: Peer) -> None:
        when = peer.rules.wake_at()
        if math.isinf(when) or when in peer.wakes or peer.verdict is not None or peer.down:
            return
        peer.wakes.add(when)
        rules = peer.rules
        self.at(when, lambda: self._wake(peer, rules, when))

    def _wake(self, peer: Peer, rules: SessionRules, when: float) -> None:
        if rules is not peer.rules:
            return  # a wake of the process that crashed
        peer.wakes.discard(when)
        if peer.verdict is not None or peer.stopped or peer.down:
            return
        if peer.table.next_position >= self.stop_at:
            peer.rules.deadline_at = math.inf  # the simulated stage is over: nobody is waited for
        self._run(peer, peer.rules.tick(self.now))

    # -- what a player writes ---------------------------------------------------------

    def _write(self, peer: Peer) -> None:
        """Everything ``peer`` writes now, in turn: a hint or a pause it takes first,
        then its next message (a chosen action when one is due)."""
        if peer.stopped or peer.down:
            return
        table = peer.table
        while (table.my_turn and peer.verdict is None and table.next_position < self.stop_at
               and table.next_position not in peer.written):
            position = table.next_position
            if self.coalition.withholds(peer, position):
                peer.written[position] = b""
                return
            first = self._before_move(peer, position)
            if first is not None:
                self._publish_own(peer, position, first)
                continue
            written = table.outgoing()
            if written is None and table.awaiting_my_action:
                written = table.act(choose(list(table.view().legal_actions()), position,
                                           self.schedule.game))
            if written is None:
                return
            self._publish_own(peer, position, written, move=True)

    def _before_move(self, peer: Peer, position: int) -> Written | None:
        """The ``hint`` or ``away`` ``peer`` signs before its move at ``position``, if
        any: seeded by the position for everyone (a coalition member about to breach
        the rule takes its hint, or spends its pauses, first)."""
        table = peer.table
        if not table.awaiting_my_action:
            return None
        if (self.schedule.hints and not table.hint_taken
                and (self.coalition.forces_hint(peer, position)
                     or random.Random(f"hint/{position}").random() < HINT_CHANCE)):
            hint = table.take_hint()
            if hint is not None:
                return hint
        if (self.schedule.pauses and table.paused != peer.player
                and table.pauses_left[peer.player] > 0
                and (self.coalition.forces_pause(peer, position)
                     or random.Random(f"away/{position}").random() < PAUSE_CHANCE)):
            return table.take_pause()
        return None

    def _publish_own(self, peer: Peer, position: int, written: Written, move: bool = False) -> None:
        """``peer``'s own message at ``position``: recorded, its events emitted, then
        sent as the rules publish it; a coalition member's ``move`` may go out
        replaced by a rule-breaking one (``Coalition.replaces``)."""
        peer.written[position] = written.raw
        self._emit(peer, written.events)
        replaced = move and not peer.honest and self.coalition.replaces(peer, written.raw)
        if not replaced:
            for out in peer.rules.published(written.raw):
                assert isinstance(out, Send)  # published() hands out sends only
                self._send_path(peer, out.path, out.frame)
        self._run(peer, peer.rules.progress(self.now))


def choose(actions: list[Any], position: int, game: str) -> Any:
    """An honest player's legal action, seeded by the position; in Bluff first the
    kind (dozens of discards beside one pass and one challenge: a choice among
    actions alone would hardly ever challenge, so hardly ever show), then one."""
    rng = random.Random(position)
    if game == "topper":
        return rng.choice(actions)
    kinds = sorted({type(a).__name__ for a in actions})
    kind = rng.choice(kinds)
    return rng.choice([a for a in actions if type(a).__name__ == kind])


def _evidence_of(raw: bytes) -> tuple[bytes, ...]:
    """The evidence messages of a signed alert (none for a leave or junk)."""
    try:
        notice = SignedNotice.parse(raw)
        return Verdict.from_wire(notice.body).evidence if notice.type == "alert" else ()
    except ProtocolError:
        return ()
