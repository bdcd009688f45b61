"""The evening after a simulated match: every end box, the host's, the rematch's opening.

Sans-IO and seeded, like the match (``tests/sim/simulation.py``): once every
honest peer's table is OVER, each honest player's end box is an
:class:`~p2pcards.protocol.end_box.EndBox` linked to the host's
:class:`~p2pcards.protocol.relay.Relay` (restarted from the finished transcript)
over an in-memory link the scheduler owns (in order, delayed; cut and dialled
again); the host's side is its :class:`~p2pcards.protocol.again.AgainCount` and
:class:`~p2pcards.protocol.end_box_host.EndLobby`, which frees the seat of a
player away past the grace, fills every freed seat with a bot, and closes with
its word (``endbox``) once every seat is taken or its wait ran out; it then
lingers (what is in flight arrives) and its finished table closes. Each honest
player chooses at a seeded moment, some of them late. Every honest again-chooser
whose end box says the rematch opens (or lost the host) checks the genesis with
its own count (:func:`~p2pcards.protocol.again.check_rematch`), and the rematch's
opening runs with every peer's clock (``tests/sim/evening_rematch.py``).

An evening coalition (drawn apart from the match's) may, on its members' links:
equivocate (sign again, then leave, or the other way round), replay a choice an
honest player signed about another match, forge a choice for an honest seat,
flood the relay with choices about other ends of this session, **churn** (its
member closes its end box and opens and closes a link to the host about twice a
second, each time a ``presence`` frame to every end box, ``CHURN`` times: issue
37), and **leave late** (sign again first, then, after its churn, leave: a leave
the host may close on before every end box heard it). Honest links are cut and
dialled again (``link_churn``). A host in the coalition also writes what it likes
to the end boxes (replays, forgeries), withholds frames from them (a leave
reaching some end boxes only) and builds a forged rematch genesis
(:data:`~tests.sim.evening_rematch.FORGERIES`).

Judged (:func:`run_evening`): every honest count agrees with what each honest
seat chose (never another choice); no honest choice is dropped or refused, no
honest link closed by the relay; with an honest host, no honest end box ends
before the host's end box closed (churn, pings and junk end none early), and one
that heard the host's word holds every choice the host's count holds and knows
how the evening ended; an honest player never joins a forged rematch (the precise
refusal, or ``evening.dropped``/``evening.kept`` exactly when the genesis
contradicts a signed choice its count holds) and never refuses an honest host's
unless its count missed a leave the host counted; and in the rematch's opening,
no honest peer names an honest player: an again-chooser that refused is never
named.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from p2pcards.protocol import frames
from p2pcards.protocol.again import (
    AGAIN,
    LEAVE,
    AgainCount,
    Choice,
    check_rematch,
    sign_choice,
)
from p2pcards.protocol.end_box import (
    END_BOX_WAIT,
    EndBox,
    Ending,
    Output,
    Over,
    SendFrame,
)
from p2pcards.protocol.end_box_host import Closed, EndLobby
from p2pcards.protocol.envelope import SignedMessage
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.lobby import Lobby
from p2pcards.protocol.relay import AgainHeard, Broadcast, Close, Dropped, LinkedChanged, Relay, Send
from p2pcards.protocol.relay import Output as RelayOutput
from p2pcards.protocol.rematch_genesis import EveningRefused, FinishedMatch
from p2pcards.protocol.table_records import Stage

from .evening_coalition import CHURN, CHURN_EVERY, LINGER, Coalition
from .evening_rematch import FORGERIES, contradiction, filler
from .links import hello
from .schedule import PLAYERS
from .simulation import Simulation

#: The evening coalition's moves on its members' links.
EVENING_ATTACKS = ("equivocate", "replay", "forge", "flood", "churn", "late_leave")
#: Seconds between an end box's lost link and its next dial; dials before it gives up.
REDIAL = 0.5
DIALS = 3
#: The evening's last moment (every loop is bounded; the end box closes before).
HORIZON = END_BOX_WAIT + 120.0
#: Events one evening runs at most.
MAX_EVENTS = 200_000


@dataclass
class EveningPlan:
    """What one evening does, drawn from ``seed`` (see :func:`evening_plan`)."""

    seed: int
    coalition: frozenset[int]
    #: Each player's (first) choice; the honest host's own seat chooses again.
    choices: dict[int, str]
    attacks: frozenset[str] = frozenset()
    #: A hostile host's rematch genesis (``FORGERIES``; None: the honest one).
    forgery: str | None = None
    #: A hostile host drops each frame to an honest end box with this chance.
    withhold: float = 0.0
    #: The coalition's frames go to the relay before any honest choice.
    coalition_first: bool = False
    #: Honest end-box links cut, on average, this many times a second.
    link_churn: float = 0.0
    #: When each honest player chooses (seconds after the match's end).
    choose_at: dict[int, float] = field(default_factory=dict)
    #: A late leave reaches one end box only: the others' links are down from just
    #: before it until after the finished table closed; this honest player chooses
    #: just after the leave (the host waited for it), so the host closes on the leave.
    partial: int | None = None

    def describe(self) -> str:
        return (f"evening seed={self.seed} coalition={sorted(self.coalition)} "
                f"choices={self.choices} attacks={sorted(self.attacks)} "
                f"forgery={self.forgery} withhold={self.withhold} first={self.coalition_first} "
                f"link_churn={self.link_churn} partial={self.partial} choose_at="
                f"{ {p: round(t, 1) for p, t in self.choose_at.items()} }")


def evening_plan(seed: int, coalition: frozenset[int] | None = None) -> EveningPlan:
    """The seeded evening: a coalition of 0..3 players (unless given), the choices and
    when they are made, the coalition's moves, link churn and, with the host in the
    coalition, its genesis and withholding."""
    rng = random.Random(f"evening/{seed}")
    if coalition is None:
        coalition = frozenset(rng.sample(range(PLAYERS), rng.choice([0, 1, 1, 2, 2, 3])))
    choices = {p: AGAIN if p == 0 and 0 not in coalition else rng.choice([AGAIN, AGAIN, LEAVE])
               for p in range(PLAYERS)}
    attacks = frozenset(a for a in EVENING_ATTACKS if coalition and rng.random() < 0.4)
    hostile = 0 in coalition
    honest = [p for p in range(1, PLAYERS) if p not in coalition]
    # Most choose within seconds; one may take its time (the host's end box waits).
    choose_at = {p: rng.choice([0.0, rng.uniform(0, 5), rng.uniform(0, 5),
                                rng.uniform(20, 100)]) for p in honest}
    if attacks & {"churn", "late_leave"} and honest:
        choose_at[rng.choice(honest)] = rng.uniform(CHURN * CHURN_EVERY, 110.0)
    plan = EveningPlan(
        seed, coalition, choices, attacks,
        forgery=rng.choice([None, *FORGERIES]) if hostile else None,
        withhold=rng.choice([0.0, 0.3]) if hostile else 0.0,
        coalition_first=rng.random() < 0.5,
        link_churn=rng.choice([0.0, 0.0, 0.05, 0.2]),
        choose_at=choose_at)
    if "late_leave" in attacks:
        for member in coalition - {0}:
            plan.choices[member] = AGAIN  # again first; its leave comes later
        if honest and rng.random() < 0.5:
            plan.partial = rng.choice(honest)
            for player in honest:  # the others choose at once: the host waits for it alone
                plan.choose_at[player] = rng.uniform(0, 0.5)
            plan.choose_at[plan.partial] = math.inf  # it chooses when the leave is out
    if plan.forgery == "drop":  # someone honest to drop: the first honest joiner comes again
        plan.choices[dropped_of(plan)] = AGAIN
    return plan


def dropped_of(plan: EveningPlan) -> int:
    """The honest player a hostile host's ``drop`` genesis leaves out (it chose again)."""
    return min(p for p in range(1, PLAYERS) if p not in plan.coalition)


@dataclass
class EveningOutcome:
    plan: EveningPlan
    failures: list[str]
    #: Each honest player's count (the host's for player 0).
    counts: dict[int, AgainCount] = field(default_factory=dict)
    genesis: bytes | None = None
    #: Honest players that chose again: joined the rematch (True) or refused it.
    joined: dict[int, bool] = field(default_factory=dict)
    refusals: dict[int, EveningRefused] = field(default_factory=dict)
    #: Frames the counts refused (replays, forgeries, other ends): blaming nobody.
    refused_frames: int = 0
    #: How each honest end box ended, and when; when the host's end box closed.
    endings: dict[int, tuple[Ending, float]] = field(default_factory=dict)
    host_closed_at: float | None = None
    #: Presence frames the relay sent to honest end boxes (the churn's cost).
    presence_frames: int = 0
    #: The rematch opening's verdicts, by the genesis index of the peer that reached it.
    verdicts: dict[int, object] = field(default_factory=dict)


@dataclass
class _Link:
    """One link to the host's relay: its player, whether it is up, FIFO arrivals."""

    player: int
    up: bool = True
    last_arrival: float = 0.0
    seated: bool = False

    def arrival(self, earliest: float) -> float:
        """When a frame due at ``earliest`` arrives: never before the one sent before it
        (either way: one stream)."""
        self.last_arrival = max(earliest, self.last_arrival)
        return self.last_arrival


class Evening(Coalition):
    """One evening's run over a finished :class:`Simulation` (module docstring)."""

    def __init__(self, sim: Simulation, plan: EveningPlan) -> None:
        super().__init__()
        self.sim, self.plan = sim, plan
        self.rng = random.Random(f"evening run/{plan.seed}")
        self.identities: list[Identity] = list(sim.identities)
        self.keys = tuple(i.public_key for i in self.identities)
        self.honest = [p for p in range(PLAYERS) if p not in plan.coalition]
        self.hostile_host = 0 in plan.coalition
        self.failures: list[str] = []
        self.refused_frames = 0
        peers = [p for p in sim.peers if p.honest] or sim.peers
        finals = {p.table.finished() for p in peers}
        if len(finals) != 1:
            self.failures.append(f"honest peers disagree on the finished match: {len(finals)}")
        self.finished: FinishedMatch = next(iter(finals))
        self.transcript = peers[0].table.transcript()
        genesis = SignedMessage.parse(self.transcript[0])
        self.game: str = genesis.body["game"]
        self.config: dict[str, int] = dict(genesis.body["config"])
        self.table_name: str = genesis.body["table"]
        self.names = tuple(str(p[1]) for p in genesis.body["players"])
        self.relay: Relay | None = Relay.resume(
            Lobby(self.identities[0], self.game, self.config, self.table_name), self.transcript)
        self.relay.clock = lambda: self.now
        self.host_count = AgainCount(self.finished, self.keys)
        self.lobby = EndLobby(self.host_count, 0.0, {0})
        self.host_closed_at: float | None = None
        self.links: dict[int, _Link] = {}
        self._numbers = iter(range(1, 10**9))
        self.boxes: dict[int, EndBox] = {}
        self.box_link: dict[int, int | None] = {}
        self.dials_failed: dict[int, int] = {}
        self.endings: dict[int, tuple[Ending, float]] = {}
        #: Each honest player's genuine choice (raw).
        self.genuine: dict[int, bytes] = {}
        self.presence_frames = 0
        self.fills_made: dict[int, Identity] = {}
        #: Honest players whose links are down (dials fail) until then (``partial``).
        self.blackout: dict[int, float] = {}
        #: When each honest end box took its player's choice.
        self.chosen_at: dict[int, float] = {}

    def run(self) -> None:
        if not self.run_until(HORIZON, MAX_EVENTS):
            self.failures.append(f"the evening did not settle within {MAX_EVENTS} events")

    # -- links -------------------------------------------------------------------------------

    def connect(self, player: int) -> int | None:
        """A new link of ``player`` to the host (None: its finished table is closed)."""
        relay = self.relay
        if relay is None or self.blackout.get(player, -1.0) > self.now:
            return None
        number = next(self._numbers)
        self.links[number] = _Link(player)
        self._relay(relay.connected(number, self.keys[player]))
        name = self.names[player]
        self._relay(relay.frame(number, hello(name, len(self.transcript), self.finished.session)))
        return number

    def cut(self, number: int) -> None:
        """The link goes down: the relay hears it at once, the end box does too."""
        link = self.links.get(number)
        if link is None or not link.up:
            return
        link.up = False
        if self.relay is not None:
            self._relay(self.relay.disconnected(number))
        box = self.boxes.get(link.player)
        if box is not None and self.box_link.get(link.player) == number:
            self.box_link[link.player] = None
            self._box(link.player, box.unlinked(self.now))
            if box.wants_link:
                self.at(self.now + REDIAL, lambda: self._dial(link.player))

    def send_to_host(self, number: int, frame: bytes) -> None:
        link = self.links.get(number)
        if link is None or not link.up:
            return
        arrive = link.arrival(self.now + self.rng.uniform(0.001, 0.05))

        def arrives() -> None:
            if link.up and self.relay is not None:
                self._relay(self.relay.frame(number, frame))
        self.at(arrive, arrives)

    def _relay(self, outputs: list[RelayOutput]) -> None:
        for out in outputs:
            if isinstance(out, AgainHeard):
                self._host_hears(out.raw)
            elif isinstance(out, LinkedChanged):
                self._host_tick(self.lobby.present(out.linked, self.now))
            elif isinstance(out, Send):
                self._to_link(out.link, out.frame)
            elif isinstance(out, Broadcast):  # presence: to every link that hears the table
                relay = self.relay
                for number in sorted(self.links):
                    if relay is not None and number != out.exclude and relay.hears(number):
                        self._to_link(number, out.frame)
            elif isinstance(out, Close):
                link = self.links.get(out.link)
                if link is not None and link.player in self.honest and link.player != 0:
                    self.failures.append(f"the relay closed honest player {link.player}'s "
                                         f"link: {out.reason}")
                self.at(self.now, functools.partial(self.cut, out.link))
            elif isinstance(out, Dropped):
                link = self.links.get(out.link)
                late = "after the host's end box closed" in out.reason  # sent again: moot
                if link is not None and link.player in self.honest and not late:
                    self.failures.append(f"the relay dropped a frame of honest player "
                                         f"{link.player}: {out.reason}")

    def _to_link(self, number: int, frame: bytes) -> None:
        link = self.links.get(number)
        if link is None or not link.up or link.player not in self.boxes:
            return  # a coalition member's link: what it hears changes nothing
        kind = frames.decode(frame).kind
        if self.hostile_host and kind in ("again", "fill") \
                and self.rng.random() < self.plan.withhold:
            return  # its word on the end box it sends: it wants the others at its rematch
        if kind == "presence":
            self.presence_frames += 1
        arrive = link.arrival(self.now + self.rng.uniform(0.001, 0.05))

        def arrives() -> None:
            if not link.up:
                return
            player = link.player
            box = self.boxes[player]
            if self.box_link.get(player) != number:
                return
            if not link.seated:
                link.seated = True
                self._box(player, box.linked(self.now))
            self._box(player, box.frame(frame, self.now))
        self.at(arrive, arrives)

    # -- the honest end boxes ------------------------------------------------------------------

    def _dial(self, player: int) -> None:
        box = self.boxes[player]
        if box.done or self.box_link.get(player) is not None:
            return
        number = self.connect(player)
        if number is None:
            self.dials_failed[player] = self.dials_failed.get(player, 0) + 1
            if self.dials_failed[player] >= DIALS:
                self._box(player, box.unreachable(self.now))
            else:
                self.at(self.now + REDIAL, lambda: self._dial(player))
            return
        self.dials_failed[player] = 0
        self.box_link[player] = number
        if self.plan.link_churn:
            self.at(self.now + self.rng.expovariate(self.plan.link_churn),
                    lambda: self.cut(number))

    def _box(self, player: int, outputs: list[Output]) -> None:
        box = self.boxes[player]
        for out in outputs:
            if isinstance(out, SendFrame):
                number = self.box_link.get(player)
                if number is not None:
                    self.send_to_host(number, out.frame)
            elif isinstance(out, Over):
                self.endings[player] = (out.ending, self.now)
                number = self.box_link.get(player)
                if number is not None:
                    self.box_link[player] = None
                    self.at(self.now, functools.partial(self.cut, number))
        when = box.wake_at()
        if not math.isinf(when):
            self.at(when, lambda: self._box(player, box.tick(self.now)))

    def _choose(self, player: int) -> None:
        raw = sign_choice(self.identities[player], self.finished, player,
                          self.plan.choices[player]).raw
        self.genuine[player] = raw
        if self.boxes[player].mine is None and not self.boxes[player].done:
            self.chosen_at[player] = self.now
        self._box(player, self.boxes[player].choose(Choice.parse(raw), self.now))

    # -- the host's end box ----------------------------------------------------------------------

    def _host_hears(self, raw: bytes) -> None:
        if self.hostile_host or self.lobby.done:
            return
        try:
            self.host_count.receive(raw)
        except ProtocolError as error:
            self.refused_frames += 1
            if raw in self.genuine.values():
                self.failures.append(f"the host's count refused an honest choice: {error}")
        self._host_tick([])

    def _host_tick(self, outputs: Sequence[object]) -> None:
        relay = self.relay
        if relay is None or self.lobby.done or self.hostile_host:
            return
        for player in self.host_count.free:  # every freed seat gets a bot at once
            bot = filler(player)
            made = self.host_count.fill(player, bot.public_key, bot.name)
            self.fills_made[player] = bot
            self._relay(relay.tell_fill(made.to_wire()))
            if player in self.host_count.vacated:
                self._relay(relay.evict(self.keys[player]))
        for out in [*outputs, *self.lobby.tick(self.now)]:
            if isinstance(out, Closed):
                self._close(out.ending)
        when = self.lobby.wake_at()
        if not math.isinf(when) and not self.lobby.done:
            self.at(when, lambda: self._host_tick([]))

    def _close(self, ending: Ending) -> None:
        relay = self.relay
        assert relay is not None
        self.host_closed_at = self.now
        self._relay(relay.tell_end_box(0, int(ending)))

        def closed() -> None:
            self.relay = None
            for number, link in list(self.links.items()):
                if link.up:
                    self.cut(number)
        self.at(self.now + LINGER, closed)

    # -- the run ---------------------------------------------------------------------------------

    def choose(self) -> None:
        """Every honest end box opens at once and chooses at its moment; the members
        send what they send; the host's own seat chooses again."""
        plan = self.plan
        members_at = 0.0 if plan.coalition_first else self.rng.uniform(0, 3)
        for player in sorted(plan.coalition - {0}):
            self._member(player, members_at)
        for player in self.honest:
            if player == 0:
                continue
            self.boxes[player] = EndBox(self.finished, self.keys, 0.0)
            self.box_link[player] = None
            first = 0.05 if plan.coalition_first else 0.0
            self.at(first, functools.partial(self._dial, player))
            when = plan.choose_at.get(player, 0.0)
            if not math.isinf(when):
                self.at(first + when, functools.partial(self._choose, player))
        if not self.hostile_host:
            host_again = sign_choice(self.identities[0], self.finished, 0, AGAIN).raw
            self.genuine[0] = host_again

            def host_chooses() -> None:
                assert self.relay is not None
                self._relay(self.relay.tell_choice(host_again))
                self._relay(self.relay.tell_end_box(self.lobby.left(self.now), 0))
                self._host_tick([])
            self.at(0.0, host_chooses)
        else:
            self.at(1.0, self._hostile_writes)
            self.at(END_BOX_WAIT, lambda: self._close(Ending.REMATCH))
        self.run()


def run_evening(sim: Simulation, plan: EveningPlan) -> EveningOutcome:
    """The evening after ``sim``'s finished match (every honest table OVER), judged."""
    if not all(p.table.stage is Stage.OVER for p in sim.peers if p.honest):
        raise ValueError("an evening follows a match every honest peer saw end (OVER)")
    evening = Evening(sim, plan)
    evening.choose()
    from .evening_judge import judge_evening
    return judge_evening(evening)


__all__ = ["CHURN", "EVENING_ATTACKS", "FORGERIES", "Evening", "EveningOutcome",
           "EveningPlan", "check_rematch", "contradiction", "dropped_of", "evening_plan",
           "run_evening"]
