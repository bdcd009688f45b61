"""One process per seat: a table that meets a message signed by its own key that
it neither wrote nor saved stops, signs nothing more and names nobody."""

from __future__ import annotations

import pytest

from p2pcards.app._direct import DirectTable, direct_table
from p2pcards.protocol.errors import SeatPlayedElsewhere
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_errors import TableClosed
from p2pcards.protocol.table_records import SessionSecrets

PLAYER = 1  # the seat that a second process also plays


def _twin(table: DirectTable) -> Table:
    """A second process for player 1's seat: the same key, fresh secrets (``join``
    again after a crash), caught up with the table so far."""
    twin = Table(table.genesis, table.identities[PLAYER])
    for raw in table.observer.transcript()[1:]:
        twin.receive(raw)
    return twin


def _twin_commit(table: DirectTable) -> bytes:
    table.step()  # player 0 commits; player 1 writes next
    written = _twin(table).outgoing()
    assert written is not None
    return written.raw


def test_an_own_key_message_this_table_did_not_write_stops_it_naming_nobody() -> None:
    table = direct_table("topper", seed=5)
    raw = _twin_commit(table)
    mine = table.tables[PLAYER]
    before = mine.transcript()
    with pytest.raises(SeatPlayedElsewhere) as stopped:
        mine.receive(raw)
    assert stopped.value.position == 2 and stopped.value.rule == "seat.elsewhere"
    assert "another process is playing this seat" in str(stopped.value)
    assert mine.elsewhere is stopped.value
    assert mine.verdict is None and mine.transcript() == before  # nobody named, nothing taken
    # It signs nothing more: neither its own commit, nor a leave, nor an alert.
    with pytest.raises(TableClosed):
        mine.outgoing()
    with pytest.raises(TableClosed):
        mine.leave()
    assert mine.alert() is None
    # And it takes nothing more from the others either.
    with pytest.raises(TableClosed):
        mine.receive(table.observer.transcript()[1])


def test_a_second_version_of_a_position_it_holds_is_another_process_not_its_own_fault() -> None:
    table = direct_table("topper", seed=6)
    raw = _twin_commit(table)
    table.step()  # player 1's own process writes position 2 too
    mine = table.tables[PLAYER]
    with pytest.raises(SeatPlayedElsewhere):
        mine.receive(raw)  # without the check: an Equivocation verdict naming itself
    assert mine.verdict is None


def test_its_own_message_coming_back_is_no_alarm() -> None:
    table = direct_table("topper", seed=7)
    table.step()
    table.step()  # player 1 wrote position 2 (player 0 wrote 1)
    mine = table.tables[PLAYER]
    assert mine.receive(mine.transcript()[2]) == [] and mine.elsewhere is None


def test_its_own_saved_record_rebuilds_the_seat_and_play_goes_on() -> None:
    table = direct_table("topper", seed=8)
    for _ in range(6):  # commits and opens: player 1 has signed two messages
        table.step()
    mine = table.tables[PLAYER]
    secrets = SessionSecrets.from_wire(mine.member.secrets.to_wire())
    resumed = Table(table.genesis, table.identities[PLAYER], secrets)
    for raw in mine.transcript()[1:]:
        resumed.receive(raw, saved=True)
    assert resumed.transcript() == mine.transcript() and resumed.elsewhere is None
    # Without ``saved`` the same record reads as another process's messages.
    fresh = Table(table.genesis, table.identities[PLAYER], secrets)
    fresh.receive(mine.transcript()[1])
    with pytest.raises(SeatPlayedElsewhere):
        fresh.receive(mine.transcript()[2])


def test_a_leave_signed_by_another_process_for_this_seat_stops_it_instead_of_ending_it() -> None:
    table = direct_table("topper", seed=9)
    table.step()
    notice = _twin(table).leave()  # the other process for seat 1 is stopped (Ctrl-C)
    mine = table.tables[PLAYER]
    with pytest.raises(SeatPlayedElsewhere, match="'leave' notice is signed with its key"):
        mine.receive_alert(notice)  # without the check: the table ends, "you left"
    assert mine.verdict is None and mine.elsewhere is not None


def test_its_own_leave_coming_back_is_no_alarm() -> None:
    table = direct_table("topper", seed=10)
    table.step()
    mine = table.tables[PLAYER]
    notice = mine.leave()
    assert mine.receive_alert(notice) == [] and mine.elsewhere is None
    assert mine.verdict is not None and mine.verdict.rule == "left"
