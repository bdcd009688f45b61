"""An alert whose evidence is the writer's own next message: judged by this peer.

Found by the whole-match simulation (``tests/sim``): a writer that sends its
rule-breaking message to one player only, or whose message reached a player out
of order (a ``sync`` to the writer then brings nothing), was named with evidence
by that one player and only by its clock by the others, although the alert they
received held the very message. The session rules now check such a message as
if it came on the alert's path."""

from __future__ import annotations

from typing import Any

from p2pcards.protocol.envelope import SignedMessage, seal
from p2pcards.protocol.errors import MalformedMessage
from p2pcards.protocol.session import Check, Emit, SessionRules
from p2pcards.protocol.table_records import Stage
from tests.hostile.harness import Bench
from tests.protocol.test_session import run_checks


def _verdicts(outs: list[Any]) -> list[Any]:
    return [e.verdict for o in outs if isinstance(o, Emit) for e in o.events
            if hasattr(e, "verdict")]


def _bad_commit_alert() -> tuple[Bench, bytes, bytes]:
    """Player 3 sends player 1 a malformed commit in its turn; 1 names it: its alert."""
    bench = Bench("topper", seed=5)
    bench.run(until=lambda b: b.reference.next_position == 4)
    msg = SignedMessage.parse(bench.produce(3).raw)
    bad = seal(bench.identities[3], session=msg.session, position=msg.position, prev=msg.prev,
               player=3, type="commit", body={"key": bytes(32)}).raw
    assert [v.players for v in _verdicts([Emit(bench.tables[1].receive(bad))])] == [(3,)]
    alert = bench.tables[1].alert()
    assert alert is not None
    return bench, bad, alert


def test_an_alert_holding_the_writers_bad_next_message_names_the_writer_with_it() -> None:
    bench, bad, alert = _bad_commit_alert()
    rules = SessionRules(10.0)
    rules.start(bench.tables[0], 0.0)
    rules.host_up = True
    outs = run_checks(rules, rules.alert(1, alert))
    verdicts = _verdicts(outs)
    assert [(v.rule, v.players, v.evidence) for v in verdicts] == [
        (MalformedMessage.rule, (3,), (bad,))]
    assert bench.tables[0].stage is Stage.ENDED


def test_an_alert_whose_evidence_is_not_the_next_message_starts_no_check() -> None:
    """Player 0 already holds position 4 (another version): nothing to apply, and
    the table's own judgement of the alert (an equivocation) stands."""
    bench, bad, alert = _bad_commit_alert()
    table = bench.tables[0]
    table.receive(bench.tables[3].transcript()[4])
    rules = SessionRules(10.0)
    rules.start(table, 0.0)
    outs = rules.alert(1, alert)
    assert not any(isinstance(o, Check) for o in outs)
    assert [v.rule for v in _verdicts(outs)] == ["chain.equivocation"]
