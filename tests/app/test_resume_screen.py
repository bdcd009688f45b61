"""A resumed seat's front end is rebuilt from its record as it was before the crash:
the log (plain lines and the full screen's), the history of the deal (the cards the
calls showed), the scoreboard and the board's stage, not the lobby with nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from p2pcards.app.front import FrontEnd, FrontOptions
from p2pcards.app.hosted import TableOptions, resume_hosted_table, start_hosted_table
from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.bots.agent import BotAgent, make_bot_factory
from p2pcards.net.journal import Journal
from p2pcards.net.peer import PeerSession
from p2pcards.net.resume import resumed_steps, show_record
from p2pcards.net.session_events import LobbyUpdate, Presence
from p2pcards.protocol import game_wire
from p2pcards.protocol.events import ActionApplied, HandReceived, TableEnded
from p2pcards.rules import bluff as bluff_model
from p2pcards.rules.bluff import BluffConfig
from p2pcards.ui.tui.model import ScreenModel
from p2pcards.ui.tui.sink import ScreenEvents
from p2pcards.ui.tui.source import SessionSource
from tests.support import until
from tests.support.typed import present

SEED = 11


class _Screen:
    """The little a :class:`ScreenEvents` needs of a screen: its model."""

    def __init__(self) -> None:
        self.model = ScreenModel()
        self.deciding = False
        self.summaries = 0

    def view_taken(self) -> None:
        pass

    def event_shown(self, event: Any, at_rest: bool) -> None:
        if at_rest and self.model.summary is not None:
            self.summaries += 1


class _Seat:
    """One seat's two front ends, plain lines and the full screen's model, on one session."""

    def __init__(self) -> None:
        self.front = FrontEnd(FrontOptions(plain=True, bell=False), "bluff")
        self.lines: list[str] = []
        present(self.front.printer).write = self.lines.append
        self.screen = _Screen()
        self.sink = ScreenEvents(self.screen, SessionSource(lambda: self.front.session))
        self.events: list[Any] = []

    def on_event(self, event: Any) -> None:
        self.events.append(event)
        self.front.on_event(event)
        self.sink.on_event(event)

    def log(self) -> list[str]:
        """The plain lines and the screen's log from the seats' draw on (the lobby's
        lines before it say who joined when: a record keeps only who sat down)."""
        def after_lobby(lines: list[str]) -> list[str]:
            start = next(i for i, line in enumerate(lines) if line.startswith("✓"))
            return lines[start:]
        return after_lobby(self.lines) + ["--"] + after_lobby(
            [line.text for line in self.screen.model.log])

    def history(self) -> tuple[list[str], list[str]]:
        session = self.front.session
        assert session is not None
        table = present(session.table)
        view, names, me = table.view(), self.front.names(), present(table.my_seat)
        return (present(self.front.printer).history_lines(view, names, me),
                self.screen.model.history.lines(names, me, view))


def _options(root: Path) -> TableOptions:
    config = game_wire.by_name("bluff").config_to_wire(BluffConfig(deal_cap=3))
    return TableOptions(game="bluff", config=config, seed=SEED, deadline=60, journal_root=root)


def _bot() -> BotAgent:
    return BotAgent(make_bot_factory("bluff", "heuristic"), SEED)


def _calls_this_deal(seat: _Seat) -> int:
    """Calls of the deal in play, once a deal was won before it (0 until then)."""
    won, calls = False, 0
    for event in seat.events:
        if isinstance(event, HandReceived):
            calls = 0
        for result in event.results if isinstance(event, ActionApplied) else ():
            if isinstance(result, bluff_model.DealWon):
                won, calls = True, 0
            calls += isinstance(result, bluff_model.ChallengeResolved)
    return calls if won else 0


async def _crash_mid_deal(root: Path) -> tuple[_Seat, Path]:
    """Play until a deal was won and a call of the next deal showed cards, then stop
    every task of the process at once, the links first (as ``kill -9`` does)."""
    before = _Seat()
    hosted = await start_hosted_table(seeded_identity(SEED, "me", "Me"), _bot(), _options(root),
                                      bots=3, on_event=before.on_event)
    before.front.session = hosted.sessions[0]
    try:
        await until(lambda: _calls_this_deal(before) >= 1, timeout=120)
    finally:
        await hosted.host.close()
        for task in hosted.tasks:
            task.cancel()
        await asyncio.gather(*hosted.tasks, return_exceptions=True)
    return before, next(root.glob("*/relay")).parent


@pytest.mark.slow
def test_a_resumed_seat_is_told_its_record_again_log_history_and_stage_as_they_were(tmp_path: Path) -> None:
    async def run() -> tuple[_Seat, _Seat]:
        before, table_dir = await _crash_mid_deal(tmp_path)
        me = seeded_identity(SEED, "me", "Me")
        after = _Seat()

        async def no_dial() -> Any:
            raise ConnectionError("this test dials nobody")

        session = PeerSession(me, _bot(), no_dial, on_event=after.on_event)
        session.resume_from(Journal(table_dir / me.fingerprint))
        after.front.session = session
        show_record(session, resumed_steps(present(session.table), session.meta, session._record))
        present(session.journal).release()
        return before, after

    before, after = asyncio.run(run())
    assert after.log() == before.log()
    assert after.history() == before.history()
    history, _ = after.history()
    assert any("shown" in line for line in history), history  # the calls' cards are back
    assert history[1].strip().startswith("Deal")  # a scored deal on the scoreboard
    model, was = after.screen.model, before.screen.model
    assert (model.progress, model.result_line, model.phase_word) == (
        was.progress, was.result_line, was.phase_word)
    assert not (model.progress or "").startswith("Shuffling: 0")
    assert after.screen.summaries == 0  # no old deal's box pops up over the table


def test_a_resumed_host_hears_its_own_bots_linked_from_the_start(tmp_path: Path) -> None:
    """Its bots never left: no "dropped; reconnecting" and "back" for them."""
    async def run() -> list[Any]:
        _, table_dir = await _crash_mid_deal(tmp_path)
        after = _Seat()
        hosted = await resume_hosted_table(seeded_identity(SEED, "me", "Me"), _bot(), table_dir,
                                           seed=SEED, on_event=after.on_event)
        after.front.session = hosted.sessions[0]
        # The record is told again first (its moves are not new): play goes on after it.
        told = sum(isinstance(e, ActionApplied) for step in hosted.sessions[0]._record
                   for e in step.events)
        try:
            await until(lambda: sum(isinstance(e, ActionApplied) for e in after.events)
                        > told + 4, timeout=60)
        finally:
            await hosted.close(grace=0, linger=0)
        return after.events

    events = asyncio.run(run())
    assert any(isinstance(e, LobbyUpdate) for e in events)
    assert not any(isinstance(e, TableEnded) for e in events)
    dropped = [e for e in events if isinstance(e, Presence)
               and any(state != "connected" for state in e.changed.values())]
    assert dropped == []


def test_a_resumed_seats_trace_marks_what_its_record_tells_again(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """``--trace`` is for scripts: the record told again is not news."""
    import json

    async def run() -> None:
        _, table_dir = await _crash_mid_deal(tmp_path)
        me = seeded_identity(SEED, "me", "Me")
        front = FrontEnd(FrontOptions(plain=True, trace=True, bell=False), "bluff")

        async def no_dial() -> Any:
            raise ConnectionError("this test dials nobody")

        session = PeerSession(me, _bot(), no_dial, on_event=front.on_event)
        session.resume_from(Journal(table_dir / me.fingerprint))
        front.session = session
        capsys.readouterr()
        show_record(session, resumed_steps(present(session.table), session.meta, session._record))
        front.on_event(LobbyUpdate("bluff", "t", {}, ()))  # anything new: not marked
        present(session.journal).release()

    asyncio.run(run())
    traced = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(traced) > 20 and all(t.get("replayed") for t in traced[:-1])
    assert "replayed" not in traced[-1]
    assert any(t["event"] == "ActionApplied" for t in traced)
