"""The end box in plain mode (issue 24): at the end of a LAN match a person types
``again`` or ``leave`` (what the full screen's ``n`` and ``q`` choose), and the host,
while it waits for the others, types ``fill`` to give a freed seat to a bot; the
player who stays is told who took the seat. In one process over loopback TCP, each
seat a plain front end whose moves a bot makes (its lines are scripted)."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable
from pathlib import Path

from p2pcards.app.front import FrontEnd, FrontOptions
from p2pcards.app.hosted import TableOptions, start_hosted_table
from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.app.joined import JoinOptions, joining_session
from p2pcards.bots.agent import BotAgent, make_bot_factory
from p2pcards.evening.rematches import host_evening, join_evening, wants_again
from p2pcards.net.session_events import Decision, SessionResult
from p2pcards.protocol import game_wire
from p2pcards.rules.bluff import BluffConfig
from p2pcards.rules.contract import Engine
from p2pcards.ui.plain import END_BOX_PROMPT, PlainAgent
from tests.support.polling import until
from tests.support.typed import present

SEED = 31
Line = str | Callable[[], bool]


class Script:
    """A person's lines; a predicate waits (bounded) until it holds; then the input ends."""

    def __init__(self, lines: list[Line]) -> None:
        self.lines = list(lines)

    async def __call__(self) -> str:
        while self.lines:
            line = self.lines[0]
            if isinstance(line, str):
                self.lines.pop(0)
                return line
            await until(line, timeout=60)  # kept until it holds: a reader stopped meanwhile
            self.lines.pop(0)              # (the table ended) waits on it again
        raise EOFError


class BotMoves(PlainAgent):
    """Plain mode whose moves a bot makes: only the end box's lines are the script's."""

    def __init__(self, script: Script, said: list[str], seed: int) -> None:
        super().__init__(read_line=script, write=said.append)
        self.bot = BotAgent(make_bot_factory("bluff", "heuristic"), seed)

    async def decide(self, view: Engine, decision: Decision | None = None) -> object:
        return await self.bot.decide(view, present(decision))


def plain_front(lines: list[Line], seed: int) -> tuple[FrontEnd, list[str]]:
    front = FrontEnd(FrontOptions(plain=True, bell=False), "bluff", rematch=True)
    said: list[str] = []
    front.agent = BotMoves(Script(lines), said, seed)
    present(front.printer).write = said.append
    front.say = said.append  # type: ignore[method-assign,assignment]
    return front, said


def test_typed_again_leave_and_the_input_ending_choose_as_the_end_box_keys_do() -> None:
    async def choose(lines: list[Line]) -> tuple[bool, list[str]]:
        front, said = plain_front(lines, 1)
        return await wants_again(argparse.Namespace(again=None), front, 0), said

    again, said = asyncio.run(choose(["what", "help", "again"]))
    assert again
    assert said.count(END_BOX_PROMPT) == 2 and "Not accepted: 'what'. " + END_BOX_PROMPT in said
    assert not asyncio.run(choose(["leave"]))[0]
    assert not asyncio.run(choose([]))[0]  # the input ended: the seat is freed
    # --again N still decides for scripts, without reading a line.
    front, _ = plain_front(["leave"], 1)
    assert asyncio.run(wants_again(argparse.Namespace(again=2), front, 1))


def test_plain_again_leave_and_fill_play_a_rematch_with_a_bot_in_the_freed_seat(tmp_path: Path) -> None:
    async def run() -> tuple[list[SessionResult], FrontEnd, list[str], list[str], list[str]]:
        host_front, host_said = plain_front(
            ["again", lambda: any("left; the seat is free" in s for s in host_said), "fill"], 1)
        stay_front, stay_said = plain_front(["again"], 2)
        go_front, go_said = plain_front(["leave"], 3)
        host = seeded_identity(SEED, "host", "Hana")
        options = TableOptions(game="bluff", config=game_wire.by_name("bluff").config_to_wire(
            BluffConfig(deal_cap=1)), seed=SEED, deadline=30, journal_root=tmp_path / "host",
            tcp_host="127.0.0.1", tcp_port=0)
        hosted = await start_hosted_table(host, host_front.agent, options, bots=1,
                                          on_event=host_front.on_event)
        host_front.session = hosted.sessions[0]
        port = present(hosted.host.tcp_port)
        fronts = {"Sam": stay_front, "Gil": go_front}
        people = {name: seeded_identity(SEED, name, name) for name in fronts}
        kwargs: dict[str, JoinOptions] = {
            name: dict(deadline=30, bot=True, seed=SEED, label=name, direct=False,
                       journal_root=tmp_path / name, announce=False,
                       on_event=fronts[name].on_event) for name in fronts}
        joiners = {name: joining_session(people[name], front.agent, "127.0.0.1", port, **kwargs[name])
                   for name, front in fronts.items()}
        for name, front in fronts.items():
            front.session = joiners[name]
        args = argparse.Namespace(again=None, fill_with_bots=False, seed=SEED)

        async def join(name: str) -> SessionResult:
            first = await joiners[name].run()
            assert first.outcome is not None
            return await join_evening(args, fronts[name], people[name], "127.0.0.1", port, None,
                                      first, kwargs[name])
        # The host plays its match, then its end box (opened as the match ends).
        evening = host_evening(args, host_front, host, options, hosted,
                               lambda table: table.close(grace=0, linger=0))
        results = await asyncio.wait_for(asyncio.gather(evening, *map(join, fronts)), 240)
        return results, host_front, host_said, stay_said, go_said

    results, host_front, host_said, stay_said, go_said = asyncio.run(run())
    host_result, stay_result, _go_result = results
    assert END_BOX_PROMPT in go_said and "End box: you leave; your seat is free." in go_said
    assert 'End box: "Gil" left; the seat is free. Type fill to give it to a bot.' in host_said
    assert 'End box: "Gil"\'s seat goes to the bot "Dee".' in host_said
    assert any(s.startswith("Rematch 1 on port") for s in host_said)
    # Until the seat is filled the host's end box says what it waits for.
    assert any(s.startswith("End box: waiting for ") for s in host_said)
    # The rematch was played, and the player who stayed was told who took the seat.
    assert host_result.outcome is not None and stay_result.outcome is not None
    assert 'Rematch: "Gil"\'s seat went to "Dee".' in stay_said
    # Every screen says how the evening (or its part in it) ended.
    assert "End box: every seat is taken: the rematch starts." in host_said
    assert "End box: every seat is taken: the rematch starts." in stay_said
    assert "End box: you left; the others were told." in go_said
    session = host_front.session
    assert session is not None
    names = [p.name for p in present(session.table).players]
    assert "Dee" in names and "Gil" not in names
