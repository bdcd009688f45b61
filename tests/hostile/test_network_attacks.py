"""Attacks through the links: silence, delay, duplication, disconnection, leaving,
and a cheat sent over the real host, on whole tables of four peer sessions."""

from __future__ import annotations

import asyncio

import pytest

from p2pcards.net.session_events import SessionResult
from p2pcards.protocol.envelope import SignedMessage
from p2pcards.protocol.table_records import Stage

from .harness import recording
from .netbench import (
    NetTable,
    Tampered,
    assert_same_end,
    closing_after,
    delaying,
    dropping,
    duplicating,
    message_of,
    on_message,
)

pytestmark = pytest.mark.asyncio

#: Seconds an honest peer waits for a silent writer in the deadline tests (with room
#: for the slowest honest step, a Bluff shuffle, on a busy machine).
SHORT_DEADLINE = 3.0


def _first(game: str, mtype: str) -> tuple[int, int]:
    """(player, position) of the first ``mtype`` message of the recorded match."""
    step = recording(game).find(lambda s: s.type == mtype)
    return step.player, step.position


async def _play(net: NetTable, timeout: float = 60.0) -> dict[int, SessionResult]:
    await net.start()
    try:
        return await net.results(timeout=timeout)
    finally:
        await net.close()


async def test_dropped_message_ends_at_the_deadline_naming_the_silent_player() -> None:
    hostile, position = _first("topper", "shuffle")
    net = NetTable("topper", deadline=SHORT_DEADLINE)
    net.set_policy(hostile, dropping(lambda m: m.type == "shuffle"))
    results = await _play(net)
    honest = [p for p in range(4) if p != hostile]
    assert_same_end(net, honest, "deadline", (hostile,), results)
    for p in honest:
        assert net.table(p).next_position == position


async def test_refusal_to_reveal_a_challenged_bluff_discard_ends_at_the_deadline() -> None:
    """The challenged player keeps its discard face down: it is named at the
    deadline, and its cards stay unknown."""
    hostile, position = _first("bluff", "show")
    net = NetTable("bluff", deadline=SHORT_DEADLINE)
    net.set_policy(hostile, dropping(lambda m: m.type == "show"))
    results = await _play(net)
    honest = [p for p in range(4) if p != hostile]
    assert_same_end(net, honest, "deadline", (hostile,), results)
    for p in honest:
        table = net.table(p)
        assert table.next_position == position
        assert table.engine.phase.name == "REVEAL"
        assert not any(slot in table.deal.revealed for slot in table.engine.last_claim.slots)


async def test_delayed_message_is_accepted_late() -> None:
    hostile, _ = _first("topper", "shares")
    net = NetTable("topper")
    net.set_policy(hostile, delaying(lambda m: m.type == "shares", 0.5))
    results = await _play(net)
    rec = recording("topper")
    for p in range(4):
        assert results[p].outcome == rec.outcome
        assert net.transcript(p) == rec.transcript


async def test_duplicated_frames_change_nothing() -> None:
    net = NetTable("topper")
    net.set_policy(2, duplicating(3))
    results = await _play(net)
    rec = recording("topper")
    for p in range(4):
        assert results[p].outcome == rec.outcome
        assert net.transcript(p) == rec.transcript


async def test_old_messages_replayed_after_new_ones_change_nothing() -> None:
    """The hostile peer resends everything it wrote so far after each new message."""
    sent: list[bytes] = []

    def replay_all(frame: bytes, conn: Tampered) -> list[bytes]:
        if message_of(frame) is None:
            return [frame]
        sent.append(frame)
        return [frame] + sent[-4:-1]

    net = NetTable("topper")
    net.set_policy(3, replay_all)
    results = await _play(net)
    rec = recording("topper")
    assert len(sent) > 5
    for p in range(4):
        assert results[p].outcome == rec.outcome
        assert net.transcript(p) == rec.transcript


async def test_reordered_sealed_frames_break_the_link_and_the_peer_resyncs() -> None:
    """Two frames swapped on the wire (the bid and the trump its writer sends
    right after): the link refuses them (out of order), the peer redials and
    hands the host what it missed, and the match ends as if nothing happened."""
    rec = recording("topper", 2)  # seed 2: a bid directly followed by its bidder's trump
    bid = rec.find(lambda s: s.type == "bid" and rec.steps[s.position].type == "trump")
    net = NetTable("topper", seed=2)
    held: list[bytes] = []
    sealed = [0]

    def swap(frame: bytes) -> list[bytes]:
        sealed[0] += 1
        # Sealed frames of this link: hello, commit, open, shuffle, shares, then the bid.
        if sealed[0] == 6:
            held.append(frame)
            return []
        out = [frame, *held]
        held.clear()
        return out

    net.wire_interceptors[bid.player] = swap
    results = await _play(net)
    assert len(net.seats[bid.player].connections) >= 2, "the link should have been redialled"
    for p in range(4):
        assert results[p].outcome == rec.outcome
        assert net.transcript(p) == rec.transcript


@pytest.mark.parametrize("mtype", ["commit", "open", "shuffle", "shares", "bid", "play"])
async def test_peer_that_disconnects_at_every_stage_resumes(mtype: str) -> None:
    """The link drops right after the peer sent a message of each stage; it
    redials, resumes from its table and the transcript, and the match ends as
    if nothing happened."""
    hostile, _ = _first("topper", mtype)
    net = NetTable("topper")
    net.set_policy(hostile, closing_after(lambda m: m.type == mtype))
    results = await _play(net)
    rec = recording("topper")
    assert len(net.seats[hostile].connections) >= 2
    for p in range(4):
        assert results[p].outcome == rec.outcome
        assert net.transcript(p) == rec.transcript


@pytest.mark.parametrize("stage", ["commit", "open", "shuffle", "shares", "play"])
async def test_peer_that_leaves_at_every_stage_is_named_by_its_signed_notice(stage: str) -> None:
    """A player that leaves (signed notice) after its message of each stage ends
    the table for everyone, naming it."""
    mtype = "bid" if stage == "play" else stage
    hostile, _ = _first("topper", mtype)
    net = NetTable("topper")

    def leave(frame: bytes, msg: SignedMessage, conn: Tampered) -> list[bytes]:
        session = net.seats[hostile].session
        conn.tasks.append(asyncio.get_running_loop().create_task(session.leave()))
        return [frame]

    net.set_policy(hostile, on_message(lambda m: m.type == mtype, leave))
    results = await _play(net)
    honest = [p for p in range(4) if p != hostile]
    assert_same_end(net, honest, "left", (hostile,), results)


async def test_peer_that_vanishes_for_good_is_named_at_the_deadline() -> None:
    hostile, _ = _first("topper", "bid")
    net = NetTable("topper", deadline=SHORT_DEADLINE, reconnect_window=0.5)

    async def unreachable() -> None:
        raise ConnectionRefusedError("gone")

    def vanish(frame: bytes, msg: SignedMessage, conn: Tampered) -> list[bytes]:
        net.connectors[hostile] = unreachable
        conn.inner.close()
        return []

    net.set_policy(hostile, on_message(lambda m: m.type == "bid", vanish))
    results = await _play(net)
    honest = [p for p in range(4) if p != hostile]
    assert_same_end(net, honest, "deadline", (hostile,), results)


async def test_cheat_sent_through_the_host_ends_every_honest_table_alike() -> None:
    """A bid no table allows, signed and relayed: every honest session ends with
    the same provable verdict, and the alerts that follow change nothing."""
    hostile, position = _first("topper", "bid")
    net = NetTable("topper")

    def overbid(frame: bytes, msg: SignedMessage, conn: Tampered) -> list[bytes]:
        from p2pcards.protocol import frames
        from p2pcards.protocol.envelope import seal
        cheat = seal(net.identities[hostile], session=msg.session, position=msg.position,
                     prev=msg.prev, player=hostile, type="bid", body={"tricks": 9})
        return [frames.encode("msg", cheat.raw)]

    net.set_policy(hostile, on_message(lambda m: m.type == "bid", overbid))
    results = await _play(net)
    honest = [p for p in range(4) if p != hostile]
    assert_same_end(net, honest, "rules.topper.bid-range", (hostile,), results)
    for p in honest:
        assert net.table(p).verdict.position == position
        assert SignedMessage.parse(net.table(p).verdict.evidence[0]).body == {"tricks": 9}


async def test_equivocating_peer_is_caught_through_the_host() -> None:
    """Two different signed bids for one position: the host stores the first
    and forwards the second, so every honest peer holds the proof."""
    hostile, position = _first("topper", "bid")
    net = NetTable("topper")

    def two_bids(frame: bytes, msg: SignedMessage, conn: Tampered) -> list[bytes]:
        from p2pcards.protocol import frames
        from p2pcards.protocol.envelope import seal
        other = seal(net.identities[hostile], session=msg.session, position=msg.position,
                     prev=msg.prev, player=hostile, type="pass", body={})
        return [frame, frames.encode("msg", other.raw)]

    net.set_policy(hostile, on_message(lambda m: m.type == "bid", two_bids))
    results = await _play(net)
    honest = [p for p in range(4) if p != hostile]
    assert_same_end(net, honest, "chain.equivocation", (hostile,), results)
    for p in honest:
        assert net.table(p).verdict.position == position
        assert net.table(p).stage is Stage.ENDED
