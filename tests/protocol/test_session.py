"""The session rules (``p2pcards.protocol.session``) one event at a time: which
paths an accepted message goes on, what a deadline hands over before anyone is
named, whom the window's end names, and the cheap checks that gate speculative
work (finding 2: forged shuffles start nothing)."""

from __future__ import annotations

from typing import Any

import pytest

from p2pcards.app._direct import direct_table
from p2pcards.protocol import frames
from p2pcards.protocol.envelope import SignedMessage, seal
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.session import (
    FORWARD_DELAY,
    HOST,
    PROBE_TIMEOUT,
    Check,
    Emit,
    Send,
    SessionRules,
    Settle,
    Speculate,
)
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_records import Stage
from tests.hostile.harness import Bench, clone

DEADLINE = 10.0


def run_checks(rules: SessionRules, outs: list[Any], now: float = 1.0) -> list[Any]:
    """Do the heavy work the rules asked for, as a driver would; all outputs."""
    done: list[Any] = []
    for out in outs:
        done.append(out)
        if isinstance(out, Check):
            events: list[Any] | None = None
            error: ProtocolError | None = None
            try:
                events = out.job()
            except ProtocolError as failed:
                error = failed
            done += rules.checked(out, events, error, now)
    return done


def _sends(outs: list[Any]) -> list[tuple[Any, str]]:
    return [(o.path, frames.decode(o.frame).kind) for o in outs if isinstance(o, Send)]


def _verdicts(outs: list[Any]) -> list[Any]:
    return [e.verdict for o in outs if isinstance(o, Emit) for e in o.events
            if hasattr(e, "verdict")]


@pytest.fixture
def bench() -> Bench:
    return Bench("topper", seed=5)


def _rules_for(bench: Bench, player: int, linked: set[int], now: float = 0.0) -> SessionRules:
    rules = SessionRules(DEADLINE)
    rules.start(bench.tables[player], now)
    rules.host_up = True
    rules.linked = set(linked)
    return rules


def test_a_message_from_a_direct_link_goes_on_to_the_host_and_the_other_direct_peers(bench: Bench) -> None:
    """Player 2 accepts player 0's commit from player 3's direct link: it passes it
    to player 1 at once and to the host a moment later, never back to 3 nor to
    its writer."""
    written = bench.produce(0)
    rules = _rules_for(bench, 2, linked={0, 1, 3})
    outs = run_checks(rules, rules.message(3, written.raw), now=1.0)
    assert _sends(outs) == [(1, "msg")]
    assert rules.table is not None and rules.table.next_position == 2
    assert rules.wake_at() == 1.0 + FORWARD_DELAY
    assert _sends(rules.tick(1.0 + FORWARD_DELAY)) == [(HOST, "msg")]
    assert rules.wake_at() == 1.0 + DEADLINE  # nothing more to pass on


def test_a_message_that_came_late_goes_on_to_the_host_at_once(bench: Bench) -> None:
    """Past half the writer's time, others' clocks may be about to run out."""
    written = bench.produce(0)
    rules = _rules_for(bench, 2, linked={1, 3})
    late = DEADLINE / 2 + 0.1
    outs = run_checks(rules, rules.message(3, written.raw), now=late)
    assert sorted(_sends(outs), key=str) == sorted([(HOST, "msg"), (1, "msg")], key=str)
    assert rules.wake_at() == late + DEADLINE


def test_the_hosts_own_copy_first_means_nothing_is_passed_on(bench: Bench) -> None:
    written = bench.produce(0)
    rules = _rules_for(bench, 2, linked={1, 3})
    run_checks(rules, rules.message(3, written.raw), now=1.0)
    assert rules.message(HOST, written.raw) == []  # a copy, and the host has it
    assert rules.tick(1.0 + FORWARD_DELAY) == []


def test_a_message_from_the_host_goes_only_to_the_direct_peers(bench: Bench) -> None:
    written = bench.produce(0)
    rules = _rules_for(bench, 2, linked={1, 3})
    outs = run_checks(rules, rules.message(HOST, written.raw))
    assert sorted(_sends(outs), key=str) == sorted([(1, "msg"), (3, "msg")], key=str)
    # A copy from a direct link afterwards: dropped before any work.
    assert rules.message(1, written.raw) == []


def test_a_deadline_hands_the_host_first_and_every_direct_peer_what_we_hold(bench: Bench) -> None:
    rules = _rules_for(bench, 2, linked={0, 3})  # player 0 writes first: linked
    outs = rules.tick(DEADLINE)
    assert _sends(outs) == [(HOST, "msg"), (HOST, "sync"), (HOST, "ping"),
                            (0, "msg"), (0, "sync"), (3, "msg"), (3, "sync"), (0, "ping")]
    assert _verdicts(outs) == []
    assert rules.wake_at() == DEADLINE + max(PROBE_TIMEOUT, DEADLINE)  # a full deadline more


def test_the_window_then_names_the_writer_once_the_host_answered(bench: Bench) -> None:
    rules = _rules_for(bench, 2, linked=set())
    outs = rules.tick(DEADLINE)
    ping = next(frames.decode(o.frame).body for o in outs
                if isinstance(o, Send) and frames.decode(o.frame).kind == "ping")
    assert rules.pong(HOST, ping["n"]) == []  # no verdict before the window is up
    assert rules.tick(DEADLINE + 1) == []
    verdicts = _verdicts(rules.tick(rules.wake_at()))
    assert [(v.rule, v.players) for v in verdicts] == [("deadline", (0,))]


def test_a_host_that_answers_nothing_is_named_for_not_relaying(bench: Bench) -> None:
    rules = _rules_for(bench, 2, linked=set())
    rules.tick(DEADLINE)
    verdicts = _verdicts(rules.tick(rules.wake_at()))
    assert [v.players for v in verdicts] == [(0,)]
    assert "stopped relaying" in verdicts[0].detail


def test_a_lost_host_link_with_no_other_path_names_the_host_after_the_window(bench: Bench) -> None:
    rules = _rules_for(bench, 2, linked=set())
    rules.host_link_down()
    assert _verdicts(rules.tick(DEADLINE)) == []  # handed over first
    verdicts = _verdicts(rules.tick(rules.wake_at()))
    assert [v.players for v in verdicts] == [(0,)] and "dropped our link" in verdicts[0].detail


def test_progress_in_the_window_names_nobody(bench: Bench) -> None:
    rules = _rules_for(bench, 2, linked=set())
    rules.tick(DEADLINE)
    written = bench.produce(0)
    run_checks(rules, rules.message(HOST, written.raw), now=DEADLINE + 1)
    assert rules.probe is None and rules.wake_at() == DEADLINE + 1 + DEADLINE
    assert _verdicts(rules.tick(DEADLINE + 2)) == []


def test_a_sync_is_answered_from_the_transcript_even_once_the_table_ended(bench: Bench) -> None:
    rules = _rules_for(bench, 2, linked={1})
    table = rules.table
    assert table is not None
    table.declare_deadline_missed()
    assert table.stage is Stage.ENDED
    assert _sends(rules.sync(1, 0)) == [(1, "msg")]  # the genesis


# -- cheap checks before any work (finding 2) --------------------------------------------

@pytest.fixture(scope="module")
def shuffle_stage() -> tuple[Bench, bytes]:
    """A bench at the first shuffle, and that shuffle as its writer signed it."""
    bench = Bench("topper", seed=5)
    bench.run(until=lambda b: b.reference.stage is Stage.SHUFFLE)
    writer = bench.writer
    assert writer is not None
    return bench, clone(bench).produce(writer).raw


def _next_shuffler(bench: Bench) -> tuple[int, Table]:
    player = bench.player_at(1)
    return player, clone(bench.tables[player])


def _forgeries(bench: Bench, real: bytes, me: int) -> dict[str, bytes]:
    msg = SignedMessage.parse(real)
    writer = msg.player
    other = next(p for p in range(4) if p not in (writer, me))
    signature = bytearray(real)
    signature[-1] ^= 1

    def sign(**change: Any) -> bytes:
        fields = {"session": msg.session, "position": msg.position, "prev": msg.prev,
                  "player": writer, "type": "shuffle", "body": msg.body}
        identity = bench.identities[change.pop("by", writer)]
        return seal(identity, **{**fields, **change}).raw
    return {
        "bad signature": bytes(signature),
        "signed by another player's key": sign(by=other),
        "another player as writer": sign(player=other, by=other),
        "another prev": sign(prev=bytes(32)),
        "another position": sign(position=msg.position + 1),
        "another session": sign(session=bytes(32)),
    }


def test_forged_shuffles_start_no_speculative_work(shuffle_stage: tuple[Bench, bytes]) -> None:
    bench, real = shuffle_stage
    me, table = _next_shuffler(bench)
    rules = SessionRules(DEADLINE)
    rules.start(table, 0.0)
    for name, forged in _forgeries(bench, real, me).items():
        for _ in range(50):
            outs = rules.message(1, forged)
            assert not any(isinstance(o, Speculate) for o in outs), name


def test_one_speculative_shuffle_per_position_settled_by_its_check(shuffle_stage: tuple[Bench, bytes]) -> None:
    bench, real = shuffle_stage
    me, table = _next_shuffler(bench)
    rules = SessionRules(DEADLINE)
    rules.start(table, 0.0)
    first = rules.message(1, real)
    assert [type(o) for o in first] == [Speculate, Check]
    again = rules.message(2, real)  # the same message on another path, not yet checked
    assert [type(o) for o in again] == [Check]
    outs = run_checks(rules, first)
    assert isinstance(first[0], Speculate)
    assert Settle(first[0].position, True) in outs
    assert table.next_position == first[0].position + 1


def test_a_speculative_shuffle_is_dropped_when_its_message_fails(shuffle_stage: tuple[Bench, bytes]) -> None:
    bench, real = shuffle_stage
    me, table = _next_shuffler(bench)
    msg = SignedMessage.parse(real)
    # The writer's own valid signature over a deck that breaks the rules.
    body = dict(msg.body)
    body["cards"] = list(reversed(body["cards"]))
    bad = seal(bench.identities[msg.player], session=msg.session, position=msg.position,
               prev=msg.prev, player=msg.player, type="shuffle", body=body).raw
    rules = SessionRules(DEADLINE)
    rules.start(table, 0.0)
    outs = run_checks(rules, rules.message(1, bad))
    assert isinstance(outs[0], Speculate)
    assert Settle(msg.position, False) in outs
    assert table.stage is Stage.ENDED  # a rule broken under the writer's signature


@pytest.fixture(scope="module")
def last_shuffle_stage() -> tuple[Bench, bytes]:
    """A bench at the deal's last shuffle, and that shuffle as its writer signed it."""
    bench = Bench("topper", seed=5)

    def last_shuffle_due(b: Bench) -> bool:
        deal = b.reference.deal
        return b.reference.stage is Stage.SHUFFLE and deal is not None and deal.shuffles_done == 3

    bench.run(until=last_shuffle_due)
    writer = bench.writer
    assert writer is not None
    return bench, clone(bench).produce(writer).raw


@pytest.mark.parametrize("shuffle", ["valid", "breaks the rules"])
def test_shares_made_from_the_last_shuffle_are_kept_only_if_it_passes(
        last_shuffle_stage: tuple[Bench, bytes], shuffle: str) -> None:
    """Every seat that receives the deal's last shuffle starts its shares of that deck
    while it checks it; each keeps them only if the shuffle passes."""
    bench, real = last_shuffle_stage
    msg = SignedMessage.parse(real)
    raw = real
    if shuffle == "breaks the rules":  # the writer's own valid signature over a bad deck
        body = dict(msg.body)
        body["cards"] = list(reversed(body["cards"]))
        raw = seal(bench.identities[msg.player], session=msg.session, position=msg.position,
                   prev=msg.prev, player=msg.player, type="shuffle", body=body).raw
    assert msg.player == bench.player_at(3)  # the last shuffle is seat 3's
    for seat in (0, 1, 2):
        table = clone(bench.tables[bench.player_at(seat)])
        rules = SessionRules(DEADLINE)
        rules.start(table, 0.0)
        first = rules.message(1, raw)
        assert [type(o) for o in first] == [Speculate, Check], seat
        outs = run_checks(rules, first)
        assert Settle(msg.position, shuffle == "valid") in outs, seat
        assert table.stage is (Stage.SHARES if shuffle == "valid" else Stage.ENDED), seat


def test_an_alert_about_a_position_not_reached_yet_is_judged_once_it_is(bench: Bench) -> None:
    """Player 3 sends player 1 a malformed commit and player 0 a good one. Player
    1 ends naming 3; its alert reaches player 0 before the good commit does, when
    0 cannot judge it yet: once 0 holds the good one, the alert's message proves
    3's equivocation there too (so 0 does not go on to wait for player 1)."""
    bench.run(until=lambda b: b.reference.next_position == 4)
    good = bench.produce(3).raw
    msg = SignedMessage.parse(good)
    bad = seal(bench.identities[3], session=msg.session, position=msg.position, prev=msg.prev,
               player=3, type="commit", body={"key": bytes(32)}).raw
    assert [v.players for v in _verdicts([Emit(bench.tables[1].receive(bad))])] == [(3,)]
    alert = bench.tables[1].alert()
    assert alert is not None
    early = bench.tables[0].receive_alert(alert)
    assert _verdicts([Emit(early)]) == [] and bench.tables[0].stage is not Stage.ENDED
    verdicts = _verdicts([Emit(bench.tables[0].receive(good))])
    assert [(v.rule, v.players) for v in verdicts] == [("chain.equivocation", (3,))]
    assert set(verdicts[0].evidence) == {good, bad}


def test_an_alert_about_a_message_out_of_turn_is_judged_once_its_position_is_next(bench: Bench) -> None:
    """Player 1 signs a message for the position after player 3's commit (player
    0's to write) and sends it to player 2 only; player 2 names 1 and its alert
    reaches player 0 before 3's commit does: once 0 holds the commit, the alert's
    message is out of turn at its next position, and 0 names player 1 too."""
    bench.run(until=lambda b: b.reference.next_position == 4)
    good = bench.produce(3).raw
    head = SignedMessage.parse(good)
    bad = seal(bench.identities[1], session=head.session, position=5, prev=head.digest,
               player=1, type="open", body={}).raw
    bench.tables[2].receive(good)
    assert [v.players for v in _verdicts([Emit(bench.tables[2].receive(bad))])] == [(1,)]
    alert = bench.tables[2].alert()
    assert alert is not None
    assert _verdicts([Emit(bench.tables[0].receive_alert(alert))]) == []
    verdicts = _verdicts([Emit(bench.tables[0].receive(good))])
    assert [(v.rule, v.players) for v in verdicts] == [("turn", (1,))]


def test_what_waits_to_go_on_to_the_host_goes_at_once_when_the_table_ends(bench: Bench) -> None:
    """A session stops when its table ends: a message still waiting its delay
    would never reach the host (the host's own seat would then wait for it)."""
    written = bench.produce(0)
    rules = _rules_for(bench, 2, linked={1, 3})
    run_checks(rules, rules.message(3, written.raw), now=1.0)  # waits FORWARD_DELAY
    table = rules.table
    assert table is not None
    bad = seal(bench.identities[3], session=table.session, position=table.next_position,
               prev=table.head, player=3, type="commit", body={"key": bytes(32)}).raw
    outs = run_checks(rules, rules.message(3, bad), now=1.1)  # out of turn: the table ends
    assert _verdicts(outs) and table.stage is Stage.ENDED
    assert (HOST, "msg") in _sends(outs)


# -- an ended table still answers (the end does not cascade) ---------------------------

@pytest.fixture(scope="module")
def match_end_withheld() -> tuple[Any, int, int]:
    """A whole seeded Topper match whose last message reached every peer but one:
    (the match, the late player, the last writer)."""
    match = direct_table("topper", seed=3)
    for _ in range(5000):
        writer = match.writer
        assert writer is not None
        raw = match.write()
        if match.tables[writer].stage is Stage.OVER:
            late = next(p for p in range(1, 4) if p != writer)
            for player, table in enumerate(match.tables):
                if player not in (writer, late):
                    table.receive(raw)
            return match, late, writer
        match.deliver(raw, exclude=writer)
    raise AssertionError("the match did not end")


def _exchange(rules: dict[int, SessionRules], first: list[tuple[int, Any]], now: float) -> list[Any]:
    """Deliver direct-link frames between the players' rules until none is left
    (bounded); every output, as (player, output)."""
    queue = [(src, out) for src, outs in first for out in outs]
    seen: list[Any] = []
    for _ in range(500):
        if not queue:
            return seen
        src, out = queue.pop(0)
        seen.append((src, out))
        if not isinstance(out, Send) or out.path is HOST or out.path not in rules:
            continue
        dst, frame = out.path, frames.decode(out.frame)
        peer = rules[dst]
        if frame.kind == "sync":
            outs = peer.sync(src, frame.body["have"])
        elif frame.kind == "msg":
            outs = run_checks(peer, peer.message(src, frame.body), now=now)
        else:
            outs = []
        queue += [(dst, o) for o in outs]
        if peer.table is not None and peer.table.stage is Stage.OVER and peer.ended_at is None:
            queue += [(dst, o) for o in peer.ended(now)]
    raise AssertionError("the frames never settled")


def test_an_ended_table_tells_its_count_and_the_late_peer_gets_the_end_from_it(
        match_end_withheld: tuple[Any, int, int]) -> None:
    """Finding 1's cascade: the players whose match ended keep answering, so the
    one that missed the last message gets it by sync, well before its own clock
    could name the last writer (or the host); nobody is named."""
    match, late, writer = match_end_withheld
    ended = [p for p in range(4) if p != late]
    rules = {p: SessionRules(DEADLINE) for p in range(4)}
    for p, r in rules.items():
        r.start(match.tables[p], 0.0)
        r.host_up, r.linked = True, set(range(4)) - {p}
    assert match.tables[late].stage is not Stage.OVER
    first = [(p, rules[p].ended(1.0)) for p in ended]
    assert all(_sends(outs) == [(q, "sync") for q in sorted(set(range(4)) - {p})]
               for p, outs in first)  # each says what it holds
    seen = _exchange(rules, first, now=1.0)
    assert match.tables[late].stage is Stage.OVER and rules[late].ended_at == 1.0
    assert _verdicts([o for _, o in seen]) == [] and match.tables[late].verdict is None
    # Everyone now knows everyone holds the end: nobody needs to linger.
    assert not any(r.lingering(1.0) for r in rules.values())


def test_an_ended_table_lingers_while_a_linked_player_may_lack_the_end(
        match_end_withheld: tuple[Any, int, int]) -> None:
    match, late, writer = match_end_withheld
    ender = next(p for p in range(4) if p not in (late, writer))
    rules = SessionRules(DEADLINE, grace=5.0)
    rules.start(match.tables[ender], 0.0)
    rules.linked = {late}
    assert not rules.lingering(1.0)  # still in play: no grace yet
    assert _sends(rules.ended(1.0)) == [(late, "sync")]
    assert rules.ended(2.0) == []  # once
    assert rules.lingering(5.9) and not rules.lingering(6.0)  # bounded by the grace
    assert rules.wake_at() == float("inf")  # no clock runs on an ended table
    raw_count = match.tables[ender].next_position
    # The late player says it holds less: it is answered with what it lacks, and
    # the ended table still lingers; once it says it holds everything, no more.
    assert _sends(rules.sync(late, raw_count - 1)) == [(late, "msg")]
    assert rules.lingering(2.0)
    assert _sends(rules.sync(late, raw_count)) == []  # already told it our count
    assert not rules.lingering(2.0)


def test_an_ended_table_with_no_direct_link_does_not_linger(match_end_withheld: tuple[Any, int, int]) -> None:
    """The host link needs no grace: the relay keeps what we passed on and answers."""
    match, late, writer = match_end_withheld
    rules = SessionRules(DEADLINE)
    rules.start(match.tables[writer], 0.0)
    rules.host_up = True
    assert [o for o in rules.ended(1.0) if isinstance(o, Send)] == []
    assert not rules.lingering(1.0)


def test_a_sync_beyond_our_count_is_answered_with_ours_once_per_count(bench: Bench) -> None:
    rules = _rules_for(bench, 2, linked={1, 3})
    assert rules.table is not None
    have = rules.table.next_position
    assert _sends(rules.sync(1, have + 5)) == [(1, "sync")]  # asks for what it lacks
    assert rules.sync(1, have + 5) == []  # once per count: no sync storm
    assert _sends(rules.sync(3, have)) == [(3, "sync")]  # the same count: says it holds it
    assert rules.sync(3, have) == []
    assert _sends(rules.sync(HOST, have + 5)) == []  # the relay answers for itself
