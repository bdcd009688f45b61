"""What a table does with a signed notice from outside its chain, and with evidence.

A ``leave`` ends the table naming its signer; another peer's verdict is
advisory unless its evidence proves, against what this peer holds, a fault
this peer can check itself (then this peer ends the table with its own
verdict). Evidence for positions not reached yet is kept (bounded) and
checked again as the chain grows; another version of a message it holds
proves an equivocation or a message out of turn (:func:`receive_earlier`). Functions of the :class:`Table` they act on,
apart from the state machine because they are one rule: which reports may
move blame.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from p2pcards.protocol.dealing import LateBadShare
from p2pcards.protocol.envelope import SignedMessage, SignedNotice
from p2pcards.protocol.errors import (
    BadProof,
    BrokenChain,
    Equivocation,
    MalformedMessage,
    OutOfTurn,
    PlayerLeft,
    RemoteProtocolError,
    SeatPlayedElsewhere,
    WrongSession,
)
from p2pcards.protocol.events import Reported, TableEvent
from p2pcards.protocol.table_errors import TableClosed
from p2pcards.protocol.table_records import Stage
from p2pcards.protocol.verdict import Verdict

if TYPE_CHECKING:
    from p2pcards.protocol.table import Table


#: Evidence messages kept from alerts about positions not reached yet (bounded:
#: only correctly signed ones count, and an honest table needs one or two).
MAX_PENDING_EVIDENCE = 16


def receive_alert(table: Table, raw: bytes) -> list[TableEvent]:
    """A signed notice outside the chain: a ``leave``, or another peer's verdict.

    Reports cannot move blame. A ``leave`` ends the table naming its signer
    (its own signed word). An alert whose evidence proves a fault that this
    peer can check itself (two messages by one player for one position; a
    message signed for a position another player wrote in this same history,
    or for the next position by a player who may not write it; a bad share
    in a ``shares`` message held here) ends the table with this
    peer's OWN provable verdict naming the proven cheater. Anything else (a
    deadline, a fork, an unreachable host, any claim without checkable proof,
    a report naming this peer) is advisory: a :class:`Reported` event, no
    change of state, nobody named.
    """
    notice = SignedNotice.parse(raw)
    if notice.session != table.session:
        raise WrongSession("alert signed for another session", position=notice.position)
    notice.verify(table.players[notice.player].public_key)
    if table.elsewhere is not None:
        raise TableClosed("another process is playing this seat: this table has stopped")
    if table._member is not None and notice.player == table._member.player:
        if notice.digest in table._own_notices:
            return []  # what this peer signed itself, coming back
        table.elsewhere = SeatPlayedElsewhere(
            f"another process is playing this seat: a {notice.type!r} notice is signed "
            f"with its key, and this process did not sign it; this one stops, signing "
            f"nothing and naming nobody", position=notice.position)
        raise table.elsewhere
    if table.stage in (Stage.ENDED, Stage.OVER) or notice.digest in table._notices_seen:
        # A notice handed out again (on a reconnect) says nothing new; after the
        # match's normal end none is read (a leave or a proof then would put a
        # verdict beside a finished match, which ``verify`` refuses: after-end).
        return []
    if notice.type == "leave":
        _check_leave_dated_here(table, notice)
    table._notices_seen.add(notice.digest)
    if notice.type == "leave":
        return table._end(PlayerLeft("left the table", player=notice.player,
                                    position=table.next_position), (notice.raw,))
    reported = Verdict.from_wire(notice.body)
    proven = _proof_in(table, reported.evidence)
    if proven is None:
        proven = _bad_share_in(table, reported.evidence)
    if proven is not None:
        return proven
    _keep_pending(table, reported.evidence)
    return [Reported(reporter=notice.player, rule=reported.rule, players=reported.players,
                     position=reported.position, detail=reported.detail)]


def _check_leave_dated_here(table: Table, notice: SignedNotice) -> None:
    """A leave is acted on only if ``verify`` would endorse the verdict it makes
    (PROTOCOL.md §8): an empty body, and dated in this history where this peer's
    record reaches (one dated later is the leaver being ahead: still its word)."""
    if notice.body != {}:
        raise MalformedMessage("a leave notice has a body (a leave's body is the empty map)",
                               position=notice.position)
    held = table.messages
    if 0 < notice.position <= len(held) and notice.prev != held[notice.position - 1].digest:
        raise BrokenChain(f"a leave notice dated at position {notice.position} of another "
                          f"history", position=notice.position)


def _keep_pending(table: Table, evidence: tuple[bytes, ...]) -> None:
    """Keep (a few) correctly signed evidence messages for positions this peer
    has not accepted yet: once it holds that position, another version by the
    same signer is an equivocation it can prove (a writer that sent one player
    a bad message and the others a good one is named by all, not only by the
    player who ended first)."""
    for raw in evidence:
        if len(table._pending_evidence) >= MAX_PENDING_EVIDENCE:
            return
        try:
            msg = SignedMessage.parse(raw)
            if msg.session != table.session or msg.position < table.next_position:
                continue
            msg.verify(table.players[msg.player].public_key)
        except (RemoteProtocolError, IndexError):
            continue
        if raw not in table._pending_evidence:
            table._pending_evidence.append(raw)


def _proof_in(table: Table, evidence: tuple[bytes, ...]) -> list[TableEvent] | None:
    """The first evidence message that proves, against what this peer holds,
    that its signer broke the chain: this peer's own verdict, or None."""
    for raw in evidence:
        try:
            other = SignedMessage.parse(raw)
            if other.session != table.session or not 0 < other.position <= table.next_position:
                continue
            other.verify(table.players[other.player].public_key)
        except RemoteProtocolError:
            continue
        if other.position == table.next_position:
            # The next position of this very history, signed by a player who may
            # not write it (checking more would mean applying it).
            if other.prev == table.head and other.player != table.writer:
                who = "nobody" if table.writer is None else f"player {table.writer}"
                return table._end(OutOfTurn(
                    f"signed a {other.type!r} message for position {other.position} "
                    f"while {who} may write", player=other.player,
                    position=other.position), (other.raw,))
            continue
        held = table.messages[other.position]
        if held.digest == other.digest:
            continue
        if held.player == other.player:
            return table._end(Equivocation(
                f"two different signed messages for position {other.position}",
                player=other.player, position=other.position), (held.raw, other.raw))
        if other.prev == table.messages[other.position - 1].digest:
            return table._end(OutOfTurn(
                f"signed a {other.type!r} message for position {other.position}, "
                f"written by player {held.player}", player=other.player,
                position=other.position), (other.raw,))
    return None


def _bad_share_in(table: Table, evidence: tuple[bytes, ...]) -> list[TableEvent] | None:
    """A reporter's evidence may be a ``shares`` message this peer accepted after
    checking only its own cards' shares: check every share of the deal now, so
    that the maker of a bad one is blamed here too, not the reporter."""
    if table._match is None or table.stage is Stage.ENDED:
        return None
    deal = table._match.deal
    held_here = {m.digest for m in table._shares_messages.values()}
    for raw in evidence:
        try:
            if SignedMessage.parse(raw).digest not in held_here:
                continue
        except RemoteProtocolError:
            continue
        try:
            for slot in range(deal.size):
                deal.check_public_shares(slot)
        except LateBadShare as late:
            maker = table._shares_messages[late.seat]
            return table._end(BadProof(late.detail, player=maker.player,
                                      position=maker.position), (maker.raw,))
        return None
    return None


def pending_proof(table: Table) -> list[TableEvent] | None:
    """Evidence kept from an alert that came before this peer reached its
    position, judged now that it has: the fault it proves (an equivocation, a
    message out of turn), or None."""
    n = table.next_position
    reached = [raw for raw in table._pending_evidence if SignedMessage.parse(raw).position <= n]
    if not reached:
        return None
    proven = _proof_in(table, tuple(reached))
    if proven is None:  # what is for the next position may still prove something later
        table._pending_evidence = [raw for raw in table._pending_evidence
                                  if SignedMessage.parse(raw).position >= n]
    return proven


def receive_earlier(table: Table, msg: SignedMessage) -> list[TableEvent]:
    """A signed message for a position this table already holds: a copy says
    nothing; another version by the same writer is an equivocation, by another
    player a message out of turn (or one written in another history, which names
    nobody); after the match's end nothing is read."""
    held = table.messages[msg.position]
    if held.digest == msg.digest:
        return []
    if table.stage is Stage.OVER:
        # After the match's normal end nothing is read (PROTOCOL.md §5): a
        # verdict beside a finished match is one ``verify`` refuses.
        raise TableClosed(f"the match has ended: a {msg.type!r} message for "
                          f"position {msg.position} changes nothing")
    if held.player == msg.player:
        return table._end(Equivocation(
            f"two different signed messages for position {msg.position}",
            player=msg.player, position=msg.position), (held.raw, msg.raw))
    if msg.position == 0 or msg.prev != table.messages[msg.position - 1].digest:
        # Written in another history (after someone else's equivocation, which
        # this peer cannot prove from this message): its writer may be honest.
        raise BrokenChain(f"a {msg.type!r} message for position {msg.position} "
                          f"continues another history", position=msg.position)
    return table._end(OutOfTurn(
        f"signed a {msg.type!r} message for position {msg.position}, "
        f"written by player {held.player}", player=msg.player, position=msg.position),
        (msg.raw,))
