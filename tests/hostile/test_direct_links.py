"""Direct links between the players, on whole tables: a host that withholds one
player's messages from another no longer gets anyone named; a writer that tells
different players different things is proven; copies are cheap.

Players 1..3 link directly over loopback TCP (as players in their own
processes do); player 0 is the host's own seat (its link is the host's)."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from p2pcards.net.session_events import DIRECT, HOST, Paths, SessionResult, Waiting
from p2pcards.protocol import frames
from p2pcards.protocol.envelope import SignedMessage, seal, seal_notice
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_records import Stage
from p2pcards.protocol.verify import verify_transcript
from tests.support import until
from tests.support.typed import present

from .harness import recording
from .netbench import NetTable, message_of

pytestmark = pytest.mark.asyncio

REMOTE = (1, 2, 3)
#: Long enough for the slowest honest step on a busy machine; the tests that pass
#: never come near it, the ones that end do so by proof, not by the clock.
DEADLINE = 20.0


def _from(player: int) -> Callable[[bytes], bool]:
    """An inbound filter that withholds every transcript message ``player`` wrote."""
    def keep(frame: bytes) -> bool:
        msg = message_of(frame)
        return msg is None or msg.player != player
    return keep


async def _play(net: NetTable, timeout: float = 90.0) -> dict[int, SessionResult]:
    await net.start()
    try:
        return await net.results(timeout=timeout)
    finally:
        await net.close()


def _paths(net: NetTable, player: int) -> dict[int, str]:
    seen = [e.paths for e in net.seats[player].events if isinstance(e, Paths)]
    return seen[-1] if seen else {}


async def test_host_withholding_one_players_messages_from_another_changes_nothing() -> None:
    """The host never hands player 2 anything player 1 wrote (nor a sync of it):
    player 2 gets it on its direct link, and the match ends as recorded."""
    net = NetTable("topper", deadline=DEADLINE, direct=REMOTE)
    net.inbound[2] = _from(1)
    results = await _play(net)
    rec = recording("topper")
    assert net.seats[2].connections[0].withheld > 0, "the host should have withheld something"
    for p in range(4):
        assert results[p].verdict is None, f"player {p}: {results[p].verdict}"
        assert results[p].outcome == rec.outcome
        assert net.transcript(p) == rec.transcript


async def test_the_seat_panel_hears_which_links_are_direct() -> None:
    net = NetTable("topper", deadline=DEADLINE, direct=REMOTE)
    await _play(net)
    seen_direct = [e.paths for e in net.seats[2].events if isinstance(e, Paths)
                   and e.paths.get(1) == DIRECT and e.paths.get(3) == DIRECT]
    assert seen_direct, [e for e in net.seats[2].events if isinstance(e, Paths)]
    assert seen_direct[0][0] == HOST
    assert not any(isinstance(e, Paths) for e in net.seats[0].events)


async def test_a_pair_that_cannot_link_plays_through_the_host() -> None:
    """Players 1 and 2 both refuse incoming links: they cannot link to each other,
    each still links with player 3, and the match ends as recorded."""
    net = NetTable("topper", deadline=DEADLINE, direct=REMOTE, listen={1: False, 2: False})
    results = await _play(net)
    rec = recording("topper")
    for p in range(4):
        assert results[p].outcome == rec.outcome, f"player {p}: {results[p]}"
    ever_direct = {q for e in net.seats[1].events if isinstance(e, Paths)
                   for q, path in e.paths.items() if path == DIRECT}
    assert ever_direct == {3}


async def test_a_writer_telling_players_different_things_is_proven() -> None:
    """Player 3 signs two different messages for its first bid's position: its bid
    goes to the host (so to players 0 and 1) and to player 1 directly, a pass goes
    to player 2 directly, and the host withholds the bid from player 2. Only the
    echo of what each accepted brings the two versions together: both honest players
    prove the equivocation. (Player 0 is the withholding host's own seat, part of
    the hostile side here: it may see player 2 build on the pass first.)"""
    hostile, victim, other_player = 3, 2, 1
    step = recording("topper").find(lambda s: s.type == "bid" and s.player == hostile)
    net = NetTable("topper", deadline=DEADLINE, direct=REMOTE)
    net.inbound[victim] = _from(hostile)
    await net.start()
    try:
        session = net.seats[hostile].session
        original_send = present(session.mesh).send

        def two_faced(player: int, frame: bytes) -> None:
            msg = message_of(frame)
            if msg is None or msg.position != step.position or msg.player != hostile:
                original_send(player, frame)
                return
            if player == victim:
                other = seal(net.identities[hostile], session=msg.session, position=msg.position,
                             prev=msg.prev, player=hostile, type="pass", body={})
                original_send(victim, frames.encode("msg", other.raw))
            elif player == other_player:
                original_send(other_player, frame)
        present(session.mesh).send = two_faced  # type: ignore[method-assign]
        results = await net.results([1, 2], timeout=90.0)
    finally:
        await net.close()
    for p in (1, 2):
        verdict = results[p].verdict
        assert verdict is not None and verdict.rule == "chain.equivocation", f"player {p}: {verdict}"
        assert verdict.players == (hostile,) and verdict.position == step.position
        assert verdict.provable
        # The two honest chains differ at that position (each accepted one version
        # first): the proof checks offline against each.
        report = verify_transcript(net.transcript(p), verdict)
        assert report.problem is None and report.ok and report.verdict_confirmed is True
    assert net.transcript(1)[step.position] != net.transcript(2)[step.position]


async def test_copies_from_every_link_are_checked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each message reaches a linked player from the host, its writer and the echoes
    of the others; the table verifies each one once (the digest drops the copies)."""
    calls: Counter[tuple[int, bytes]] = Counter()
    receive = Table.receive

    def counting(table: Table, raw: bytes) -> list[Any]:
        events = receive(table, raw)
        calls[(id(table), SignedMessage.parse(raw).digest)] += 1
        return events
    monkeypatch.setattr(Table, "receive", counting)
    net = NetTable("topper", deadline=DEADLINE, direct=REMOTE)
    results = await _play(net)
    rec = recording("topper")
    for p in REMOTE:
        assert results[p].outcome == rec.outcome
        table = net.table(p)
        mine = [n for (tid, _), n in calls.items() if tid == id(table)]
        assert mine and max(mine) == 1, f"player {p} checked a message {max(mine)} times"
        received = sum(1 for raw in net.seats[p].received if message_of(raw) is not None)
        assert len(mine) <= received
    assert net.table(1).stage is Stage.OVER


@pytest.mark.slow
async def test_a_silent_writer_on_a_live_direct_link_is_named_by_its_own_silence() -> None:
    """Player 3 never makes its bid: the linked players ask it directly (``sync``,
    then ``ping``) and, as it answers without the message, name it; the host's
    link churning meanwhile changes nothing (the writer had another path)."""
    silent = 3
    step = recording("topper").find(lambda s: s.type == "bid" and s.player == silent)
    # Players 1 and 2 judge first (the host's seat would otherwise report it first).
    net = NetTable("topper", deadline=3.0, direct=REMOTE, deadlines={0: 30.0, 3: 30.0})
    await net.start_host()
    await net.start_seats()
    agent = net.seats[silent].session.agent
    decide = agent.decide

    async def stall(view: Any, decision: Any) -> Any:
        if decision.position == step.position:
            await asyncio.sleep(3600)
        return await decide(view, decision)
    agent.decide = stall  # type: ignore[method-assign]

    def waiting_for_the_silent(p: int) -> bool:
        waits = [e for e in net.seats[p].events if isinstance(e, Waiting)]
        return bool(waits) and waits[-1].player == silent

    async def cut_links_once_waiting() -> None:
        # Once the bid is due and players 1 and 2 both time its silent writer, the
        # host's links are cut.
        await until(lambda: len(net.host.relay.messages) >= step.position
                    and all(waiting_for_the_silent(p) for p in (1, 2)), 30.0)
        for number, link in list(net.host._links.items()):
            info = net.host.relay.links.get(number)
            if info is not None and info.player in (1, 2):
                link.connection.close()

    cutter = asyncio.get_running_loop().create_task(cut_links_once_waiting())
    try:
        results = await net.results([1, 2], timeout=60.0)
    finally:
        cutter.cancel()
        await net.close()
    for p in (1, 2):
        verdict = results[p].verdict
        assert verdict is not None and verdict.rule == "deadline", f"player {p}: {results[p]}"
        assert verdict.players == (silent,), f"player {p}: {verdict.detail}"
        assert net.table(p).next_position == step.position
    # Whoever judged first did so on its own direct link (the other may take its alert).
    assert any("direct link" in present(results[p].verdict).detail for p in (1, 2))


async def test_a_bad_notice_on_a_direct_link_goes_no_further() -> None:
    """Player 1 sends player 2 junk and a notice signed for another table on their
    direct link: player 2 drops both (it does not pass them to the host, which would
    close its link for them), and the match ends as recorded."""
    from p2pcards.protocol.identity import Identity

    net = NetTable("topper", deadline=DEADLINE, direct=REMOTE)
    await net.start()
    try:
        sender = net.seats[1].session
        async with asyncio.timeout(30):
            while not (sender.mesh is not None and sender.mesh.is_linked(2)):
                await asyncio.sleep(0.02)
        stranger = Identity.generate("stranger")
        other = seal_notice(stranger, session=bytes(32), position=3, prev=bytes(32), player=1,
                            type="alert", body={})
        for junk in (b"\x00junk", other.raw):
            sender.mesh.send(2, frames.encode("alert", junk))
        results = await net.results(timeout=90.0)
    finally:
        await net.close()
    rec = recording("topper")
    for p in range(4):
        assert results[p].outcome == rec.outcome, f"player {p}: {results[p]}"
    assert len(net.seats[2].connections) == 1, "the host should never have closed player 2's link"


async def test_a_host_handing_players_two_versions_of_its_own_message_is_proven() -> None:
    """The host signs two different messages of its own seat for one position and
    hands player 2 the second: the players' echoes bring both versions together, and
    every linked player proves the host an equivocator."""
    host_player = 0
    # Its commitment: the other version is as valid, so only the two together prove anything.
    step = recording("topper").find(lambda s: s.type == "commit" and s.player == host_player)
    net = NetTable("topper", deadline=DEADLINE, direct=REMOTE)

    def two_versions(frame: bytes) -> Any:
        msg = message_of(frame)
        if msg is None or msg.player != host_player or msg.position != step.position:
            return True
        other = seal(net.identities[host_player], session=msg.session, position=msg.position,
                     prev=msg.prev, player=host_player, type=msg.type,
                     body=dict(msg.body, draw=bytes(32)))
        return frames.encode("msg", other.raw)
    net.inbound[2] = two_versions
    await net.start()
    try:
        results = await net.results(list(REMOTE), timeout=90.0)
    finally:
        await net.close()
    for p in REMOTE:
        verdict = results[p].verdict
        assert verdict is not None and verdict.rule == "chain.equivocation", f"player {p}: {verdict}"
        assert verdict.players == (host_player,) and verdict.provable
        report = verify_transcript(net.transcript(p), verdict)
        assert report.problem is None and report.ok and report.verdict_confirmed is True
