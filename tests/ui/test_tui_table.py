"""Whole tables on the headless full screen: a person plays by keys against three bot peers.

The real hosted table runs (cryptography, protocol, bots as peers) on the
same loop as the application; the person's keys come through a pipe and
the screen is read back through a virtual terminal. Each test asserts on
what the screen shows and on the table's own state.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Awaitable, Callable
from typing import Any

from p2pcards.app.hosted import TableOptions, start_hosted_table
from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.bots.agent import make_bot_factory
from p2pcards.protocol import game_wire
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_records import Stage
from p2pcards.rules.bluff import BluffConfig, BluffState
from p2pcards.rules.bluff import Phase as BluffPhase
from p2pcards.rules.topper import Phase as TopperPhase
from p2pcards.rules.topper import Play, TopperConfig, TopperState
from p2pcards.ui.text import labelled_hand
from p2pcards.ui.tui import TableScreen
from p2pcards.ui.tui.agent import PendingDecision
from p2pcards.ui.tui.hand import face_text
from tests.support.typed import present
from tests.ui.test_tui_harness import (
    ENTER,
    HOME,
    RIGHT,
    VirtualTerminal,
    drawn,
    headless,
    keys_for,
    same_action,
    shows,
    wait_until,
)

SEED = 7


#: ``checks(screen, keys, term, pending, table, seen)``, run at each decision of ``play_table``.
Checks = Callable[[TableScreen, Any, VirtualTerminal, PendingDecision, Table, dict[str, Any]], Awaitable[None]]


def options(game: str) -> TableOptions:
    config = BluffConfig(deal_cap=1) if game == "bluff" else TopperConfig(target_score=3)
    return TableOptions(game=game, config=game_wire.by_name(game).config_to_wire(config), seed=SEED,
                        deadline=60)


def hand_row(term: VirtualTerminal, view: Any, me: int) -> str:
    """The screen row that shows the hand's faces."""
    first = face_text(labelled_hand(view, me)[0].card).strip()
    row = next(line for line in term.lines if line.lstrip().startswith(first)
               and line.count("♣") + line.count("♦") + line.count("♥") + line.count("♠")
               == len(labelled_hand(view, me)))
    return row


def faces_on(row: str) -> list[str]:
    return re.findall(r"(10|[2-9JQKA])([♣♦♥♠])", row)


async def play_table(game: str, checks: Checks) -> dict[str, Any]:
    """Play one seeded table by keys; ``checks(screen, keys, term, pending, table)`` runs at each
    decision before the keys are sent. Returns what the test asserts on."""
    seen: dict[str, Any] = {"decisions": 0, "screens": []}
    async with headless() as (screen, keys, term):
        hosted = await start_hosted_table(seeded_identity(SEED, "me", "Ann"), screen,
                                          options(game), bots=3, on_event=screen.on_event)
        session = hosted.sessions[0]
        screen.source.get_session = lambda: session
        chooser = make_bot_factory(game, "heuristic")(random.Random(3))

        async def person() -> None:
            for _ in range(400):  # bounded: a short match has far fewer decisions
                await wait_until(lambda: screen.pending is not None or screen.end_ready,
                                 "a decision or the end", term)
                if screen.overlay == "summary":
                    # A deal's summary waits for a key (against bots): read it, then go on.
                    await drawn(screen, term)
                    seen.setdefault("summaries", []).append(term.text)
                    keys.send_text(ENTER)
                    await wait_until(lambda: screen.overlay != "summary", "the summary to close",
                                     term)
                    continue
                if screen.end_ready:
                    await drawn(screen, term)
                    seen["end"] = term.text
                    keys.send_text("q")
                    return
                pending = present(screen.pending)
                await drawn(screen, term)
                if pending.future.done():
                    continue
                assert "YOUR TURN" in term.text
                await checks(screen, keys, term, pending, present(session.table), seen)
                wanted = chooser.choose(pending.view)
                for chunk in keys_for(wanted, screen):
                    keys.send_text(chunk)
                    await asyncio.sleep(0.03)  # a typist's pace: each press is read on its own
                await wait_until(lambda p=pending: p.future.done(), "the action to be taken", term)  # type: ignore[misc]
                assert same_action(pending.future.result(), wanted)
                seen["decisions"] += 1
            raise AssertionError("the match did not end")

        driver = asyncio.ensure_future(person())
        playing = asyncio.ensure_future(screen.play(hosted.result()))
        try:
            done, _ = await asyncio.wait({driver, playing}, timeout=120,
                                         return_when=asyncio.FIRST_EXCEPTION)
            failed = driver.exception() if driver.done() else None
            if failed is not None:
                raise failed
            assert playing in done, "the table did not end in time"
            result = playing.result()
        finally:
            driver.cancel()
            playing.cancel()
            await hosted.close()
        seen.update(result=result, table=session.table, again=screen.again,
                    log=[line.text for line in screen.model.log],
                    details=[line.text for line in screen.model.details])
    return seen


def test_a_whole_bluff_deal_by_keys_shows_hand_chips_claims_and_the_result() -> None:
    async def checks(screen: TableScreen, keys: Any, term: VirtualTerminal, pending: PendingDecision,
                     table: Table, seen: dict[str, Any]) -> None:
        view = pending.view
        assert isinstance(view, BluffState)
        me = present(view.viewer)
        row = hand_row(term, view, me)
        assert len(faces_on(row)) == len(view.hand(me))
        assert f"You ({'Ann'})" in term.text
        assert f"{view.stacks[me]} chips" in term.text
        if view.last_claim is not None:
            assert "Last claim:" in term.text
            assert f"as {view.last_claim.rank.label}" in term.text
        if seen["decisions"] == 0:
            # A key with no action now changes nothing and says why.
            position = table.next_position
            keys.send_text("z")
            await shows(term, "'z' does nothing here")
            assert screen.pending is pending and table.next_position == position
            seen["refused_key"] = True
        if "five" not in seen and len(view.hand(me)) >= 5 and present(view.options()).can_discard:
            position = table.next_position
            keys.send_text(HOME + (" " + RIGHT) * 5 + "d")
            await shows(term, "discard 1 to 4 cards, not 5")
            assert screen.pending is pending and not pending.future.done()
            assert table.next_position == position and len(view.hand(me)) >= 5
            keys.send_text(HOME + (" " + RIGHT) * 5)  # unselect the five again
            await wait_until(lambda: not screen.picker.selected, "the selection cleared", term)
            seen["five"] = True
        if view.phase is BluffPhase.LEAD:
            seen["led"] = True  # the keys will answer the rank question
        if seen["decisions"] == 1:
            # r: the scoreboard and this deal's record, over the table until a key.
            keys.send_text("r")
            await shows(term, "This deal's record")
            await drawn(screen, term)
            seen["history"] = term.text
            keys.send_text(ENTER)
            await wait_until(lambda: screen.overlay is None, "the history to close", term)
            assert screen.pending is pending and not pending.future.done()
        seen["screens"].append(term.text)

    seen = asyncio.run(play_table("bluff", checks))
    table = seen["table"]
    assert table.stage is Stage.OVER
    outcome = table.engine.outcome
    assert seen["result"].outcome == outcome
    assert seen["decisions"] >= 3 and seen.get("refused_key") and seen.get("five")
    assert seen.get("led")
    end = seen["end"]
    assert "MATCH OVER" in end
    for seat, chips in enumerate(outcome.chips):
        assert f"Seat {seat} · " in end and f"{chips} chips" in end
    log = "\n".join(seen["log"])
    assert "✓ Deck 0 shuffled by all four; every shuffle proof verified." in log
    assert "You shuffled deck 0" not in log and "You shuffled deck 0" in "\n".join(seen["details"])
    assert "✓ Deck 0: every decryption share verified." in log and "Your hand:" in log
    assert any("Not accepted: discard 1 to 4 cards, not 5" in line for line in seen["log"])
    assert any("won the deal" in line for line in seen["log"])
    history = seen["history"]
    assert "Scoreboard: chips after each deal (none scored yet)" in history
    assert "in your hand" in history and "of 4 known" in history
    # The one deal's summary waited for a key: winner, safe box, chips with changes.
    summary = seen["summaries"][0]
    assert "Deal 1 over" in summary and "won the deal and the safe box of" in summary
    assert "Chips: " in summary and "any key: back to the table" in summary
    assert "bluff was caught" in summary or "Bluffs caught:" in summary
    assert not seen["again"]


def test_a_whole_topper_hand_by_keys_shows_bids_trump_tricks_and_scores() -> None:
    async def checks(screen: TableScreen, keys: Any, term: VirtualTerminal, pending: PendingDecision,
                     table: Table, seen: dict[str, Any]) -> None:
        view = pending.view
        assert isinstance(view, TopperState)
        me = present(view.viewer)
        row = hand_row(term, view, me)
        assert len(faces_on(row)) == len(view.hand(me))
        assert f"score {view.scores[me]}/3" in term.text
        if view.trump is not None:
            assert "Big Jack" in term.text and "Little Jack" in term.text
        if view.current_trick:
            assert f"Trick {len(view.tricks) + 1}:" in term.text
        if view.phase is TopperPhase.PLAY and "off-suit" not in seen:
            legal = {a.slot for a in view.legal_actions() if isinstance(a, Play)}
            hand = labelled_hand(view, me)
            wrong = [i for i, entry in enumerate(hand) if entry.slot not in legal]
            if wrong:
                position = table.next_position
                keys.send_text(HOME + RIGHT * wrong[0])
                keys.send_text(ENTER)
                await shows(term, "you must follow")
                assert table.next_position == position and screen.pending is pending
                assert len(view.hand(me)) == len(hand)
                seen["off-suit"] = True
        seen["screens"].append(term.text)

    seen = asyncio.run(play_table("topper", checks))
    table = seen["table"]
    assert table.stage is Stage.OVER
    outcome = table.engine.outcome
    assert seen["result"].outcome == outcome
    end = seen["end"]
    assert "MATCH OVER" in end
    for _seat, score in enumerate(outcome.scores):
        assert f"{score} point" in end
    assert "★ winner" in end
    log = "\n".join(seen["log"])
    assert "✓ Deck 0 shuffled by all four" in log and "named" in log and "trump" in log
    assert re.search(r"won trick \d", log) and "scored:" in log
    assert seen["decisions"] >= 3 and seen.get("off-suit")
    summary = seen["summaries"][0]
    assert re.search(r"Hand \d scored|Hand \d thrown in", summary)
    assert "Scores: " in summary or "Everyone passed" in summary
