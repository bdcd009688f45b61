"""After the match's normal end (OVER) nothing is read (PROTOCOL.md §5): a
``leave`` notice, an alert proving an equivocation, or another version of an
earlier message reaching a finished table changes nothing. Before the fix each
of them turned every honest peer's finished match into an ended one (a verdict
naming the signer, which ``verify`` then refused beside a normal end:
``verdict.after-end``), and the evening's rematch (which follows only an OVER
match) was gone. Sans-IO, over the simulation's undisturbed Topper match."""

from __future__ import annotations

import functools

import pytest

from p2pcards.protocol.envelope import SignedMessage, seal, seal_notice
from p2pcards.protocol.errors import Equivocation, ProtocolError
from p2pcards.protocol.session import HOST
from p2pcards.protocol.table_records import Stage
from p2pcards.protocol.verdict import Verdict
from p2pcards.protocol.verify import verify_transcript

from .adversary import other_body
from .schedule import SEATED, Schedule
from .simulation import Simulation

CHEAT, REPORTER = 3, 2


@functools.cache
def _over() -> tuple[bytes, ...]:
    """The undisturbed match's transcript, played to its end."""
    sim = Simulation(Schedule(seed=7)).run()
    assert all(p.table.stage is Stage.OVER for p in sim.peers)
    return tuple(sim.peers[0].table.transcript())


def _finished(player: int) -> Simulation:
    """A fresh simulation whose tables are OVER (each call: its own tables)."""
    sim = Simulation(Schedule(seed=7)).run()
    assert sim.peers[player].table.transcript() == list(_over())
    return sim


def _fork(sim: Simulation) -> tuple[bytes, bytes]:
    """CHEAT's first message (held) and another version of it, signed by CHEAT."""
    for raw in sim.peers[0].table.transcript()[1:SEATED]:
        msg = SignedMessage.parse(raw)
        if msg.player == CHEAT:
            other = seal(sim.identities[CHEAT], session=msg.session, position=msg.position,
                         prev=msg.prev, player=CHEAT, type=msg.type, body=other_body(msg))
            return raw, other.raw
    raise AssertionError("the cheat wrote nothing in the seating")


def _leave(sim: Simulation) -> bytes:
    table = sim.peers[CHEAT].table
    return seal_notice(sim.identities[CHEAT], session=table.session,
                       position=table.next_position, prev=table.head, player=CHEAT,
                       type="leave", body={}).raw


def _alert(sim: Simulation) -> bytes:
    held, other = _fork(sim)
    position = SignedMessage.parse(held).position
    verdict = Verdict(Equivocation.rule, (CHEAT,), position, "two versions", (held, other))
    table = sim.peers[REPORTER].table
    return seal_notice(sim.identities[REPORTER], session=table.session,
                       position=table.next_position, prev=table.head, player=REPORTER,
                       type="alert", body=verdict.to_wire()).raw


def _still_finished(sim: Simulation, player: int) -> None:
    table = sim.peers[player].table
    assert table.stage is Stage.OVER and table.verdict is None
    assert table.transcript() == list(_over())
    table.finished()  # a rematch can still follow it
    report = verify_transcript(table.transcript(), None, workers=1)
    assert report.ok and report.outcome is not None


@pytest.mark.parametrize("what", ["leave", "alert"])
def test_a_notice_after_the_end_changes_no_finished_table(what: str) -> None:
    sim = _finished(0)
    raw = _leave(sim) if what == "leave" else _alert(sim)
    for player in (0, 1):
        peer = sim.peers[player]
        outputs = peer.rules.alert(HOST, raw)
        assert peer.table.receive_alert(raw) == []
        assert not any(getattr(o, "events", None) for o in outputs)
        _still_finished(sim, player)


def test_another_version_of_an_earlier_message_after_the_end_names_nobody() -> None:
    sim = _finished(0)
    _held, other = _fork(sim)
    for player in (0, 1):
        with pytest.raises(ProtocolError):
            sim.peers[player].table.receive(other)
        _still_finished(sim, player)
