"""An evening: the rematch's chained genesis, its rotated seats, the "again" count, and
the offline check of the chain (PROTOCOL.md §14)."""

from __future__ import annotations

import pytest

from p2pcards.app._direct import SHORT, DirectTable, direct_table
from p2pcards.protocol import game_wire
from p2pcards.protocol.again import AGAIN, LEAVE, AgainCount, AgainRefused, sign_choice
from p2pcards.protocol.envelope import SignedMessage
from p2pcards.protocol.errors import BadSignature, MalformedMessage
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.lobby import Lobby
from p2pcards.protocol.rematch_genesis import (
    After,
    FinishedMatch,
    NotTheMatchBefore,
    WrongRotation,
    check_after,
    rotated_seats,
)
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_errors import StageNotReached
from p2pcards.protocol.table_records import Stage
from p2pcards.protocol.verdict import Verdict
from p2pcards.protocol.verify import Report
from p2pcards.protocol.verify_rematches import verify_evening

GAME = "topper"


@pytest.fixture(scope="module")
def evening() -> tuple[DirectTable, DirectTable]:
    """Two short matches of the same four, the second the rematch of the first."""
    first = direct_table(GAME, seed=61)
    first.run()
    second = direct_table(GAME, seed=62, identities=first.identities,
                          after=first.tables[0].finished().after)
    second.run()
    return first, second


def _keys(table: Table) -> list[bytes]:
    return [p.public_key for p in table.players]


def test_the_rematch_seats_everyone_one_seat_on(evening: tuple[DirectTable, DirectTable]) -> None:
    first, second = evening
    before, now = first.tables[0], second.tables[3]
    assert before.player_at_seat is not None and now.player_at_seat is not None
    for seat in range(4):
        moved = _keys(before)[before.player_at_seat[seat]]
        assert _keys(now)[now.player_at_seat[(seat + 1) % 4]] == moved


def test_every_player_and_the_observer_agree_on_the_link(evening: tuple[DirectTable, DirectTable]) -> None:
    first, second = evening
    record = first.tables[1].finished()
    assert record.final == SignedMessage.parse(first.tables[1].transcript()[-1]).digest
    assert all(t.after == record.after for t in second.tables + [second.observer])
    check_after(second.tables[2].after, first.tables[2].finished())


def test_an_unfinished_match_has_no_rematch() -> None:
    table = direct_table(GAME, seed=63)
    table.step()
    with pytest.raises(StageNotReached):
        table.tables[0].finished()


def test_rotation_gives_a_freed_seat_to_the_newcomer() -> None:
    keys = [bytes([k]) * 32 for k in range(5)]
    after = After(bytes(32), bytes(32), (keys[2], keys[0], keys[3], keys[1]))
    # Player 3 of the finished match left; key 4 took the place in the join order.
    now = [keys[0], keys[1], keys[2], keys[4]]
    assert rotated_seats(after, now) == (1, 2, 0, 3)


def test_a_genesis_naming_another_session_is_refused(evening: tuple[DirectTable, DirectTable]) -> None:
    first, second = evening
    record = first.tables[0].finished()
    other = After(bytes(32), record.final, record.seats)
    with pytest.raises(NotTheMatchBefore, match="follows session"):
        check_after(other, record)
    with pytest.raises(NotTheMatchBefore, match="final digest"):
        check_after(After(record.session, bytes(32), record.seats), record)
    with pytest.raises(NotTheMatchBefore, match="names no previous match"):
        check_after(None, record)


def test_a_genesis_rotating_another_seating_is_refused(evening: tuple[DirectTable, DirectTable]) -> None:
    first, _ = evening
    record = first.tables[0].finished()
    swapped = (record.seats[1], record.seats[0], *record.seats[2:])
    with pytest.raises(WrongRotation):
        check_after(After(record.session, record.final, swapped), record)


def test_a_genesis_whose_after_repeats_a_seat_is_malformed(evening: tuple[DirectTable, DirectTable]) -> None:
    first, _ = evening
    identities = first.identities
    lobby = Lobby(identities[0], GAME, game_wire.by_name(GAME).config_to_wire(SHORT[GAME]), "again")
    for identity in identities[1:]:
        lobby.join(identity.public_key, identity.name)
    record = first.tables[0].finished()
    bad = After(record.session, record.final, (record.seats[0],) * 4)
    with pytest.raises(MalformedMessage, match="same identity twice"):
        Table(lobby.genesis(after=bad).raw)


# -- the "again" count ---------------------------------------------------------

def _count(evening: tuple[DirectTable, DirectTable]) -> tuple[AgainCount, FinishedMatch, list[Identity]]:
    first, _ = evening
    record = first.tables[0].finished()
    return AgainCount(record, tuple(_keys(first.tables[0]))), record, first.identities


def test_four_agains_make_the_count_ready(evening: tuple[DirectTable, DirectTable]) -> None:
    count, record, identities = _count(evening)
    for player in range(4):
        assert not count.ready
        chosen = count.receive(sign_choice(identities[player], record, player, AGAIN).raw)
        assert chosen is not None and chosen.player == player
    assert count.ready and count.left == ()


def test_a_copy_of_a_choice_counts_once_and_a_leave_is_final(evening: tuple[DirectTable, DirectTable]) -> None:
    count, record, identities = _count(evening)
    again = sign_choice(identities[2], record, 2, AGAIN).raw
    assert count.receive(again) is not None and count.receive(again) is None
    assert count.receive(sign_choice(identities[2], record, 2, LEAVE).raw) is not None
    assert count.receive(sign_choice(identities[2], record, 2, AGAIN).raw) is None
    assert count.left == (2,) and count.free == (2,)


def test_a_leaver_seat_filled_by_a_bot_makes_the_count_ready(evening: tuple[DirectTable, DirectTable]) -> None:
    count, record, identities = _count(evening)
    for player in (0, 1, 3):
        count.receive(sign_choice(identities[player], record, player, AGAIN).raw)
    count.receive(sign_choice(identities[2], record, 2, LEAVE).raw)
    assert not count.ready
    bot = Identity.generate("bot")
    count.fill(2, bot.public_key, "bot")
    assert count.ready
    players = count.next_players(("P0", "P1", "P2", "P3"))
    assert players[2] == (bot.public_key, "bot") and players[0][0] == identities[0].public_key


def test_a_seat_cannot_be_filled_before_its_player_left(evening: tuple[DirectTable, DirectTable]) -> None:
    count, _, _ = _count(evening)
    with pytest.raises(MalformedMessage, match="has not left"):
        count.fill(1, Identity.generate().public_key, "bot")


def test_a_choice_replayed_from_another_match_is_refused(evening: tuple[DirectTable, DirectTable]) -> None:
    first, second = evening
    count, _, identities = _count(evening)
    other = second.tables[0].finished()
    with pytest.raises(AgainRefused, match="about session"):
        count.receive(sign_choice(identities[1], other, 1, AGAIN).raw)
    stale = FinishedMatch(first.tables[0].session, bytes(32), other.seats)
    with pytest.raises(AgainRefused, match="another end"):
        count.receive(sign_choice(identities[1], stale, 1, AGAIN).raw)
    assert count.choices == {}


def test_a_choice_signed_by_another_player_is_dropped(evening: tuple[DirectTable, DirectTable]) -> None:
    count, record, identities = _count(evening)
    with pytest.raises(BadSignature):
        count.receive(sign_choice(identities[0], record, 1, AGAIN).raw)
    assert count.choices == {}


def test_a_transcript_message_is_no_choice(evening: tuple[DirectTable, DirectTable]) -> None:
    count, _, _ = _count(evening)
    with pytest.raises(MalformedMessage):
        count.receive(evening[0].tables[0].transcript()[-1])


# -- verifying an evening ------------------------------------------------------

def test_the_evening_verifies_whole_and_in_any_order(evening: tuple[DirectTable, DirectTable]) -> None:
    first, second = evening
    transcripts = [first.tables[0].transcript(), second.tables[1].transcript()]
    whole = verify_evening(transcripts, verifier=_replay_only)
    assert whole.ok and whole.problem is None and len(whole.reports) == 2
    shuffled = verify_evening(transcripts[::-1], verifier=_replay_only, ordered=False)
    assert shuffled.ok and shuffled.sessions == [first.tables[0].session, second.tables[0].session]


def test_a_tampered_link_is_refused_naming_the_match(evening: tuple[DirectTable, DirectTable]) -> None:
    first, second = evening
    record = first.tables[0].finished()
    forged = After(record.session, bytes(32), record.seats)
    third = direct_table(GAME, seed=64, identities=first.identities, after=forged)
    third.run()
    report = verify_evening([first.tables[0].transcript(), third.tables[0].transcript()],
                            verifier=_replay_only)
    assert not report.ok
    assert report.problem is not None
    assert report.problem.startswith("match 2 is not the rematch of match 1")
    assert "[evening.after]" in report.problem
    assert report.reports[1].ok  # alone, the forged match verifies


def test_a_match_that_fails_alone_fails_the_evening(evening: tuple[DirectTable, DirectTable]) -> None:
    first, second = evening
    transcript = second.tables[0].transcript()
    report = verify_evening([first.tables[0].transcript(), transcript[:20]],
                            verifier=_replay_only)
    assert report.problem is not None
    assert not report.ok and report.problem.startswith("match 2 does not verify")


def test_a_match_after_one_a_verdict_ended_fails_the_evening_as_unfinished(
        evening: tuple[DirectTable, DirectTable]) -> None:
    """Only a match that ended normally can be followed (§14): a genesis chained to the
    last message of a table ended by a leave is refused as ``evening.unfinished``."""
    first = direct_table(GAME, seed=65)
    first.run_until(lambda t: t.tables[0].stage is Stage.PLAY)
    first.tables[0].receive_alert(first.tables[3].leave())
    ended = first.tables[0]
    assert ended.verdict is not None and ended.player_at_seat is not None
    keys = _keys(ended)
    after = After(ended.session, SignedMessage.parse(ended.transcript()[-1]).digest,
                  tuple(keys[p] for p in ended.player_at_seat))
    second = direct_table(GAME, seed=66, identities=first.identities, after=after)
    second.run()
    for order in ([0, 1], [1, 0]):
        given = [(ended.transcript(), ended.verdict), (second.tables[0].transcript(), None)]
        report = verify_evening([given[i][0] for i in order], [given[i][1] for i in order],
                                verifier=_replay_only, ordered=False)
        assert [r.ok for r in report.reports] == [True, True]  # each alone verifies
        assert not report.ok and report.problem is not None
        assert report.problem.startswith("match 2 is not the rematch of match 1: match 1 did "
                                         "not end normally")
        assert report.problem.endswith("[evening.unfinished]")


def test_two_rematches_of_one_match_are_no_evening(evening: tuple[DirectTable, DirectTable]) -> None:
    """An evening is one chain, in the chain's own order: a second rematch of the same
    match (a host that opened two) fails its link, whatever order they are given in."""
    first, second = evening
    fork = direct_table(GAME, seed=67, identities=first.identities,
                        after=first.tables[0].finished().after)
    fork.run()
    transcripts = [fork.tables[0].transcript(), first.tables[0].transcript(),
                   second.tables[0].transcript()]
    report = verify_evening(transcripts, verifier=_replay_only, ordered=False)
    assert all(r.ok for r in report.reports) and not report.ok
    assert report.sessions[0] == first.tables[0].session  # the chain's start, wherever given
    assert report.problem is not None and report.problem.startswith(
        "match 3 is not the rematch of match 2") and "[evening.after]" in report.problem


def _replay_only(messages: list[bytes], verdict: Verdict | None) -> Report:
    from p2pcards.protocol.verify import verify_transcript
    return verify_transcript(messages, verdict, workers=1)


# -- from the count to the next genesis ------------------------------------------

def test_the_host_writes_the_rematch_from_a_ready_count_and_a_joiner_accepts_it(
        evening: tuple[DirectTable, DirectTable]) -> None:
    from p2pcards.protocol.again import check_rematch, rematch_genesis

    first, _ = evening
    count, record, identities = _count(evening)
    for player in (0, 1, 2):
        count.receive(sign_choice(identities[player], record, player, AGAIN).raw)
    count.receive(sign_choice(identities[3], record, 3, LEAVE).raw)
    bot = Identity.generate("Bot")
    count.fill(3, bot.public_key, "Bot")
    config = game_wire.by_name(GAME).config_to_wire(SHORT[GAME])
    genesis = rematch_genesis(identities[0], count, ("P0", "P1", "P2", "P3"), GAME, config, "t")
    assert check_rematch(genesis.raw, first.tables[1].finished()) == record.after
    table = Table(genesis.raw, bot)
    assert [p.public_key for p in table.players][3] == bot.public_key
    assert table.after == record.after


def test_a_joiner_refuses_a_genesis_that_is_no_rematch(evening: tuple[DirectTable, DirectTable]) -> None:
    from p2pcards.protocol.again import check_rematch

    first, second = evening
    with pytest.raises(NotTheMatchBefore, match="names no previous match"):
        check_rematch(first.genesis, first.tables[0].finished())
    with pytest.raises(NotTheMatchBefore, match="follows session"):
        check_rematch(second.genesis, second.tables[0].finished())
