"""A host that never hands out the players' addresses (issue 20, finding 6).

The host's ``peers`` frame is the only address source it controls; here it
withholds every one of them (a hostile host that wants every pair on its star),
and also withholds everything player 1 writes from player 2. Players 1..3
announce their listeners, signed, with zeroconf on loopback: they still link
directly, player 2 gets player 1's messages on their link, and the match ends
as recorded, nobody named. Without the announcements the same host keeps them
apart (the contrast that shows the first test could fail).

The announcing tables are seeded with this process's id: loopback multicast
reaches every process on the machine, and a second copy of the suite playing
the same seed at the same moment announces the same session under the same
keys (valid signatures), so its players would be dialled as ours."""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest

from p2pcards.net.session_events import DIRECT, Paths, SessionResult
from p2pcards.protocol import frames
from p2pcards.protocol.errors import ProtocolError
from tests.support.typed import present

from .harness import recording
from .netbench import NetTable, message_of

pytestmark = pytest.mark.asyncio

REMOTE = (1, 2, 3)
DEADLINE = 20.0
#: The announcing tables' seed: this process's own (see the module's docstring).
SEED = os.getpid()


def _kind(frame: bytes) -> str | None:
    try:
        return frames.decode(frame).kind
    except ProtocolError:
        return None


def _no_addresses(also_from: int | None = None) -> Callable[[bytes], bool]:
    """The host hands over no ``peers`` frame (and nothing ``also_from`` wrote)."""
    def keep(frame: bytes) -> bool:
        if _kind(frame) == "peers":
            return False
        msg = message_of(frame)
        return also_from is None or msg is None or msg.player != also_from
    return keep


def _direct_pairs(net: NetTable) -> set[tuple[int, int]]:
    pairs = set()
    for player in REMOTE:
        for event in net.seats[player].events:
            if isinstance(event, Paths):
                pairs |= {(player, other) for other, path in event.paths.items() if path == DIRECT}
    return pairs


async def _play(net: NetTable, timeout: float = 120.0) -> dict[int, SessionResult]:
    await net.start()
    try:
        return await net.results(timeout=timeout)
    finally:
        await net.close()


async def test_players_link_directly_through_their_announcements_when_the_host_hands_out_none() -> None:
    net = NetTable("topper", seed=SEED, deadline=DEADLINE, direct=REMOTE, announce=REMOTE)
    for player in REMOTE:
        net.inbound[player] = _no_addresses(also_from=1 if player == 2 else None)
    results = await _play(net)
    rec = recording("topper", SEED)
    for player in REMOTE:
        assert not any(_kind(f) == "peers" for f in net.seats[player].received)
        assert net.seats[player].connections[0].withheld > 0
    for p in range(4):
        assert results[p].verdict is None, f"seed {SEED}, player {p}: {results[p].verdict}"
        assert results[p].outcome == rec.outcome
        assert net.transcript(p) == rec.transcript
    # Player 2 heard player 1 only over a direct link (its own, or player 3's, who
    # echoes it), found through the announcements (which other pairs link before
    # a short match ends depends on the load).
    pairs = _direct_pairs(net)
    assert (2, 1) in pairs or {(2, 3), (3, 1)} <= pairs, pairs
    for player in REMOTE:
        announcer = present(net.seats[player].session.mesh).announcer
        assert announcer is not None and announcer.info is not None


async def test_without_announcements_such_a_host_keeps_every_pair_on_its_star() -> None:
    net = NetTable("topper", deadline=DEADLINE, direct=REMOTE)
    for player in REMOTE:
        net.inbound[player] = _no_addresses()
    results = await _play(net)
    assert all(results[p].verdict is None for p in range(4))
    assert _direct_pairs(net) == set()


async def test_a_player_that_does_not_listen_dials_the_others_announcements() -> None:
    """Player 1 accepts no incoming link (``--no-listen``) and so announces nothing;
    it still finds players 2 and 3 by their announcements and dials them."""
    net = NetTable("topper", seed=SEED, deadline=DEADLINE, direct=REMOTE, announce=REMOTE,
                   listen={1: False})
    for player in REMOTE:
        net.inbound[player] = _no_addresses(also_from=1 if player == 2 else None)
    results = await _play(net)
    assert all(results[p].verdict is None for p in range(4)), (SEED, results)
    pairs = _direct_pairs(net)
    assert (1, 2) in pairs or (1, 3) in pairs, pairs
    quiet = present(net.seats[1].session.mesh).announcer
    assert quiet is not None and quiet.info is None and quiet.book.last
