"""What the host's relay stores of a started table: the chain it extends, the signed
notices it keeps beside it, and the forks it has shown (sans-IO).

The relay does not judge the rules (every peer does that itself). It keeps every
correctly signed message that extends its chain, from whichever player's link it
comes; a copy is dropped by digest before any signature check; a signed message
that does not extend the chain (a fork, an equivocation) is not kept but shown to
everyone, once. Signed notices (``leave``, ``alert``) are never part of the chain:
a few per player are kept beside it, deduplicated, for a player that comes back.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable

from p2pcards.protocol.envelope import KeptMessage, SignedMessage, SignedNotice, session_id_of
from p2pcards.protocol.errors import RemoteProtocolError, WrongSession

#: The most notices the relay keeps (and forwards) per player: an honest player
#: signs at most a leave and an alert (the same bytes each time it repeats one).
MAX_NOTICES_PER_PLAYER = 4

#: Forks (signed messages that do not extend the chain) remembered so that the
#: copies players pass on are not forwarded again; beyond this, forwarded each time.
MAX_FORWARDED_FORKS = 4096


class Taken(enum.Enum):
    """What became of a signed message the relay was handed."""

    COPY = "a copy of one kept, or of a fork already shown: dropped"
    AHEAD = "beyond the chain's end: its sender is asked to sync"
    STORED = "it extends the chain: kept, and to every other link"
    FORK = "signed, but it does not extend the chain: to every other link, once"


class RelayChain:
    """The chain of one started table as the relay keeps it: raw bytes and headers,
    no parsed bodies (flat memory), and the notices beside it."""

    def __init__(self, genesis: SignedMessage) -> None:
        self.messages = [KeptMessage(genesis)]
        self.session = session_id_of(genesis.payload)
        self.player_keys: list[bytes] = [pk for pk, _name in genesis.body["players"]]
        self.notices: list[SignedNotice] = []
        #: Digests of signed messages forwarded unstored (forks): each is shown once.
        self._forwarded: set[bytes] = set()

    @classmethod
    def resume(cls, transcript: list[bytes], notices: Iterable[bytes] = ()) -> RelayChain:
        """The chain restarted from its stored transcript (genesis first; it ends at the
        first message that does not extend it) and the notices it had kept (each checked
        again; a bad one is skipped)."""
        chain = cls(SignedMessage.parse(transcript[0]))
        for raw in transcript[1:]:
            msg = SignedMessage.parse(raw)
            chain.check(msg)
            if msg.position != len(chain.messages) or msg.prev != chain.messages[-1].digest:
                break
            chain.messages.append(KeptMessage(msg))
        for raw in notices:
            try:
                chain.keep_notice(raw)
            except RemoteProtocolError:
                continue
        return chain

    def check(self, msg: SignedMessage | SignedNotice) -> None:
        """Signed for this session by the player it names (raises why not)."""
        if msg.session != self.session:
            raise WrongSession("message signed for another session")
        msg.verify(self.player_keys[msg.player])

    def take(self, msg: SignedMessage) -> Taken:
        """Keep ``msg`` where it extends the chain; what became of it (raises for a bad
        signature: copies are dropped before the check)."""
        n = len(self.messages)
        if msg.position < n and self.messages[msg.position].digest == msg.digest:
            return Taken.COPY  # players pass on what they accepted: before any signature check
        if msg.digest in self._forwarded:
            return Taken.COPY  # a fork already shown to everyone
        # Whoever's link it came on: a player passes on what it accepted from a
        # direct link, and the signature says who wrote it.
        self.check(msg)
        if msg.position > n:
            return Taken.AHEAD
        if msg.position == n and msg.prev == self.messages[-1].digest:
            self.messages.append(KeptMessage(msg))
            return Taken.STORED
        if len(self._forwarded) < MAX_FORWARDED_FORKS:
            self._forwarded.add(msg.digest)
        return Taken.FORK

    def keep_notice(self, raw: bytes) -> SignedNotice | None:
        """Check a notice and keep it; None for one already kept, or beyond its
        player's bound (neither kept nor forwarded: that player has said enough)."""
        notice = SignedNotice.parse(raw)
        self.check(notice)
        if any(n.digest == notice.digest for n in self.notices):
            return None
        if sum(n.player == notice.player for n in self.notices) >= MAX_NOTICES_PER_PLAYER:
            return None
        self.notices.append(notice)
        return notice
