"""The transcript as this peer holds it, and the rules of its positions.

Every message names the hash of the one before it, and at every position one
player may write. :class:`Chain` keeps the messages accepted so far (raw
bytes and headers only: flat memory), authenticates what arrives (this
session, the signer's key), and says what a signed message proves by where
it falls: another version of a held position by the same player is an
equivocation; one by another player in this same history, or one for the
next position by a player who may not write it, is a message out of turn.
What names nobody raises instead: a message of another history
(:class:`BrokenChain`), or one for a later position (:class:`Gap`).
"""

from __future__ import annotations

from collections.abc import Sequence

from p2pcards.protocol.envelope import KeptMessage, SignedMessage, SignedNotice
from p2pcards.protocol.errors import (
    BrokenChain,
    Equivocation,
    OutOfTurn,
    RemoteProtocolError,
    WrongSession,
)
from p2pcards.protocol.table_errors import Gap, TableClosed
from p2pcards.protocol.table_records import Fault, Genesis


class Chain:
    """A table's signed messages from its genesis on, as accepted here."""

    def __init__(self, genesis: Genesis) -> None:
        self.session = genesis.session
        self._keys = tuple(p.public_key for p in genesis.players)
        #: The chain as kept: raw bytes and headers, no parsed bodies.
        self.messages: list[KeptMessage] = [KeptMessage(genesis.message)]

    @property
    def next_position(self) -> int:
        return len(self.messages)

    @property
    def head(self) -> bytes:
        return self.messages[-1].digest

    def append(self, msg: SignedMessage) -> None:
        self.messages.append(KeptMessage(msg))

    # -- what arrives -----------------------------------------------------------------

    def signed(self, raw: bytes, parsed: SignedMessage | None = None) -> SignedMessage:
        """``raw`` as a message of this session, signed by the player it names;
        raises for anything else (bytes nobody can be blamed for). ``parsed``:
        ``SignedMessage.parse(raw)``, when the caller made it already."""
        msg = SignedMessage.parse(raw) if parsed is None or parsed.raw != raw else parsed
        if msg.session != self.session:
            raise WrongSession("message signed for another session", position=msg.position)
        msg.verify(self._keys[msg.player])
        return msg

    def signed_notice(self, raw: bytes) -> SignedNotice:
        """``raw`` as a notice of this session, signed by the player it names."""
        notice = SignedNotice.parse(raw)
        if notice.session != self.session:
            raise WrongSession("alert signed for another session", position=notice.position)
        notice.verify(self._keys[notice.player])
        return notice

    def candidate(self, raw: bytes, mtype: str, writer: int | None) -> SignedMessage | None:
        """``raw`` if it passes every cheap check of a next message of type ``mtype``
        (this session, the next position, the head as ``prev``, the writer), then its
        signature; else None. The cheap checks come first: a frame anyone can
        forge starts no work."""
        msg = SignedMessage.parse(raw)
        if (msg.type != mtype or msg.session != self.session or msg.position != self.next_position
                or msg.prev != self.head or msg.player != writer):
            return None
        msg.verify(self._keys[msg.player])
        return msg

    # -- what a message proves by where it falls ------------------------------------

    def next_fault(self, msg: SignedMessage, writer: int | None) -> Fault | None:
        """A message for the next position or later: None when it is the next one,
        by the ``writer``; a message out of turn otherwise."""
        n = self.next_position
        if msg.position > n:
            raise Gap(f"message for position {msg.position} while expecting {n}",
                      player=msg.player, position=msg.position)
        if msg.prev != self.head:
            # Its writer saw another message at n - 1 (an equivocation by that
            # message's writer, which the other version proves: ask for it) or
            # lies; this message alone cannot tell which, so it names nobody.
            raise BrokenChain(f"a {msg.type!r} message for position {n} names a predecessor "
                              f"other than the message held at position {n - 1}", position=n)
        if msg.player == writer:
            return None
        who = "nobody" if writer is None else f"player {writer}"
        return Fault(OutOfTurn(f"wrote a {msg.type!r} message while {who} may write",
                               player=msg.player, position=n), (msg.raw,))

    def fault_of(self, error: RemoteProtocolError, msg: SignedMessage) -> Fault:
        """The fault that checking the next message ``msg`` found: its writer's, shown
        by ``msg``; or an earlier message's, found only now (the error names that
        message's player and position: a share found bad when its card is
        revealed), shown by that message."""
        earlier = error.position
        if error.player is not None and error.player != msg.player and earlier is not None:
            return Fault(error, (self.messages[earlier].raw,))
        error.player, error.position = msg.player, msg.position
        return Fault(error, (msg.raw,))

    def earlier_fault(self, msg: SignedMessage, over: bool) -> Fault | None:
        """A message for a position held here: a copy says nothing (None); another
        version by the same writer is an equivocation, by another player a message
        out of turn (or one written in another history, which names nobody); after
        the match's end (``over``) nothing is read (:class:`TableClosed`)."""
        if self.messages[msg.position].digest == msg.digest:
            return None
        if over:
            # After the match's normal end nothing is read (PROTOCOL.md §5): a
            # verdict beside a finished match is one ``verify`` refuses.
            raise TableClosed(f"the match has ended: a {msg.type!r} message for "
                              f"position {msg.position} changes nothing")
        fault = self._against_held(msg)
        if fault is None:
            # Written in another history (after someone else's equivocation, which
            # this peer cannot prove from this message): its writer may be honest.
            raise BrokenChain(f"a {msg.type!r} message for position {msg.position} "
                              f"continues another history", position=msg.position)
        return fault

    def _against_held(self, msg: SignedMessage) -> Fault | None:
        """A signed message for a held position, other than the one held: by the
        same player an equivocation, by another in this history a message out of
        turn; None when it continues another history."""
        held = self.messages[msg.position]
        if held.player == msg.player:
            return Fault(Equivocation(
                f"two different signed messages for position {msg.position}",
                player=msg.player, position=msg.position), (held.raw, msg.raw))
        if msg.position > 0 and msg.prev == self.messages[msg.position - 1].digest:
            return Fault(OutOfTurn(
                f"signed a {msg.type!r} message for position {msg.position}, "
                f"written by player {held.player}", player=msg.player, position=msg.position),
                (msg.raw,))
        return None

    def proof_in(self, evidence: Sequence[bytes], writer: int | None) -> Fault | None:
        """The first evidence message that proves, against what is held here, that
        its signer broke the chain (``writer``: who may write the next position),
        or None. Evidence that is not a correctly signed message of this session
        for a position reached proves nothing."""
        for raw in evidence:
            try:
                other = SignedMessage.parse(raw)
                if other.session != self.session or not 0 < other.position <= self.next_position:
                    continue
                other.verify(self._keys[other.player])
            except RemoteProtocolError:
                continue
            if other.position == self.next_position:
                # The next position of this very history, signed by a player who may
                # not write it (checking more would mean applying it).
                if other.prev == self.head and other.player != writer:
                    who = "nobody" if writer is None else f"player {writer}"
                    return Fault(OutOfTurn(
                        f"signed a {other.type!r} message for position {other.position} "
                        f"while {who} may write", player=other.player,
                        position=other.position), (other.raw,))
                continue
            if self.messages[other.position].digest == other.digest:
                continue
            fault = self._against_held(other)
            if fault is not None:
                return fault
        return None

    def dated_here(self, notice: SignedNotice) -> bool:
        """Whether a notice is dated in this history where this record reaches (one
        dated later is its signer being ahead: nothing here says otherwise)."""
        return not (0 < notice.position <= len(self.messages)
                    and notice.prev != self.messages[notice.position - 1].digest)

    def verifies(self, msg: SignedMessage) -> bool:
        """Whether ``msg`` is of this session and signed by the player it names."""
        if msg.session != self.session:
            return False
        try:
            msg.verify(self._keys[msg.player])
        except (RemoteProtocolError, IndexError):
            return False
        return True
