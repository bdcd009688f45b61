"""A table of four in one process, one of whom may be hostile.

Why a harness of its own: every attack in this suite needs the same things,
an honest table brought to the exact point of its life where the attack
applies, a way to make the hostile player's next message say or do
something else (or to several peers something different), and the same
checks afterwards. The tables pass messages directly, as the smoke run
does, which keeps a whole Bluff deal near one second; the network harness
(:mod:`netbench`) drives real hosts and peer sessions where links matter.

* :class:`Bench`: four :class:`Table` objects (plus a silent observer, a
  third party's verifier) passing signed messages directly. Everything is
  reproducible: identities, genesis nonce, every peer's randomness and every
  bot's choice come from one seed.
* :class:`Hostile`: one player whose every outgoing message goes through a
  list of :class:`Rule` objects (by stage, message type, position) that may
  alter, corrupt, replace, drop, delay (so reorder), duplicate or equivocate it. It
  signs what it builds with its own key: a cheater, not only a bad wire.
* :class:`Recording`: one honest match per game and seed, with cached
  snapshots, so that a test can start from "the first shuffle by seat 2"
  without replaying the match in front of it.
* :func:`assert_verdict`, :func:`assert_untouched`: the checks every attack
  ends with (blame, unchanged state, equal transcripts, offline replay,
  evidence that re-checks).
"""

from __future__ import annotations

import contextlib
import copy
import copyreg
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from p2pcards.app.insecure_seed import randomness_for, seeded_identity
from p2pcards.bots.agent import make_bot_factory
from p2pcards.crypto.group import Point, Scalar
from p2pcards.crypto.seeded import SeededRng
from p2pcards.protocol import game_wire
from p2pcards.protocol.envelope import NOTICE_TYPES, SignedMessage, seal, seal_notice
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.events import TableEvent
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.lobby import Lobby
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_errors import Gap
from p2pcards.protocol.table_records import Stage, Written
from p2pcards.protocol.verdict import Verdict
from p2pcards.protocol.verify import verify_transcript
from p2pcards.rules.bluff import BluffConfig
from p2pcards.rules.topper import TopperConfig
from p2pcards.wiremap import WireMap
from tests.support.typed import present

PLAYERS = 4

#: Short matches: one Bluff deal, Topper to three points.
SHORT_CONFIGS: dict[str, Any] = {
    "bluff": BluffConfig(deal_cap=1),
    "topper": TopperConfig(target_score=3),
}

#: A recording keeps a snapshot at every stage change and every this many positions.
SNAPSHOT_EVERY = 8

#: Upper bound on the messages of any short match (a loop guard, not a rule).
MAX_STEPS = 3000


# -- cloning tables ------------------------------------------------------------------


def _rebuild(cls: type, raw: bytes) -> Any:
    return cls._wrap(raw)  # type: ignore[attr-defined]


def _immutable_parts(obj: Any) -> list[Any]:
    """Signed messages a bench or table holds: never changed, so shared, not copied."""
    tables = obj.tables + [obj.observer] if isinstance(obj, Bench) else [obj] if isinstance(obj, Table) else []
    return [m for t in tables for m in t.messages]


T = TypeVar("T")


def clone(obj: T) -> T:
    """A deep copy of tables and benches.

    Points and scalars refuse attribute assignment (they are immutable), so
    ``copy.deepcopy`` cannot rebuild them by itself; for the duration of the
    copy they are reduced to their bytes. The registration is removed again
    so that nothing else in the process sees it. Signed messages are shared
    between the copies: nothing changes them once parsed.
    """
    saved = {cls: copyreg.dispatch_table.get(cls) for cls in (Point, Scalar)}
    try:
        for cls in (Point, Scalar):
            copyreg.dispatch_table[cls] = lambda v, cls=cls: (_rebuild, (cls, v.to_bytes()))  # type: ignore[misc]
        return copy.deepcopy(obj, {id(m): m for m in _immutable_parts(obj)})
    finally:
        for cls, previous in saved.items():
            if previous is None:
                copyreg.dispatch_table.pop(cls, None)
            else:
                copyreg.dispatch_table[cls] = previous


def genesis_nonce_for(seed: int) -> bytes:
    """The genesis nonce of the bench (and of the network bench) for ``seed``."""
    return SeededRng(f"genesis {seed}".encode())(32)


# -- what a hostile player can do with one of its messages ------------------------------


@dataclass(frozen=True)
class Outgoing:
    """A message the hostile player's own table just wrote, before anyone sees it."""

    raw: bytes
    message: SignedMessage
    stage: Stage
    player: int
    seat: int | None

    @property
    def position(self) -> int:
        return self.message.position

    @property
    def type(self) -> str:
        return self.message.type


@dataclass(frozen=True)
class Delivery:
    """Bytes to hand to some players (``to=None``: every other player and the observer)."""

    raw: bytes
    to: tuple[int, ...] | None = None


@dataclass(frozen=True)
class When:
    """Which of the hostile player's messages a rule applies to (None: any)."""

    stage: Stage | None = None
    type: str | None = None
    position: int | None = None
    deck: int | None = None
    skip: int = 0
    """Let this many matching messages through untouched first."""

    def matches(self, out: Outgoing, deck: int | None) -> bool:
        return ((self.stage is None or out.stage is self.stage)
                and (self.type is None or out.type == self.type)
                and (self.position is None or out.position == self.position)
                and (self.deck is None or deck == self.deck))


#: An action turns the hostile player's message into what is actually sent.
Action = Callable[[Outgoing, "Bench"], list[Delivery]]


@dataclass
class Rule:
    when: When
    action: Action
    once: bool = True
    seen: int = 0
    fired: int = 0


class Hostile:
    """The rules one player applies to its own outgoing messages."""

    def __init__(self, player: int, *rules: Rule) -> None:
        self.player = player
        self.rules = list(rules)
        self.held: list[tuple[int, Delivery]] = []
        """Deliveries waiting for ``n`` more steps of the table (delays, reorders)."""

    def apply(self, out: Outgoing, bench: Bench) -> list[Delivery]:
        deck = bench.reference.deal.number if bench.reference.deal is not None else None
        for rule in self.rules:
            if rule.once and rule.fired:
                continue
            if not rule.when.matches(out, deck):
                continue
            rule.seen += 1
            if rule.seen <= rule.when.skip:
                continue
            rule.fired += 1
            return rule.action(out, bench)
        return [Delivery(out.raw)]

    def release(self) -> list[Delivery]:
        """Age the held deliveries by one step; return those that are due."""
        due = [delivery for left, delivery in self.held if left <= 1]
        self.held = [(left - 1, delivery) for left, delivery in self.held if left > 1]
        return due


def drop(out: Outgoing, bench: Bench) -> list[Delivery]:
    """Send nothing."""
    return []


def duplicate(times: int = 2) -> Action:
    def act(out: Outgoing, bench: Bench) -> list[Delivery]:
        return [Delivery(out.raw)] * times
    return act


def delay(steps: int) -> Action:
    """Hold the message until ``steps`` further messages went out (a reorder
    when the hostile player writes those itself)."""
    def act(out: Outgoing, bench: Bench) -> list[Delivery]:
        present(bench.hostile).held.append((steps, Delivery(out.raw)))
        return []
    return act


def corrupt(mutate: Callable[[bytes], bytes]) -> Action:
    """Change the bytes on the wire (the signature no longer covers them)."""
    def act(out: Outgoing, bench: Bench) -> list[Delivery]:
        return [Delivery(mutate(out.raw))]
    return act


def alter(change: Callable[[WireMap, Outgoing, Bench], WireMap]) -> Action:
    """Change the body and sign the result with the hostile player's own key."""
    def act(out: Outgoing, bench: Bench) -> list[Delivery]:
        body = change(copy.deepcopy(out.message.body), out, bench)
        return [Delivery(bench.forge(out.type, body, position=out.position,
                                     prev=out.message.prev))]
    return act


def replace(build: Callable[[Outgoing, Bench], bytes]) -> Action:
    """Send something else entirely (``build`` may sign with the hostile key via ``forge``)."""
    def act(out: Outgoing, bench: Bench) -> list[Delivery]:
        return [Delivery(build(out, bench))]
    return act


def equivocate(other: Callable[[WireMap, Outgoing, Bench], WireMap], to_other: Sequence[int]) -> Action:
    """Send the honest message to some players and a second, differently signed
    one for the same position to ``to_other``."""
    def act(out: Outgoing, bench: Bench) -> list[Delivery]:
        body = other(copy.deepcopy(out.message.body), out, bench)
        second = bench.forge(out.type, body, position=out.position, prev=out.message.prev)
        rest = tuple(p for p in bench.others(out.player) if p not in to_other)
        return [Delivery(out.raw, rest + ("observer",)), Delivery(second, tuple(to_other))]  # type: ignore[operator]
    return act


# -- the bench ---------------------------------------------------------------------------------


@dataclass
class Received:
    """What one peer's table said about one message it was given."""

    raw: bytes = field(repr=False)
    events: list[TableEvent] = field(default_factory=list)
    error: ProtocolError | None = None


class Bench:
    """Four players and an observer passing messages directly, reproducibly."""

    def __init__(self, game: str, seed: int = 1, config: Any = None,
                 bot_kind: str = "heuristic", genesis_nonce: bytes | None = None) -> None:
        self.game = game
        self.seed = seed
        rules = game_wire.by_name(game)
        self.config = SHORT_CONFIGS[game] if config is None else config
        self.identities = [seeded_identity(seed, f"p{i}", f"p{i}") for i in range(PLAYERS)]
        lobby = Lobby(self.identities[0], game, rules.config_to_wire(self.config), "hostile")
        for identity in self.identities[1:]:
            lobby.join(identity.public_key, identity.name)
        nonce = genesis_nonce if genesis_nonce is not None else genesis_nonce_for(seed)
        self.genesis = lobby.genesis(nonce).raw
        self.tables = [Table(self.genesis, identity, randomness=randomness_for(seed, f"seat{i}"))
                       for i, identity in enumerate(self.identities)]
        self.observer = Table(self.genesis)
        self.bot_factory = make_bot_factory(game, bot_kind)
        self.hostile: Hostile | None = None
        #: Every frame given to each peer's ``Table.receive`` (and the observer's).
        self.inbox: dict[Any, list[bytes]] = {p: [] for p in (*range(PLAYERS), "observer")}
        #: Messages a peer could not place yet (a gap), retried after each delivery.
        self.parked: dict[Any, list[bytes]] = {p: [] for p in (*range(PLAYERS), "observer")}
        self.log: list[tuple[Any, Received]] = []
        self.steps = 0

    # -- who is who ---------------------------------------------------------

    def set_hostile(self, player: int, *rules: Rule) -> Hostile:
        self.hostile = Hostile(player, *rules)
        return self.hostile

    @property
    def hostile_player(self) -> int | None:
        return None if self.hostile is None else self.hostile.player

    @property
    def honest(self) -> list[int]:
        return [p for p in range(PLAYERS) if p != self.hostile_player]

    @property
    def reference(self) -> Table:
        """An honest peer's table: what the honest majority believes."""
        return self.tables[self.honest[0]]

    @property
    def writer(self) -> int | None:
        return self.reference.writer

    def others(self, player: int) -> tuple[int, ...]:
        return tuple(p for p in range(PLAYERS) if p != player)

    def table_of(self, who: Any) -> Table:
        return self.observer if who == "observer" else self.tables[who]

    def seat_of(self, player: int) -> int:
        return self.reference.seat_of(player)

    def player_at(self, seat: int) -> int:
        return present(self.reference.player_at_seat)[seat]

    # -- writing --------------------------------------------------------------

    def choose(self, table: Table) -> Any:
        bot = self.bot_factory(random.Random(f"{self.seed}:{table.next_position}"))
        return bot.choose(table.view())

    def produce(self, player: int) -> Written:
        """What ``player``'s own table writes next (a crypto step or its bot's action)."""
        table = self.tables[player]
        written = table.outgoing()
        if written is None:
            written = table.act(self.choose(table))
        return written

    def peek(self, player: int | None = None) -> SignedMessage:
        """The message ``player`` (default: the writer) would write now, without writing it."""
        player = present(self.writer if player is None else player, "a writer")
        return SignedMessage.parse(clone(self).produce(player).raw)

    def forge(self, mtype: str, body: WireMap, *, position: int | None = None,
              prev: bytes | None = None, player: int | None = None,
              session: bytes | None = None, identity: Identity | None = None) -> bytes:
        """A message built and signed by a player (default: the hostile one, with
        its own key), for the honest peers' next position unless told otherwise.
        A notice type (``leave``, ``alert``) is signed as a notice."""
        player = present(self.hostile_player if player is None else player, "the player who signs")
        ref = self.reference
        sealer = seal_notice if mtype in NOTICE_TYPES else seal
        return sealer(identity or self.identities[player],
                    session=ref.session if session is None else session,
                    position=ref.next_position if position is None else position,
                    prev=ref.head if prev is None else prev,
                    player=player, type=mtype, body=body).raw

    # -- delivering ------------------------------------------------------------

    def deliver(self, raw: bytes, to: Iterable[Any] | None = None,
                sender: int | None = None) -> dict[Any, Received]:
        """Give ``raw`` to each recipient's ``Table.receive``; a gap parks it."""
        if to is None:
            to = [p for p in (*range(PLAYERS), "observer") if p != sender]
        results = {}
        for who in to:
            results[who] = self._receive(who, raw)
            self._unpark(who)
        return results

    def _receive(self, who: Any, raw: bytes) -> Received:
        table = self.table_of(who)
        self.inbox[who].append(raw)
        try:
            result = Received(raw, table.receive(raw))
        except Gap as gap:
            self.parked[who].append(raw)
            result = Received(raw, error=gap)
        except ProtocolError as error:
            result = Received(raw, error=error)
        self.log.append((who, result))
        return result

    def _unpark(self, who: Any) -> None:
        table = self.table_of(who)
        for _ in range(len(self.parked[who]) + 1):
            ready = [raw for raw in self.parked[who]
                     if SignedMessage.parse(raw).position == table.next_position]
            if not ready or table.stage is Stage.ENDED:
                return
            self.parked[who].remove(ready[0])
            self._receive(who, ready[0])

    def send_alerts(self) -> None:
        """Every ended peer tells the others (as a peer session does), until quiet."""
        told: set[Any] = set()
        for _ in range(PLAYERS + 1):
            news = [p for p in range(PLAYERS) if p not in told
                    and self.tables[p].verdict is not None and p != self.hostile_player]
            if not news:
                return
            for player in news:
                told.add(player)
                notice = present(self.tables[player].alert())
                for who in (*self.others(player), "observer"):
                    with contextlib.suppress(ProtocolError):
                        self.table_of(who).receive_alert(notice)

    # -- playing ----------------------------------------------------------------

    def step(self) -> None:
        """One message of the table: the writer writes, the hostile rules apply."""
        writer = self.writer
        if writer is None:
            raise RuntimeError("nobody may write: the table is over or ended")
        written = self.produce(writer)
        due = self.hostile.release() if self.hostile is not None else []
        deliveries = [Delivery(written.raw)]
        if self.hostile is not None and writer == self.hostile.player:
            # The honest peers have not seen it yet: their stage is the one it was written in.
            out = Outgoing(written.raw, SignedMessage.parse(written.raw), self.reference.stage,
                           writer, self.tables[writer].my_seat)
            deliveries = self.hostile.apply(out, self)
        for delivery in deliveries + due:
            self.deliver(delivery.raw, delivery.to, sender=writer)
        self.steps += 1

    def run(self, until: Callable[[Bench], bool] = lambda b: False,
            max_steps: int = MAX_STEPS) -> Bench:
        """Step until ``until`` holds, nobody may write, or the bound is hit."""
        for _ in range(max_steps):
            if until(self) or self.writer is None:
                return self
            self.step()
        raise AssertionError(f"no end after {max_steps} steps")

    def finish(self) -> Bench:
        return self.run()

    # -- looking -----------------------------------------------------------------

    def transcripts(self, players: Iterable[Any] | None = None) -> list[list[bytes]]:
        who = self.honest + ["observer"] if players is None else list(players)
        return [self.table_of(p).transcript() for p in who]


# -- one honest match per seed, with snapshots ------------------------------------------


@dataclass(frozen=True)
class Step:
    """What an honest run did at one position."""

    position: int
    stage: Stage
    player: int
    seat: int | None
    type: str
    deck: int | None
    phase: Any


class Recording:
    """An honest match played once; :meth:`bench_at` clones it at any position."""

    def __init__(self, game: str, seed: int = 1, config: Any = None) -> None:
        self.game, self.seed, self.config = game, seed, config
        bench = Bench(game, seed, config)
        self._snapshots: dict[int, Bench] = {}
        self.steps: list[Step] = []
        last_stage = None
        for _ in range(MAX_STEPS):
            writer = bench.writer
            if writer is None:
                break
            ref = bench.reference
            if ref.stage is not last_stage or ref.next_position % SNAPSHOT_EVERY == 0:
                self._snapshots[ref.next_position] = clone(bench)
                last_stage = ref.stage
            phase = getattr(ref.engine, "phase", None) if ref.stage is Stage.PLAY else None
            stage, deck = ref.stage, ref.deal.number if ref.deal is not None else None
            seat = ref.seat_of(writer) if ref.player_at_seat is not None else None
            position = ref.next_position
            bench.step()
            msg = SignedMessage.parse(ref.transcript()[position])
            self.steps.append(Step(position, stage, writer, seat, msg.type, deck, phase))
        self.final = bench
        self.transcript = bench.reference.transcript()
        self.outcome = present(bench.reference.engine).outcome

    def find(self, predicate: Callable[[Step], bool], nth: int = 0) -> Step:
        hits = [s for s in self.steps if predicate(s)]
        if len(hits) <= nth:
            raise LookupError("the recorded match has no such step")
        return hits[nth]

    def bench_at(self, position: int) -> Bench:
        """A fresh copy of the honest table just before ``position`` is written."""
        if position not in self._snapshots:
            start = max(p for p in self._snapshots if p <= position)
            bench = clone(self._snapshots[start])
            bench.run(until=lambda b: b.reference.next_position >= position)
            self._snapshots[position] = bench
        return clone(self._snapshots[position])

    def bench_before(self, predicate: Callable[[Step], bool], nth: int = 0,
                     hostile: int | None = None) -> tuple[Bench, Step]:
        """The table just before the first step matching ``predicate``, with the
        writer of that step (or ``hostile``) made hostile."""
        step = self.find(predicate, nth)
        bench = self.bench_at(step.position)
        bench.set_hostile(step.player if hostile is None else hostile)
        return bench, step


_RECORDINGS: dict[tuple[str, int], Recording] = {}


def recording(game: str, seed: int = 1) -> Recording:
    """The shared honest recording of ``game`` for ``seed`` (built on first use)."""
    key = (game, seed)
    if key not in _RECORDINGS:
        _RECORDINGS[key] = Recording(game, seed)
    return _RECORDINGS[key]


# -- checks every attack ends with ---------------------------------------------------------


@dataclass(frozen=True)
class StateMark:
    """Everything of a table an attack must not change (its end aside)."""

    transcript: tuple[bytes, ...]
    engine: Any
    deck: tuple[Any, ...]
    shares: tuple[Any, ...]
    revealed: tuple[Any, ...]
    hand: tuple[Any, ...]
    counters: tuple[Any, ...]


def mark(table: Table) -> StateMark:
    deal = table.deal
    engine = table.engine.copy() if table.engine is not None else None
    if deal is None:
        deck = shares = revealed = counters = ()
    else:
        deck = tuple((c.c1.to_bytes(), c.c2.to_bytes()) for c in deal.deck)  # type: ignore[assignment]
        shares = tuple(tuple(sorted((s, v.point.to_bytes()) for s, v in slot.items()))  # type: ignore[assignment]
                       for slot in deal.public_shares)
        revealed = tuple(sorted(deal.revealed.items()))  # type: ignore[assignment]
        counters = (deal.number, deal.shuffles_done, deal.shares_done)  # type: ignore[assignment]
    return StateMark(tuple(table.transcript()), engine, deck, shares, revealed,
                     tuple(sorted(table.hand.items())), counters)


def marks(bench: Bench) -> dict[Any, StateMark]:
    return {p: mark(bench.table_of(p)) for p in (*bench.honest, "observer")}


def assert_untouched(bench: Bench, before: dict[Any, StateMark]) -> None:
    """The honest peers (and the observer) hold exactly what they held before."""
    for who, was in before.items():
        now = mark(bench.table_of(who))
        assert now == was, f"{who}: the attack changed this peer's state"


def assert_transcripts_valid(bench: Bench, verdict: Verdict | None = None,
                             who: Iterable[Any] | None = None) -> None:
    """Honest transcripts are equal, and an offline verifier replays them."""
    transcripts = bench.transcripts(who)
    assert all(t == transcripts[0] for t in transcripts), "honest transcripts differ"
    report = verify_transcript(transcripts[0], verdict)
    assert report.problem is None, report.problem
    if verdict is not None:
        assert report.ok
        if verdict.provable:
            assert report.verdict_confirmed is True, "the verdict's evidence does not re-check"
        else:
            assert report.verdict_confirmed is None


def assert_verdict(bench: Bench, rule: str, players: Sequence[int], position: int | None = None,
                   before: dict[Any, StateMark] | None = None, provable: bool = True,
                   who: Iterable[Any] | None = None) -> Verdict:
    """Every honest peer (and the observer) ended the table with this verdict;
    nothing was appended; the verdict re-checks offline."""
    who = list(bench.honest) + ["observer"] if who is None else list(who)
    verdicts = []
    for p in who:
        table = bench.table_of(p)
        assert table.stage is Stage.ENDED, f"{p}: table not ended (stage {table.stage})"
        v = table.verdict
        assert v is not None, f"{p}: no verdict"
        assert v.rule == rule, f"{p}: rule {v.rule!r} ({v.detail}), expected {rule!r}"
        assert tuple(v.players) == tuple(players), f"{p}: blamed {v.players}, expected {players}"
        if position is not None:
            assert v.position == position, f"{p}: position {v.position}, expected {position}"
        assert v.provable is provable
        assert Verdict.from_wire(v.to_wire()) == v
        verdicts.append(v)
    # The detail may name a different bad item (each peer stops at the first it checks).
    same = {(v.rule, v.players, v.position, v.evidence) for v in verdicts}
    assert len(same) == 1, "honest peers reached different verdicts"
    if before is not None:
        for p in who:
            was = before[p]
            now = mark(bench.table_of(p))
            assert now == was, f"{p}: the rejected message changed this peer's state"
    assert_transcripts_valid(bench, verdicts[0], who)
    return verdicts[0]


def assert_dropped(bench: Bench, results: dict[Any, Received], error: type,
                   before: dict[Any, StateMark]) -> None:
    """Every honest peer refused the bytes with ``error``, blamed nobody, kept its state."""
    for who in (*bench.honest, "observer"):
        if who == bench.hostile_player:
            continue
        got = results[who].error
        assert isinstance(got, error), f"{who}: {got!r}, expected {error.__name__}"
        assert bench.table_of(who).stage is not Stage.ENDED
    assert_untouched(bench, before)


# -- bad encodings of crypto values ----------------------------------------------------------

_FIELD_PRIME = 2**255 - 19
_ORDER = 2**252 + 27742317777372353535851937790883648493
#: A point of order 8 (in the curve's torsion, outside the prime-order group).
ORDER_8_POINT = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")


def _mixed_order_point() -> bytes:
    import nacl.bindings as nb

    from p2pcards.crypto.group import G
    return nb.crypto_core_ed25519_add(G.to_bytes(), ORDER_8_POINT)


#: Point encodings a peer must refuse wherever a point is expected.
BAD_POINTS: dict[str, Any] = {
    "identity": b"\x01" + bytes(31),
    "order-2": (_FIELD_PRIME - 1).to_bytes(32, "little"),
    "order-8": ORDER_8_POINT,
    "mixed-order": _mixed_order_point(),
    "non-canonical": (_FIELD_PRIME + 1).to_bytes(32, "little"),
    "off-curve": (2).to_bytes(32, "little"),
    "short": bytes(31),
    "not-bytes": 7,
}

#: Scalar encodings a peer must refuse wherever a scalar is expected.
BAD_SCALARS: dict[str, Any] = {
    "zero": bytes(32),
    "order": _ORDER.to_bytes(32, "little"),
    "all-ones": b"\xff" * 32,
    "long": bytes(33),
}


def set_path(body: Any, path: Sequence[Any], value: Any) -> Any:
    """``body`` with the item at ``path`` (keys and indices) replaced; a copy."""
    body = copy.deepcopy(body)
    target = body
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return body
