"""A host that cuts every link of its lobby at once cannot keep a joiner there for
ever: each dial succeeds (so no failed dial ends the wait), but a reconnect window
of links that never held ends the join with a sentence, naming nobody, since no
table started (``p2pcards.net.host_link``)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from p2pcards.app.hosted import TableOptions, start_hosted_table
from p2pcards.app.joined import joining_session
from p2pcards.bots.agent import BotAgent, make_bot_factory
from p2pcards.net.session_events import SessionResult
from p2pcards.protocol import game_wire
from p2pcards.protocol.identity import Identity
from p2pcards.rules.bluff import BluffConfig
from tests.support.typed import present
from tests.system.hostile_host import churn

#: The joiner's reconnect window, and how often the host cuts: two cuts a second is
#: within the handshake budget of one address, so every dial succeeds.
WINDOW = 2.0
EVERY = 0.5


def test_a_lobby_whose_host_cuts_every_link_ends_the_join_naming_nobody(tmp_path: Path) -> None:
    async def run() -> tuple[SessionResult, bool, int]:
        bot = BotAgent(make_bot_factory("bluff", "heuristic"), 1)
        options = TableOptions(game="bluff", config=game_wire.by_name("bluff").config_to_wire(
            BluffConfig(deal_cap=1)), deadline=30, tcp_host="127.0.0.1", tcp_port=0)
        hosted = await start_hosted_table(Identity.generate("Hana"), bot, options, bots=0)
        cut = [0]
        cutter = asyncio.create_task(churn(hosted.host, EVERY, cut, lobby=True))
        joiner = joining_session(Identity.generate("Ivo"), bot, "127.0.0.1",
                                 present(hosted.host.tcp_port), reconnect_window=WINDOW,
                                 bot=True, journal_root=tmp_path / "ivo", direct=False,
                                 announce=False)
        try:
            # Bounded: before the fix it ran as long as the host kept cutting.
            result = await asyncio.wait_for(joiner.run(), 60)
        finally:
            cutter.cancel()
            await hosted.close(grace=0, linger=0)
        return result, joiner.table is None, cut[0]

    result, no_table, cut = asyncio.run(run())
    assert no_table and result.verdict is None and result.outcome is None  # nobody named
    assert result.reason.startswith("cannot keep a link to the host: "), result.reason
    assert "links in a row were cut within 5 s of opening" in result.reason
    assert cut >= 2  # it dialled again after the first cuts: a run, not one loss
