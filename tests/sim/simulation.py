"""Deterministic simulation of a whole match: four session machines, a relay, an adversary.

Four :class:`~p2pcards.protocol.session.SessionRules` (one per player, each with
its seeded :class:`~p2pcards.protocol.table.Table`) and the host's
:class:`~p2pcards.protocol.relay.Relay` run over in-memory links whose delivery a
scheduler, seeded by one integer, decides: when each frame arrives, which links
are cut and restored, and what a coalition of up to three players (the host
included or not) does. Everything is sans-IO, so one schedule is a loop over a
heap of timed events; nothing sleeps.

The table plays a whole Topper match of one deal (``target 1, deals 1``): the
seating (four commits, four opens), four proven shuffles of the 24-card deck,
four ``shares`` messages (the private deal), the bidding, trump and 24 plays,
each play revealing its card with a proven share, and the match's end; a
schedule may stop earlier (:attr:`Schedule.stop_at`). Honest players choose a
legal action seeded by the position, so an undisturbed run writes the same
transcript every time.

With ``Schedule.game = "bluff"`` the table plays a short Bluff match instead
(:data:`BLUFF_CONFIG`: one deal, two chips a seat, a chip a pass, discards of
at most two cards; Bluff's deck is always the 52 cards): the seating, four
shuffles of the 52 cards, four ``shares``, then discards, passes and
challenges, each challenge answered by the discarder's ``show`` (the shares
that turn its face-down cards up), about 32 positions. Honest players choose a
kind of action first, then one of it, so challenges and shows happen. The
coalition's rule-breaking messages then include Bluff's own: a show whose
shares are on the wrong cards (or whose one share's proof fails), a show with
too few shares, and a discard of rank 1, with a stake above the stack or
naming a slot twice (``_broken``); ``Schedule.bad_type`` aims one at the
member's next message of a type.

*How the crypto stays affordable.* Every check is the real one (the table's own
shuffle, share and key-share checks), but it runs through :func:`memo_check`,
which remembers each check's result (pass or failure) by the check's key, a
hash of every byte it reads (``checks.Check.key``): a statement met again in
another schedule is not recomputed. The seeded tables' proofs are made once
per distinct input (:class:`_MemoDeal`: keyed on the deck, the key share and
the position's seed), since a seeded table makes the same shuffle of the same
deck whatever the delivery order. So a schedule pays only for the session
logic, signatures and what the coalition made new.

Honest links behave like TCP (in order, delayed by at most ``max_delay``, lost
only when cut); a coalition member's frames (and, with a hostile host, the
relay's) may be dropped, delayed, duplicated and reordered, sent on chosen
paths only, and joined by anything its members can sign: a second version of a
message at any of its positions (equivocation, a fork), a message out of turn,
a rule-breaking message sent instead of its own (a shuffle whose proof fails,
shares for the wrong cards, a bid above the maximum, a play of a card dealt to
another seat), frames with bad signatures, replays, withholding from some
position on.

Three properties are judged (:func:`judge`):

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
(b) a player that signs an equivocation, an out-of-turn or a rule-breaking
    message is named, with evidence, by every honest peer that received both
    halves of the evidence (for a single bad message, that message when its
    position was next on the history it extends) while its table was open, in
    a ``msg`` frame or in another peer's alert; and
    every verdict with evidence that an honest peer reaches is confirmed by
    :func:`p2pcards.protocol.evidence.check_verdict` on that peer's record
    (replayed as an observer, as ``p2pcards verify`` does);
(c) no honest peer's table meets a message signed with its own key that it did
    not write (only its own key can sign for it): a coalition member's table
    that meets its own other version stops, naming nobody, as PeerSession does.

A schedule may also kill one player's process and start it again from its
record (:attr:`Schedule.crash`, finding 3: ``join`` again resumes; one seeded
schedule in seven draws one), send a
next shuffler hundreds of bad-signature shuffles (finding 2), and let
spectators flood the relay with ``sync`` (finding 5).

*Hints* (:func:`hint_schedule_for`, ``tests/sim/test_hint_simulation.py``): with
``Schedule.hints`` the genesis allows the coach's hints (``config.hints = 1``) and
every player, before some of its moves (seeded by the position), signs a
``hint``; ``Schedule.hint_attack`` makes a coalition member break the hint rule
once (``HINT_ATTACKS``): a ``hint`` instead of its move at a table without
hints, a second ``hint`` right after its own, or a ``hint`` for the position
after its own move when another seat writes it. Each is ``single`` evidence
for property (b). Pauses likewise (:func:`pause_schedule_for`, ``Schedule.pauses``:
``config.away``; ``pause_attack``: an ``away`` with none left), and leaves
(:func:`leave_schedule_for`, ``Schedule.leave_at``: members sign their
``leave`` after forging leaves for the honest seats and replaying ones those
seats signed at another table).

*The evening* after a finished match (the end box's signed choices, the
relay's store of them, every count, the rematch's genesis and each joiner's
check of it) is simulated in ``tests/sim/evening.py``
(``tests/sim/test_evening_simulation.py``).

*Each verdict rule, checked both ways* (is the cheater caught? is no honest
player ever named?). "Caught" is a fixed schedule that asserts the rule and the
evidence; "never honest" is property (a) over the seeded sweeps that make the
message kind, every one of which also judges (b) on the coalition's evidence.

=====================  ===============================================  ==============================
verdict rule           cheater caught (test_*.py in tests/sim)           honest never named (sweeps)
=====================  ===============================================  ==============================
chain.equivocation     simulation: an_equivocation_is_named...;          every sweep (``equivocate``)
                       bluff: an_equivocating_show...
turn                   simulation: a_message_out_of_turn...;             every sweep (``out_of_turn``);
                       hint: a_hint_breach... (hint_out_of_turn)         hint sweeps
crypto                 simulation: a_bad_shuffle_or_bad_shares...;       every sweep (``bad``)
                       bluff: a_cheating_show_or_discard... (show)
rules.<game rule>      simulation: a_rule_breaking_action_in_play...;    every sweep (``bad``)
                       bluff: a_cheating_show_or_discard... (discard)
message.malformed      bluff: a_cheating_show_or_discard... (too few     every sweep (``bad``: a commit
                       shares, rank 1)                                   of the wrong shape)
table.hint             hint: a_hint_breach... (hint_off, hint_twice)     hint: seeded_matches_with_hints
table.away             pause: an_away_with_no_pause_left...              pause: seeded_matches_with_pauses
deadline               simulation: a_crash_that_outlasts_the_deadline;   every sweep (cuts, crashes,
                       sweeps (``silent``)                               ``silent``: the blackout rule)
left                   leave: a_leaver_is_named_left...                  leave: seeded_schedules_with_leaves
                                                                         (forged and replayed leaves)
=====================  ===============================================  ==============================

Names nobody (dropped, judged by (a) and (c)): ``message.signature`` and
``message.session`` (``junk``, fake shuffles: forged_and_replayed_frames_name_nobody,
hundreds_of_fake_shuffles...), ``chain.gap`` / ``chain.fork`` (reordering, forks);
the evening's refusals ``evening.again`` / ``evening.after`` / ``evening.rotation``
are no verdicts (``test_evening_simulation.py``).
"""

from __future__ import annotations

import hashlib
import heapq
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from p2pcards.app import seeded_identity
from p2pcards.crypto import checks
from p2pcards.crypto.errors import CryptoError
from p2pcards.crypto.seeded import SeededRng
from p2pcards.protocol import evidence, frames, game_wire
from p2pcards.protocol.dealing import DeckDeal, deck_key
from p2pcards.protocol.envelope import (
    PROTOCOL_VERSION,
    SignedMessage,
    SignedNotice,
    seal,
    seal_notice,
)
from p2pcards.protocol.errors import ProtocolError, SeatPlayedElsewhere
from p2pcards.protocol.events import TableEnded
from p2pcards.protocol.identity import Signer
from p2pcards.protocol.lobby import Lobby
from p2pcards.protocol.relay import Broadcast, Close, Relay
from p2pcards.protocol.relay import Send as RelaySend
from p2pcards.protocol.session import HOST, Check, Emit, Path, Send, SessionRules, Settle, Speculate
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_records import AWAY, HINT, SessionSecrets, Stage
from p2pcards.protocol.table_settings import HINTS, PAUSES
from p2pcards.protocol.verdict import Verdict
from p2pcards.rules.bluff import BluffConfig
from p2pcards.rules.topper import TopperConfig

PLAYERS = 4
#: The seating: the genesis, four commits and four opens.
SEATED = 9
DEADLINE = 10.0
#: The most events one schedule may run (every loop is bounded).
MAX_EVENTS = 400_000
#: Simulated seconds after which a schedule stops whatever happens.
MAX_TIME = 80 * DEADLINE
#: Spectators' relay links are numbered from here (players' are 0..3).
SPECTATOR_LINK = 100

RELAY = "relay"
Node = int | str

#: The coalition's attacks (see the module docstring).
ATTACKS = ("equivocate", "out_of_turn", "junk", "replay", "silent", "bad")

#: The games a schedule may play.
GAMES = ("topper", "bluff")
#: The short Bluff match: one deal, two chips each, a chip a pass, at most two
#: cards a discard (the deck is always the 52 cards: Bluff has no smaller one).
BLUFF_CONFIG = BluffConfig(table_price=1, starting_chips=2, deal_cap=1, max_discard=2)
#: Bluff messages a coalition member may replace with a rule-breaking one.
BLUFF_BAD_TYPES = ("show", "discard", "pass", "challenge")

#: The coalition's ``hint`` breaches (:attr:`Schedule.hint_attack`): a hint at a
#: table that allows none instead of its move, a second hint right after its own
#: hint, and a hint for the position after its own move when another seat writes it.
HINT_ATTACKS = ("hint_off", "hint_twice", "hint_out_of_turn")
#: The chance an honest player at a hints table asks the coach before a move.
HINT_CHANCE = 0.3
#: The chance a player with a pause left takes one before a move (``away``).
PAUSE_CHANCE = 0.1
#: The decisions a player makes in play (a hint may come before each of them).
ACTION_TYPES = frozenset({"bid", "pass", "trump", "play", "discard", "challenge"})


@dataclass
class Schedule:
    """What the adversary does in one run, drawn from ``seed`` (see :func:`schedule_for`)."""

    seed: int
    coalition: frozenset[int] = frozenset()
    #: The game played (``GAMES``).
    game: str = "topper"
    #: Players without direct links (seat 0, the host's own seat, never has any).
    no_direct: frozenset[int] = frozenset({0})
    max_delay: float = 0.2
    #: (start, end, link) with link ("host", p) or ("direct", p, q), p < q.
    cuts: list[tuple[float, float, tuple[Any, ...]]] = field(default_factory=list)
    #: Per coalition member: the paths it sends its own transcript messages on
    #: (None: all), and the chances it drops / duplicates a frame.
    paths: dict[int, frozenset[Path] | None] = field(default_factory=dict)
    drop: float = 0.0
    duplicate: float = 0.0
    #: The longest a coalition frame may be held back.
    hold: float = 0.0
    #: Attacks: see ``ATTACKS``.
    attacks: frozenset[str] = frozenset()
    #: The position a coalition member equivocates at (if its own), and the one
    #: at which it sends a rule-breaking message instead of its own (if its own).
    equivocate_at: int | None = None
    bad_at: int | None = None
    #: A coalition member that withholds (``silent``) writes nothing from here on.
    silent_from: int = 0
    #: The position a schedule stops at (None: the match's end).
    stop_at: int | None = None
    #: (player, down at, up at): its process is killed (``kill -9``), then started
    #: again from its record (finding 3).
    crash: tuple[int, float, float] | None = None
    #: Spectators asking the relay for the last 200 messages every ``flood`` s.
    spectators: int = 0
    flood: float = 0.005
    #: Bad-signature ``shuffle`` frames sent to the next shuffler (finding 2).
    fake_shuffles: int = 0
    #: With ``bad``: the rule-breaking message replaces the member's first message
    #: of this type at or after ``bad_at`` (None: the one at ``bad_at``, if its own).
    bad_type: str | None = None
    #: The genesis allows hints (``config.hints = 1``): honest players then sign a
    #: ``hint`` before some of their moves (seeded by the position, as their actions).
    hints: bool = False
    #: A coalition member's hint breach (``HINT_ATTACKS``), at its first own move
    #: in play at or after position ``hint_at`` (once a schedule).
    hint_attack: str | None = None
    hint_at: int = 0
    #: The pauses the genesis gives each player (``config.away``; 0: none): players
    #: then take one before some moves (seeded by the position).
    pauses: int = 0
    #: A coalition member writes ``away`` with no pause left instead of its first own
    #: move at or after ``hint_at`` that finds its pauses spent (taking them before).
    pause_attack: bool = False
    #: Coalition members leave (a signed ``leave`` notice to everyone) after their
    #: first own message at or after this position, each first sending, for every
    #: honest seat, a leave signed with its own key and one that seat signed at
    #: another table (neither may name that seat).
    leave_at: int | None = None

    def describe(self) -> str:
        return (f"game={self.game} seed={self.seed} coalition={sorted(self.coalition)} "
                f"no_direct={sorted(self.no_direct)} attacks={sorted(self.attacks)} "
                f"cuts={len(self.cuts)} drop={self.drop:.2f} hold={self.hold:.1f} "
                f"stop_at={self.stop_at} bad_at={self.bad_at} bad_type={self.bad_type}")


def schedule_for(seed: int, stop_at: int | None = None, game: str = "topper") -> Schedule:
    """The seeded schedule: a coalition of 0..3 players, cuts, delays, attacks, a crash,
    over the match's first ``stop_at`` positions (None: the whole match) of ``game``."""
    rng = random.Random(seed if game == "topper" else f"{game}/{seed}")
    size = rng.choice([0, 1, 1, 2, 2, 3])
    coalition = frozenset(rng.sample(range(PLAYERS), size))
    no_direct = {0} | {p for p in range(1, PLAYERS) if rng.random() < 0.2}
    span = 6 * DEADLINE if stop_at is not None and stop_at <= SEATED else 12 * DEADLINE
    last = stop_at if stop_at is not None else (45 if game == "topper" else 32)
    cuts = []
    for _ in range(rng.choice([0, 0, 1, 2, 3])):
        if rng.random() < 0.5:
            link: tuple[Any, ...] = ("host", rng.randrange(PLAYERS))
            if link[1] == 0 and 0 not in coalition:
                continue  # the host's own seat is in its process: its link cannot be cut
        else:
            p, q = sorted(rng.sample(range(1, PLAYERS), 2))
            link = ("direct", p, q)
        start = rng.uniform(0, span)
        cuts.append((start, start + rng.uniform(0.1, DEADLINE / 4), link))
    paths: dict[int, frozenset[Path] | None] = {}
    for member in coalition:
        if rng.random() < 0.4:
            options: list[Path] = [HOST, *[p for p in range(PLAYERS) if p != member]]
            paths[member] = frozenset(rng.sample(options, rng.randrange(len(options) + 1)))
        else:
            paths[member] = None
    attacks = {a for a in ATTACKS if coalition and rng.random() < 0.3}
    schedule = Schedule(
        seed=seed, coalition=coalition, no_direct=frozenset(no_direct),
        max_delay=rng.choice([0.01, 0.05, 0.2, 0.5]), cuts=cuts, paths=paths,
        drop=rng.choice([0.0, 0.0, 0.2, 0.6]) if coalition else 0.0,
        duplicate=rng.choice([0.0, 0.3]) if coalition else 0.0,
        hold=rng.choice([0.0, 1.0, DEADLINE / 2, 1.5 * DEADLINE]) if coalition else 0.0,
        attacks=frozenset(attacks),
        equivocate_at=rng.randrange(1, last) if "equivocate" in attacks else None,
        bad_at=rng.randrange(1, last) if "bad" in attacks else None,
        silent_from=rng.randrange(1, last) if "silent" in attacks else 0,
        stop_at=stop_at, game=game)
    # Drawn last: the draws above stay what they were before crashes were drawn.
    # A player's process (not the host's: its relay would go too) is killed and
    # started again from its record, sometimes after more than a deadline.
    if rng.random() < 0.15:
        down = rng.uniform(0, span)
        schedule.crash = (rng.randrange(1, PLAYERS), down, down + rng.uniform(0.5, 1.5 * DEADLINE))
    # Bluff's own cheats (a show with wrong or too few shares, a rule-breaking
    # discard): half of them aimed at the member's next message of that type.
    if game == "bluff" and schedule.bad_at is not None and rng.random() < 0.5:
        schedule.bad_type = rng.choice(BLUFF_BAD_TYPES)
        schedule.bad_at = rng.randrange(1, SEATED + 8)
    return schedule


def hint_schedule_for(seed: int, hints: bool = True, game: str = "topper") -> Schedule:
    """``schedule_for(seed)`` at a table whose genesis allows hints (or not), and,
    for half the schedules with a coalition, one of its hint breaches (a second
    hint only where hints are allowed, a hint at all only where they are not)."""
    schedule = schedule_for(seed, game=game)
    rng = random.Random(f"hints/{game}/{int(hints)}/{seed}")
    schedule.hints = hints
    if schedule.coalition and rng.random() < 0.5:
        schedule.hint_attack = rng.choice(("hint_twice" if hints else "hint_off",
                                           "hint_out_of_turn"))
        schedule.hint_at = rng.randrange(SEATED + 8, 32 if game == "topper" else 24)
        if rng.random() < 0.5:  # the hint breach alone, so that it is reached
            schedule.attacks, schedule.equivocate_at, schedule.bad_at = frozenset(), None, None
    return schedule


def pause_schedule_for(seed: int, pauses: int = 1, game: str = "topper") -> Schedule:
    """``schedule_for(seed)`` at a table whose genesis gives ``pauses`` pauses a
    player, and, for half the schedules with a coalition, its ``away`` with none
    left (``Schedule.pause_attack``), alone half of those times."""
    schedule = schedule_for(seed, game=game)
    rng = random.Random(f"pauses/{game}/{pauses}/{seed}")
    schedule.pauses = pauses
    if schedule.coalition and rng.random() < 0.5:
        schedule.pause_attack = True
        schedule.hint_at = rng.randrange(SEATED + 8, 32 if game == "topper" else 24)
        if rng.random() < 0.5:
            schedule.attacks, schedule.equivocate_at, schedule.bad_at = frozenset(), None, None
    return schedule


def leave_schedule_for(seed: int, game: str = "topper") -> Schedule:
    """``schedule_for(seed)`` in which, for schedules with a coalition, its members
    leave at a seeded position (``Schedule.leave_at``) after forging and replaying
    leaves for the honest seats."""
    schedule = schedule_for(seed, game=game)
    rng = random.Random(f"leave/{game}/{seed}")
    if schedule.coalition:
        schedule.leave_at = rng.randrange(1, 45 if game == "topper" else 32)
    return schedule


def describe_hints(schedule: Schedule) -> str:
    """``schedule.describe()`` with its hint settings (a failing seed's replay)."""
    return (f"{schedule.describe()} hints={schedule.hints} "
            f"hint_attack={schedule.hint_attack} hint_at={schedule.hint_at} "
            f"pauses={schedule.pauses} pause_attack={schedule.pause_attack} "
            f"leave_at={schedule.leave_at}")


# -- the seeded table, made once ------------------------------------------------------

@dataclass(frozen=True)
class Seating:
    identities: list[Any]
    game: str
    config: dict[str, int]
    nonce: bytes


_SEATING: dict[str, Seating] = {}


def seating(game: str = "topper") -> Seating:
    """The four seeded identities and the lobby's settings of ``game`` (the same every run)."""
    if game not in _SEATING:
        identities = [seeded_identity(20, f"p{i}", f"p{i}") for i in range(PLAYERS)]
        settings = (TopperConfig(target_score=1, deal_limit=1) if game == "topper"
                    else BLUFF_CONFIG)
        config = game_wire.by_name(game).config_to_wire(settings)
        nonce = SeededRng(b"sim genesis" if game == "topper" else f"sim {game}".encode())(32)
        _SEATING[game] = Seating(identities, game, config, nonce)
    return _SEATING[game]


def _lobby(seat: Seating) -> Lobby:
    return Lobby(seat.identities[0], seat.game, {**seat.config, "move_time": int(DEADLINE)},
                 "sim")


class _Rng(SeededRng):
    """A seeded byte source that says which seed it is (the proofs' memo key)."""

    def __init__(self, seed: bytes) -> None:
        super().__init__(seed)
        self.label = seed


def randomness(label: str) -> Callable[[int], Callable[[int], bytes]]:
    """The byte source of each position's message for the seat called ``label``."""
    return lambda position: _Rng(hashlib.sha256(f"sim/{label}/{position}".encode()).digest())


#: Results of the checks met so far (None: passed; else the error it raised).
_CHECKED: dict[bytes, CryptoError | None] = {}
#: Proofs made so far, by (kind, session, deck, seat, input, key share, seed).
_MADE: dict[tuple[Any, ...], Any] = {}
_MEMO_LIMIT = 200_000


def memo_check(check: checks.Check) -> None:
    """The real check, run once per distinct statement and proof (its key hashes
    every byte the check reads); a failure is remembered as well as a pass."""
    key = check.key
    if key not in _CHECKED:
        if len(_CHECKED) > _MEMO_LIMIT:
            _CHECKED.clear()
        try:
            check.run()
        except CryptoError as error:
            _CHECKED[key] = error
        else:
            _CHECKED[key] = None
    error = _CHECKED[key]  # type: ignore[misc]
    if error is not None:
        raise error.with_traceback(None)


def _made(key: tuple[Any, ...], make: Callable[[], Any]) -> Any:
    if key not in _MADE:
        if len(_MADE) > _MEMO_LIMIT:
            _MADE.clear()
        _MADE[key] = make()
    return _MADE[key]


class _MemoDeal(DeckDeal):
    """A deck whose seeded proofs are made once per distinct input (module docstring)."""

    def _key(self, kind: str, seat: int, rng: Any, *more: Any) -> tuple[Any, ...] | None:
        if not isinstance(rng, _Rng):
            return None
        return (kind, self.session, self.number, seat, deck_key(self.deck),
                self.joint_key.to_bytes(), rng.label, *more)

    def make_shuffle(self, seat: int, rng: Callable[[int], bytes] | None = None) -> dict[str, Any]:
        key = self._key("shuffle", seat, rng)
        make = super().make_shuffle
        return dict(make(seat, rng) if key is None else _made(key, lambda: make(seat, rng)))

    def make_shares(self, seat: int, key: Any, rng: Callable[[int], bytes] | None = None
                    ) -> dict[str, Any]:
        memo = self._key("shares", seat, rng, key.public.to_bytes())
        make = super().make_shares
        return dict(make(seat, key, rng) if memo is None
                    else _made(memo, lambda: make(seat, key, rng)))

    def make_reveal(self, seat: int, key: Any, slots: Any,
                    rng: Callable[[int], bytes] | None = None) -> list[Any]:
        memo = self._key("reveal", seat, rng, key.public.to_bytes(), tuple(slots))
        make = super().make_reveal
        return list(make(seat, key, slots, rng) if memo is None
                    else _made(memo, lambda: make(seat, key, slots, rng)))


class SimTable(Table):
    """A table whose decks are :class:`_MemoDeal`, whose checks are :func:`memo_check`."""

    def __init__(self, genesis_raw: bytes, me: Signer | None = None,
                 secrets: SessionSecrets | None = None,
                 randomness: Callable[[int], Callable[[int], bytes]] | None = None) -> None:
        super().__init__(genesis_raw, me, secrets, randomness=randomness, checker=memo_check,
                         deal_type=_MemoDeal)


def confirm(transcript: list[bytes], verdict: Verdict) -> str | None:
    """Why ``verify`` would refuse ``verdict`` on this record (None: confirmed):
    the record replayed as an observer, then the verdict's evidence re-checked."""
    observer = SimTable(transcript[0])
    try:
        for raw in transcript[1:]:
            observer.receive(raw, saved=True)
        if evidence.check_verdict(observer, verdict) is not True:
            return "not confirmed as provable"
    except ProtocolError as error:
        return str(error)
    return None


# -- the run --------------------------------------------------------------------------

@dataclass
class Peer:
    player: int
    honest: bool
    rules: SessionRules
    table: Table
    verdict: Verdict | None = None
    verdict_at: float | None = None
    #: Each message given to the rules, or in an alert's evidence: (raw, the
    #: table's next position then, ended then).
    received: list[tuple[bytes, int, bool]] = field(default_factory=list)
    wakes: set[float] = field(default_factory=set)
    #: When this peer accepted the message at each position.
    accepted_at: dict[int, float] = field(default_factory=dict)
    written: dict[int, bytes] = field(default_factory=dict)
    #: Its table met a message signed with its own key that it did not write (a
    #: coalition member's other version coming back): it stops, as PeerSession does.
    stopped: bool = False
    #: Its process is down (a crash).
    down: bool = False
    #: Speculative shuffles started, by position, and those kept.
    speculated: dict[int, int] = field(default_factory=dict)
    kept: set[int] = field(default_factory=set)
    #: Its own messages it never sends (a rule-breaking one went out instead).
    withheld: set[bytes] = field(default_factory=set)
    #: When its table saw the match's end.
    over_at: float | None = None


class Simulation:
    """One schedule's run (see the module docstring)."""

    def __init__(self, schedule: Schedule) -> None:
        self.schedule = schedule
        self.stop_at = math.inf if schedule.stop_at is None else schedule.stop_at
        self.rng = random.Random(schedule.seed * 7919 + 1)
        self.now = 0.0
        self._heap: list[tuple[float, int, Callable[[], None]]] = []
        self._seq = 0
        self._fifo: dict[tuple[Node, Node], float] = {}
        self._epoch: dict[tuple[Any, ...], int] = {}
        self.events = 0
        #: Signed evidence the coalition made: ("equivocation", player, position, a, b)
        #: and ("single", player, position, raw) for a message out of turn or breaking a rule.
        self.evidence: list[tuple[Any, ...]] = []
        #: Frames the relay sent each spectator, and the spectators it closed.
        self.to_spectator: dict[int, int] = {}
        self.closed_spectators: set[int] = set()
        self._bad_sent = False
        seat = seating(schedule.game)
        self.identities = seat.identities
        lobby = _lobby(seat)
        if schedule.hints:
            lobby.config[HINTS] = 1
        if schedule.pauses:
            lobby.config[PAUSES] = schedule.pauses
        self._hint_sent = False
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
        self.genesis: bytes = genesis
        self.peers: list[Peer] = []
        for player in range(PLAYERS):
            table = SimTable(genesis, self.identities[player],
                             randomness=randomness(f"seat{player}"))
            rules = SessionRules(DEADLINE)
            rules.host_up = True
            peer = Peer(player, player not in schedule.coalition, rules, table)
            self.peers.append(peer)
        self.up: set[tuple[Any, ...]] = {("host", p) for p in range(PLAYERS)}
        for p in range(PLAYERS):
            for q in range(p + 1, PLAYERS):
                if p not in schedule.no_direct and q not in schedule.no_direct:
                    self.up.add(("direct", p, q))
        self.cuts = list(schedule.cuts)
        if schedule.crash is not None:
            player, down, back = schedule.crash
            self.cuts += [(down, back, link) for link in sorted(self.up, key=repr)
                          if player in link[1:]]
            self._at(down, lambda: self._crash(self.peers[player]))
            self._at(back, lambda: self._start_again(self.peers[player]))
        for peer in self.peers:
            peer.rules.linked = {q for q in range(PLAYERS) if self._direct_up(peer.player, q)}
            self._run(peer, peer.rules.start(peer.table, 0.0))
        for start, end, link in self.cuts:
            self._at(start, lambda link=link: self._cut(link))  # type: ignore[misc]
            self._at(end, lambda link=link: self._restore(link))  # type: ignore[misc]
        for n in range(schedule.spectators):
            self._at(0.5 + n * 0.01, lambda link=SPECTATOR_LINK + n: self._watch(link))  # type: ignore[misc]

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

    def _finished(self, peer: Peer) -> bool:
        return (peer.table.next_position >= self.stop_at or peer.verdict is not None
                or peer.table.stage is Stage.OVER)

    def _settled(self) -> bool:
        return all(self._finished(p) or p.stopped for p in self.peers if p.honest)

    # -- links --------------------------------------------------------------------

    def _hello(self, player: int, have: int, sid: bytes, watch: int = 0) -> bytes:
        return frames.encode("hello", {"v": PROTOCOL_VERSION, "name": f"p{player}", "sid": sid,
                                       "have": have, "bot": 0, "watch": watch})

    def _direct_up(self, p: int, q: int) -> bool:
        return p != q and ("direct", min(p, q), max(p, q)) in self.up

    def _link_of(self, src: Node, dst: Node) -> tuple[Any, ...]:
        if src == RELAY:
            return ("host", dst)
        if dst == RELAY:
            return ("host", src)
        assert isinstance(src, int) and isinstance(dst, int)
        return ("direct", min(src, dst), max(src, dst))

    def _cut(self, link: tuple[Any, ...]) -> None:
        if link not in self.up:
            return
        self.up.discard(link)
        self._epoch[link] = self._epoch.get(link, 0) + 1
        if link[0] == "host":
            player = link[1]
            self.relay.disconnected(player)
            peer = self.peers[player]
            if not peer.down:
                self._run(peer, peer.rules.host_link_down())
        else:
            for player in link[1:]:
                self._relink(self.peers[player])

    def _restore(self, link: tuple[Any, ...]) -> None:
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
            if not peer.down:
                self._run(peer, peer.rules.host_link_up(have))
        else:
            for player in link[1:]:
                self._relink(self.peers[player])

    def _relink(self, peer: Peer) -> None:
        if peer.down:
            return
        linked = {q for q in range(PLAYERS) if self._direct_up(peer.player, q)}
        self._run(peer, peer.rules.direct_links(linked))

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
        self._relay_out(self.relay.frame(link, self._hello(link, 0, b"", watch=1)))
        self._at(self.now + self.schedule.flood, lambda: self._flood(link))

    def _flood(self, link: int) -> None:
        """Ask for the last 200 messages again, as finding 5's spectators did."""
        if link in self.closed_spectators or self._settled():
            return
        have = max(0, len(self.relay.messages) - 200)
        self._relay_out(self.relay.frame(link, frames.encode("sync", {"have": have})))
        self._at(self.now + self.schedule.flood, lambda: self._flood(link))

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

    def _deliver(self, src: Node, dst: Node, frame: bytes, link: tuple[Any, ...], epoch: int) -> None:
        if link not in self.up or self._epoch.get(link, 0) != epoch:
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
                    self._cut(("host", out.link))

    def _send_path(self, peer: Peer, path: Path, frame: bytes) -> None:
        dst: Node = RELAY if path is HOST else path
        if not peer.honest and not self._may_use(peer, path, frame):
            return
        decoded = frames.decode(frame)
        if peer.withheld and decoded.kind == "msg" and decoded.body in peer.withheld:
            return  # the message a rule-breaking one replaced: never sent, nor synced
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
        self._at(when, lambda: self._wake(peer, rules, when))

    def _wake(self, peer: Peer, rules: SessionRules, when: float) -> None:
        if rules is not peer.rules:
            return  # a wake of the process that crashed
        peer.wakes.discard(when)
        if peer.verdict is not None or peer.stopped or peer.down:
            return
        if peer.table.next_position >= self.stop_at:
            peer.rules.deadline_at = math.inf  # the simulated stage is over: nobody is waited for
        self._run(peer, peer.rules.tick(self.now))

    def _write(self, peer: Peer) -> None:
        if peer.stopped or peer.down:
            return
        table = peer.table
        while (table.my_turn and peer.verdict is None and table.next_position < self.stop_at
               and table.next_position not in peer.written):
            position = table.next_position
            if (not peer.honest and "silent" in self.schedule.attacks
                    and position >= self.schedule.silent_from):
                peer.written[position] = b""
                return
            if self.schedule.hints and self._hint_first(peer, position):
                continue
            if self.schedule.pauses and self._pause_first(peer, position):
                continue
            written = table.outgoing()
            if written is None and table.awaiting_my_action:
                written = table.act(_choose(list(table.view().legal_actions()), position,
                                            self.schedule.game))
            if written is None:
                return
            peer.written[position] = written.raw
            self._emit(peer, written.events)
            bad = None if peer.honest else self._attack(peer, written.raw)
            if bad is None:
                for out in peer.rules.published(written.raw):
                    assert isinstance(out, Send)  # published() hands out sends only
                    self._send_path(peer, out.path, out.frame)
            else:  # the rule-breaking message goes out instead of its own
                peer.withheld.add(written.raw)
                for path in self._targets(peer):
                    self._send_raw(peer, path, bad)
            self._run(peer, peer.rules.progress(self.now))

    # -- the coalition's signed mischief ---------------------------------------------

    def _targets(self, peer: Peer) -> list[Path]:
        return [HOST, *[q for q in range(PLAYERS) if q != peer.player]]

    def _attack(self, peer: Peer, raw: bytes) -> bytes | None:
        """What a coalition member adds to its message ``raw``; returns the
        rule-breaking message to send instead of it, if any."""
        msg = SignedMessage.parse(raw)
        attacks = self.schedule.attacks
        identity = self.identities[peer.player]
        targets = self._targets(peer)
        if self.schedule.fake_shuffles and msg.type == "shuffle":
            self._fake_shuffles(peer, msg)
        if self.schedule.hint_attack is not None and not self._hint_sent:
            hinted = self._hint_breach(peer, msg)
            if hinted is not None:
                return hinted
        if self.schedule.leave_at is not None and msg.position >= self.schedule.leave_at:
            self._leave(peer, msg)
        if self.schedule.pause_attack and not self._hint_sent:
            away = self._away_breach(peer, msg)
            if away is not None:
                return away
        if "equivocate" in attacks and msg.position == self.schedule.equivocate_at:
            other = seal(identity, session=msg.session, position=msg.position, prev=msg.prev,
                         player=peer.player, type=msg.type, body=_other_body(msg)).raw
            self.evidence.append(("equivocation", peer.player, msg.position, raw, other))
            for path in self.rng.sample(targets, self.rng.randrange(1, len(targets) + 1)):
                self._send_raw(peer, path, other)
        if "out_of_turn" in attacks and msg.position < 40:
            n = msg.position + 1  # the next position, which someone else writes
            bad = seal(identity, session=msg.session, position=n, prev=msg.digest,
                       player=peer.player, type=msg.type, body=msg.body).raw
            self.evidence.append(("single", peer.player, n, bad))
            at = self.now + self.rng.uniform(0, self.schedule.max_delay)
            for path in targets:
                # ``bad`` bound now: the rule-breaking message below reuses the name.
                self._at(at, lambda path=path, bad=bad: self._send_raw(peer, path, bad))  # type: ignore[misc]
        if "junk" in attacks:
            victim = self.rng.choice([q for q in range(PLAYERS) if q != peer.player])
            forged = seal(identity, session=msg.session, position=msg.position + 1,
                          prev=msg.digest, player=victim, type=msg.type, body=msg.body).raw
            for path in targets:
                self._send_raw(peer, path, forged)  # signed by the wrong key: names nobody
        if "replay" in attacks:
            for old in peer.table.transcript()[: self.rng.randrange(1, msg.position + 1)]:
                self._send_raw(peer, self.rng.choice(targets), old)
        if "bad" in attacks and self._bad_now(msg):
            mtype, body = _broken(msg, self.schedule.game)
            bad = seal(identity, session=msg.session, position=msg.position, prev=msg.prev,
                       player=peer.player, type=mtype, body=body).raw
            self.evidence.append(("single", peer.player, msg.position, bad))
            return bad
        return None

    def _hint_first(self, peer: Peer, position: int) -> bool:
        """At a hints table, whether ``peer`` asks the coach (writes ``hint``) before
        this move: seeded by the position for everyone; a coalition member about to
        write a second hint (``hint_twice``) always takes its first. The hint is
        published as any message; the move follows at the next position."""
        table, schedule = peer.table, self.schedule
        if not table.awaiting_my_action or table.hint_taken:
            return False
        forced = (not peer.honest and schedule.hint_attack == "hint_twice"
                  and not self._hint_sent and position >= schedule.hint_at)
        if not forced and random.Random(f"hint/{position}").random() >= HINT_CHANCE:
            return False
        written = table.take_hint()
        if written is None:
            return False
        peer.written[position] = written.raw
        self._emit(peer, written.events)
        for out in peer.rules.published(written.raw):
            assert isinstance(out, Send)  # published() hands out sends only
            self._send_path(peer, out.path, out.frame)
        self._run(peer, peer.rules.progress(self.now))
        return True

    def _leave(self, peer: Peer, msg: SignedMessage) -> None:
        """A coalition member leaves after ``msg`` (``Schedule.leave_at``): forged and
        replayed leaves for the honest seats, then its own signed leave, on every path."""
        table = peer.table
        if table.stage is Stage.ENDED:
            return  # left already (or ended otherwise)
        other = hashlib.sha256(b"another table").digest()
        assert msg.session is not None  # a message of this table carries its session
        notices = []
        for victim in (p.player for p in self.peers if p.honest):
            notices.append(seal_notice(self.identities[peer.player], session=msg.session,
                                       position=msg.position + 1, prev=msg.digest,
                                       player=victim, type="leave", body={}).raw)
            notices.append(seal_notice(self.identities[victim], session=other, position=5,
                                       prev=bytes(32), player=victim, type="leave",
                                       body={}).raw)
        if table.stage is not Stage.OVER:  # OVER: its leave is the end box's choice now
            notices.append(table.leave())
            peer.verdict, peer.verdict_at = table.verdict, self.now  # its table ended: it left
        for raw in notices:
            for path in self._targets(peer):
                dst: Node = RELAY if path is HOST else path
                self.send(peer.player, dst, frames.encode("alert", raw))

    def _pause_first(self, peer: Peer, position: int) -> bool:
        """At a table with pauses, whether ``peer`` takes one (writes ``away``) before
        this move: seeded by the position; a coalition member about to write an
        ``away`` with none left (``pause_attack``) spends its pauses first."""
        table, schedule = peer.table, self.schedule
        if (not table.awaiting_my_action or table.paused == peer.player
                or table.pauses_left[peer.player] <= 0):
            return False
        forced = (not peer.honest and schedule.pause_attack and not self._hint_sent
                  and position >= schedule.hint_at)
        if not forced and random.Random(f"away/{position}").random() >= PAUSE_CHANCE:
            return False
        written = table.take_pause()
        peer.written[position] = written.raw
        self._emit(peer, written.events)
        for out in peer.rules.published(written.raw):
            assert isinstance(out, Send)  # published() hands out sends only
            self._send_path(peer, out.path, out.frame)
        self._run(peer, peer.rules.progress(self.now))
        return True

    def _away_breach(self, peer: Peer, msg: SignedMessage) -> bytes | None:
        """The coalition's ``away`` with no pause left, sent instead of its move
        ``msg`` (``Schedule.pause_attack``): signed evidence of the breach."""
        table = peer.table
        if (msg.type not in ACTION_TYPES or msg.position < self.schedule.hint_at
                or table.pauses_left[peer.player] > 0):
            return None
        self._hint_sent = True
        away = seal(self.identities[peer.player], session=msg.session, position=msg.position,
                    prev=msg.prev, player=peer.player, type=AWAY, body={}).raw
        self.evidence.append(("single", peer.player, msg.position, away))
        return away

    def _hint_breach(self, peer: Peer, msg: SignedMessage) -> bytes | None:
        """The coalition's hint breach at its move ``msg`` (``Schedule.hint_attack``):
        a ``hint`` instead of it where hints are off (``hint_off``) or right after
        its own hint (``hint_twice``), returned to be sent instead; or a ``hint``
        for the next position when another seat writes it (``hint_out_of_turn``),
        sent beside it. Each is signed evidence of the breach."""
        kind, table = self.schedule.hint_attack, peer.table
        if msg.type not in ACTION_TYPES or msg.position < self.schedule.hint_at:
            return None
        identity = self.identities[peer.player]
        if kind == "hint_out_of_turn":
            if table.stage is not Stage.PLAY or table.writer in (None, peer.player):
                return None
            self._hint_sent = True
            n = msg.position + 1
            hint = seal(identity, session=msg.session, position=n, prev=msg.digest,
                        player=peer.player, type=HINT, body={}).raw
            self.evidence.append(("single", peer.player, n, hint))
            at = self.now + self.rng.uniform(0, self.schedule.max_delay)
            for path in self._targets(peer):
                self._at(at, lambda path=path: self._send_raw(peer, path, hint))  # type: ignore[misc]
            return None
        before = SignedMessage.parse(table.transcript()[msg.position - 1])
        if kind == "hint_twice" and not (before.type == HINT and before.player == peer.player):
            return None
        self._hint_sent = True
        hint = seal(identity, session=msg.session, position=msg.position, prev=msg.prev,
                    player=peer.player, type=HINT, body={}).raw
        self.evidence.append(("single", peer.player, msg.position, hint))
        return hint

    def _bad_now(self, msg: SignedMessage) -> bool:
        """Whether the rule-breaking message replaces ``msg`` (once a schedule)."""
        schedule, at = self.schedule, self.schedule.bad_at
        if self._bad_sent or at is None:
            return False
        fire = (msg.position == at if schedule.bad_type is None
                else msg.type == schedule.bad_type and msg.position >= at)
        self._bad_sent = fire
        return fire

    def _fake_shuffles(self, peer: Peer, msg: SignedMessage) -> None:
        """Finding 2: many ``shuffle`` frames for this position with a bad signature
        (signed by a stranger's key), each carrying a deck, sent on every direct
        link (the next shuffler's included) before the real one."""
        stranger = seeded_identity(22, "stranger", "x")
        for k in range(self.schedule.fake_shuffles):
            body = dict(msg.body)
            cards = list(body["cards"])
            cards[k % len(cards)], cards[-1] = cards[-1], cards[k % len(cards)]
            body["cards"] = cards
            fake = seal(stranger, session=msg.session, position=msg.position, prev=msg.prev,
                        player=peer.player, type="shuffle", body=body).raw
            for path in self._targets(peer):
                if path is not HOST:
                    self._send_raw(peer, path, fake)

    def _send_raw(self, peer: Peer, path: Path, raw: bytes) -> None:
        dst: Node = RELAY if path is HOST else path
        self.send(peer.player, dst, frames.encode("msg", raw))

    # -- reachability ------------------------------------------------------------------

    def blackout(self, a: int, b: int, until: float) -> float:
        """The longest time before ``until`` that no path of honest nodes and up
        links (the schedule's cuts, a crash's) joined players ``a`` and ``b``."""
        marks = sorted({0.0, until, *(t for s, e, _ in self.cuts for t in (s, e)
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
        down = {link for s, e, link in self.cuts if s <= t < e}
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
                            reached.add(other)  # type: ignore[arg-type]
                            frontier.append(other)  # type: ignore[arg-type]
        return b in reached

    @staticmethod
    def _ends(link: tuple[Any, ...]) -> tuple[Node, ...]:
        return (link[1], RELAY) if link[0] == "host" else (link[1], link[2])

    def host_link_cut_near(self, player: int, until: float) -> bool:
        """Whether ``player``'s host link was cut in the last three deadlines before ``until``."""
        return any(link == ("host", player) and s <= until and e >= until - 3 * DEADLINE
                   for s, e, link in self.cuts)


def _choose(actions: list[Any], position: int, game: str) -> Any:
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


def _other_body(msg: SignedMessage) -> dict[str, Any]:
    """A second version's body for ``msg``'s position: the same type, other bytes."""
    body = dict(msg.body)
    if msg.type in ("commit", "open"):
        body["draw"] = SeededRng(b"other %d" % msg.position)(32)
    elif msg.type == "shuffle":
        body["cards"] = list(body["cards"])[1:] + list(body["cards"])[:1]
    elif msg.type == "shares":
        body["shares"] = list(body["shares"])[1:] + list(body["shares"])[:1]
    elif msg.type == "show":  # Bluff: the shares of a challenged discard
        shown = list(body["shares"])
        body["shares"] = shown[::-1] if len(shown) > 1 else shown * 2
    elif msg.type == "discard":
        body["stake"] = body["stake"] + 1
    elif msg.type == "play":
        body["slot"] = (body["slot"] + 1) % 24
    elif msg.type == "bid":
        body["tricks"] = body["tricks"] + 100
    elif msg.type == "trump":
        body["suit"] = (body["suit"] + 1) % 4
    else:
        body["x"] = 1
    return body


def _broken(msg: SignedMessage, game: str) -> tuple[str, dict[str, Any]]:
    """A message for ``msg``'s position that breaks a rule (so its signer is named):
    a shuffle whose proof fails, shares rotated onto the wrong cards, a key share
    that does not open its commitment, a play of a card dealt to another seat, a
    bid above the maximum; in Bluff, a show with its shares on the wrong cards (or
    a share whose proof fails) or with too few, and a discard that breaks a rule
    (rank 1, a stake above the stack, one slot twice)."""
    if msg.type == "show":
        shown = list(msg.body["shares"])
        if msg.position % 2:  # too few shares
            return "show", {"shares": shown[:-1]}
        if len(shown) > 1:  # each share on the other card
            return "show", {"shares": shown[::-1]}
        d, c, r = shown[0]
        return "show", {"shares": [[d, r, c]]}  # its proof fails
    if game == "bluff" and msg.type in ("discard", "pass", "challenge"):
        slots = list(msg.body.get("slots", [0]))
        variant = msg.position % 3
        if variant == 0:
            return "discard", {"slots": slots, "stake": 1, "rank": 1}  # malformed
        if variant == 1:
            return "discard", {"slots": slots, "stake": 2**31 - 1, "rank": 2}
        return "discard", {"slots": [slots[0], slots[0]], "stake": 1, "rank": 2}
    if msg.type == "play":
        return "play", {**msg.body, "slot": (msg.body["slot"] + 1) % 24}
    if msg.type in ("bid", "pass", "trump"):
        return "bid", {"tricks": 200}
    if msg.type == "commit":
        return "commit", {"key": b"short", "draw": bytes(32)}  # the wrong shape
    return msg.type, _other_body(msg)


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
    #: The longest transcript an honest peer reached, and whether one saw the match end.
    reached: int = 0
    over: bool = False
    #: Verdicts with evidence that ``check_verdict`` confirmed on the peer's record.
    confirmed: int = 0


def judge(sim: Simulation) -> Outcome:
    """Properties (a), (b) and (c) of the module docstring, over one finished run."""
    failures: list[str] = []
    cascades = churn = races = confirmed = 0
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
        verdict = peer.verdict
        if verdict is not None and verdict.evidence and verdict.rule != "left":
            refused = confirm(peer.table.transcript(), verdict)
            if refused is not None:
                failures.append(f"(b) player {peer.player}'s verdict {verdict.rule} naming "
                                f"{verdict.players} is refused on its record: {refused}")
            else:
                confirmed += 1
    for peer in honest:
        if peer.stopped:  # only its own key can sign for it
            failures.append(f"(c) honest player {peer.player}'s table met a message signed "
                            f"with its own key that it did not write")
    return Outcome(sim.schedule, failures, cascades, churn, races,
                   {p.player: p.verdict for p in sim.peers}, sim.events,
                   max(p.table.next_position for p in honest) if honest else 0,
                   any(p.over_at is not None for p in honest), confirmed)


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
    a single message (out of turn, or breaking a rule), it arrived when
    ``position`` was next and it built on the message this peer holds before it."""
    transcript = peer.table.transcript()
    if kind == "single":
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


def run_seed(seed: int, stop_at: int | None = None) -> Outcome:
    return judge(Simulation(schedule_for(seed, stop_at)).run())


def run_schedule(schedule: Schedule) -> Outcome:
    return judge(Simulation(schedule).run())
