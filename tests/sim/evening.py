"""The evening after a simulated match: the end box's choices and the rematch's genesis.

Sans-IO and seeded, like the match (``tests/sim/simulation.py``): once every
honest peer's table is OVER, each player signs ``again`` or ``leave``
(:func:`~p2pcards.protocol.again.sign_choice`; the host's own seat chooses
again, as ``EveningHost`` does) and sends it on its end-box link to the host's
:class:`~p2pcards.protocol.relay.Relay` (restarted from the finished transcript);
the relay's outputs go to the host's :class:`~p2pcards.protocol.again.AgainCount`
(``AgainHeard``) and to every end box's own count (``again`` frames). The host
fills freed seats with bots and writes the rematch's genesis
(:func:`~p2pcards.protocol.again.rematch_genesis`); every honest player that
chose again checks it (:func:`~p2pcards.protocol.again.check_rematch`) against
its own record of the match, then joins it.

An evening coalition (drawn apart from the match's) may, on its members' links:
equivocate (sign again, then leave, or the other way round), replay a choice an
honest player signed about another match (another session, or another end of
this one), forge a choice for an honest seat (signed with its own key), and
flood the relay with choices about other ends of this session. A host in the
coalition also writes what it likes to the end boxes (the replays and forgeries
straight to them, and it withholds frames) and builds a forged rematch genesis
(:data:`FORGERIES`): no ``after``, another session id, another final digest,
another seating, the rotated seating in ``after.seats``, or (``drop``) the right
link with an honest player who chose again left out, its seat given to a bot.

Judged (:func:`run_evening`): every honest count agrees with what each honest
seat chose (never another choice; with an honest host, every honest seat's
choice reaches the host's count and every open end box's), and they agree with
one another on each coalition seat; no honest choice is dropped or refused
anywhere and no honest link closed (nobody honest blamed); an honest player
never joins a forged rematch (``check_rematch``, given the player's own end-box
count, raises the precise error: ``evening.after``, ``evening.rotation``, or
``evening.dropped`` / ``evening.kept`` exactly when the genesis contradicts a
signed choice that count holds (:func:`contradiction`): the dropped player
always, every other joiner unless the host withheld the again from it) and never
refuses an honest host's, whose seats are the match's, rotated, and which never
contradicts an honest count.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field

from p2pcards.app import seeded_identity
from p2pcards.crypto.seeded import SeededRng
from p2pcards.protocol import frames, wire
from p2pcards.protocol.again import (
    AGAIN,
    AGAIN_TAG,
    LEAVE,
    AgainCount,
    Choice,
    check_rematch,
    rematch_genesis,
    sign_choice,
)
from p2pcards.protocol.envelope import PROTOCOL_VERSION, SignedMessage
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.evening import (
    After,
    DroppedPlayer,
    EveningRefused,
    FinishedMatch,
    KeptLeaver,
    NotTheMatchBefore,
    WrongRotation,
    rotated_seats,
)
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.lobby import Lobby
from p2pcards.protocol.relay import AgainHeard, Close, Dropped, Output, Relay, Send
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_records import Stage
from p2pcards.rules.seats import SEATS

from .simulation import PLAYERS, Simulation

#: The evening coalition's moves on its members' links.
EVENING_ATTACKS = ("equivocate", "replay", "forge", "flood")
#: A hostile host's rematch geneses, and the refusal each must meet.
FORGERIES: dict[str, type[EveningRefused]] = {
    "no_after": NotTheMatchBefore,
    "other_sid": NotTheMatchBefore,
    "other_final": NotTheMatchBefore,
    "other_seats": WrongRotation,
    "rotated": WrongRotation,
    "drop": DroppedPlayer,
}
#: Choices a flooding member signs about other ends of the session.
FLOOD = 8


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

    def describe(self) -> str:
        return (f"evening seed={self.seed} coalition={sorted(self.coalition)} "
                f"choices={self.choices} attacks={sorted(self.attacks)} "
                f"forgery={self.forgery} withhold={self.withhold} first={self.coalition_first}")


def evening_plan(seed: int, coalition: frozenset[int] | None = None) -> EveningPlan:
    """The seeded evening: a coalition of 0..3 players (unless given), the choices,
    the coalition's moves and, with the host in it, its genesis and withholding."""
    rng = random.Random(f"evening/{seed}")
    if coalition is None:
        coalition = frozenset(rng.sample(range(PLAYERS), rng.choice([0, 1, 1, 2, 2, 3])))
    choices = {p: AGAIN if p == 0 and 0 not in coalition else rng.choice([AGAIN, AGAIN, LEAVE])
               for p in range(PLAYERS)}
    attacks = frozenset(a for a in EVENING_ATTACKS if coalition and rng.random() < 0.5)
    hostile = 0 in coalition
    plan = EveningPlan(
        seed, coalition, choices, attacks,
        forgery=rng.choice([None, *FORGERIES]) if hostile else None,
        withhold=rng.choice([0.0, 0.3]) if hostile else 0.0,
        coalition_first=rng.random() < 0.5)
    if plan.forgery == "drop":  # someone honest to drop: the first honest joiner comes again
        plan.choices[dropped_of(plan)] = AGAIN
    return plan


def dropped_of(plan: EveningPlan) -> int:
    """The honest player a hostile host's ``drop`` genesis leaves out (it chose again)."""
    return min(p for p in range(1, PLAYERS) if p not in plan.coalition)


def contradiction(held: AgainCount, keys: list[bytes]) -> type[EveningRefused] | None:
    """The refusal a joiner holding ``held`` owes a genesis seating ``keys`` (the
    judge's own reading of §14, in player order): an again-chooser missing, a leaver
    kept; None when the genesis agrees with every choice it holds."""
    for player in sorted(held.choices):
        present = held.player_keys[player] in keys
        if held.choices[player] == AGAIN and not present:
            return DroppedPlayer
        if held.choices[player] == LEAVE and present:
            return KeptLeaver
    return None


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


def _hello(player: int, have: int, sid: bytes) -> bytes:
    return frames.encode("hello", {"v": PROTOCOL_VERSION, "name": f"p{player}", "sid": sid,
                                   "have": have, "bot": 0})


def _forged_choice(signer: Identity, finished: FinishedMatch, player: int, choice: str) -> bytes:
    """A choice for ``player``'s seat signed with another key (``sign_choice``'s
    payload, the wrong signature)."""
    genuine = Choice.parse(sign_choice(signer, finished, player, choice).raw)
    return wire.pack([genuine.payload, signer.sign(AGAIN_TAG + genuine.payload)])


class Evening:
    """One evening's run over a finished :class:`Simulation` (module docstring)."""

    def __init__(self, sim: Simulation, plan: EveningPlan) -> None:
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
        host = sim.identities[0]
        self.relay = Relay.resume(Lobby(host, self.game, self.config, self.table_name),
                                  self.transcript)
        #: Every player's count: the host's (player 0) and each end box's.
        self.counts = {p: AgainCount(self.finished, self.keys) for p in range(PLAYERS)}
        #: End boxes still open (a leave closes its link at once).
        self.open: set[int] = set()
        #: Each honest player's genuine choice (raw).
        self.genuine: dict[int, bytes] = {}

    # -- the choices ---------------------------------------------------------------

    def _frames_of(self, player: int) -> list[bytes]:
        """What ``player`` sends on its end-box link, in order."""
        identity, plan = self.identities[player], self.plan
        own = sign_choice(identity, self.finished, player, plan.choices[player]).raw
        if player not in plan.coalition:
            self.genuine[player] = own
            return [own]
        other = LEAVE if plan.choices[player] == AGAIN else AGAIN
        out: list[bytes] = []
        if "flood" in plan.attacks:
            for n in range(FLOOD):
                end = FinishedMatch(self.finished.session, hashlib.sha256(b"end %d" % n).digest(),
                                    self.finished.seats)
                out.append(sign_choice(identity, end, player, AGAIN).raw)
        for victim in self.honest if player != 0 else ():  # a host writes them itself
            if "replay" in plan.attacks:
                out += self._replays(victim)
            if "forge" in plan.attacks:
                out.append(_forged_choice(identity, self.finished, victim, LEAVE))
        out.append(own)
        if "equivocate" in plan.attacks:
            out.append(sign_choice(identity, self.finished, player, other).raw)
        return out

    def _replays(self, victim: int) -> list[bytes]:
        """Choices ``victim`` (honest) signed in other matches: another session, and
        another end of this one: each the other way from its choice here."""
        other = LEAVE if self.plan.choices[victim] == AGAIN else AGAIN
        before = FinishedMatch(hashlib.sha256(b"the match before").digest(),
                               hashlib.sha256(b"its end").digest(), self.finished.seats)
        fork = FinishedMatch(self.finished.session, hashlib.sha256(b"another end").digest(),
                             self.finished.seats)
        identity = self.identities[victim]
        return [sign_choice(identity, before, victim, other).raw,
                sign_choice(identity, fork, victim, other).raw]

    def _order(self) -> list[tuple[int, bytes]]:
        """(sender, choice) in the seeded order the relay meets them."""
        queues = {p: self._frames_of(p) for p in range(PLAYERS)}
        order: list[tuple[int, bytes]] = []
        if self.plan.coalition_first:
            for member in sorted(self.plan.coalition):
                order += [(member, raw) for raw in queues.pop(member)]
        while any(queues.values()):
            sender = self.rng.choice(sorted(p for p, q in queues.items() if q))
            order.append((sender, queues[sender].pop(0)))
        return order

    def _count(self, player: int, raw: bytes) -> None:
        """One honest count hears ``raw``; a refusal blames nobody but must never
        meet an honest player's genuine choice."""
        try:
            self.counts[player].receive(raw)
        except ProtocolError as error:
            self.refused_frames += 1
            if raw in self.genuine.values():
                self.failures.append(f"player {player}'s count refused an honest choice: {error}")

    def _relay_out(self, outputs: list[Output], sender: int, raw: bytes) -> None:
        for out in outputs:
            if isinstance(out, AgainHeard):
                if not self.hostile_host:
                    self._count(0, out.raw)
            elif isinstance(out, Send):
                frame = frames.decode(out.frame)
                if frame.kind != "again" or out.link not in self.open:
                    continue
                if self.hostile_host and self.rng.random() < self.plan.withhold:
                    continue
                self._count(out.link, frame.body)
            elif isinstance(out, Dropped) and raw == self.genuine.get(sender):
                self.failures.append(f"the relay dropped player {sender}'s honest choice: "
                                     f"{out.reason}")
            elif isinstance(out, Close) and out.link in self.honest:
                self.failures.append(f"the relay closed honest player {out.link}'s link: "
                                     f"{out.reason}")

    def choose(self) -> None:
        """Every end box dials the host again and sends its choices; the host's own
        seat tells its choice to the relay; the counts hear what the relay shows."""
        have, sid = len(self.transcript), self.finished.session
        for player in range(1, PLAYERS):
            self.relay.connected(player, self.keys[player])
            for out in self.relay.frame(player, _hello(player, have, sid)):
                if isinstance(out, Close):
                    self.failures.append(f"the relay refused player {player}'s end box: "
                                         f"{out.reason}")
        for sender, raw in self._order():
            if sender == 0:  # the host's own seat: its count, then the relay's store
                if not self.hostile_host:
                    self._count(0, raw)
                self._relay_out(self.relay.tell_choice(raw), sender, raw)
                continue
            if sender not in self.plan.coalition and sender not in self.open:
                self.open.add(sender)
                self._count(sender, raw)  # an end box counts its own choice as it sends it
            self._relay_out(self.relay.frame(sender, frames.encode("again", raw)), sender, raw)
            if sender not in self.plan.coalition and self.plan.choices[sender] == LEAVE:
                self.open.discard(sender)  # a leave is sent and the link closed
                self._relay_out(self.relay.disconnected(sender), sender, raw)
        if self.hostile_host:  # it writes what it likes on the end boxes' links
            for victim in self.honest:
                for raw in [*self._replays(victim),
                            _forged_choice(self.identities[0], self.finished, victim, LEAVE)]:
                    for box in sorted(self.open):
                        self._count(box, raw)

    def judge_choices(self) -> None:
        """Every honest count agrees with each honest seat's choice, and the honest
        counts agree with one another on each coalition seat."""
        counters = [p for p in self.honest if p in self.open or p == 0]
        if self.hostile_host:
            counters = [p for p in counters if p != 0]
        for counter in counters:
            count = self.counts[counter]
            for seat in self.honest:
                got, chose = count.choices.get(seat), self.plan.choices[seat]
                if got is not None and got != chose:
                    self.failures.append(f"player {counter}'s count has honest player {seat} "
                                         f"choosing {got!r}; it chose {chose!r}")
                elif got is None and not self.hostile_host:
                    self.failures.append(f"player {counter}'s count never heard honest player "
                                         f"{seat}'s {chose!r} (the host is honest)")
        if not self.hostile_host:
            for seat in self.plan.coalition:
                seen = {self.counts[c].choices.get(seat) for c in counters}
                if len(seen) > 1:
                    self.failures.append(f"the honest counts disagree on coalition player "
                                         f"{seat}: {seen}")

    # -- the rematch -----------------------------------------------------------------

    def _genesis(self) -> bytes | None:
        """The host's rematch genesis: the honest one once its count is ready (freed
        seats filled with bots), or a hostile host's (``plan.forgery``)."""
        host = self.identities[0]
        nonce = SeededRng(b"rematch %d" % self.plan.seed)(32)
        count = self.counts[0]
        if self.hostile_host:  # its count is whatever it likes: every seat as chosen
            count = AgainCount(self.finished, self.keys)
            for p in range(PLAYERS):
                choice = AGAIN if p == 0 else self.plan.choices[p]
                count.receive(sign_choice(self.identities[p], self.finished, p, choice).raw)
        for player in count.free:
            filler = seeded_identity(23, f"filler{player}", f"f{player}")
            count.fill(player, filler.public_key, filler.name)
        if not count.ready:
            return None
        if self.plan.forgery is None:
            return rematch_genesis(host, count, self.names, self.game, self.config,
                                   self.table_name, nonce).raw
        after = self.finished.after
        seats = list(after.seats)
        forged = {
            "no_after": None,
            "other_sid": After(hashlib.sha256(b"other sid").digest(), after.final, after.seats),
            "other_final": After(after.session, hashlib.sha256(b"other final").digest(),
                                 after.seats),
            "other_seats": After(after.session, after.final,
                                 (seats[1], seats[0], *seats[2:])),
            "rotated": After(after.session, after.final, (*seats[1:], seats[0])),
            "drop": after,
        }[self.plan.forgery]
        players = count.next_players(self.names)
        if self.plan.forgery == "drop":  # the right link; an honest again-chooser's seat to a bot
            victim = dropped_of(self.plan)
            filler = seeded_identity(23, "usurper", "u")
            players[victim] = (filler.public_key, filler.name)
        lobby = Lobby(host, self.game, self.config, self.table_name)
        for key, name in players[1:]:
            lobby.join(key, name)
        return lobby.genesis(nonce=nonce, after=forged).raw

    def rematch(self) -> tuple[bytes | None, dict[int, bool], dict[int, EveningRefused]]:
        """Every honest player that chose again checks the host's genesis, then joins."""
        genesis = self._genesis()
        joined: dict[int, bool] = {}
        refusals: dict[int, EveningRefused] = {}
        if genesis is None:
            return None, joined, refusals
        keys = [key for key, _name in SignedMessage.parse(genesis).body["players"]]
        for player in self.honest:
            if player == 0 or self.plan.choices[player] != AGAIN:
                continue
            held = self.counts[player]
            owed = contradiction(held, keys)
            if self.plan.forgery in (None, "drop"):
                expected = owed  # what this end box holds decides (a hostile host may withhold)
                if owed is not None and not self.hostile_host:
                    self.failures.append(f"the honest host's rematch contradicts player "
                                         f"{player}'s count ({owed.__name__})")
            else:
                expected = FORGERIES[self.plan.forgery]  # the link is checked first
            if self.plan.forgery == "drop" and player == dropped_of(self.plan) \
                    and expected is None:
                self.failures.append(f"the dropped player {player} is owed no refusal")
            try:
                after = check_rematch(genesis, self.finished, held)
            except EveningRefused as refused:
                joined[player], refusals[player] = False, refused
                if type(refused) is not expected:
                    self.failures.append(f"player {player} refused the rematch with "
                                         f"{type(refused).__name__} ({refused}); expected "
                                         f"{expected and expected.__name__}")
                continue
            joined[player] = True
            if expected is not None:
                self.failures.append(f"player {player} joined a forged rematch "
                                     f"({self.plan.forgery}; owed {expected.__name__})")
                continue
            try:
                table = Table(genesis, self.identities[player])
            except ProtocolError as error:
                self.failures.append(f"player {player} could not join the honest rematch: "
                                     f"{error}")
                continue
            self._judge_rotation(after, table, player)
        return genesis, joined, refusals

    def _judge_rotation(self, after: After, table: Table, player: int) -> None:
        """The honest rematch seats each player of the match before one seat on."""
        keys = [p.public_key for p in table.players]
        seats = rotated_seats(after, keys)
        for previous, key in enumerate(after.seats):
            if key in keys and keys[seats[(previous + 1) % SEATS]] != key:
                self.failures.append(f"player {player}: the rematch does not seat the player "
                                     f"of seat {previous} at seat {(previous + 1) % SEATS}")


def run_evening(sim: Simulation, plan: EveningPlan) -> EveningOutcome:
    """The evening after ``sim``'s finished match (every honest table OVER), judged."""
    if not all(p.table.stage is Stage.OVER for p in sim.peers if p.honest):
        raise ValueError("an evening follows a match every honest peer saw end (OVER)")
    evening = Evening(sim, plan)
    evening.choose()
    evening.judge_choices()
    genesis, joined, refusals = evening.rematch()
    return EveningOutcome(plan, evening.failures, evening.counts, genesis, joined, refusals,
                          evening.refused_frames)

