"""The host's relay folder keeps its own seat's verdict only where it fits the relay's
chain (PROTOCOL.md §10): there ``verify`` of the relay folder describes the end; a
chain that ran on past the seat's end gets no verdict, which ``verify`` would refuse."""

from __future__ import annotations

from p2pcards.app._direct import DirectTable, direct_table
from p2pcards.protocol.envelope import seal
from p2pcards.protocol.file_shapes import relay_keeps_verdict
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_records import Stage
from p2pcards.protocol.verify import verify_transcript
from p2pcards.rules.topper import Phase


def _in_play(seed: int) -> DirectTable:
    table = direct_table("topper", seed=seed)
    table.run_until(lambda t: t.tables[0].stage is Stage.PLAY and t.writer not in (None, 0))
    return table


def _host_seat(table: DirectTable) -> Table:
    return table.tables[0]


def test_a_deadline_goes_beside_a_relay_chain_that_is_the_seats_own() -> None:
    table = _in_play(81)
    seat = _host_seat(table)
    seat.declare_deadline_missed()
    assert seat.verdict is not None
    relay = seat.transcript()
    assert relay_keeps_verdict(relay, seat.transcript(), seat.verdict)
    report = verify_transcript(relay, seat.verdict, workers=1)
    assert report.ok and report.verdict_refused is None


def test_no_deadline_goes_beside_a_relay_chain_that_ran_on_past_it() -> None:
    """The late writer's message reached the relay after the host's seat had ended."""
    table = _in_play(82)
    seat = _host_seat(table)
    late = table.write()  # the writer due writes, but too late for the host's seat
    seat.declare_deadline_missed()
    assert seat.verdict is not None
    relay = seat.transcript() + [late]  # the relay stores it all the same
    assert not relay_keeps_verdict(relay, seat.transcript(), seat.verdict)
    # What keeping it would have done: verify refuses an honest verdict beside that chain.
    report = verify_transcript(relay, seat.verdict, workers=1)
    assert report.verdict_confirmed is False and "[verdict.deadline]" in (report.verdict_refused or "")


def _overbid(table: DirectTable) -> bytes:
    """The writer due signs a bid of more tricks than a hand has (rules.topper.bid-range)."""
    table.run_until(lambda t: t.tables[0].stage is Stage.PLAY and t.writer != 0
                    and t.tables[0].match.engine.phase is Phase.BIDDING)
    writer = table.writer
    assert writer is not None
    author = table.tables[writer]
    return seal(table.identities[writer], session=author.session, position=author.next_position,
                prev=author.head, player=writer, type="bid", body={"tricks": 200}).raw


def test_a_provable_verdict_goes_beside_the_relay_chain_that_stored_its_message() -> None:
    table = direct_table("topper", seed=83)
    bad = _overbid(table)
    seat = _host_seat(table)
    before = seat.transcript()
    seat.receive(bad)
    assert seat.verdict is not None and seat.verdict.evidence == (bad,)
    relay = before + [bad]  # the relay judges no rule: it stored the overbid
    assert relay_keeps_verdict(relay, seat.transcript(), seat.verdict)
    report = verify_transcript(relay, seat.verdict, workers=1)
    assert report.ok and report.verdict_confirmed is True and report.problem is None


def test_a_provable_verdict_stays_off_a_relay_chain_holding_another_message() -> None:
    table = direct_table("topper", seed=84)
    bad = _overbid(table)
    seat = _host_seat(table)
    other = table.write()  # the writer's honest version, the one the relay stored
    seat.receive(bad)
    assert seat.verdict is not None
    relay = seat.transcript() + [other]
    assert not relay_keeps_verdict(relay, seat.transcript(), seat.verdict)
    assert not relay_keeps_verdict(relay[:-2], seat.transcript(), seat.verdict)
