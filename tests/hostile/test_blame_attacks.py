"""Attacks on blame itself: getting an honest player named (issue 10).

Each test asserts both halves of the promise: the cheater is named (or nobody
is), and no honest player is; and that ``verify`` confirms nothing false.

* A forged ``deadline`` report against the writer seconds into its turn is
  only advisory: nobody is named and the table plays on to its normal end.
* A player's signed notice (its ``leave``, the alert of a victim, the alert
  reporting the host's bad share) re-sent as a transcript message is dropped
  by every peer and refused by the relay; a transcript holding it fails
  ``verify``.
* The alert reporting the host's bad decryption share for a player's own card
  makes every peer that receives it name the host, never the reporter.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from p2pcards.net.host import TableHost
from p2pcards.net.journal import Journal
from p2pcards.net.session_events import SessionResult
from p2pcards.protocol import frames
from p2pcards.protocol.envelope import SignedNotice, seal_notice
from p2pcards.protocol.errors import MalformedMessage
from p2pcards.protocol.events import Reported, TableEnded
from p2pcards.protocol.lobby import Lobby
from p2pcards.protocol.relay import Broadcast, Close, Persist, PersistNotice, Relay
from p2pcards.protocol.table_records import Stage
from p2pcards.protocol.verdict import Verdict
from p2pcards.protocol.verify import verify_transcript
from tests.support.typed import present

from .bad_share import swap_share_for_next_seat
from .harness import Bench, assert_transcripts_valid, assert_untouched, marks, recording
from .netbench import NetTable, Tampered, message_of, on_message

HOST = 0
SHORT_DEADLINE = 3.0
NOTICE_PROBLEM = "which is never part of the transcript"


def _named(bench: Bench) -> set[int]:
    """Every player named by any honest peer's (or the observer's) verdict."""
    named: set[int] = set()
    for who in (*bench.honest, "observer"):
        verdict = bench.table_of(who).verdict
        if verdict is not None:
            named.update(verdict.players)
    return named


def _as_message(bench: Bench, notice: bytes, sender: int) -> None:
    """A hostile host (or player) hands ``notice`` to everyone as a ``msg``."""
    before = marks(bench)
    before.pop(sender, None)
    results = bench.deliver(notice, to=[w for w in (*bench.honest, "observer") if w != sender])
    for who, result in results.items():
        assert isinstance(result.error, MalformedMessage), (who, result)
        assert bench.table_of(who).stage is not Stage.ENDED
    assert_untouched(bench, before)


def _verify_refuses(bench: Bench, notice: bytes) -> None:
    transcript = bench.reference.transcript()
    report = verify_transcript(transcript + [notice])
    assert not report.ok and NOTICE_PROBLEM in present(report.problem)
    assert report.verdict is None
    # Nor is it evidence of a transcript fault against its signer.
    signer = SignedNotice.parse(notice).player
    for rule in ("turn", "message.malformed", "chain.equivocation"):
        claimed = Verdict(rule, (signer,), len(transcript), "x", (notice,))
        assert verify_transcript(transcript, claimed).verdict_confirmed is False


def _relay_refuses(bench: Bench, notice: bytes, sender: int) -> None:
    """An honest relay given the notice as ``msg`` by another player stores nothing."""
    relay = Relay.resume(Lobby(bench.identities[0], bench.game, {}, "den"),
                         bench.reference.transcript())
    relay.connected(7, bench.identities[sender].public_key)
    held = [m.raw for m in relay.messages]
    out = relay.frame(7, frames.encode("msg", notice))
    assert not any(isinstance(o, (Persist, PersistNotice, Broadcast)) for o in out)
    assert isinstance(out[-1], Close)
    assert [m.raw for m in relay.messages] == held and relay.notices == []


# -- a forged deadline report -----------------------------------------------------------------


@pytest.mark.parametrize("game", ["topper", "bluff"])
def test_forged_deadline_report_against_the_writer_names_nobody(game: str) -> None:
    """Seconds into a writer's turn, a player signs an alert saying it missed its
    deadline: every peer, the accused included, notes a report and plays on."""
    bench, step = recording(game).bench_before(lambda s: s.stage is Stage.PLAY, nth=3)
    liar = (step.player + 1) % 4
    bench.set_hostile(liar)
    lie = Verdict("deadline", (step.player,), step.position,
                  f"player {step.player} did not write before the deadline")
    notice = bench.forge("alert", lie.to_wire())
    before = marks(bench)
    for who in (*bench.honest, "observer"):
        events = bench.table_of(who).receive_alert(notice)
        assert events == [Reported(liar, "deadline", (step.player,), step.position, lie.detail)]
    assert_untouched(bench, before)
    bench.finish()
    assert _named(bench) == set()
    assert bench.reference.stage is Stage.OVER
    assert bench.reference.transcript() == recording(game).transcript
    assert_transcripts_valid(bench)


def test_report_naming_the_receiving_peer_itself_is_only_advisory() -> None:
    bench, step = recording("topper").bench_before(lambda s: s.type == "play", nth=2)
    liar = (step.player + 2) % 4
    bench.set_hostile(liar)
    for accused in bench.honest:
        lie = Verdict("rules.topper.renege", (accused,), step.position, "you reneged")
        events = bench.tables[accused].receive_alert(bench.forge("alert", lie.to_wire()))
        assert [type(e) for e in events] == [Reported] and bench.tables[accused].verdict is None
    bench.finish()
    assert _named(bench) == set() and bench.reference.stage is Stage.OVER


# -- notices re-sent as transcript messages ---------------------------------------------------------


def test_leave_notice_resent_as_a_message_names_nobody_for_it() -> None:
    bench, step = recording("topper").bench_before(lambda s: s.type == "bid", nth=1)
    victim = (step.player + 1) % 4
    notice = bench.tables[victim].leave()
    # The host re-sends it as a transcript message (at the position it dates from).
    _as_message(bench, notice, victim)
    _relay_refuses(bench, notice, sender=(victim + 1) % 4)
    _verify_refuses(bench, notice)
    # As the notice it is, it names its signer for leaving, and for nothing else.
    for who in bench.honest:
        if who == victim:
            continue
        (ended,) = bench.tables[who].receive_alert(notice)
        assert isinstance(ended, TableEnded)
        assert (ended.verdict.rule, ended.verdict.players) == ("left", (victim,))
        assert not ended.verdict.provable


def test_victims_alert_resent_as_a_message_names_nobody() -> None:
    """An honest peer whose own clock ran out alerts the others; the host re-sends
    that alert as a message of the victim's: nobody is named for it."""
    bench, step = recording("topper").bench_before(lambda s: s.type == "play", nth=5)
    victim = (step.player + 1) % 4
    bench.tables[victim].declare_deadline_missed()
    notice = present(bench.tables[victim].alert())
    others = [w for w in (*bench.honest, "observer") if w != victim]
    before = {w: m for w, m in marks(bench).items() if w != victim}
    _as_message(bench, notice, victim)
    # Delivered as what it is, it is the victim's report: advisory.
    for who in others:
        assert [type(e) for e in bench.table_of(who).receive_alert(notice)] == [Reported]
    assert_untouched(bench, before)
    assert _named(bench) == {step.player}  # only the victim's own verdict, by its own clock
    assert all(bench.table_of(w).verdict is None for w in others)
    _relay_refuses(bench, notice, sender=step.player)
    _verify_refuses(bench, notice)


def _host_bad_share(bench: Bench, step: Any) -> tuple[bytes, int]:
    """The host's ``shares`` message with a bad share for one other seat's card."""
    body = bench.peek().body
    body["shares"], victim_seat = swap_share_for_next_seat(body["shares"], step.seat)
    return bench.forge("shares", body), bench.player_at(victim_seat)


def test_alert_reporting_the_hosts_bad_share_names_the_host_never_the_reporter() -> None:
    rec = recording("topper")
    bench, step = rec.bench_before(lambda s: s.type == "shares" and s.player == HOST)
    bench.set_hostile(HOST)
    raw, victim = _host_bad_share(bench, step)
    bench.deliver(raw, sender=HOST)
    verdict = present(bench.tables[victim].verdict)
    assert (verdict.rule, verdict.players) == ("crypto", (HOST,))
    alert = present(bench.tables[victim].alert())
    # The host buries the alert as a message: dropped by all, nobody named for it.
    others = [w for w in (*bench.honest, "observer") if w != victim]
    before = {w: m for w, m in marks(bench).items() if w != victim}
    for who in others:
        with pytest.raises(MalformedMessage):
            bench.table_of(who).receive(alert)
    assert_untouched(bench, before)
    _verify_refuses(bench, alert)
    # Every peer that receives it as the alert it is names the host, provably.
    # (The observer checks every share on arrival: it named the host at once.)
    for who in others:
        table = bench.table_of(who)
        if table.verdict is None:
            (ended,) = table.receive_alert(alert)
            assert isinstance(ended, TableEnded)
        assert (present(table.verdict).rule, present(table.verdict).players) == ("crypto", (HOST,))
        assert present(table.verdict).provable and present(table.verdict).evidence == (raw,)
    assert _named(bench) == {HOST}
    assert_transcripts_valid(bench, bench.tables[victim].verdict, who=(victim,))
    report = verify_transcript(bench.tables[bench.honest[-1]].transcript(),
                               bench.tables[bench.honest[-1]].verdict)
    assert report.ok and report.verdict_confirmed is True


# -- over the network: a real host and four peer sessions ------------------------------------


def _notices_as_messages(net: NetTable, forward_alerts: bool = True) -> list[bytes]:
    """Make the host's relay re-send every notice it receives as a ``msg`` frame
    too (a cheating host); returns the list of notices it re-sent."""
    resent: list[bytes] = []
    relay_frame = net.host.relay.frame

    def evil(link: int, data: bytes) -> list[Any]:
        decoded = frames.decode(data)
        out = relay_frame(link, data) if forward_alerts or decoded.kind != "alert" else []
        if decoded.kind == "alert":
            resent.append(decoded.body)
            out = [Broadcast(frames.encode("msg", decoded.body), exclude=link)] + list(out)
        return out
    net.host.relay.frame = evil  # type: ignore[method-assign]
    return resent


def _forge_deadline_report(net: NetTable, liar: int) -> Callable[..., list[bytes]]:
    """A policy for the liar's link: after the message, a signed report that the
    next writer missed its deadline."""
    def report_next_writer(frame: bytes, msg: Any, conn: Tampered) -> list[bytes]:
        table = net.table(liar)
        lie = Verdict("deadline", (table.writer,), table.next_position, "too slow")
        alert = seal_notice(net.identities[liar], session=table.session,
                            position=table.next_position, prev=table.head, player=liar,
                            type="alert", body=lie.to_wire())
        return [frame, frames.encode("alert", alert.raw)]
    return report_next_writer


async def _run(net: NetTable, before_seats: Any = None, timeout: float = 90.0) -> dict[int, SessionResult]:
    await net.start_host()
    if before_seats is not None:
        before_seats()
    await net.start_seats()
    try:
        return await net.results(timeout=timeout)
    finally:
        await net.close()


@pytest.mark.asyncio
async def test_forged_deadline_report_over_the_network_changes_nothing(tmp_path: Path) -> None:
    """The first bidder, right after its bid, reports that the next writer missed
    its deadline: every session plays on to the recorded end. The host keeps the
    (signed, if false) report beside its transcript, and a restarted host has it."""
    rec = recording("topper")
    liar = rec.find(lambda s: s.type == "bid").player
    net = NetTable("topper")
    net.host.journal_root = tmp_path

    report_next_writer = _forge_deadline_report(net, liar)

    net.set_policy(liar, on_message(lambda m: m.type == "bid", report_next_writer))
    results = await _run(net)
    for p in range(4):
        assert results[p].verdict is None and results[p].outcome == rec.outcome, results[p]
        assert net.transcript(p) == rec.transcript
    reports = [e for p in range(4) if p != liar for e in net.seats[p].events
               if isinstance(e, Reported)]
    assert len(reports) == 3 and all(r.reporter == liar and r.rule == "deadline" for r in reports)
    assert [m.raw for m in net.host.relay.messages] == rec.transcript
    assert len(net.host.relay.notices) == 1
    journal = Journal(tmp_path / present(net.host.relay.session).hex() / "relay")
    assert journal.read_messages() == rec.transcript
    assert journal.read_notices() == [net.host.relay.notices[0].raw]
    again = TableHost.resume(net.identities[0], journal)
    try:
        assert [n.raw for n in again.relay.notices] == journal.read_notices()
        assert [m.raw for m in again.relay.messages] == rec.transcript
    finally:
        await again.close()


@pytest.mark.asyncio
async def test_host_resending_a_leave_notice_as_a_message_gets_nobody_named_for_it() -> None:
    """A player leaves after its first bid; the host re-sends the leave as a
    message of that player: every other peer names it for leaving (its own
    signed word), never with a provable verdict made of its notice."""
    rec = recording("topper")
    leaver = rec.find(lambda s: s.type == "bid").player
    net = NetTable("topper")

    def leave(frame: bytes, msg: Any, conn: Tampered) -> list[bytes]:
        session = net.seats[leaver].session
        conn.tasks.append(asyncio.get_running_loop().create_task(session.leave()))
        return [frame]

    net.set_policy(leaver, on_message(lambda m: m.type == "bid", leave))
    holder: list[list[bytes]] = []
    results = await _run(net, lambda: holder.append(_notices_as_messages(net)))
    resent_notices = holder[0]
    assert resent_notices, "the leave notice reached the host"
    for p in range(4):
        if p == leaver:
            continue
        verdict = present(results[p].verdict)
        assert (verdict.rule, verdict.players) == ("left", (leaver,)), verdict
        transcript = net.transcript(p)
        assert not set(resent_notices) & set(transcript)
        report = verify_transcript(transcript, verdict)
        assert report.problem is None and report.verdict_confirmed is None
        assert NOTICE_PROBLEM in present(verify_transcript(transcript + resent_notices[:1]).problem)
    assert not set(resent_notices) & {m.raw for m in net.host.relay.messages}


@pytest.mark.asyncio
async def test_hosts_bad_share_is_named_by_every_peer_even_when_it_resends_the_alert() -> None:
    """The host's seat publishes a bad share for one player's card; that player's
    alert (which the host also re-sends as a message of its) makes every peer name
    the host: never the reporter, nobody for the re-sent copy."""
    rec = recording("topper")
    step = rec.find(lambda s: s.type == "shares" and s.player == HOST)
    net = NetTable("topper")
    victim_seat = (present(step.seat) + 1) % 4

    def bad_share(frame: bytes, msg: Any, conn: Tampered) -> list[bytes]:
        from p2pcards.protocol.envelope import seal
        forged, _ = swap_share_for_next_seat(msg.body["shares"], present(step.seat))
        body = dict(msg.body, shares=forged)
        cheat = seal(net.identities[HOST], session=msg.session, position=msg.position,
                     prev=msg.prev, player=HOST, type="shares", body=body)
        return [frames.encode("msg", cheat.raw)]

    net.set_policy(HOST, on_message(lambda m: m.type == "shares", bad_share))
    holder: list[list[bytes]] = []
    results = await _run(net, lambda: holder.append(_notices_as_messages(net)))
    victim = net.table(1).player_at_seat[victim_seat]
    assert holder[0], "the victim's alert reached the host"
    for p in range(1, 4):
        verdict = present(results[p].verdict)
        assert verdict is not None, (p, results[p])
        assert (verdict.rule, verdict.players) == ("crypto", (HOST,)), (p, verdict)
        assert verdict.provable
        report = verify_transcript(net.transcript(p), verdict)
        assert report.ok and report.verdict_confirmed is True
        assert not set(holder[0]) & set(net.transcript(p))
    assert present(results[victim].verdict).players == (HOST,)


@pytest.mark.asyncio
async def test_honest_relay_given_another_players_notice_as_a_message_stores_nothing() -> None:
    """One player forges a report; another echoes that signed alert to the host as
    a transcript message. The honest relay refuses it (``reject``: that player is
    out), never stores or forwards it; nobody is named for the notice, neither its
    signer nor anyone else: only the echoer, by the others' own clocks, once its
    turn comes and it is gone."""
    rec = recording("topper")
    liar = rec.find(lambda s: s.type == "bid").player
    echoer = (liar + 1) % 4
    net = NetTable("topper", deadline=SHORT_DEADLINE)
    echoed: list[bytes] = []

    report_next_writer = _forge_deadline_report(net, liar)

    def echo_notice_as_message(frame: bytes, conn: Tampered) -> list[bytes]:
        if echoed or message_of(frame) is None:
            return [frame]
        for data in conn.received:
            decoded = frames.decode(data)
            if decoded.kind == "alert":
                echoed.append(decoded.body)
                return [frame, frames.encode("msg", decoded.body)]
        return [frame]

    net.set_policy(liar, on_message(lambda m: m.type == "bid", report_next_writer))
    net.set_policy(echoer, echo_notice_as_message)
    results = await _run(net)
    assert echoed, "the echoer saw the alert and re-sent it"
    relay_held = [m.raw for m in net.host.relay.messages]
    assert relay_held == rec.transcript[:len(relay_held)] and echoed[0] not in relay_held
    assert echoed[0] in [n.raw for n in net.host.relay.notices]  # kept as the notice it is
    for p in range(4):
        if p == echoer:
            continue
        verdict = present(results[p].verdict)
        assert (verdict.rule, verdict.players) == ("deadline", (echoer,)), (p, verdict)
        transcript = net.transcript(p)
        assert echoed[0] not in transcript and transcript == rec.transcript[:len(transcript)]
        assert verify_transcript(transcript, verdict).problem is None
