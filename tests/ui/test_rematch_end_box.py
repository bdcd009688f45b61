"""A LAN table's end box offers a rematch (``n``) as well as leaving (``q``)."""

from __future__ import annotations

import asyncio

from p2pcards.net.session_events import SessionResult
from p2pcards.protocol import events as proto
from tests.ui.test_tui_harness import drawn, headless, wait_until
from tests.ui.test_tui_screen import _outcome, run, seat_everyone

LABEL = "again (a rematch, seats rotated)"


def test_a_lan_end_box_offers_a_rematch_under_its_own_name_and_n_chooses_it():
    async def scene() -> tuple[str, bool]:
        async with headless(100, 30, offer_again=True, again_label=LABEL) as (screen, keys, term):
            seat_everyone(screen, 0)
            outcome = _outcome()

            async def session() -> SessionResult:
                screen.on_event(proto.MatchCompleted(outcome))
                return SessionResult(outcome=outcome)
            playing = asyncio.ensure_future(screen.play(session()))
            await wait_until(lambda: screen.end_ready, "the end box", term)
            await drawn(screen, term)
            shown = term.text
            keys.send_text("n")
            await asyncio.wait_for(playing, 5)
            return shown, screen.again
    shown, chose = run(scene())
    assert f" n  {LABEL}" in shown and "a new table" not in shown
    assert chose
