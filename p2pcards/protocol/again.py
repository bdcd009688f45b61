"""The end box's choice, "again" or "leave", signed after the match and counted by the host.

A choice is made after the transcript ended (OVER), so it is no transcript
message and no notice: it is signed in its own domain (``AGAIN_TAG``) and binds
the finished session id and the digest of its last message, so it can be
neither replayed into the chain, nor taken from one evening's match into
another's, nor from a match that went on differently. The host counts the
choices (:class:`AgainCount`); when every seat is taken again, by its player
or by the one that fills a freed seat, the next match can start.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from nacl.encoding import RawEncoder
from nacl.exceptions import BadSignatureError
from nacl.hash import blake2b
from nacl.signing import VerifyKey

from p2pcards.protocol import wire
from p2pcards.protocol.envelope import PROTOCOL_VERSION, SignedMessage
from p2pcards.protocol.errors import BadSignature, MalformedMessage
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.lobby import GENESIS_SHAPE, Lobby
from p2pcards.protocol.rematch_genesis import (
    After,
    DroppedPlayer,
    EveningRefused,
    FinishedMatch,
    KeptLeaver,
    Rematch,
    check_after,
)
from p2pcards.protocol.schema import Bin, Const, Int, OneOf, Struct, Tuple, validate
from p2pcards.protocol.seat_fill import Fill, SeatRefused, fill_of
from p2pcards.rules.seats import SEATS

AGAIN_TAG = b"p2pcards/again/v2\x00"
AGAIN_PERSON = b"p2pcards-agn-v2"
AGAIN, LEAVE = "again", "leave"

_OUTER = Tuple((Bin(lo=1, hi=256), Bin(64)))
CHOICE_SHAPE = Struct({
    "v": Int(PROTOCOL_VERSION, PROTOCOL_VERSION),
    "sid": Bin(32),
    "final": Bin(32),
    "from": Int(0, SEATS - 1),
    "choice": OneOf((Const(AGAIN), Const(LEAVE))),
})


class AgainRefused(EveningRefused):
    """A choice that is not about the match this host just finished: another
    session or another final digest (a replay from another match)."""

    rule = "evening.again"


@dataclass(frozen=True)
class Choice:
    """One player's signed choice at the end box, not yet trusted (see :meth:`verify`)."""

    raw: bytes = field(repr=False)
    payload: bytes = field(repr=False)
    signature: bytes = field(repr=False)
    session: bytes
    final: bytes = field(repr=False)
    player: int
    choice: str

    @classmethod
    def parse(cls, raw: bytes) -> Choice:
        """Decode the shape; raises MalformedWire/MalformedMessage."""
        payload, signature = validate(_OUTER, wire.unpack(raw), "again")
        body = validate(CHOICE_SHAPE, wire.unpack(payload), "again")
        return cls(bytes(raw), payload, signature, body["sid"], body["final"], body["from"],
                   body["choice"])

    @property
    def digest(self) -> bytes:
        """The choice's identity, for deduplication."""
        return blake2b(self.payload, digest_size=32, person=AGAIN_PERSON, encoder=RawEncoder)

    def verify(self, public_key: bytes) -> None:
        """Raise :class:`BadSignature` unless ``public_key`` signed this choice."""
        try:
            VerifyKey(public_key).verify(AGAIN_TAG + self.payload, self.signature)
        except (BadSignatureError, ValueError, TypeError):
            raise BadSignature(f"signature of an {self.choice!r} choice does not verify "
                               f"for player {self.player}") from None


def sign_choice(identity: Identity, finished: FinishedMatch, player: int, choice: str) -> Choice:
    """This player's choice about ``finished``: ``"again"`` or ``"leave"``."""
    if choice not in (AGAIN, LEAVE):
        raise ValueError(f"a choice is {AGAIN!r} or {LEAVE!r}, not {choice!r}")
    payload = wire.pack({"v": PROTOCOL_VERSION, "sid": finished.session, "final": finished.final,
                         "from": player, "choice": choice})
    return Choice.parse(wire.pack([payload, identity.sign(AGAIN_TAG + payload)]))


@dataclass(frozen=True)
class Chosen:
    """A choice counted: ``player`` (join order of the finished match) chose ``choice``."""

    player: int
    choice: str


class AgainCount:
    """The host's count of the end box's choices for one finished match (sans-IO).

    ``player_keys`` are the finished match's players in genesis order. A leave
    is final (the seat is freed); an "again" may still be followed by a leave.
    The next match may start when every seat is taken again (:attr:`ready`):
    chosen again by its player, or :meth:`fill`\\ed after its player left."""

    def __init__(self, finished: FinishedMatch, player_keys: tuple[bytes, ...],
                 closes_at: float | None = None) -> None:
        self.finished = finished
        self.player_keys = tuple(player_keys)
        #: When (the host's clock) the end box closes: no newcomer takes a seat after.
        self.closes_at = closes_at
        self.choices: dict[int, str] = {}
        #: Freed seats' new occupants (by the leaver's player index): key and name.
        self.filled: dict[int, tuple[bytes, str]] = {}
        #: The same, as the host's ``fill`` frames say them, in the order they were made.
        self.fills: list[Fill] = []
        #: Seats freed though their player chose nothing: the host's word (it was away
        #: from the end box past the grace, PROTOCOL.md §14), never a signed choice.
        self.vacated: set[int] = set()
        self._seen: set[bytes] = set()

    def receive(self, raw: bytes) -> Chosen | None:
        """Count one choice; None for a copy already counted or a choice that changes
        nothing (again after leaving). Raises MalformedMessage/BadSignature (drop,
        blame nobody) or :class:`AgainRefused` (another match's choice)."""
        choice = Choice.parse(raw)
        if choice.session != self.finished.session:
            raise AgainRefused(f"player {choice.player}'s {choice.choice!r} is about session "
                               f"{choice.session.hex()[:12]}, not "
                               f"{self.finished.session.hex()[:12]}")
        if choice.final != self.finished.final:
            raise AgainRefused(f"player {choice.player}'s {choice.choice!r} names another end "
                               f"of session {self.finished.session.hex()[:12]}")
        if choice.digest in self._seen:
            return None  # a copy (even one with a broken signature: it changes nothing)
        choice.verify(self.player_keys[choice.player])
        self._seen.add(choice.digest)
        if self.choices.get(choice.player) == LEAVE or choice.player in self.filled:
            return None  # a leave is final; a seat given away is its new player's
        self.choices[choice.player] = choice.choice
        self.vacated.discard(choice.player)  # back in time: its own choice counts
        return Chosen(choice.player, choice.choice)

    def fill(self, player: int, public_key: bytes, name: str, bot: bool = True) -> Fill:
        """Give the seat player ``player`` freed to someone else (a bot, a newcomer);
        the fill every end box is told."""
        if self.choices.get(player) != LEAVE and player not in self.vacated:
            raise MalformedMessage(f"player {player} has not left: the seat is not free")
        if player in self.filled:
            raise MalformedMessage(f"player {player}'s seat is taken already")
        if self.seated(public_key):
            raise MalformedMessage("the seat's new player is already at this table")
        made = fill_of(self.finished, self.player_keys, player, public_key, name, bot)
        self.filled[player] = (public_key, name)
        self.fills.append(made)
        return made

    def seated(self, public_key: bytes) -> bool:
        """Whether ``public_key`` played the finished match or took a freed seat."""
        return public_key in self.player_keys or any(k == public_key
                                                     for k, _ in self.filled.values())

    def take(self, public_key: bytes, name: str, now: float, bot: bool = False) -> Fill:
        """A newcomer asks for a freed seat (``now``: the host's clock): it gets the
        first free one, in join order (``bot``: its own word, shown). Raises :class:`SeatRefused` when the end box
        has closed, no seat is free, or the key is already at the table."""
        if self.closes_at is not None and now >= self.closes_at:
            raise SeatRefused("the end box has closed: the evening has ended")
        if self.seated(public_key):
            raise SeatRefused("this key is already at the table: it cannot take a second seat")
        if not self.free:
            raise SeatRefused("no seat is free at this table's end box")
        return self.fill(self.free[0], public_key, name, bot)

    def hear_fill(self, made: Fill) -> bool:
        """An end box's count of the host's fill frame: True when it is new. Raises
        :class:`AgainRefused` for a fill about another match, MalformedMessage for one
        of a seat this count has not seen freed (or already filled otherwise)."""
        if not made.about(self.finished):
            raise AgainRefused(f"a fill about session {made.session.hex()[:12]}, not "
                               f"{self.finished.session.hex()[:12]}")
        if self.filled.get(made.player) == (made.public_key, made.name):
            return False
        if made.player not in self.choices:
            # A seat whose player chose nothing here: the host freed it (its player was
            # away past the grace); the genesis binds, and a later choice of that player
            # counts for nothing (see :meth:`receive`).
            self.vacated.add(made.player)
        self.fill(made.player, made.public_key, made.name, made.bot)
        return True

    def vacate(self, player: int) -> bool:
        """The host frees the seat of a player that chose nothing (it was away from the
        end box past the grace); True when that changed anything."""
        if player in self.choices or player in self.filled or player in self.vacated:
            return False
        self.vacated.add(player)
        return True

    def unvacate(self, player: int) -> bool:
        """The player of a seat freed by absence is back before anyone took it: the
        seat is its own again; True when that changed anything."""
        if player not in self.vacated or player in self.filled:
            return False
        self.vacated.discard(player)
        return True

    @property
    def left(self) -> tuple[int, ...]:
        """The players who left (their seats are free unless filled)."""
        return tuple(p for p in range(SEATS) if self.choices.get(p) == LEAVE)

    @property
    def free(self) -> tuple[int, ...]:
        """Players whose seat is free (they left, or were away past the grace) and not
        filled yet."""
        return tuple(p for p in range(SEATS) if (p in self.left or p in self.vacated)
                     and p not in self.filled)

    @property
    def undecided(self) -> tuple[int, ...]:
        """Players who chose nothing and whose seat nobody took."""
        return tuple(p for p in range(SEATS) if p not in self.choices and p not in self.filled)

    @property
    def ready(self) -> bool:
        """Every seat taken again: the next match can start."""
        return all(self.choices.get(p) == AGAIN or p in self.filled for p in range(SEATS))

    def next_players(self, names: tuple[str, ...]) -> list[tuple[bytes, str]]:
        """The next match's players, in the finished match's join order, a freed seat's
        filler in its leaver's place (``names``: the finished match's names)."""
        if not self.ready:
            raise MalformedMessage(f"seats still free or undecided: {self.free or 'choices'}")
        return [self.filled.get(p, (self.player_keys[p], names[p])) for p in range(SEATS)]


def rematch_of(count: AgainCount, names: tuple[str, ...]) -> Rematch:
    """The host relay's rematch once ``count`` is ready (see :class:`Rematch`)."""
    return Rematch(tuple(key for key, _name in count.next_players(names)), count.finished.after)


def rematch_genesis(host: Identity, count: AgainCount, names: tuple[str, ...], game: str,
                    config: dict[str, int], table_name: str,
                    nonce: bytes | None = None) -> SignedMessage:
    """The host's genesis of the next match once ``count`` is ready: the same players
    in the same join order (a filler in its leaver's place), ``after`` naming the
    finished match (PROTOCOL.md §14)."""
    players = count.next_players(names)
    if players[0][0] != host.public_key:
        raise MalformedMessage("only the finished match's host writes its rematch's genesis")
    lobby = Lobby(host, game, config, table_name)
    for key, name in players[1:]:
        lobby.join(key, name)
    return lobby.genesis(nonce=nonce, after=count.finished.after)


def check_rematch(genesis_raw: bytes, previous: FinishedMatch,
                  held: AgainCount | None = None) -> After:
    """A joiner's check of a rematch's genesis against its own record of the match
    before, before it signs anything; raises :class:`~p2pcards.protocol.rematch_genesis.NotTheMatchBefore`
    or :class:`~p2pcards.protocol.rematch_genesis.WrongRotation` (or MalformedMessage).

    ``held``: the choices this joiner's end box counted (its own, and every other
    its host's relay showed it). A player whose "again" it holds must be in the
    genesis (the rotation then seats it one seat on, with the same key), else
    :class:`~p2pcards.protocol.rematch_genesis.DroppedPlayer`; one whose "leave" it holds
    must not be, else :class:`~p2pcards.protocol.rematch_genesis.KeptLeaver` (PROTOCOL.md §14)."""
    body = validate(GENESIS_SHAPE, SignedMessage.parse(genesis_raw).body)
    after = After.from_wire(body["after"]) if "after" in body else None
    check_after(after, previous)
    assert after is not None  # check_after refuses a genesis without one
    if held is not None:
        check_held(held, [key for key, _name in body["players"]], previous)
    return after


def check_held(held: AgainCount, keys: list[bytes], previous: FinishedMatch) -> None:
    """Refuse a rematch whose players (``keys``, genesis order) contradict a choice
    this joiner holds: an "again"-chooser left out, or a leaver kept."""
    if held.finished != previous:
        raise MalformedMessage("the end box's count is about another match than this record")
    for player in sorted(held.choices):
        key = held.player_keys[player]
        seat = (previous.seats.index(key) + 1) % SEATS
        if held.choices[player] == AGAIN and key not in keys:
            taker = next((k for k in keys if k not in previous.seats), None)
            instead = f"; a key not at the match before ({taker.hex()[:12]}) is in it" \
                if taker is not None else ""
            raise DroppedPlayer(f"the genesis drops player {player}, whose signed 'again' "
                                f"this seat holds: seat {seat} of the rematch is its "
                                f"(seat {seat - 1 if seat else SEATS - 1} before, rotated)"
                                f"{instead}", player, seat)
        if held.choices[player] == LEAVE and key in keys:
            raise KeptLeaver(f"the genesis seats player {player}, whose signed 'leave' this "
                             f"seat holds, at seat {seat}: a leave is final", player, seat)
