"""Spectators over loopback TCP: every public move as it happens, the players'
outcome, no hidden card, never a delay to the players, never a seat."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from p2pcards.app.hosted import HostedTable, TableOptions, start_hosted_table
from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.app.joined import tcp_connector
from p2pcards.bots.agent import BotAgent, make_bot_factory
from p2pcards.net import host as host_module
from p2pcards.net.connection import Connection, connect
from p2pcards.net.errors import NetError
from p2pcards.net.session_events import SessionResult
from p2pcards.net.watch import WatchResult, WatchSession
from p2pcards.protocol import frames, game_wire
from p2pcards.protocol.envelope import PROTOCOL_VERSION
from p2pcards.protocol.events import ActionApplied, CardsRevealed, TableEnded
from p2pcards.protocol.identity import Identity
from p2pcards.rules.bluff import BluffConfig
from p2pcards.rules.topper import Play, TopperConfig
from tests.support import until
from tests.support.typed import present

LOOPBACK = "127.0.0.1"


def _options(tmp_path: Path, spectators: int = 8, game: str = "topper") -> TableOptions:
    rules = game_wire.by_name(game)
    config = rules.config_to_wire(TopperConfig(target_score=2) if game == "topper"
                                  else BluffConfig(deal_cap=5))
    return TableOptions(game=game, config=config, seed=9, deadline=30, journal_root=tmp_path,
                        tcp_host=LOOPBACK, tcp_port=0, spectators=spectators)


async def _hosted(tmp_path: Path, spectators: int = 8, game: str = "topper") -> HostedTable:
    me = seeded_identity(9, "me", "Me")
    return await start_hosted_table(me, BotAgent(make_bot_factory(game, "heuristic"), 9),
                                    _options(tmp_path, spectators, game), bots=3)


def _watch_hello() -> bytes:
    return frames.encode("hello", {"v": PROTOCOL_VERSION, "name": "Sam", "sid": b"", "have": 0,
                                   "bot": 0, "watch": 1})


def test_a_spectator_sees_every_move_and_the_players_outcome_and_no_hidden_card(tmp_path: Path) -> None:
    seen: list[object] = []

    async def run() -> tuple[WatchResult, SessionResult, list[bytes], list[bytes]]:
        hosted = await _hosted(tmp_path)
        try:
            sam = Identity.generate("Sam")
            watcher = WatchSession(sam, tcp_connector(LOOPBACK, present(hosted.host.tcp_port), sam),
                                   on_event=seen.append)
            watched = await asyncio.wait_for(watcher.run(), 120)
            mine = await asyncio.wait_for(hosted.result(), 60)
            table = present(hosted.sessions[0].table)
            return watched, mine, table.transcript(), present(watcher.table).transcript()
        finally:
            await hosted.close(grace=0.1, linger=0)

    watched, mine, theirs, seen_transcript = asyncio.run(run())
    assert mine.outcome is not None and watched.outcome == mine.outcome
    assert seen_transcript == theirs  # every message, checked, in order
    moves = [e.position for e in seen if isinstance(e, ActionApplied)]
    assert moves == sorted(moves) and len(moves) > 10
    # The only faces a spectator learns are those the rules revealed (cards played).
    revealed = {face for e in seen if isinstance(e, CardsRevealed) for _, face in e.cards}
    played = {e.action.card for e in seen if isinstance(e, ActionApplied) and isinstance(e.action, Play)}
    assert revealed == played
    assert not any(isinstance(e, TableEnded) for e in seen)


def test_a_table_without_spectators_refuses_one_with_a_sentence(tmp_path: Path) -> None:
    async def run() -> WatchResult:
        hosted = await _hosted(tmp_path, spectators=0)
        try:
            await asyncio.wait_for(until(lambda: hosted.host.relay.started), 30)
            sam = Identity.generate("Sam")
            watcher = WatchSession(sam, tcp_connector(LOOPBACK, present(hosted.host.tcp_port), sam))
            return await asyncio.wait_for(watcher.run(), 30)
        finally:
            await hosted.close(grace=0.1, linger=0)
    result = asyncio.run(run())
    assert result.outcome is None and "started without you" in result.reason


def test_a_spectator_cannot_write_and_a_player_cannot_be_a_spectator(tmp_path: Path) -> None:
    async def run() -> tuple[str, list[tuple[str, str]], list[tuple[str, str]], SessionResult]:
        hosted = await _hosted(tmp_path)
        try:
            await asyncio.wait_for(until(lambda: hosted.host.relay.started), 30)
            sam = Identity.generate("Sam")
            link = await connect(LOOPBACK, present(hosted.host.tcp_port), sam)
            await link.send(_watch_hello())
            genesis = frames.decode(await asyncio.wait_for(link.recv(), 10))
            await link.send(frames.encode("msg", genesis.body))  # a spectator tries to write
            heard = await _until_closed(link)
            player = hosted.sessions[1].identity
            twin = await connect(LOOPBACK, present(hosted.host.tcp_port), player)
            await twin.send(_watch_hello())
            refused = await _until_closed(twin)
            result = await asyncio.wait_for(hosted.result(), 120)
            return genesis.kind, heard, refused, result
        finally:
            await hosted.close(grace=0.1, linger=0)
    kind, heard, refused, result = asyncio.run(run())
    assert kind == "msg"
    assert heard[-1] == ("reject", "frame msg: a spectator may send only sync, not msg") or \
        any(k == "reject" and "spectator may send only sync" in r for k, r in heard)
    assert any(k == "reject" and "cannot watch it" in r for k, r in refused)
    assert result.outcome is not None and result.verdict is None  # the table never noticed


class _StalledSpectator:
    """A spectator's link whose reader stopped: its hello arrives, then every send
    the host makes waits forever (a full socket), until the host closes it."""

    def __init__(self) -> None:
        self.peer_public_key = Identity.generate("Slow").public_key
        self.closed = asyncio.Event()
        self._hello_sent = False

    async def recv(self) -> bytes:
        if not self._hello_sent:
            self._hello_sent = True
            return _watch_hello()
        await self.closed.wait()
        raise NetError("closed")

    async def send(self, frame: bytes) -> None:
        await self.closed.wait()  # never delivered
        raise NetError("closed")

    def admit(self) -> None:
        pass

    def close(self) -> None:
        self.closed.set()


def test_a_spectator_that_stops_reading_is_dropped_and_the_table_plays_on(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(host_module, "SPECTATOR_BACKLOG", 3)

    async def run() -> tuple[SessionResult, int]:
        hosted = await _hosted(tmp_path)
        stalled = _StalledSpectator()
        accepting = asyncio.ensure_future(hosted.host._accept(stalled))  # type: ignore[arg-type]  # a stand-in link
        try:
            result = await asyncio.wait_for(hosted.result(), 120)
            await asyncio.wait_for(stalled.closed.wait(), 30)
            await asyncio.wait_for(accepting, 30)
            return result, hosted.host.relay.spectators
        finally:
            accepting.cancel()
            await hosted.close(grace=0.1, linger=0)
    result, spectators = asyncio.run(run())
    assert result.outcome is not None and result.verdict is None  # the table never waited
    assert spectators == 0  # the stalled spectator was dropped




async def _until_closed(link: Connection) -> list[tuple[str, str]]:
    heard: list[tuple[str, str]] = []
    try:
        async with asyncio.timeout(15):
            while True:
                frame = frames.decode(await link.recv())
                heard.append((frame.kind, frame.body.get("reason", "")
                              if isinstance(frame.body, dict) else ""))
    except (NetError, TimeoutError):
        return heard


@pytest.fixture(autouse=True)
def _quiet_logs(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("ERROR")


def test_a_spectator_says_who_dropped_and_who_is_back_once_each() -> None:
    from p2pcards.app._direct import direct_table
    from p2pcards.net.session_events import CONNECTED, RECONNECTING, Presence

    seen: list[object] = []
    watcher = WatchSession(Identity.generate("Sam"), None, on_event=seen.append)  # type: ignore[arg-type]  # never dials
    watcher.table = direct_table("topper", seed=3).observer

    def presence(linked: list[int]) -> None:
        asyncio.run(watcher._on_frame(frames.Frame("presence", {"linked": linked})))

    for linked in ([1, 1, 1, 1], [1, 0, 1, 1], [1, 0, 1, 1], [1, 1, 1, 1]):
        presence(linked)
    changes = [e.changed for e in seen if isinstance(e, Presence)]
    assert changes == [{1: RECONNECTING}, {1: CONNECTED}]
