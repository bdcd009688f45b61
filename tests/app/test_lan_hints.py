"""Coach's hints at a LAN table (issue 24): a person in line mode types ``hint`` at a
table hosted in this process (his seat joins over the host's link). Where the host
allowed hints (genesis ``config.hints``, ``host --hints``) his ``hint`` reaches every
other seat, whose screens mark him coached; where it did not, the command is refused
with a sentence and nothing is sent."""

from __future__ import annotations

import asyncio
from pathlib import Path

from p2pcards.app.front import FrontEnd, FrontOptions
from p2pcards.app.hosted import TableOptions, start_hosted_table
from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.bots.agent import BotAgent, make_bot_factory
from p2pcards.commands.options import build_parser
from p2pcards.commands.settings import table_config
from p2pcards.net.peer import PeerSession
from p2pcards.net.seat_view import decision_of
from p2pcards.net.session_events import LobbyUpdate, SessionEvent
from p2pcards.protocol import game_wire
from p2pcards.protocol.events import HintTaken, TableEnded
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_records import HINT
from p2pcards.protocol.table_settings import HINTS
from p2pcards.protocol.verify import verify_transcript
from p2pcards.rules.topper import TopperConfig
from p2pcards.ui.plain import PlainAgent, coached_line
from p2pcards.ui.text_common import HINTS_OFF
from p2pcards.ui.text_events import describe
from p2pcards.ui.text_verify import report_json, report_lines
from p2pcards.ui.tui.bars import title_line
from p2pcards.ui.tui.model import ScreenModel
from p2pcards.ui.tui.seats import _header
from tests.support import until
from tests.support.typed import present


def _config(hints: bool) -> dict[str, int]:
    config = game_wire.by_name("topper").config_to_wire(TopperConfig(target_score=1))
    return {**config, **({HINTS: 1} if hints else {})}


class _Script:
    """A person's lines: ``hint`` at his first turn, then the input ends (he leaves)."""

    def __init__(self) -> None:
        self.lines = ["hint"]
        self.done = asyncio.Event()

    async def __call__(self) -> str:
        if self.lines:
            return self.lines.pop(0)
        await self.done.wait()  # the test has looked at every seat
        raise EOFError


async def _lan_table(hints: bool, tmp_path: Path) -> tuple[list[str], list[SessionEvent], list[Table], PeerSession]:
    options = TableOptions(game="topper", config=_config(hints), seed=4, deadline=60,
                           journal_root=tmp_path / "host")
    host_seen: list[SessionEvent] = []
    hosted = await start_hosted_table(
        seeded_identity(4, "me", "Host"), BotAgent(make_bot_factory("topper", "heuristic"), 1),
        options, bots=2, on_event=host_seen.append)
    front = FrontEnd(FrontOptions(plain=True, bell=False), "topper")
    said: list[str] = []
    script = _Script()
    agent = front.agent
    assert isinstance(agent, PlainAgent)
    agent.read_line, agent.write = script, said.append
    present(front.printer).write = said.append
    person = seeded_identity(4, "p", "Pat")
    front.session = session = PeerSession(person, front.agent, hosted.host.local_connector(person),
                                          journal_root=tmp_path / "pat", on_event=front.on_event)
    playing = asyncio.ensure_future(front.play(session.run()))
    try:
        if hints:
            await until(lambda: all((table := s.table) is not None and sum(table.hints_used) == 1
                                    for s in hosted.sessions), timeout=60)
        else:
            await until(lambda: any(HINTS_OFF in line for line in said), timeout=60)
        tables = [present(s.table) for s in hosted.sessions] + [present(session.table)]
        script.done.set()
        await asyncio.wait_for(playing, 60)
        return said, host_seen, tables, session
    finally:
        script.done.set()
        playing.cancel()
        await asyncio.gather(playing, return_exceptions=True)
        await hosted.close(grace=0, linger=0)


def test_with_hints_a_seats_hint_reaches_every_other_seat_marked(tmp_path: Path) -> None:
    said, host_seen, tables, session = asyncio.run(_lan_table(True, tmp_path))
    mine = present(session.table)
    me = present(mine.me_player)
    assert not any(HINTS_OFF in line for line in said)
    # Every seat's table counts the hint (the host's, its bots', and the asker's own).
    assert all(t.hints and t.hints_used == [1 if p == me else 0 for p in range(4)]
               for t in tables)
    # The host's screen: its line for the event, and the seat bar's mark.
    assert HintTaken(me, 1) in host_seen
    model = ScreenModel()
    for event in host_seen:
        model.apply(event)
    seat = present(mine.own_seat)
    header = "".join(fragment[1] for fragment in _header(model, seat))
    assert "(coached 1)" in header and "Pat" in header
    host = tables[0]
    names = [host.players[p].name for p in present(host.player_at_seat)]
    line = describe(HintTaken(me, 1), names, host.own_seat, host.player_at_seat) or ""
    assert "Pat" in line and "coach" in line and "coached 1 time" in line
    # The line mode's table, at each later decision: who was coached, by seat.
    coached = decision_of(host, 0.0).coached
    assert coached[seat] == 1 and sum(coached) == 1
    assert coached_line(coached, names, host.own_seat) == f"Coached: Seat {seat} (Pat) 1 time."
    # The asker's own screen says so too, then gives the coach's advice.
    asked = next(i for i, line in enumerate(said) if "ask the coach" in line)
    assert said[asked].startswith("You") and "coached 1 time" in said[asked]
    assert said[asked + 1].startswith("Coach: ")  # the advice, once the others were told
    # The record keeps it: verify reports who was coached.
    verdict = host.verdict
    report = verify_transcript(host.transcript(), verdict)
    assert report.ok, report.problem
    assert report.hints and report.coached[me] == 1 and sum(report.coached) == 1
    assert verdict is None or verdict.rule == "left"  # he left afterwards; no breach
    text = report_lines(report)
    assert any("Pat" in line and "coached 1 time" in line for line in text), text
    assert report_json(report)["hints"] is True
    assert [p["coached"] for p in report_json(report)["players"]] == report.coached
    # Before the seats: the lobby says hints are allowed, the title bar says so.
    lobby = next(e for e in host_seen if isinstance(e, LobbyUpdate))
    assert "hints allowed" in (describe(lobby, [], None) or "")
    early = ScreenModel()
    early.apply(lobby)
    assert early.hints and any("hints on" in fragment[1] for fragment in title_line(early, 200))


def test_without_hints_the_command_is_refused_and_nothing_is_sent(tmp_path: Path) -> None:
    said, host_seen, tables, session = asyncio.run(_lan_table(False, tmp_path))
    assert any(f"Not accepted: {HINTS_OFF}." in line for line in said)
    assert not any(isinstance(e, HintTaken) for e in host_seen)
    for table in tables:
        assert not table.hints and table.hints_used == [0, 0, 0, 0]
        assert not any(m.type == HINT for m in table.messages)
    assert decision_of(tables[0], 0.0).coached == ()  # nothing to mark in line mode
    ended = [e.verdict for e in host_seen if isinstance(e, TableEnded)]
    assert all(v.rule == "left" for v in ended)  # he left; nobody broke a rule


def test_host_hints_goes_into_the_genesis_config_and_is_off_by_default() -> None:
    parser = build_parser()
    on = parser.parse_args(["host", "topper", "--hints"])
    off = parser.parse_args(["host", "topper"])
    assert table_config("topper", on, 120)[HINTS] == 1
    assert HINTS not in table_config("topper", off, 120)

