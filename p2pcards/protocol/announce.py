"""Direct-link announcements: where a player listens, signed by that player; and the
host's unsigned hints of the same (:class:`PeerAddresses`, the ``peers`` frame).

Why: the host's ``peers`` frame is an unsigned hint that only the host sends,
so a hostile host that never sends it keeps every pair of players on its star,
where it alone carries (and can withhold) their messages. A player therefore
also announces its own listening addresses on a path the host does not
control (zeroconf on the LAN, ``p2pcards.net.direct_discovery``), signed by
its identity key under its own domain tag (``ANNOUNCE_TAG``: an announcement
never verifies as a transcript message, a notice or a chat line, nor the
reverse), bound to the table's session id (no replay into another table) and
carrying a counter that only goes up (an old announcement, replayed by
anyone, never replaces a newer one).

Sans-IO: bytes in, checked addresses (or a precise reason) out. An
:class:`AnnouncementBook` checks the announcements one player hears; an
ignored announcement blames nobody (anyone on the LAN can send one) and
changes no table state. The link handshake still pins the dialled key, so
even a genuine announcement of a wrong address only fails to link.

Wire (PROTOCOL.md §12): the announcement is the msgpack array
``[payload: bin, sig: bin(64)]``; ``payload`` is the msgpack map
``{v: 2, sid: bin(32), pk: bin(32), n: 1..2^53, addrs: [[ip, port], ...] (1..4)}``
and ``sig`` is Ed25519 by ``pk`` over ``ANNOUNCE_TAG || payload``.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey

from p2pcards.protocol import frames, wire
from p2pcards.protocol.envelope import PROTOCOL_VERSION
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.frames import ADDR, MAX_ADDRS
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.schema import Bin, Int, ListOf, Struct, Tuple, validate
from p2pcards.wiremap import WireList

#: The signing domain of a direct-link announcement (no other signature's).
ANNOUNCE_TAG = b"p2pcards/direct/v2\x00"
#: Largest counter (an announcer uses milliseconds of the Unix clock: far below this).
MAX_COUNTER = 2**53
#: Largest announcement, the whole ``[payload, sig]``. Four addresses of 64 ASCII
#: characters make at most 447 bytes, so only text in other characters (a zone named
#: so, up to 4 bytes a character) can reach it: :func:`seal_announcement` then lists
#: fewer addresses, and a receiver refuses a longer one as malformed (PROTOCOL.md §12).
MAX_ANNOUNCEMENT = 512

#: An Ed25519 signature.
SIGNATURE_BYTES = 64

_OUTER = Tuple((Bin(lo=1, hi=MAX_ANNOUNCEMENT), Bin(SIGNATURE_BYTES)))
PAYLOAD_SHAPE = Struct({
    "v": Int(PROTOCOL_VERSION, PROTOCOL_VERSION),
    "sid": Bin(32),
    "pk": Bin(32),
    "n": Int(1, MAX_COUNTER),
    "addrs": ListOf(ADDR, 1, MAX_ADDRS),
})


class AnnouncementIgnored(ProtocolError):
    """An announcement this peer does not dial; ``reason`` says why (logged).

    Never a verdict and never anyone's blame: anyone on the LAN can announce
    anything, and anyone can replay a genuine announcement."""

    rule = "announce"

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"{reason} [{self.rule}]")


class AnnouncementMalformed(AnnouncementIgnored):
    """Not an announcement's shape (§2 encoding, the payload's exact keys)."""

    rule = "announce.malformed"


class AnnouncementOtherTable(AnnouncementIgnored):
    """Signed for another table's session id (another table, or an old one)."""

    rule = "announce.session"


class AnnouncementUnseated(AnnouncementIgnored):
    """Its key is not one of this table's other players (a stranger, or this peer)."""

    rule = "announce.unseated"


class AnnouncementForged(AnnouncementIgnored):
    """Its signature does not verify under the key it names."""

    rule = "announce.signature"


class AnnouncementBadAddress(AnnouncementIgnored):
    """It lists an address nobody may dial (multicast, unspecified); a host name
    or a port 0 is not even an announcement's shape (:class:`AnnouncementMalformed`)."""

    rule = "announce.address"


class AnnouncementStale(AnnouncementIgnored):
    """Its counter is not above the last one accepted from that key: a replay of an
    older announcement (or one that lost the race to a newer one)."""

    rule = "announce.stale"


@dataclass(frozen=True)
class SignedAnnouncement:
    """One announcement, parsed but not yet trusted (see :meth:`verify`)."""

    raw: bytes = field(repr=False)
    payload: bytes = field(repr=False)
    signature: bytes = field(repr=False)
    session: bytes = field(repr=False)
    public_key: bytes = field(repr=False)
    counter: int
    addrs: tuple[tuple[str, int], ...]

    @classmethod
    def parse(cls, raw: bytes) -> SignedAnnouncement:
        """Decode and shape-check; raises :class:`AnnouncementMalformed`."""
        try:
            payload, signature = validate(_OUTER, wire.unpack(raw, max_bytes=MAX_ANNOUNCEMENT),
                                          "announcement")
            fields = validate(PAYLOAD_SHAPE, wire.unpack(payload), "announcement payload")
        except ProtocolError as error:
            raise AnnouncementMalformed(f"not an announcement: {error}") from None
        return cls(raw=bytes(raw), payload=payload, signature=signature, session=fields["sid"],
                   public_key=fields["pk"], counter=fields["n"],
                   addrs=tuple((ip, port) for ip, port in fields["addrs"]))

    def verify(self) -> None:
        """Raise :class:`AnnouncementForged` unless the key it names signed it."""
        try:
            VerifyKey(self.public_key).verify(ANNOUNCE_TAG + self.payload, self.signature)
        except (BadSignatureError, ValueError, TypeError):
            raise AnnouncementForged("its signature does not verify under the key it names") from None


def seal_announcement(identity: Identity, *, session: bytes, addrs: Sequence[WireList],
                      counter: int) -> SignedAnnouncement:
    """Build and sign this player's announcement of ``addrs``, or of as many of them, in
    order, as fit in :data:`MAX_ANNOUNCEMENT` (the first always does); it parses back
    to an equal one."""
    listed = [[str(ip), int(port)] for ip, port in addrs]
    while True:
        payload = wire.pack({"v": PROTOCOL_VERSION, "sid": session, "pk": identity.public_key,
                             "n": counter, "addrs": listed})
        if len(wire.pack([payload, bytes(SIGNATURE_BYTES)])) <= MAX_ANNOUNCEMENT or len(listed) == 1:
            break
        listed = listed[:-1]
    return SignedAnnouncement.parse(wire.pack([payload, identity.sign(ANNOUNCE_TAG + payload)]))


def announce_counter(last: int = 0, wall_ms: int | None = None) -> int:
    """The next counter: at least the Unix clock in milliseconds, so it keeps going
    up after a restart (a resumed player listens elsewhere) without being saved."""
    wall = int(time.time() * 1000) if wall_ms is None else wall_ms
    return min(MAX_COUNTER, max(last + 1, wall))


def _undialable(ip: str) -> bool:
    address = ipaddress.ip_address(ip.split("%", 1)[0])
    return address.is_multicast or address.is_unspecified


@dataclass(frozen=True)
class Announced:
    """A checked announcement: player ``player`` listens at ``addrs``."""

    player: int
    addrs: list[WireList]


class AnnouncementBook:
    """The announcements one player has accepted at one table.

    ``keys`` are the table's player keys (genesis order); ``me`` is this
    player's index. :meth:`check` raises an :class:`AnnouncementIgnored`
    subclass for what it does not accept, and returns None for a copy of the
    announcement last accepted from that key (zeroconf resolves it again and
    again)."""

    def __init__(self, session: bytes, keys: Sequence[bytes], me: int | None) -> None:
        self.session = session
        self.keys = list(keys)
        self.me = me
        #: The announcement last accepted per player.
        self.last: dict[int, SignedAnnouncement] = {}

    def check(self, raw: bytes) -> Announced | None:
        """Checks in this order (PROTOCOL.md §12): shape, session, a seated key that
        is not this peer's, signature, addresses, counter."""
        announcement = SignedAnnouncement.parse(raw)
        if announcement.session != self.session:
            raise AnnouncementOtherTable("it is for another table")
        key = announcement.public_key
        if key not in self.keys:
            raise AnnouncementUnseated("its key is not a player of this table")
        player = self.keys.index(key)
        if player == self.me:
            raise AnnouncementUnseated("it is this player's own announcement")
        previous = self.last.get(player)
        if previous is not None and previous.raw == announcement.raw:
            return None
        announcement.verify()
        bad = [ip for ip, _ in announcement.addrs if _undialable(ip)]
        if bad:
            raise AnnouncementBadAddress(f"player {player} lists an address nobody may dial: "
                                         f"{bad[0][:64]!r}")
        if previous is not None and announcement.counter <= previous.counter:
            raise AnnouncementStale(f"player {player}'s announcement {announcement.counter} is not "
                                    f"newer than {previous.counter}")
        self.last[player] = announcement
        return Announced(player, [[ip, port] for ip, port in announcement.addrs])




# -- the host's hints: the peers frame ------------------------------------------------

class PeerAddresses(dict[bytes, list[WireList]]):
    """Where each player listens, as the host's relay hears it: the ``addrs`` of each
    player's latest ``hello``, by public key, handed to the table's players in a
    ``peers`` frame so that they can reach each other without the host
    (:mod:`p2pcards.net.mesh`)."""

    def note(self, public_key: bytes, addrs: WireList, players: Collection[bytes]) -> bool:
        """Record where a seated player listens; whether that changed what the table
        knows. Only ``players`` (the lobby's or the table's) are kept: strangers that
        came and went leave nothing behind."""
        for key in [k for k in self if k not in players]:
            del self[key]
        addrs = [list(a) for a in addrs]
        if self.get(public_key, []) == addrs:
            return False
        self[public_key] = addrs
        return True

    def frame(self, players: Sequence[bytes]) -> bytes:
        """Every player's key and last known addresses, in join order."""
        return frames.encode("peers", {"players": [[pk, self.get(pk, [])] for pk in players]})

    def anyone_listens(self, players: Sequence[bytes]) -> bool:
        return any(self.get(pk) for pk in players)


__all__ = [
    "ANNOUNCE_TAG",
    "Announced",
    "AnnouncementBadAddress",
    "AnnouncementBook",
    "AnnouncementForged",
    "AnnouncementIgnored",
    "AnnouncementMalformed",
    "AnnouncementOtherTable",
    "AnnouncementStale",
    "AnnouncementUnseated",
    "PeerAddresses",
    "SignedAnnouncement",
    "announce_counter",
    "seal_announcement",
]
