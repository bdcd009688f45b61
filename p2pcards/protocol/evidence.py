"""Whether a saved verdict is what its evidence shows, checked after the transcript.

A verdict file is anybody's bytes: ``verify`` endorses one only when its
evidence supports exactly what it claims, for each kind:

* ``left``: exactly one record, a ``leave`` notice in the notice domain, for
  this session and this history (its ``prev`` is the message held at the
  position before it, unless the leaver was ahead of this record), signed by
  the player the verdict names and naming exactly that signer (its own
  signed word is the only proof of a leave);
* ``deadline`` (a writer too late, or the host unreachable: both are this
  peer's own clock): no evidence, one player, the writer due at the end of
  the transcript or the host (player 0), at the transcript's end;
* ``evening.unopened`` (a rematch whose writer due wrote nothing in it: this peer's
  clock): no evidence, nobody named, at the transcript's end, and the writer due
  there has no message in the transcript (PROTOCOL.md §14);
* every other rule: evidence that, fed after the transcript, ends the table
  with exactly that rule, those players and that position.

The checks are cheap and happen before any evidence is fed to the table.
Each refusal is a precise :class:`~p2pcards.protocol.errors.VerdictRefused`.
"""

from __future__ import annotations

from nacl.exceptions import BadSignatureError
from nacl.signing import VerifyKey

from p2pcards.protocol.envelope import NOTICE_TAG, SIGN_TAG, SignedMessage, SignedNotice
from p2pcards.protocol.errors import (
    DeadlineInconsistent,
    DeadlineMissed,
    EvidenceMissing,
    EvidenceNotBreaking,
    LeaveNotProven,
    PlayerLeft,
    ProtocolError,
    RematchUnopened,
    UnopenedInconsistent,
)
from p2pcards.protocol.table import Table
from p2pcards.protocol.verdict import Verdict

#: The player a peer names when the host stopped relaying (the host is always player 0).
HOST_PLAYER = 0


def check_verdict(table: Table, verdict: Verdict) -> bool | None:
    """Raise :class:`VerdictRefused` unless ``verdict`` fits its evidence and ``table``
    (replayed up to the transcript's end, not ended). True: its evidence breaks the
    rule (anyone can re-check it); None: a leave or a deadline that checks as far as
    anything can (a signed notice; this peer's clock)."""
    if verdict.rule == PlayerLeft.rule:
        check_leave(table, verdict)
        return None
    if verdict.rule == DeadlineMissed.rule:
        check_deadline(table, verdict)
        return None
    if verdict.rule == RematchUnopened.rule:
        check_unopened(table, verdict)
        return None
    check_evidence(table, verdict)
    return True


def check_leave(table: Table, verdict: Verdict) -> None:
    """The evidence is the named player's own leave notice for this table."""
    if len(verdict.evidence) != 1:
        raise LeaveNotProven(f"a leave verdict carries exactly one leave notice, this one "
                             f"{len(verdict.evidence)} records")
    raw = verdict.evidence[0]
    try:
        notice = SignedNotice.parse(raw)
    except ProtocolError as error:
        raise LeaveNotProven(f"its evidence is not a well-formed signed notice ({error})") from None
    if notice.type != "leave":
        raise LeaveNotProven(f"its evidence is an {notice.type!r} notice, not a leave")
    if notice.body != {}:
        raise LeaveNotProven("its leave notice has a body (a leave's body is the empty map)")
    if notice.session != table.session:
        raise LeaveNotProven("its leave notice is signed for another session")
    players = table.players
    if notice.player >= len(players):
        raise LeaveNotProven(f"its leave notice names player {notice.player}, who does not exist")
    signer = _signer(NOTICE_TAG, notice.payload, notice.signature, table)
    if signer is None:
        in_message_domain = _signer(SIGN_TAG, notice.payload, notice.signature, table)
        if in_message_domain is not None:
            raise LeaveNotProven(f"its leave notice is signed in the transcript-message domain "
                                 f"(by player {in_message_domain}), not as a notice")
        raise LeaveNotProven(f"its leave notice is signed by no player of this table "
                             f"(it names player {notice.player})")
    if signer != notice.player:
        raise LeaveNotProven(f"its leave notice names player {notice.player} but is signed "
                             f"by player {signer}")
    if verdict.players != (signer,):
        raise LeaveNotProven(f"it names {_who(verdict.players)}, but the leave notice is "
                             f"player {signer}'s")
    end = table.next_position
    # The leaver may have been ahead of this record (it held messages this peer had not
    # received yet): then its notice is dated after the end and its ``prev`` is unknown here.
    if notice.position <= end and notice.prev != table.messages[notice.position - 1].digest:
        raise LeaveNotProven(f"its leave notice is dated at position {notice.position} of "
                             f"another history than this transcript's")
    if verdict.position != end:
        raise LeaveNotProven(f"it says position {verdict.position}; a leave ends the table at "
                             f"the transcript's end, position {end}")


def check_deadline(table: Table, verdict: Verdict) -> None:
    """A deadline names one player, the writer due or the host, at the transcript's end."""
    if verdict.evidence:
        raise DeadlineInconsistent("a deadline verdict carries no evidence (it is the naming "
                                   f"peer's clock), this one {len(verdict.evidence)} records")
    if len(verdict.players) != 1:
        raise DeadlineInconsistent(f"a deadline names exactly one player, this one "
                                   f"{_who(verdict.players)}")
    end = table.next_position
    if verdict.position != end:
        raise DeadlineInconsistent(f"it says position {verdict.position}; a deadline ends the "
                                   f"table at the transcript's end, position {end}")
    (player,) = verdict.players
    writer = table.writer
    if player not in (writer, HOST_PLAYER):
        raise DeadlineInconsistent(
            f"it names player {player}, but at position {end} player {writer} was to write "
            f"(a deadline names the writer due, or the host, player {HOST_PLAYER})")


def check_unopened(table: Table, verdict: Verdict) -> None:
    """A rematch unopened names nobody, carries no evidence, ends at the transcript's
    end, and its writer due there wrote nothing in the transcript."""
    end = table.next_position
    if table.after is None:
        raise UnopenedInconsistent("an 'evening.unopened' verdict beside a table that is "
                                   "no rematch (its genesis names no match before)")
    if verdict.players or verdict.evidence:
        raise UnopenedInconsistent(f"a rematch unopened names nobody and carries no evidence; "
                                   f"this one names {_who(verdict.players)} with "
                                   f"{len(verdict.evidence)} records")
    if verdict.position != end:
        raise UnopenedInconsistent(f"it says position {verdict.position}; it ends the table "
                                   f"at the transcript's end, position {end}")
    if not table.unopened:
        raise UnopenedInconsistent(f"player {table.writer}, due at position {end}, wrote in "
                                   f"this rematch already: it had opened it")


def check_evidence(table: Table, verdict: Verdict) -> None:
    """Fed after the transcript, the evidence ends the table with exactly this verdict."""
    if not verdict.evidence:
        raise EvidenceMissing(f"a {verdict.rule!r} verdict rests on signed evidence, and "
                              f"this one carries none")
    for raw in verdict.evidence:
        try:
            SignedNotice.parse(raw)
        except ProtocolError:
            continue
        raise EvidenceNotBreaking("its evidence holds a signed notice, which is never "
                                  "evidence of a transcript fault")
    for raw in verdict.evidence:
        try:
            SignedMessage.parse(raw)
            table.receive(raw)
        except ProtocolError:
            continue
        found = table.verdict
        if found is None:
            continue
        if found.rule != verdict.rule:
            raise EvidenceNotBreaking(f"its evidence breaks rule {found.rule!r}, not "
                                      f"{verdict.rule!r}")
        if set(found.players) != set(verdict.players):
            raise EvidenceNotBreaking(f"its evidence blames {_who(found.players)}, not "
                                      f"{_who(verdict.players)}")
        if found.position != verdict.position:
            raise EvidenceNotBreaking(f"its evidence breaks the rule at position "
                                      f"{found.position}, not {verdict.position}")
        return
    raise EvidenceNotBreaking(f"its evidence, fed after the transcript, breaks no rule "
                              f"(it claims {verdict.rule!r})")


def _signer(tag: bytes, payload: bytes, signature: bytes, table: Table) -> int | None:
    """The player whose key signed ``tag || payload``, or None."""
    for index, player in enumerate(table.players):
        try:
            VerifyKey(player.public_key).verify(tag + payload, signature)
        except (BadSignatureError, ValueError, TypeError):
            continue
        return index
    return None


def _who(players: tuple[int, ...]) -> str:
    if not players:
        return "nobody"
    return "players " + ", ".join(map(str, players)) if len(players) > 1 else f"player {players[0]}"

