"""Presence: a player whose link to the host drops shows as reconnecting on the
others' screens, then as back; it is advisory and never blames anyone."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

from p2pcards.app.hosted import TableOptions, start_hosted_table
from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.bots.agent import BotAgent, make_bot_factory
from p2pcards.net.connection import Connection
from p2pcards.net.errors import NetError
from p2pcards.net.peer import PeerSession
from p2pcards.net.session_events import CONNECTED, RECONNECTING, Presence
from p2pcards.protocol import game_wire
from p2pcards.protocol.verdict import Verdict
from p2pcards.rules.topper import TopperConfig
from p2pcards.ui.text_events import describe
from tests.support import until
from tests.support.typed import present


class _Blockable:
    """A dialer that can be told to fail, as a player's lost network would."""

    def __init__(self, dial: Callable[[], Awaitable[Connection]]) -> None:
        self.dial, self.blocked = dial, False

    async def __call__(self) -> Connection:
        if self.blocked:
            raise NetError("no route to the host (blocked by the test)")
        return await self.dial()




def test_a_dropped_player_shows_reconnecting_then_back_and_nobody_is_blamed(tmp_path: Path) -> None:
    seen: list[Presence] = []

    async def run() -> tuple[int, str, Verdict | None]:
        config = game_wire.by_name("topper").config_to_wire(TopperConfig(target_score=1))
        options = TableOptions(game="topper", config=config, seed=6, deadline=30,
                               journal_root=tmp_path)
        me = seeded_identity(6, "me", "Me")
        hosted = await start_hosted_table(
            me, BotAgent(make_bot_factory("topper", "heuristic"), 6), options, bots=2,
            on_event=lambda e: seen.append(e) if isinstance(e, Presence) else None)
        cal = seeded_identity(6, "cal", "Cal")
        dial = _Blockable(hosted.host.local_connector(cal))
        joiner = PeerSession(cal, BotAgent(make_bot_factory("topper", "heuristic"), 7), dial,
                             deadline=30, reconnect_window=30)
        task = asyncio.create_task(joiner.run())
        try:
            await until(lambda: (table := joiner.table) is not None and table.me_player is not None
                         and any(s.table is not None for s in hosted.sessions) and seen)
            cal_player = present(present(joiner.table).me_player)
            dial.blocked = True
            for number, info in list(hosted.host.relay.links.items()):
                if info.player == cal_player:
                    hosted.host._links[number].push(None)  # the link breaks
            await until(lambda: any(e.changed.get(cal_player) == RECONNECTING for e in seen))
            dropped_state = hosted.sessions[0].presence()[cal_player]
            dial.blocked = False
            await until(lambda: seen[-1].changed.get(cal_player) == CONNECTED)
            mine = await asyncio.wait_for(hosted.result(), 60)
            return cal_player, dropped_state, mine.verdict
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await hosted.close(grace=0.1, linger=0)

    cal_player, dropped_state, verdict = asyncio.run(run())
    assert dropped_state == RECONNECTING
    assert verdict is None  # the match played out: a drop and return blame nobody
    changes = [e.changed[cal_player] for e in seen if cal_player in e.changed]
    assert changes[-2:] == [RECONNECTING, CONNECTED]


def test_the_log_says_who_dropped_and_who_is_back() -> None:
    players = ("Ann", "Bob", "Cal", "Dee")  # join order; the seats not drawn yet
    dropped = Presence({1: CONNECTED, 2: RECONNECTING}, {2: RECONNECTING}, 60.0)
    back = Presence({1: CONNECTED, 2: CONNECTED}, {2: CONNECTED}, 60.0)
    said = [describe(e, players, 0, None, players=players, me_player=0) for e in (dropped, back)]
    assert said == ["Cal dropped; reconnecting (usually up to 60 s).", "Cal is back."]
