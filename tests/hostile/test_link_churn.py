"""Link churn: a host (or a LAN attacker resetting TCP) that drops the links a
little more often than once per deadline must not stall the table for ever,
nor get an honest player named. Deadlines run from transcript progress as each
peer saw it; links lost without progress count against the host.

The hostile host here also buries every alert, so that each peer's verdict is
its own clock's (what these tests are about); how a peer treats another's
unprovable alert is the alert rule's business (see PROTOCOL.md §8)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

import pytest

from p2pcards.net.session_events import LinkUp, SessionResult, Waiting
from p2pcards.protocol import frames
from p2pcards.protocol.envelope import SignedMessage
from tests.support import until

from .harness import recording
from .netbench import NetTable, dropping

pytestmark = pytest.mark.asyncio

#: Seconds an honest peer waits for a silent writer (room for a slow honest step).
DEADLINE = 3.0
#: The host cuts the links this often: a little more often than once per deadline.
CHURN = 0.7 * DEADLINE


def _first_not_host(game: str, mtype: str) -> tuple[int, int]:
    """(player, position) of the first ``mtype`` message written by a player other than 0."""
    step = recording(game).find(lambda s: s.type == mtype and s.player != 0)
    return step.player, step.position


def _drop_links(net: NetTable, players: set[int]) -> int:
    """Close the host's links to ``players`` (the relay knows whose link is whose)."""
    cut = 0
    for number, link in list(net.host._links.items()):
        info = net.host.relay.links.get(number)
        if info is not None and info.player in players:
            link.connection.close()
            cut += 1
    return cut


async def _churn(net: NetTable, from_position: int, players: set[int], period: float,
                 cuts: list[int]) -> None:
    """From the moment the relay holds ``from_position`` messages on, cut the links to
    ``players`` every ``period`` seconds (until cancelled)."""
    while len(net.host.relay.messages) < from_position:
        await asyncio.sleep(0.02)
    while True:
        await asyncio.sleep(period)
        cuts.append(_drop_links(net, players))


def _withhold_from(net: NetTable, writer: int, match: Callable[[SignedMessage], bool]) -> None:
    """The host's relay silently discards ``writer``'s messages that ``match``."""
    relay_frame = net.host.relay.frame

    def frame(link: int, data: bytes) -> list[Any]:
        info = net.host.relay.links.get(link)
        if info is not None and info.player == writer:
            with contextlib.suppress(Exception):
                decoded = frames.decode(data)
                if decoded.kind == "msg" and match(SignedMessage.parse(decoded.body)):
                    return []
        return relay_frame(link, data)
    net.host.relay.frame = frame  # type: ignore[method-assign]


def _bury_alerts(net: NetTable) -> None:
    """The host's relay forwards no alert (each peer is left to its own clock)."""
    relay_frame = net.host.relay.frame

    def frame(link: int, data: bytes) -> list[Any]:
        with contextlib.suppress(Exception):
            if frames.decode(data).kind == "alert":
                return []
        return relay_frame(link, data)
    net.host.relay.frame = frame  # type: ignore[method-assign]


async def _run(net: NetTable, churn: Any, timeout: float = 90.0) -> dict[int, SessionResult]:
    await net.start_host()
    _bury_alerts(net)
    task = None
    try:
        if churn is not None:
            task = asyncio.get_running_loop().create_task(churn)
        await net.start_seats()
        return await net.results(timeout=timeout)
    finally:
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        await net.close()


@pytest.mark.slow
async def test_churning_host_with_a_silent_writer_ends_and_names_no_honest_player() -> None:
    """The writer keeps quiet and the host cuts every remote link more often than
    once per deadline: the table ends (bounded) and each honest peer names the host,
    whose churn it saw, never an honest player."""
    silent, position = _first_not_host("topper", "bid")
    net = NetTable("topper", deadline=DEADLINE, reconnect_window=30.0)
    net.set_policy(silent, dropping(lambda m: m.type == "bid"))
    cuts: list[int] = []
    results = await _run(net, _churn(net, position, {1, 2, 3}, CHURN, cuts))
    assert sum(cuts) > 0, "the host should have cut links"
    honest = [p for p in (1, 2, 3) if p != silent]
    for p in honest:
        verdict = results[p].verdict
        assert verdict is not None, f"player {p}: {results[p]}"
        assert verdict.rule == "deadline", verdict
        assert verdict.players == (0,), f"player {p} named {verdict.players}: {verdict.detail}"
        assert "dropped our link" in verdict.detail
        assert net.table(p).next_position == position


@pytest.mark.slow
async def test_churning_host_withholding_an_honest_writer_never_gets_it_named() -> None:
    """The host discards an honest writer's bid and keeps cutting every remote link:
    no honest peer names the writer (the host, which broke their links, is named)."""
    writer, position = _first_not_host("topper", "bid")
    net = NetTable("topper", deadline=DEADLINE, reconnect_window=30.0)
    cuts: list[int] = []
    await net.start_host()
    _bury_alerts(net)
    _withhold_from(net, writer, lambda m: m.type == "bid")
    task = asyncio.get_running_loop().create_task(_churn(net, position, {1, 2, 3}, CHURN, cuts))
    try:
        await net.start_seats()
        results = await net.results(timeout=90.0)
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await net.close()
    assert sum(cuts) > 0
    for p in (1, 2, 3):
        verdict = results[p].verdict
        assert verdict is not None, f"player {p}: {results[p]}"
        assert writer not in verdict.players, f"player {p} named the writer: {verdict.detail}"
        assert verdict.players == (0,), f"player {p} named {verdict.players}: {verdict.detail}"


@pytest.mark.slow
async def test_a_reconnect_does_not_give_the_writer_a_fresh_deadline() -> None:
    """One honest peer's link is cut once while the writer is silent: after it
    reconnects its deadline is the one it had, and the lost link is held against
    the host, not the writer."""
    silent, position = _first_not_host("topper", "bid")
    watcher = next(p for p in (1, 2, 3) if p != silent)
    net = NetTable("topper", deadline=DEADLINE, reconnect_window=30.0)
    net.set_policy(silent, dropping(lambda m: m.type == "bid"))

    async def cut_once() -> None:
        # Cut once the bid is due and the watcher times its silent writer (the deadline
        # the reconnect must keep is then set).
        def timing_the_silent() -> bool:
            waits = [e for e in net.seats[watcher].events if isinstance(e, Waiting)]
            return bool(waits) and waits[-1].player == silent
        await until(lambda: len(net.host.relay.messages) >= position and timing_the_silent(), 30.0)
        _drop_links(net, {watcher})

    results = await _run(net, cut_once())
    events = net.seats[watcher].events
    reconnect = next(i for i, e in enumerate(events) if isinstance(e, LinkUp) and e.reconnect)
    before = [e.deadline for e in events[:reconnect] if isinstance(e, Waiting)]
    after = [e.deadline for e in events[reconnect:] if isinstance(e, Waiting)]
    assert before and after
    assert after[0] == before[-1], "the reconnect restarted the writer's deadline"
    assert all(d == before[-1] for d in after), "no progress came, so no later deadline"
    verdict = results[watcher].verdict
    assert verdict is not None and verdict.rule == "deadline"
    assert verdict.players == (0,), verdict.detail
    assert "dropped our link once" in verdict.detail
