"""Deterministic simulation of four session machines, a relay and an adversary.

Four :class:`~p2pcards.protocol.session.SessionRules` (one per player, each with
its seeded :class:`~p2pcards.protocol.table.Table`) and the host's
:class:`~p2pcards.protocol.relay.Relay` run over in-memory links whose delivery a
scheduler, seeded by one integer, decides: when each frame arrives, which links
are cut and restored, and what a coalition of up to three players (the host
included or not) does. Everything is sans-IO, so one schedule is a loop over a
heap of timed events; nothing sleeps.

The table runs its opening (four commits, four opens: the seating), where every
step is a signed message and no heavy cryptography runs, so a schedule costs a
few milliseconds and the same seed gives the same run. Honest links behave like
TCP (in order, delayed by at most ``max_delay``, lost only when cut); a
coalition member's frames (and, with a hostile host, the relay's) may be
dropped, delayed, duplicated and reordered, sent on chosen paths only, and
joined by anything its members can sign: a second version of a message
(equivocation), a message out of turn, frames with bad signatures, replays.

Two properties are judged (:func:`judge`):

(a) no honest peer names an honest player, unless for a whole deadline that
    player's messages could not reach it by any path of honest nodes and up
    links (the relay counts when the host is honest). Two cases are counted
    apart rather than as failures: a verdict naming the host because this
    peer's own host link was cut during the wait with no direct link up (the
    project's "link churn names the host", and what follows from it), and a
    *race*: the named player's own table had ended naming a coalition writer
    for lateness, and this peer accepted that writer's message too late to
    reach it (after its window closed, less than two hops before, or with no
    honest path up) — the coalition timed it to the window's end. Any other
    *cascade* (an honest player named because its table ended first: finding
    1) is a failure;
(b) a player that signs an equivocation or an out-of-turn message is named,
    with evidence, by every honest peer that received both halves of the
    evidence (for out of turn, the one message) while its table was open;
(c) no honest peer's table meets a message signed with its own key that it did
    not write (only its own key can sign for it): a coalition member's table
    that meets its own other version stops, naming nobody, as PeerSession does.
"""

from __future__ import annotations

import heapq
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from p2pcards.app import randomness_for, seeded_identity
from p2pcards.crypto.seeded import SeededRng
from p2pcards.protocol import frames, games
from p2pcards.protocol.envelope import PROTOCOL_VERSION, SignedMessage, seal
from p2pcards.protocol.errors import ProtocolError, SeatPlayedElsewhere
from p2pcards.protocol.events import TableEnded
from p2pcards.protocol.lobby import Lobby
from p2pcards.protocol.relay import Broadcast, Close, Relay
from p2pcards.protocol.relay import Send as RelaySend
from p2pcards.protocol.session import HOST, Check, Emit, Path, Send, SessionRules
from p2pcards.protocol.table import Table
from p2pcards.protocol.verdict import Verdict
from p2pcards.rules.topper import TopperConfig

PLAYERS = 4
#: The seating: the genesis, four commits and four opens. The simulated stage ends here.
STOP_AT = 9
DEADLINE = 10.0
#: The most events one schedule may run (every loop is bounded).
MAX_EVENTS = 200_000
#: Simulated seconds after which a schedule stops whatever happens.
MAX_TIME = 40 * DEADLINE

RELAY = "relay"
Node = int | str


@dataclass
class Schedule:
    """What the adversary does in one run, drawn from ``seed`` (see :func:`schedule_for`)."""

    seed: int
    coalition: frozenset[int] = frozenset()
    #: Players without direct links (seat 0, the host's own seat, never has any).
    no_direct: frozenset[int] = frozenset({0})
    max_delay: float = 0.2
    #: (start, end, link) with link ("host", p) or ("direct", p, q), p < q.
    cuts: list[tuple[float, float, tuple]] = field(default_factory=list)
    #: Per coalition member: the paths it sends its own transcript messages on
    #: (None: all), and the chances it drops / duplicates a frame.
    paths: dict[int, frozenset[Path] | None] = field(default_factory=dict)
    drop: float = 0.0
    duplicate: float = 0.0
    #: The longest a coalition frame may be held back.
    hold: float = 0.0
    #: Attacks: "equivocate", "out_of_turn", "junk", "replay", "silent".
    attacks: frozenset[str] = frozenset()
    #: The position a coalition member equivocates at (its own), if any.
    equivocate_at: int | None = None

    def describe(self) -> str:
        return (f"seed={self.seed} coalition={sorted(self.coalition)} "
                f"no_direct={sorted(self.no_direct)} attacks={sorted(self.attacks)} "
                f"cuts={len(self.cuts)} drop={self.drop:.2f} hold={self.hold:.1f}")


def schedule_for(seed: int) -> Schedule:
    """The seeded schedule: a coalition of 0..3 players, cuts, delays and attacks."""
    rng = random.Random(seed)
    size = rng.choice([0, 1, 1, 2, 2, 3])
    coalition = frozenset(rng.sample(range(PLAYERS), size))
    no_direct = {0} | {p for p in range(1, PLAYERS) if rng.random() < 0.2}
    cuts = []
    for _ in range(rng.choice([0, 0, 1, 2, 3])):
        if rng.random() < 0.5:
            link: tuple = ("host", rng.randrange(PLAYERS))
            if link[1] == 0 and 0 not in coalition:
                continue  # the host's own seat is in its process: its link cannot be cut
        else:
            p, q = sorted(rng.sample(range(1, PLAYERS), 2))
            link = ("direct", p, q)
        start = rng.uniform(0, 3 * DEADLINE)
        cuts.append((start, start + rng.uniform(0.1, DEADLINE / 4), link))
    paths: dict[int, frozenset[Path] | None] = {}
    for member in coalition:
        if rng.random() < 0.4:
            options: list[Path] = [HOST, *[p for p in range(PLAYERS) if p != member]]
            paths[member] = frozenset(rng.sample(options, rng.randrange(len(options) + 1)))
        else:
            paths[member] = None
    attacks = {a for a in ("equivocate", "out_of_turn", "junk", "replay", "silent")
               if coalition and rng.random() < 0.3}
    return Schedule(
        seed=seed, coalition=coalition, no_direct=frozenset(no_direct),
        max_delay=rng.choice([0.01, 0.05, 0.2, 0.5]), cuts=cuts, paths=paths,
        drop=rng.choice([0.0, 0.0, 0.2, 0.6]) if coalition else 0.0,
        duplicate=rng.choice([0.0, 0.3]) if coalition else 0.0,
        hold=rng.choice([0.0, 1.0, DEADLINE / 2, 1.5 * DEADLINE]) if coalition else 0.0,
        attacks=frozenset(attacks),
        equivocate_at=rng.randrange(1, STOP_AT) if "equivocate" in attacks else None)


# -- the seeded table, made once ------------------------------------------------------

@dataclass(frozen=True)
class Seating:
    identities: list[Any]
    config: dict[str, int]
    nonce: bytes


_SEATING: Seating | None = None


def seating() -> Seating:
    """The four seeded identities and the lobby's settings (the same every run)."""
    global _SEATING
    if _SEATING is None:
        identities = [seeded_identity(20, f"p{i}", f"p{i}") for i in range(PLAYERS)]
        config = games.by_name("topper").config_to_wire(TopperConfig(target_score=3))
        _SEATING = Seating(identities, config, SeededRng(b"sim genesis")(32))
    return _SEATING


def _lobby(identities: list[Any], config: dict[str, int]) -> Lobby:
    return Lobby(identities[0], "topper", {**config, "move_time": int(DEADLINE)}, "sim")


# -- the run --------------------------------------------------------------------------

@dataclass
class Peer:
    player: int
    honest: bool
    rules: SessionRules
    table: Table
    verdict: Verdict | None = None
    verdict_at: float | None = None
    #: Each message given to the rules: (raw, the table's next position then, ended then).
    received: list[tuple[bytes, int, bool]] = field(default_factory=list)
    wakes: set[float] = field(default_factory=set)
    #: When this peer accepted the message at each position.
    accepted_at: dict[int, float] = field(default_factory=dict)
    written: dict[int, bytes] = field(default_factory=dict)
    #: Its table met a message signed with its own key that it did not write (a
    #: coalition member's other version coming back): it stops, as PeerSession does.
    stopped: bool = False


class Simulation:
    """One schedule's run (see the module docstring)."""

    def __init__(self, schedule: Schedule) -> None:
        self.schedule = schedule
        self.rng = random.Random(schedule.seed * 7919 + 1)
        self.now = 0.0
        self._heap: list[tuple[float, int, Callable[[], None]]] = []
        self._seq = 0
        self._fifo: dict[tuple[Node, Node], float] = {}
        self._epoch: dict[tuple, int] = {}
        self.events = 0
        #: Signed evidence the coalition made: ("equivocation", player, position, a, b)
        #: and ("out_of_turn", player, position, raw).
        self.evidence: list[tuple] = []
        seat = seating()
        self.identities = seat.identities
        lobby = _lobby(self.identities, seat.config)
        self.relay = Relay(lobby, seat.nonce, clock=lambda: self.now)
        for player in range(PLAYERS):
            self.relay.connected(player, self.identities[player].public_key)
        genesis = None
        for player in range(PLAYERS):
            for out in self.relay.frame(player, self._hello(player, 0, b"")):
                if isinstance(out, (RelaySend, Broadcast)) and genesis is None:
                    frame = frames.decode(out.frame)
                    if frame.kind == "msg":
                        genesis = frame.body
        assert genesis is not None, "the relay made no genesis"
        self.peers: list[Peer] = []
        for player in range(PLAYERS):
            table = Table(genesis, self.identities[player],
                          randomness=randomness_for(20, f"sim seat{player}"))
            rules = SessionRules(DEADLINE)
            rules.host_up = True
            peer = Peer(player, player not in schedule.coalition, rules, table)
            self.peers.append(peer)
        self.up: set[tuple] = {("host", p) for p in range(PLAYERS)}
        for p in range(PLAYERS):
            for q in range(p + 1, PLAYERS):
                if p not in schedule.no_direct and q not in schedule.no_direct:
                    self.up.add(("direct", p, q))
        for peer in self.peers:
            peer.rules.linked = {q for q in range(PLAYERS) if self._direct_up(peer.player, q)}
            self._run(peer, peer.rules.start(peer.table, 0.0))
        for start, end, link in schedule.cuts:
            self._at(start, lambda link=link: self._cut(link))
            self._at(end, lambda link=link: self._restore(link))

    # -- the clock ------------------------------------------------------------------

    def _at(self, when: float, action: Callable[[], None]) -> None:
        self._seq += 1
        heapq.heappush(self._heap, (when, self._seq, action))

    def run(self) -> Simulation:
        while self._heap and self.events < MAX_EVENTS:
            when, _, action = heapq.heappop(self._heap)
            if when > MAX_TIME or self._settled():
                break
            self.now = max(self.now, when)
            self.events += 1
            action()
        return self

    def _settled(self) -> bool:
        return all(p.table.next_position >= STOP_AT or p.verdict is not None
                   for p in self.peers if p.honest)

    # -- links --------------------------------------------------------------------

    def _hello(self, player: int, have: int, sid: bytes) -> bytes:
        return frames.encode("hello", {"v": PROTOCOL_VERSION, "name": f"p{player}", "sid": sid, "have": have,
                                       "bot": 0})

    def _direct_up(self, p: int, q: int) -> bool:
        return p != q and ("direct", min(p, q), max(p, q)) in self.up

    def _link_of(self, src: Node, dst: Node) -> tuple:
        if src == RELAY:
            return ("host", dst)
        if dst == RELAY:
            return ("host", src)
        assert isinstance(src, int) and isinstance(dst, int)
        return ("direct", min(src, dst), max(src, dst))

    def _cut(self, link: tuple) -> None:
        if link not in self.up:
            return
        self.up.discard(link)
        self._epoch[link] = self._epoch.get(link, 0) + 1
        if link[0] == "host":
            player = link[1]
            self.relay.disconnected(player)
            self._run(self.peers[player], self.peers[player].rules.host_link_down())
        else:
            for player in link[1:]:
                self._relink(self.peers[player])

    def _restore(self, link: tuple) -> None:
        if link in self.up:
            return
        self.up.add(link)
        self._epoch[link] = self._epoch.get(link, 0) + 1
        if link[0] == "host":
            peer = self.peers[link[1]]
            have = peer.table.next_position
            self.relay.connected(peer.player, self.identities[peer.player].public_key)
            self._relay_out(self.relay.frame(peer.player, self._hello(
                peer.player, have, peer.table.session)))
            self._run(peer, peer.rules.host_link_up(have))
        else:
            for player in link[1:]:
                self._relink(self.peers[player])

    def _relink(self, peer: Peer) -> None:
        linked = {q for q in range(PLAYERS) if self._direct_up(peer.player, q)}
        self._run(peer, peer.rules.direct_links(linked))

    # -- sending ------------------------------------------------------------------

    def _hostile(self, src: Node) -> bool:
        if src == RELAY:
            return 0 in self.schedule.coalition
        return src in self.schedule.coalition

    def send(self, src: Node, dst: Node, frame: bytes) -> None:
        """Put ``frame`` on the link from ``src`` to ``dst`` (lost if it is down)."""
        link = self._link_of(src, dst)
        if link not in self.up:
            return
        epoch = self._epoch.get(link, 0)
        copies = 1
        if self._hostile(src):
            if self.rng.random() < self.schedule.drop:
                return
            if self.rng.random() < self.schedule.duplicate:
                copies = 2
        for _ in range(copies):
            if self._hostile(src):
                when = self.now + self.rng.uniform(0, max(self.schedule.max_delay,
                                                          self.schedule.hold))
            else:
                # In order, as TCP delivers: never before the frame sent before it.
                when = max(self.now + self.rng.uniform(0, self.schedule.max_delay),
                           self._fifo.get((src, dst), 0.0))
                self._fifo[(src, dst)] = when
            self._at(when, lambda: self._deliver(src, dst, frame, link, epoch))

    def _deliver(self, src: Node, dst: Node, frame: bytes, link: tuple, epoch: int) -> None:
        if link not in self.up or self._epoch.get(link, 0) != epoch:
            return  # the link was cut while the frame was on it
        if dst == RELAY:
            assert isinstance(src, int)
            self._relay_out(self.relay.frame(src, frame))
        else:
            assert isinstance(dst, int)
            self._on_frame(self.peers[dst], HOST if src == RELAY else src, frame)

    def _relay_out(self, outputs: list[Any]) -> None:
        for out in outputs:
            if isinstance(out, RelaySend):
                self.send(RELAY, out.link, out.frame)
            elif isinstance(out, Broadcast):
                for player in range(PLAYERS):
                    if player != out.exclude and self.relay.hears(player):
                        self.send(RELAY, player, out.frame)
            elif isinstance(out, Close):
                self._cut(("host", out.link))

    def _send_path(self, peer: Peer, path: Path, frame: bytes) -> None:
        dst: Node = RELAY if path is HOST else path  # type: ignore[assignment]
        if not peer.honest and not self._may_use(peer, path, frame):
            return
        self.send(peer.player, dst, frame)

    def _may_use(self, peer: Peer, path: Path, frame: bytes) -> bool:
        """A coalition member sends its own transcript messages on chosen paths only."""
        allowed = self.schedule.paths.get(peer.player)
        if allowed is None:
            return True
        decoded = frames.decode(frame)
        if decoded.kind != "msg":
            return True
        return SignedMessage.parse(decoded.body).player != peer.player or path in allowed

    # -- a peer ---------------------------------------------------------------------

    def _on_frame(self, peer: Peer, path: Path, data: bytes) -> None:
        if peer.stopped:
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
            if isinstance(out, Send):
                self._send_path(peer, out.path, out.frame)
            elif isinstance(out, Emit):
                self._emit(peer, out.events)
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
        for event in events:
            if isinstance(event, TableEnded) and peer.verdict is None:
                peer.verdict, peer.verdict_at = event.verdict, self.now
                alert = peer.table.alert()
                if alert is not None:
                    for out in peer.rules.notice(alert):
                        self._send_path(peer, out.path, out.frame)

    def _schedule_wake(self, peer: Peer) -> None:
        when = peer.rules.wake_at()
        if math.isinf(when) or when in peer.wakes or peer.verdict is not None:
            return
        peer.wakes.add(when)
        self._at(when, lambda: self._wake(peer, when))

    def _wake(self, peer: Peer, when: float) -> None:
        peer.wakes.discard(when)
        if peer.verdict is not None or peer.stopped:
            return
        if peer.table.next_position >= STOP_AT:
            peer.rules.deadline_at = math.inf  # the simulated stage is over: nobody is waited for
        self._run(peer, peer.rules.tick(self.now))

    def _write(self, peer: Peer) -> None:
        if peer.stopped:
            return
        table = peer.table
        while (table.my_turn and peer.verdict is None and table.next_position < STOP_AT
               and table.next_position not in peer.written):
            position = table.next_position
            if not peer.honest and "silent" in self.schedule.attacks:
                peer.written[position] = b""
                return
            written = table.outgoing()
            if written is None:
                return
            peer.written[position] = written.raw
            self._emit(peer, written.events)
            for out in peer.rules.published(written.raw):
                self._send_path(peer, out.path, out.frame)
            if not peer.honest:
                self._attack(peer, written.raw)
            self._run(peer, peer.rules.progress(self.now))

    # -- the coalition's signed mischief ---------------------------------------------

    def _attack(self, peer: Peer, raw: bytes) -> None:
        msg = SignedMessage.parse(raw)
        attacks = self.schedule.attacks
        identity = self.identities[peer.player]
        targets: list[Path] = [HOST, *[q for q in range(PLAYERS) if q != peer.player]]
        if "equivocate" in attacks and msg.position == self.schedule.equivocate_at:
            body = {"key": bytes(32), "draw": SeededRng(b"other %d" % msg.position)(32)}
            other = seal(identity, session=msg.session, position=msg.position, prev=msg.prev,
                         player=peer.player, type=msg.type, body=body).raw
            self.evidence.append(("equivocation", peer.player, msg.position, raw, other))
            for path in self.rng.sample(targets, self.rng.randrange(1, len(targets) + 1)):
                self._send_raw(peer, path, other)
        if "out_of_turn" in attacks:
            n = msg.position + 1  # the next position, which someone else writes
            bad = seal(identity, session=msg.session, position=n, prev=msg.digest,
                       player=peer.player, type=msg.type, body=msg.body).raw
            self.evidence.append(("out_of_turn", peer.player, n, bad))
            at = self.now + self.rng.uniform(0, self.schedule.max_delay)
            for path in targets:
                self._at(at, lambda path=path: self._send_raw(peer, path, bad))
        if "junk" in attacks:
            victim = self.rng.choice([q for q in range(PLAYERS) if q != peer.player])
            forged = seal(identity, session=msg.session, position=msg.position + 1,
                          prev=msg.digest, player=victim, type=msg.type, body=msg.body).raw
            for path in targets:
                self._send_raw(peer, path, forged)  # signed by the wrong key: names nobody
        if "replay" in attacks:
            for old in peer.table.transcript()[: self.rng.randrange(1, msg.position + 1)]:
                self._send_raw(peer, self.rng.choice(targets), old)

    def _send_raw(self, peer: Peer, path: Path, raw: bytes) -> None:
        dst: Node = RELAY if path is HOST else path  # type: ignore[assignment]
        self.send(peer.player, dst, frames.encode("msg", raw))

    # -- reachability ------------------------------------------------------------------

    def blackout(self, a: int, b: int, until: float) -> float:
        """The longest time before ``until`` that no path of honest nodes and up
        links (the schedule's cuts) joined players ``a`` and ``b``."""
        marks = sorted({0.0, until, *(t for s, e, _ in self.schedule.cuts for t in (s, e)
                                       if t < until)})
        longest, start = 0.0, None
        for left, right in zip(marks, marks[1:], strict=False):
            if self._joined(a, b, (left + right) / 2):
                start = None
            else:
                start = left if start is None else start
                longest = max(longest, right - start)
        return longest

    def _joined(self, a: int, b: int, t: float) -> bool:
        down = {link for s, e, link in self.schedule.cuts if s <= t < e}
        base = {("host", p) for p in range(PLAYERS)} | {
            ("direct", p, q) for p in range(PLAYERS) for q in range(p + 1, PLAYERS)
            if p not in self.schedule.no_direct and q not in self.schedule.no_direct}
        honest = {p.player for p in self.peers if p.honest}
        nodes: set[Node] = set(honest) | ({RELAY} if 0 in honest else set())
        edges = [link for link in base - down
                 if all(n in nodes for n in self._ends(link))]
        reached, frontier = {a}, [a]
        while frontier:
            node = frontier.pop()
            for link in edges:
                ends = self._ends(link)
                if node in ends:
                    for other in ends:
                        if other not in reached:
                            reached.add(other)
                            frontier.append(other)
        return b in reached

    @staticmethod
    def _ends(link: tuple) -> tuple[Node, ...]:
        return (link[1], RELAY) if link[0] == "host" else (link[1], link[2])

    def host_link_cut_near(self, player: int, until: float) -> bool:
        """Whether ``player``'s host link was cut in the last two deadlines before ``until``."""
        return any(link == ("host", player) and s <= until and e >= until - 3 * DEADLINE
                   for s, e, link in self.schedule.cuts)


# -- judging ---------------------------------------------------------------------------

@dataclass
class Outcome:
    schedule: Schedule
    failures: list[str]
    cascades: int
    churn: int
    #: Cascades from a coalition message timed to the end of a window (see _raced).
    races: int
    verdicts: dict[int, Verdict | None]
    events: int


def judge(sim: Simulation) -> Outcome:
    """Properties (a) and (b) of the module docstring, over one finished run."""
    failures: list[str] = []
    cascades = churn = races = 0
    honest = [p for p in sim.peers if p.honest]
    churned = {p.player for p in honest if _churn(sim, p)}
    for peer in honest:
        verdict = peer.verdict
        if verdict is None or peer.player in churned:
            churn += peer.player in churned
            continue
        for named in verdict.players:
            if named in sim.schedule.coalition:
                continue
            other = sim.peers[named]
            assert peer.verdict_at is not None
            if sim.blackout(named, peer.player, peer.verdict_at) >= DEADLINE:
                continue
            cascade = other.verdict_at is not None and other.verdict_at <= peer.verdict_at
            if cascade and named in churned:
                churn += 1  # the named player stopped by the link-churn rule
                continue
            if cascade and _raced(sim, peer, other):
                races += 1
                continue
            cascades += cascade
            failures.append(f"(a) player {peer.player} named honest player {named}"
                            f"{' (a cascade)' if cascade else ''}: {verdict.rule} "
                            f"{verdict.detail!r} at {peer.verdict_at:.2f}")
    for kind, player, position, *halves in sim.evidence:
        for peer in honest:
            if not _received_all(peer, halves, position, kind):
                continue
            verdict = peer.verdict
            if verdict is None or player not in verdict.players or not verdict.evidence:
                failures.append(f"(b) player {peer.player} received the {kind} of player "
                                f"{player} at {position} and named {verdict and verdict.players}")
    for peer in honest:
        if peer.stopped:  # only its own key can sign for it: the coalition cannot stop it
            failures.append(f"(c) honest player {peer.player}'s table met a message signed "
                            f"with its own key that it did not write")
    return Outcome(sim.schedule, failures, cascades, churn, races,
                   {p.player: p.verdict for p in sim.peers}, sim.events)


def _churn(sim: Simulation, peer: Peer) -> bool:
    """Whether ``peer``'s verdict is the link-churn rule's: the host named because
    this peer's own host link was cut during the wait (no direct link up)."""
    verdict = peer.verdict
    return (verdict is not None and peer.verdict_at is not None and verdict.players == (0,)
            and "dropped our link" in verdict.detail
            and sim.host_link_cut_near(peer.player, peer.verdict_at))


def _raced(sim: Simulation, accuser: Peer, named: Peer) -> bool:
    """Whether ``named`` (honest) ended naming a coalition writer for lateness at
    a position whose message ``accuser`` accepted too late to reach ``named``
    before its window closed (after it, less than two hops before it, or with no
    honest path up from then on): the coalition timed it to the window's end. Inherent in
    any clock: the writer was late for one honest peer and in time for another."""
    verdict = named.verdict
    if verdict is None or verdict.rule != "deadline" or named.verdict_at is None:
        return False
    if not set(verdict.players) <= sim.schedule.coalition:
        return False
    accepted = accuser.accepted_at.get(verdict.position)
    if accepted is None:
        return False
    if named.verdict_at - accepted < 2 * sim.schedule.max_delay + 1e-9:
        return True  # also when it came after the named player's verdict
    return all(not sim._joined(accuser.player, named.player, t)
               for t in (accepted, (accepted + named.verdict_at) / 2, named.verdict_at))


def _received_all(peer: Peer, halves: list[bytes], position: int, kind: str) -> bool:
    """Whether ``peer``'s open table could judge the evidence: for an equivocation,
    the half it did not keep at ``position`` arrived once it held the other; for
    out of turn, the message arrived when ``position`` was next and it built on
    the message this peer holds before it."""
    transcript = peer.table.transcript()
    if kind == "out_of_turn":
        raw = halves[0]
        if len(transcript) < position:
            return False
        prev = SignedMessage.parse(raw).prev
        if SignedMessage.parse(transcript[position - 1]).digest != prev:
            return False
        return any(r == raw and at == position and not ended for r, at, ended in peer.received)
    if len(transcript) <= position or transcript[position] not in halves:
        return False
    other = halves[1] if transcript[position] == halves[0] else halves[0]
    return any(r == other and at > position and not ended for r, at, ended in peer.received)


def run_seed(seed: int) -> Outcome:
    return judge(Simulation(schedule_for(seed)).run())


def run_schedule(schedule: Schedule) -> Outcome:
    return judge(Simulation(schedule).run())
