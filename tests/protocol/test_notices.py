"""Notices (leave, alert) live in their own signing domain (PROTOCOL.md §4, §8).

Whoever holds a player's signed notice must not be able to pass it off as a
transcript message that player wrote (and so have it blamed), nor the reverse.
"""

from __future__ import annotations

import pytest

from p2pcards.app._direct import DirectTable, direct_table
from p2pcards.protocol import wire
from p2pcards.protocol.envelope import (
    NOTICE_TAG,
    SIGN_TAG,
    KeptMessage,
    SignedMessage,
    SignedNotice,
    seal,
    seal_notice,
)
from p2pcards.protocol.errors import BadSignature, BrokenChain, MalformedMessage
from p2pcards.protocol.events import Reported, TableEnded
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_records import Stage
from p2pcards.protocol.verdict import Verdict
from p2pcards.protocol.verify import verify_transcript
from p2pcards.wiremap import WireMap


def _table_in_play() -> DirectTable:
    table = direct_table("topper", seed=21)
    table.run_until(lambda t: t.tables[0].stage is Stage.PLAY)
    return table


def _signed(identity: Identity, tag: bytes, table: DirectTable, player: int, mtype: str, body: WireMap) -> bytes:
    ref = table.observer
    payload = wire.pack({"v": 2, "sid": ref.session, "n": ref.next_position, "prev": ref.head,
                         "from": player, "type": mtype, "body": body})
    return wire.pack([payload, identity.sign(tag + payload)])


def test_a_leave_notice_is_not_a_transcript_message() -> None:
    table = _table_in_play()
    notice = table.tables[2].leave()
    with pytest.raises(MalformedMessage):
        SignedMessage.parse(notice)
    parsed = SignedNotice.parse(notice)
    parsed.verify(table.identities[2].public_key)
    assert parsed.type == "leave" and parsed.player == 2


def test_a_transcript_message_is_not_a_notice() -> None:
    table = _table_in_play()
    raw = table.write()
    with pytest.raises(MalformedMessage):
        SignedNotice.parse(raw)


def test_a_game_type_signed_under_the_notice_tag_never_verifies_as_a_message() -> None:
    """The tag, not only the type, separates them: the signature itself fails."""
    table = _table_in_play()
    writer = table.writer
    assert writer is not None
    raw = _signed(table.identities[writer], NOTICE_TAG, table, writer, "bid", {"tricks": 2})
    msg = SignedMessage.parse(raw)
    with pytest.raises(BadSignature):
        msg.verify(table.identities[writer].public_key)


def test_a_notice_type_signed_under_the_message_tag_never_verifies_as_a_notice() -> None:
    table = _table_in_play()
    raw = _signed(table.identities[1], SIGN_TAG, table, 1, "leave", {})
    with pytest.raises(MalformedMessage):
        SignedMessage.parse(raw)  # belt: a message may not carry a notice type
    notice = SignedNotice.parse(raw)
    with pytest.raises(BadSignature):
        notice.verify(table.identities[1].public_key)  # braces: nor does its signature verify


@pytest.mark.parametrize("kind", ["leave", "alert"])
def test_a_notice_fed_as_a_message_names_nobody_and_changes_nothing(kind: str) -> None:
    table = _table_in_play()
    assert table.writer is not None
    sender = (table.writer + 1) % 4
    if kind == "leave":
        notice = seal_notice(table.identities[sender], session=table.observer.session,
                             position=table.observer.next_position, prev=table.observer.head,
                             player=sender, type="leave", body={}).raw
    else:
        table.tables[sender].declare_deadline_missed()
        alert = table.tables[sender].alert()
        assert alert is not None
        notice = alert
    for who, peer in enumerate(table.tables + [table.observer]):
        if who == sender:
            continue
        before = (peer.transcript(), peer.stage, peer.verdict)
        with pytest.raises(MalformedMessage):
            peer.receive(notice)
        assert (peer.transcript(), peer.stage, peer.verdict) == before


def test_sealing_a_transcript_message_of_a_notice_type_is_refused() -> None:
    """An honest peer cannot even build one by mistake: ``seal`` parses what it built."""
    table = _table_in_play()
    ref = table.observer
    with pytest.raises(MalformedMessage):
        seal(table.identities[0], session=ref.session, position=ref.next_position, prev=ref.head,
             player=0, type="alert", body={})


# -- reports cannot move blame (PROTOCOL.md §8) ----------------------------------------------


def _alert(table: DirectTable, sender: int, verdict: Verdict) -> bytes:
    ref = table.observer
    return seal_notice(table.identities[sender], session=ref.session, position=ref.next_position,
                       prev=ref.head, player=sender, type="alert", body=verdict.to_wire()).raw


def _state(peer: Table) -> tuple[list[bytes], Stage, Verdict | None, int | None]:
    return (peer.transcript(), peer.stage, peer.verdict, peer.writer)


def test_a_deadline_report_against_the_writer_is_advisory_everywhere() -> None:
    """Seconds into a writer's turn a player claims it missed its deadline: every
    other peer, the accused included, only notes the report and plays on."""
    table = _table_in_play()
    writer = table.writer
    assert writer is not None
    liar = (writer + 1) % 4
    lie = Verdict("deadline", (writer,), table.observer.next_position, "too slow")
    notice = _alert(table, liar, lie)
    for who, peer in enumerate(table.tables + [table.observer]):
        if who == liar:
            continue
        before = _state(peer)
        events = peer.receive_alert(notice)
        assert events == [Reported(liar, "deadline", (writer,), lie.position, "too slow")]
        assert _state(peer) == before
    table.run()  # the table goes on to its normal end
    assert all(peer.verdict is None for peer in table.tables + [table.observer])
    assert table.observer.stage is Stage.OVER


@pytest.mark.parametrize("rule", ["chain.fork", "reported", "crypto", "left", "host"])
def test_an_unprovable_report_names_nobody(rule: str) -> None:
    table = _table_in_play()
    notice = _alert(table, 1, Verdict(rule, (2, 3), 5, "claimed", ()))
    for who in (0, 2, 3):
        events = table.tables[who].receive_alert(notice)
        assert [type(e) for e in events] == [Reported] and table.tables[who].verdict is None


def test_a_leave_names_its_signer_only() -> None:
    table = _table_in_play()
    notice = table.tables[3].leave()
    for who in (0, 1, 2):
        (ended,) = table.tables[who].receive_alert(notice)
        assert isinstance(ended, TableEnded)
        assert ended.verdict.rule == "left" and ended.verdict.players == (3,)


def _leave(table: DirectTable, player: int, *, position: int, prev: bytes, body: WireMap) -> bytes:
    ref = table.observer
    return seal_notice(table.identities[player], session=ref.session, position=position,
                       prev=prev, player=player, type="leave", body=body).raw


@pytest.mark.parametrize("case", ["a body", "another history"])
def test_a_leave_verify_would_refuse_ends_nothing_and_names_nobody(case: str) -> None:
    """A peer acts on a leave only as verify endorses the verdict it makes (§8)."""
    table = _table_in_play()
    ref = table.observer
    n = ref.next_position
    if case == "a body":
        notice = _leave(table, 3, position=n, prev=ref.head, body={"why": 1})
        error: type[Exception] = MalformedMessage
    else:
        notice = _leave(table, 3, position=n - 1, prev=bytes(32), body={})
        error = BrokenChain
    for who in (0, 1, 2):
        with pytest.raises(error):
            table.tables[who].receive_alert(notice)
        assert table.tables[who].verdict is None and table.tables[who].stage is Stage.PLAY


def test_a_leave_dated_after_this_peers_end_is_the_leavers_word() -> None:
    """The leaver held messages this peer had not received yet: its ``prev`` is unknown
    here, and the leave still ends the table naming it, as verify endorses."""
    table = _table_in_play()
    ref = table.observer
    notice = _leave(table, 3, position=ref.next_position + 2, prev=bytes([5]) * 32, body={})
    (ended,) = table.tables[1].receive_alert(notice)
    assert isinstance(ended, TableEnded)
    assert ended.verdict.rule == "left" and ended.verdict.players == (3,)
    report = verify_transcript(table.tables[1].transcript(), ended.verdict, workers=1)
    assert report.ok and report.verdict_refused is None


def _fork_at_3(table: DirectTable) -> tuple[KeptMessage, bytes]:
    """The message at position 3 and another version of it its writer signed."""
    ref = table.observer
    held = ref.messages[3]
    other = seal(table.identities[held.player], session=ref.session, position=3, prev=held.prev,
                 player=held.player, type=held.type, body=dict(held.body, draw=bytes(32))).raw
    return held, other


def test_equivocation_evidence_gives_this_peer_its_own_provable_verdict() -> None:
    table = _table_in_play()
    held, other = _fork_at_3(table)
    reporter = (held.player + 1) % 4
    notice = _alert(table, reporter, Verdict("chain.equivocation", (held.player,), 3, "two", (other,)))
    for who in [p for p in range(4) if p not in (reporter, held.player)]:
        (ended,) = table.tables[who].receive_alert(notice)
        assert isinstance(ended, TableEnded)
        assert ended.verdict.rule == "chain.equivocation"
        assert ended.verdict.players == (held.player,) and ended.verdict.provable


def test_a_report_naming_the_receiver_with_proof_of_anothers_equivocation_names_the_other() -> None:
    """Evidence wins over who is named (PROTOCOL.md §8, issue 25 point 8): the claim
    against the receiver itself is advisory, the equivocation it checked is not."""
    table = _table_in_play()
    held, other = _fork_at_3(table)
    reporter = (held.player + 1) % 4
    receiver = (held.player + 2) % 4
    notice = _alert(table, reporter, Verdict("chain.equivocation", (receiver,), 3, "you", (other,)))
    (ended,) = table.tables[receiver].receive_alert(notice)
    assert isinstance(ended, TableEnded)
    assert ended.verdict.rule == "chain.equivocation" and ended.verdict.provable
    assert ended.verdict.players == (held.player,)  # the signer of both, never the receiver
    # The same claim with nothing this peer can check is only shown.
    bare = _alert(table, reporter, Verdict("chain.equivocation", (receiver,), 3, "you", ()))
    fresh = _table_in_play()
    assert [type(e) for e in fresh.tables[receiver].receive_alert(bare)] == [Reported]
    assert fresh.tables[receiver].verdict is None


def test_a_message_signed_for_another_writers_position_in_this_history_is_proof() -> None:
    table = _table_in_play()
    ref = table.observer
    held = ref.messages[3]
    cheat = (held.player + 2) % 4
    other = seal(table.identities[cheat], session=ref.session, position=3, prev=held.prev,
                 player=cheat, type="commit", body={}).raw
    notice = _alert(table, (cheat + 1) % 4, Verdict("turn", (cheat,), 3, "x", (other,)))
    (ended,) = table.observer.receive_alert(notice)
    assert isinstance(ended, TableEnded)
    assert ended.verdict.rule == "turn" and ended.verdict.players == (cheat,)


def test_evidence_from_another_history_proves_nothing() -> None:
    """A message for a position another player wrote, but continuing a different
    predecessor, may be an honest writer's after someone else's equivocation."""
    table = _table_in_play()
    ref = table.observer
    held = ref.messages[3]
    other_writer = (held.player + 2) % 4
    other = seal(table.identities[other_writer], session=ref.session, position=3, prev=bytes(32),
                 player=other_writer, type="commit", body={}).raw
    notice = _alert(table, (other_writer + 1) % 4, Verdict("turn", (other_writer,), 3, "x", (other,)))
    assert [type(e) for e in table.observer.receive_alert(notice)] == [Reported]
    with pytest.raises(BrokenChain):
        table.observer.receive(other)
    assert table.observer.verdict is None


def test_a_message_for_the_next_position_by_a_player_who_may_not_write_is_proof() -> None:
    table = _table_in_play()
    ref = table.observer
    assert table.writer is not None
    cheat = (table.writer + 1) % 4
    other = seal(table.identities[cheat], session=ref.session, position=ref.next_position,
                 prev=ref.head, player=cheat, type="pass", body={}).raw
    notice = _alert(table, (cheat + 1) % 4, Verdict("turn", (cheat,), ref.next_position, "x", (other,)))
    (ended,) = ref.receive_alert(notice)
    assert isinstance(ended, TableEnded)
    assert (ended.verdict.rule, ended.verdict.players) == ("turn", (cheat,))
    assert ended.verdict.provable


def test_the_writers_own_next_message_as_evidence_proves_nothing() -> None:
    """A message the writer may well write is no fault; nor is it applied from an alert."""
    table = _table_in_play()
    ref = table.observer
    writer = table.writer
    assert writer is not None
    candidate = table.write()  # the writer's real next message, not delivered yet
    notice = _alert(table, (writer + 1) % 4, Verdict("turn", (writer,), ref.next_position, "x",
                                                     (candidate,)))
    before = _state(ref)
    assert [type(e) for e in ref.receive_alert(notice)] == [Reported]
    assert _state(ref) == before
