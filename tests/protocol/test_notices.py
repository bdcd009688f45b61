"""Notices (leave, alert) live in their own signing domain (PROTOCOL.md §4, §8).

Whoever holds a player's signed notice must not be able to pass it off as a
transcript message that player wrote (and so have it blamed), nor the reverse.
"""

from __future__ import annotations

import pytest

from p2pcards.direct import direct_table
from p2pcards.protocol import wire
from p2pcards.protocol.envelope import (
    NOTICE_TAG, SIGN_TAG, SignedMessage, SignedNotice, seal, seal_notice,
)
from p2pcards.protocol.errors import BadSignature, MalformedMessage
from p2pcards.protocol.table import Stage


def _table_in_play():
    table = direct_table("topper", seed=21)
    table.run_until(lambda t: t.tables[0].stage is Stage.PLAY)
    return table


def _signed(identity, tag: bytes, table, player: int, mtype: str, body: dict) -> bytes:
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
    sender = (table.writer + 1) % 4
    if kind == "leave":
        notice = seal_notice(table.identities[sender], session=table.observer.session,
                             position=table.observer.next_position, prev=table.observer.head,
                             player=sender, type="leave", body={}).raw
    else:
        table.tables[sender].declare_deadline_missed()
        notice = table.tables[sender].alert()
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
