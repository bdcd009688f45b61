"""Table talk: short signed chat lines beside the game, never part of it.

Why a module of its own: a chat line must be as unforgeable as a move (the
host relays it, and must not be able to speak for anyone), yet it must never
touch the transcript, a verdict or the chain. So it is signed by the sender's
identity key under its own domain tag (``TALK_TAG``: a chat line never
verifies as a transcript message or a notice, nor the reverse), bound to the
table's session id (no replay into another table), and carries a per-sender
counter that only goes up (no replay of an old line as a new one). The
:class:`TalkBook` checks lines for one peer (or for the host's relay) and
drops, with a precise reason, whatever is malformed, forged, replayed, from
another table or beyond a sender's rate; a drop blames nobody and changes no
table state.

Sans-IO: bytes and clock readings in, checked lines (or a reason) out.

Wire (PROTOCOL.md §13): a ``talk`` frame's body is the msgpack array
``[payload: bin, sig: bin(64)]``; ``payload`` is the msgpack map
``{v: 2, sid: bin(32), from: 0..3, n: counter, text: str(1..200)}`` and
``sig`` is Ed25519 by player ``from`` over ``TALK_TAG || payload``.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from nacl.encoding import RawEncoder
from nacl.exceptions import BadSignatureError
from nacl.hash import blake2b
from nacl.signing import VerifyKey

from p2pcards.protocol import wire
from p2pcards.protocol.envelope import PROTOCOL_VERSION
from p2pcards.protocol.errors import BadSignature, LocalProtocolError, ProtocolError
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.schema import Bin, Int, Struct, Text, Tuple, validate
from p2pcards.untrusted_text import shown

#: The signing domain of a chat line (never a transcript message's or a notice's).
TALK_TAG = b"p2pcards/talk/v2\x00"
#: The person tag of a chat line's identity (for deduplication).
TALK_PERSON = b"p2pcards-tlk-v2"
#: Longest line, in characters, after cleaning (and never more than the wire's
#: 256 bytes of UTF-8 for a string).
MAX_TALK_CHARS = 200
MAX_TALK_BYTES = wire.MAX_STR
#: Largest counter (a sender uses milliseconds of the Unix clock: far below this).
MAX_COUNTER = 2**53
#: Rate limit per sender: at most ``RATE_LINES`` lines in any ``RATE_WINDOW`` seconds.
RATE_LINES = 5
RATE_WINDOW = 10.0
#: Largest ``talk`` frame body: a 200-character line signed, with room to spare.
MAX_TALK_FRAME = 512
#: How many recent lines' digests a peer remembers to drop copies (a line comes
#: from the host and again on each direct link).
SEEN_LIMIT = 256
#: The quick reactions (the full screen's ``t`` then a digit; plain ``say 1``).
REACTIONS = ("gg", "nice", "oops", "well played", "good luck", "thanks")

_OUTER = Tuple((Bin(lo=1, hi=MAX_TALK_FRAME), Bin(64)))
PAYLOAD_SHAPE = Struct({
    "v": Int(PROTOCOL_VERSION, PROTOCOL_VERSION),
    "sid": Bin(32),
    "from": Int(0, 3),
    "n": Int(1, MAX_COUNTER),
    "text": Text(MAX_TALK_CHARS, 1),
})


class TalkDropped(ProtocolError):
    """A chat line this peer neither shows nor passes on; ``reason`` says why.

    Never a verdict and never anyone's blame: anyone can send bytes that name
    another player, and a host can replay or drop lines (PROTOCOL.md §13)."""

    rule = "talk.dropped"

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class TalkRefused(LocalProtocolError):
    """This player's own line cannot go out now (empty, too fast, no table yet)."""

    rule = "talk.refused"


@dataclass(frozen=True)
class TalkLine:
    """A checked chat line, for the front end: who said it and what (clean text)."""

    player: int
    """The speaker's player index (join order); front ends name him by seat."""
    text: str
    own: bool = False


@dataclass(frozen=True)
class SignedTalk:
    """One chat line, parsed but not yet trusted (see :meth:`verify`)."""

    raw: bytes = field(repr=False)
    payload: bytes = field(repr=False)
    signature: bytes = field(repr=False)
    session: bytes = field(repr=False)
    player: int
    counter: int
    text: str
    digest: bytes = field(repr=False)

    @classmethod
    def parse(cls, raw: bytes) -> SignedTalk:
        """Decode and shape-check; raises MalformedWire or MalformedMessage."""
        payload, signature = validate(_OUTER, wire.unpack(raw), "talk")
        fields = validate(PAYLOAD_SHAPE, wire.unpack(payload), "talk payload")
        return cls(raw=bytes(raw), payload=payload, signature=signature, session=fields["sid"],
                   player=fields["from"], counter=fields["n"], text=fields["text"],
                   digest=talk_digest(payload))

    def verify(self, public_key: bytes) -> None:
        """Raise :class:`~p2pcards.protocol.errors.BadSignature` unless ``public_key`` signed it."""
        try:
            VerifyKey(public_key).verify(TALK_TAG + self.payload, self.signature)
        except (BadSignatureError, ValueError, TypeError):
            raise BadSignature(f"signature of a chat line does not verify for player "
                               f"{self.player}") from None


def talk_digest(payload: bytes) -> bytes:
    """A chat line's identity: BLAKE2b-256 of its payload under its own person tag."""
    return blake2b(payload, digest_size=32, person=TALK_PERSON, encoder=RawEncoder)


def clip(text: str) -> str:
    """``text`` as it may go on the wire: control and format characters blanked
    (the shared sanitiser), spaces folded, at most ``MAX_TALK_CHARS`` characters
    and ``MAX_TALK_BYTES`` bytes of UTF-8 (a longer line is cut)."""
    out = shown(text, limit=10 * MAX_TALK_CHARS)[:MAX_TALK_CHARS]
    while len(out.encode("utf-8")) > MAX_TALK_BYTES:
        out = out[:-1]
    return out.rstrip()


def seal_talk(identity: Identity, *, session: bytes, player: int, counter: int,
              text: str) -> SignedTalk:
    """Build and sign a chat line under ``TALK_TAG``; it parses back to an equal line."""
    payload = wire.pack({"v": PROTOCOL_VERSION, "sid": session, "from": player,
                         "n": counter, "text": text})
    signature = identity.sign(TALK_TAG + payload)
    return SignedTalk.parse(wire.pack([payload, signature]))


class TalkBook:
    """One peer's table talk (or the host relay's check of it): writes this
    player's lines and checks everyone else's.

    ``keys`` are the table's player keys (genesis order); ``me`` is this
    peer's player index (None for the relay, which writes nothing). Every
    check that drops a line raises :class:`TalkDropped` with its reason;
    a copy of a line already accepted returns None.
    """

    def __init__(self, session: bytes, keys: Sequence[bytes], me: int | None = None, *,
                 rate_lines: int = RATE_LINES, rate_window: float = RATE_WINDOW) -> None:
        self.session = session
        self.keys = list(keys)
        self.me = me
        self.rate_lines = rate_lines
        self.rate_window = rate_window
        #: The highest counter accepted (or written) per player.
        self.last: dict[int, int] = {}
        #: When each player's recent lines were accepted (for the rate limit).
        self._times: dict[int, deque[float]] = {}
        self._seen: OrderedDict[bytes, None] = OrderedDict()

    # -- this player's lines ---------------------------------------------------------

    def write(self, identity: Identity, text: str, now: float,
              wall_ms: int | None = None) -> SignedTalk:
        """Sign this player's line (cleaned and cut to the limits).

        The counter is at least the Unix clock in milliseconds, so it keeps
        going up after a restart without being saved. Raises
        :class:`TalkRefused` for an empty line or one beyond the rate limit
        (the others would drop it)."""
        if self.me is None:
            raise TalkRefused("only a seated player can talk")
        line = clip(text)
        if not line:
            raise TalkRefused("nothing to say: the line is empty")
        if not self._room(self.me, now):
            raise TalkRefused(f"at most {self.rate_lines} lines in {self.rate_window:g} "
                              f"seconds; wait a moment")
        wall = int(time.time() * 1000) if wall_ms is None else wall_ms
        counter = max(self.last.get(self.me, 0) + 1, wall)
        signed = seal_talk(identity, session=self.session, player=self.me,
                           counter=counter, text=line)
        self._accept(signed, now)
        return signed

    # -- others' lines -----------------------------------------------------------------

    def receive(self, raw: bytes, now: float, *, link_player: int | None = None) -> TalkLine | None:
        """Check a received chat line; the line to show, None for a copy already
        accepted, or :class:`TalkDropped` naming why it is dropped.

        ``link_player`` (the relay): the player whose link it came on, who may
        only hand in lines of his own."""
        try:
            signed = SignedTalk.parse(raw)
        except ProtocolError as error:
            raise TalkDropped(f"malformed chat line: {error}") from None
        if signed.digest in self._seen:
            return None
        if signed.session != self.session:
            raise TalkDropped(f"a chat line of another table (player {signed.player})")
        if signed.player >= len(self.keys):
            raise TalkDropped(f"a chat line from unknown player {signed.player}")
        if link_player is not None and signed.player != link_player:
            raise TalkDropped(f"player {link_player} handed in a chat line of player {signed.player}")
        if signed.player == self.me:
            raise TalkDropped("a chat line in this player's name that it did not write")
        try:
            signed.verify(self.keys[signed.player])
        except ProtocolError:
            raise TalkDropped(f"a chat line whose signature is not player {signed.player}'s "
                              f"(forged or altered)") from None
        last = self.last.get(signed.player, 0)
        if signed.counter <= last:
            raise TalkDropped(f"a replayed or late chat line of player {signed.player} "
                              f"(counter {signed.counter}, last seen {last})")
        if not self._room(signed.player, now):
            raise TalkDropped(f"player {signed.player} talks too fast (more than "
                              f"{self.rate_lines} lines in {self.rate_window:g} s)")
        self._accept(signed, now)
        return TalkLine(signed.player, shown(signed.text, MAX_TALK_CHARS))

    # -- helpers -------------------------------------------------------------------------

    def _room(self, player: int, now: float) -> bool:
        times = self._times.setdefault(player, deque())
        while times and times[0] <= now - self.rate_window:
            times.popleft()
        return len(times) < self.rate_lines

    def _accept(self, signed: SignedTalk, now: float) -> None:
        self.last[signed.player] = signed.counter
        self._times.setdefault(signed.player, deque()).append(now)
        self._seen[signed.digest] = None
        while len(self._seen) > SEEN_LIMIT:
            self._seen.popitem(last=False)
