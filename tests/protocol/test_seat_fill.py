"""A freed seat taken at the end box: who may take it (with the host's clock), the
fill frame every end box counts, and a newcomer's check of the rematch's genesis
(PROTOCOL.md §14)."""

from __future__ import annotations

import pytest

from p2pcards.app._direct import DirectTable
from p2pcards.protocol import frames
from p2pcards.protocol.again import AGAIN, LEAVE, AgainCount, AgainRefused, rematch_genesis
from p2pcards.protocol.errors import MalformedMessage
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.rematch_genesis import After, FinishedMatch, NotTheMatchBefore, WrongRotation
from p2pcards.protocol.seat_fill import Fill, NotTheSeatTaken, SeatRefused, check_newcomer
from p2pcards.protocol.table import Table

from .played_match import GAME, NAMES, config, heard_count, host_genesis, played_match, player_keys


@pytest.fixture(scope="module")
def played() -> DirectTable:
    return played_match(seed=71)


def _count(played: DirectTable, leavers: tuple[int, ...] = (2,), closes_at: float | None = 100.0,
           ) -> tuple[AgainCount, FinishedMatch, tuple[bytes, ...]]:
    """A count that heard every player choose again but ``leavers``, with its match and keys."""
    choices = {player: LEAVE if player in leavers else AGAIN for player in range(4)}
    count = heard_count(played, choices, closes_at)
    return count, played.tables[0].finished(), tuple(player_keys(played))


def test_a_newcomer_takes_the_freed_seat_in_its_leavers_place_and_the_count_is_ready(played: DirectTable) -> None:
    count, record, keys = _count(played)
    newcomer = Identity.generate("Nia")
    made = count.take(newcomer.public_key, "Nia", now=10.0)
    assert made.player == 2 and not made.bot and made.public_key == newcomer.public_key
    assert made.seat == record.seats.index(keys[2])  # the seat its leaver sat at
    assert count.ready and count.fills == [made]
    assert count.next_players(NAMES)[2] == (newcomer.public_key, "Nia")


def test_no_newcomer_takes_a_seat_when_none_is_free(played: DirectTable) -> None:
    count, _, _ = _count(played, leavers=())
    with pytest.raises(SeatRefused, match="no seat is free"):
        count.take(Identity.generate().public_key, "Nia", now=10.0)


def test_no_newcomer_takes_a_seat_once_the_end_box_has_closed(played: DirectTable) -> None:
    count, _, _ = _count(played)
    with pytest.raises(SeatRefused, match="closed"):
        count.take(Identity.generate().public_key, "Nia", now=100.0)
    assert count.free == (2,)  # still free: the refusal changed nothing


def test_a_player_of_the_match_or_a_newcomer_cannot_take_a_second_seat(played: DirectTable) -> None:
    count, _, keys = _count(played, leavers=(1, 2))
    with pytest.raises(SeatRefused, match="already at the table"):
        count.take(keys[3], "P3", now=1.0)
    with pytest.raises(SeatRefused, match="already at the table"):
        count.take(keys[1], "P1", now=1.0)  # the leaver itself: its choice was final
    newcomer = Identity.generate()
    assert count.take(newcomer.public_key, "Nia", now=1.0).player == 1  # first free, join order
    with pytest.raises(SeatRefused, match="already at the table"):
        count.take(newcomer.public_key, "Nia", now=1.0)
    assert count.free == (2,)


def test_the_fill_frame_round_trips_and_an_end_box_counts_it_once(played: DirectTable) -> None:
    count, record, keys = _count(played)
    made = count.take(Identity.generate().public_key, "Nia", now=1.0)
    decoded = frames.decode(frames.encode("fill", made.to_wire()))
    heard = Fill.from_wire(decoded.body)
    assert heard == made
    box, _, _ = _count(played, closes_at=None)  # an end box: it heard the same choices
    assert box.hear_fill(heard) and not box.hear_fill(heard)
    assert box.ready and box.next_players(NAMES) == count.next_players(NAMES)


def test_an_end_box_refuses_a_fill_about_another_match_or_a_seat_not_freed(played: DirectTable) -> None:
    count, record, keys = _count(played)
    made = count.take(Identity.generate().public_key, "Nia", now=1.0)
    other = AgainCount(FinishedMatch(record.session, bytes(32), record.seats), keys)
    with pytest.raises(AgainRefused, match="a fill about"):
        other.hear_fill(made)
    nobody_left, _, _ = _count(played, leavers=())
    with pytest.raises(MalformedMessage, match="has not left"):
        nobody_left.hear_fill(made)


def _rematch(played: DirectTable, newcomer: Identity, host: Identity | None = None,
             after: After | None = None) -> tuple[bytes, Fill]:
    count, record, _ = _count(played)
    made = count.take(newcomer.public_key, newcomer.name, now=1.0)
    if host is None:
        return rematch_genesis(played.identities[0], count, NAMES, GAME, config(), "t").raw, made
    return host_genesis(host, count.next_players(NAMES), after or record.after), made


def test_a_newcomer_accepts_the_rematch_that_seats_it_as_its_fill_said(played: DirectTable) -> None:
    newcomer = Identity.generate("Nia")
    genesis, made = _rematch(played, newcomer)
    after = check_newcomer(genesis, played.identities[0].public_key, made)
    assert after == played.tables[0].finished().after
    table = Table(genesis, newcomer)  # and the rotation gives it its seat
    assert table.players[2].public_key == newcomer.public_key


def test_a_newcomer_refuses_a_genesis_of_another_host(played: DirectTable) -> None:
    newcomer = Identity.generate("Nia")
    genesis, made = _rematch(played, newcomer, host=Identity.generate("Mallory"))
    with pytest.raises(NotTheSeatTaken, match="not the table of the host"):
        check_newcomer(genesis, played.identities[0].public_key, made)


def test_a_newcomer_refuses_a_genesis_that_names_another_match(played: DirectTable) -> None:
    newcomer = Identity.generate("Nia")
    record = played.tables[0].finished()
    genesis, made = _rematch(played, newcomer, host=played.identities[0],
                             after=FinishedMatch(record.session, bytes(32), record.seats).after)
    with pytest.raises(NotTheMatchBefore, match="follows session"):
        check_newcomer(genesis, played.identities[0].public_key, made)


def test_a_newcomer_refuses_a_genesis_that_seats_it_elsewhere_or_keeps_the_leaver(played: DirectTable) -> None:
    newcomer = Identity.generate("Nia")
    genesis, made = _rematch(played, newcomer)
    elsewhere = Fill(made.session, made.final, 1, made.seat, made.public_key, made.name, False)
    with pytest.raises(NotTheSeatTaken, match="join place 1"):
        check_newcomer(genesis, played.identities[0].public_key, elsewhere)
    keys = player_keys(played)
    record = played.tables[0].finished()
    stayed = Fill(made.session, made.final, 2, record.seats.index(keys[1]), made.public_key,
                  made.name, False)
    with pytest.raises(WrongRotation, match="is in the rematch"):
        check_newcomer(genesis, played.identities[0].public_key, stayed)
