"""The coalition: what up to three players (the host among them or not) do to a run.

Honest links behave like TCP (``links.py``); a coalition member's frames (and,
with a hostile host, the relay's) may be dropped, delayed, duplicated and
reordered (:meth:`Coalition.arrivals`), sent on chosen paths only
(:meth:`Coalition.may_use`), and joined by anything its members can sign
(:meth:`Coalition.replaces`, run on each of its own messages): a second version
of a message at any of its positions (equivocation, a fork), a message out of
turn, a rule-breaking message sent instead of its own (:func:`broken`: a
shuffle whose proof fails, shares for the wrong cards, a bid above the maximum,
a play of a card dealt to another seat; in Bluff a show whose shares are on the
wrong cards or too few, a discard of rank 1, with a stake above the stack or
naming a slot twice), frames with bad signatures, replays, withholding from
some position on (``silent``), hundreds of bad-signature shuffles to the next
shuffler (finding 2), the hint and pause breaches (a ``hint`` at a table without
hints, a second one in a row, one for another seat's position; an ``away`` with
no pause left) and leaving after forging leaves for the honest seats and
replaying ones they signed at another table.

Everything it signs that breaks a rule is recorded in :attr:`Coalition.evidence`,
which the judge (``judge.py``) holds every honest peer that received it to.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from typing import Any

from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.crypto.seeded import SeededRng
from p2pcards.protocol import frames
from p2pcards.protocol.envelope import SignedMessage, seal, seal_notice
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.session import HOST, Path
from p2pcards.protocol.table_records import AWAY, HINT, Stage

from .clock import Clock
from .links import RELAY, Node
from .peer import Peer
from .schedule import PLAYERS, Schedule

#: The decisions a player makes in play (a hint may come before each of them).
ACTION_TYPES = frozenset({"bid", "pass", "trump", "play", "discard", "challenge"})


class Coalition:
    """The coalition's side of one run: its links' faults and its signed mischief.

    It shares the run's generator (``rng``: one seed, one order of draws) and
    clock, and puts frames on a member's path with ``post(player, path, frame)``,
    as that member's process would."""

    def __init__(self, schedule: Schedule, identities: list[Identity], rng: random.Random,
                 clock: Clock, post: Callable[[int, Path, bytes], None]) -> None:
        self.schedule = schedule
        self.identities = identities
        self.rng = rng
        self.clock = clock
        self._post = post
        #: Signed evidence the coalition made: ("equivocation", player, position, a, b)
        #: and ("single", player, position, raw) for a message out of turn or breaking a rule.
        self.evidence: list[tuple[Any, ...]] = []
        self._bad_sent = False
        #: Its hint or pause breach went out (once a schedule).
        self._breached = False

    # -- what its links do to frames -------------------------------------------------

    def hostile(self, src: Node) -> bool:
        """Whether frames from ``src`` are the coalition's (the relay's: a hostile host's)."""
        if src == RELAY:
            return 0 in self.schedule.coalition
        return src in self.schedule.coalition

    def arrivals(self) -> list[float]:
        """When the copies of a hostile frame arrive: none (dropped), one or two
        (duplicated), each held back as long as the schedule's ``hold``, in any order."""
        schedule = self.schedule
        if self.rng.random() < schedule.drop:
            return []
        copies = 2 if self.rng.random() < schedule.duplicate else 1
        return [self.clock.now + self.rng.uniform(0, max(schedule.max_delay, schedule.hold))
                for _ in range(copies)]

    def may_use(self, peer: Peer, path: Path, frame: bytes) -> bool:
        """A coalition member sends its own transcript messages on chosen paths only."""
        allowed = self.schedule.paths.get(peer.player)
        if allowed is None:
            return True
        decoded = frames.decode(frame)
        if decoded.kind != "msg":
            return True
        return SignedMessage.parse(decoded.body).player != peer.player or path in allowed

    def withholds(self, peer: Peer, position: int) -> bool:
        """Whether ``peer``, a member gone ``silent``, writes nothing at ``position``."""
        return (not peer.honest and "silent" in self.schedule.attacks
                and position >= self.schedule.silent_from)

    def forces_hint(self, peer: Peer, position: int) -> bool:
        """A member about to write a second hint (``hint_twice``) first takes one."""
        schedule = self.schedule
        return (not peer.honest and schedule.hint_attack == "hint_twice"
                and not self._breached and position >= schedule.hint_at)

    def forces_pause(self, peer: Peer, position: int) -> bool:
        """A member about to write an ``away`` with none left first spends its pauses."""
        schedule = self.schedule
        return (not peer.honest and schedule.pause_attack and not self._breached
                and position >= schedule.hint_at)

    # -- its signed mischief ---------------------------------------------------------

    def _targets(self, peer: Peer) -> list[Path]:
        return [HOST, *[q for q in range(PLAYERS) if q != peer.player]]

    def _send(self, peer: Peer, path: Path, raw: bytes) -> None:
        self._post(peer.player, path, frames.encode("msg", raw))

    def replaces(self, peer: Peer, raw: bytes) -> bool:
        """What the member ``peer`` adds to its message ``raw``; whether a
        rule-breaking message went out instead of it (``raw`` is then withheld)."""
        bad = self._mischief(peer, raw)
        if bad is None:
            return False
        peer.withheld.add(raw)
        for path in self._targets(peer):
            self._send(peer, path, bad)
        return True

    def _mischief(self, peer: Peer, raw: bytes) -> bytes | None:
        msg = SignedMessage.parse(raw)
        attacks, schedule = self.schedule.attacks, self.schedule
        identity = self.identities[peer.player]
        targets = self._targets(peer)
        if schedule.fake_shuffles and msg.type == "shuffle":
            self._fake_shuffles(peer, msg)
        if schedule.hint_attack is not None and not self._breached:
            hinted = self._hint_breach(peer, msg)
            if hinted is not None:
                return hinted
        if schedule.leave_at is not None and msg.position >= schedule.leave_at:
            self._leave(peer, msg)
        if schedule.pause_attack and not self._breached:
            away = self._away_breach(peer, msg)
            if away is not None:
                return away
        if "equivocate" in attacks and msg.position == schedule.equivocate_at:
            other = seal(identity, session=msg.session, position=msg.position, prev=msg.prev,
                         player=peer.player, type=msg.type, body=other_body(msg)).raw
            self.evidence.append(("equivocation", peer.player, msg.position, raw, other))
            for path in self.rng.sample(targets, self.rng.randrange(1, len(targets) + 1)):
                self._send(peer, path, other)
        if "out_of_turn" in attacks and msg.position < 40:
            n = msg.position + 1  # the next position, which someone else writes
            bad = seal(identity, session=msg.session, position=n, prev=msg.digest,
                       player=peer.player, type=msg.type, body=msg.body).raw
            self.evidence.append(("single", peer.player, n, bad))
            self._soon(peer, targets, bad)
        if "junk" in attacks:
            victim = self.rng.choice([q for q in range(PLAYERS) if q != peer.player])
            forged = seal(identity, session=msg.session, position=msg.position + 1,
                          prev=msg.digest, player=victim, type=msg.type, body=msg.body).raw
            for path in targets:
                self._send(peer, path, forged)  # signed by the wrong key: names nobody
        if "replay" in attacks:
            for old in peer.table.transcript()[: self.rng.randrange(1, msg.position + 1)]:
                self._send(peer, self.rng.choice(targets), old)
        if "bad" in attacks and self._bad_now(msg):
            mtype, body = broken(msg, schedule.game)
            bad = seal(identity, session=msg.session, position=msg.position, prev=msg.prev,
                       player=peer.player, type=mtype, body=body).raw
            self.evidence.append(("single", peer.player, msg.position, bad))
            return bad
        return None

    def _soon(self, peer: Peer, targets: list[Path], raw: bytes) -> None:
        """``raw`` on every path a moment later (after the message it follows)."""
        at = self.clock.now + self.rng.uniform(0, self.schedule.max_delay)
        for path in targets:
            self.clock.at(at, lambda path=path: self._send(peer, path, raw))  # type: ignore[misc]

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
                    self._send(peer, path, fake)

    def _leave(self, peer: Peer, msg: SignedMessage) -> None:
        """A coalition member leaves after ``msg`` (``Schedule.leave_at``): forged and
        replayed leaves for the honest seats, then its own signed leave, on every path."""
        table = peer.table
        if table.stage is Stage.ENDED:
            return  # left already (or ended otherwise)
        other = hashlib.sha256(b"another table").digest()
        assert msg.session is not None  # a message of this table carries its session
        notices = []
        for victim in (p for p in range(PLAYERS) if p not in self.schedule.coalition):
            notices.append(seal_notice(self.identities[peer.player], session=msg.session,
                                       position=msg.position + 1, prev=msg.digest,
                                       player=victim, type="leave", body={}).raw)
            notices.append(seal_notice(self.identities[victim], session=other, position=5,
                                       prev=bytes(32), player=victim, type="leave",
                                       body={}).raw)
        if table.stage is not Stage.OVER:  # OVER: its leave is the end box's choice now
            notices.append(table.leave())
            peer.verdict, peer.verdict_at = table.verdict, self.clock.now  # its table ended: it left
        for raw in notices:
            for path in self._targets(peer):
                self._post(peer.player, path, frames.encode("alert", raw))

    def _away_breach(self, peer: Peer, msg: SignedMessage) -> bytes | None:
        """The coalition's ``away`` with no pause left, sent instead of its move
        ``msg`` (``Schedule.pause_attack``): signed evidence of the breach."""
        table = peer.table
        if (msg.type not in ACTION_TYPES or msg.position < self.schedule.hint_at
                or table.pauses_left[peer.player] > 0):
            return None
        return self._breach(peer, msg, AWAY)

    def _hint_breach(self, peer: Peer, msg: SignedMessage) -> bytes | None:
        """The coalition's hint breach at its move ``msg`` (``Schedule.hint_attack``):
        a ``hint`` instead of it where hints are off (``hint_off``) or right after
        its own hint (``hint_twice``), returned to be sent instead; or a ``hint``
        for the next position when another seat writes it (``hint_out_of_turn``),
        sent beside it. Each is signed evidence of the breach."""
        kind, table = self.schedule.hint_attack, peer.table
        if msg.type not in ACTION_TYPES or msg.position < self.schedule.hint_at:
            return None
        if kind == "hint_out_of_turn":
            if table.stage is not Stage.PLAY or table.writer in (None, peer.player):
                return None
            self._breached = True
            n = msg.position + 1
            hint = seal(self.identities[peer.player], session=msg.session, position=n,
                        prev=msg.digest, player=peer.player, type=HINT, body={}).raw
            self.evidence.append(("single", peer.player, n, hint))
            self._soon(peer, self._targets(peer), hint)
            return None
        before = SignedMessage.parse(table.transcript()[msg.position - 1])
        if kind == "hint_twice" and not (before.type == HINT and before.player == peer.player):
            return None
        return self._breach(peer, msg, HINT)

    def _breach(self, peer: Peer, msg: SignedMessage, mtype: str) -> bytes:
        """An empty ``mtype`` message at ``msg``'s place, signed: evidence of the breach."""
        self._breached = True
        raw = seal(self.identities[peer.player], session=msg.session, position=msg.position,
                   prev=msg.prev, player=peer.player, type=mtype, body={}).raw
        self.evidence.append(("single", peer.player, msg.position, raw))
        return raw


def other_body(msg: SignedMessage) -> dict[str, Any]:
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


def broken(msg: SignedMessage, game: str) -> tuple[str, dict[str, Any]]:
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
    return msg.type, other_body(msg)
