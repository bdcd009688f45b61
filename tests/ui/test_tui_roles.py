"""The full screen's roles on their own, without an application: the seat's agent (a
decision as a future), the clock warnings, and the event sink's reading of a spectator."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from p2pcards.net.session_events import Decision, LinkUp, TakePause
from p2pcards.ui.plain import NothingToDecide, PlayerQuit
from p2pcards.ui.tui.agent import SeatAgent
from p2pcards.ui.tui.clockwarn import ClockWarnings
from p2pcards.ui.tui.model import ScreenModel
from p2pcards.ui.tui.sink import ScreenEvents
from p2pcards.ui.tui.source import SessionSource
from tests.support.typed import present
from tests.ui.ui_scenes import bluff_lead, bluff_reveal, topper_play


class Display:
    """Records what the agent tells the screen."""

    def __init__(self) -> None:
        self.said: list[tuple[str, Any]] = []

    def decision_forced(self, view: Any) -> None:
        self.said.append(("forced", view))

    def decision_opened(self, view: Any) -> None:
        self.said.append(("opened", view))

    def decision_closed(self) -> None:
        self.said.append(("closed", None))


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, timeout=10))


async def opened(agent: SeatAgent, view: Any, decision: Decision | None = None) -> asyncio.Task[object]:
    task = asyncio.ensure_future(agent.decide(view, decision))
    for _ in range(100):
        if agent.pending is not None:
            return task
        await asyncio.sleep(0)
    raise AssertionError("the decision never opened")


def test_a_decision_waits_until_the_person_chooses_and_then_closes() -> None:
    async def scene() -> tuple[Any, list[tuple[str, Any]], Any]:
        display = Display()
        agent = SeatAgent(display)
        view = topper_play().view(1)
        task = await opened(agent, view)
        assert display.said == [("opened", view)] and not task.done()
        agent.choose("the action")
        return await task, display.said, agent.pending

    action, said, pending = run(scene())
    assert action == "the action" and said[-1] == ("closed", None) and pending is None


def test_leaving_ends_the_pending_decision_and_refuses_the_next_one() -> None:
    async def scene() -> None:
        agent = SeatAgent(Display())
        task = await opened(agent, topper_play().view(1))
        agent.leave()
        with pytest.raises(PlayerQuit):
            await task
        with pytest.raises(PlayerQuit):
            await agent.decide(topper_play().view(1))

    run(scene())


def test_stepping_away_raises_take_pause_and_needs_a_pending_decision() -> None:
    async def scene() -> int:
        agent = SeatAgent(Display())
        with pytest.raises(NothingToDecide):
            agent.step_away()
        decision = Decision(position=0, seat=1, deadline=0.0, names=(), pauses_left=2)
        task = await opened(agent, topper_play().view(1), decision)
        left = agent.pending.pauses_left if agent.pending is not None else -1
        agent.step_away()
        with pytest.raises(TakePause):
            await task
        return left

    assert run(scene()) == 2


def test_a_forced_action_is_returned_at_once_and_a_view_of_another_turn_is_refused() -> None:
    async def scene() -> tuple[Any, list[tuple[str, Any]]]:
        display = Display()
        agent = SeatAgent(display)
        with pytest.raises(NothingToDecide):
            await agent.decide(bluff_lead().view(1))  # seat 0 leads
        state = bluff_reveal()
        view = state.view(present(state.to_act))
        return await agent.decide(view), display.said

    forced, said = run(scene())
    assert forced is not None and [what for what, _ in said] == ["forced"]


def test_each_clock_mark_is_announced_once_per_decision() -> None:
    warnings, first, second = ClockWarnings(), object(), object()
    announced = [left for left in (45, 31, 30, 29, 12, 10, 9, 3) if warnings.due(first, left)]
    assert announced == [30, 10]
    assert warnings.due(second, 8)  # a new decision: warned again, at once
    assert not warnings.due(second, 7)


class Spectator:
    """A watching session, as far as the screen's source reads one (a ``LiveSession``)."""

    spectator = True
    replaying = None
    table = None

    async def leave(self) -> None:
        pass


class Screen:
    def __init__(self) -> None:
        self.model = ScreenModel()
        self.shown: list[tuple[Any, bool]] = []

    @property
    def deciding(self) -> bool:
        return False

    def view_taken(self) -> None:
        pass

    def event_shown(self, event: Any, at_rest: bool) -> None:
        self.shown.append((event, at_rest))


def test_the_sink_marks_a_spectators_model_as_having_no_seat() -> None:
    screen, watcher = Screen(), Spectator()
    events = ScreenEvents(screen, SessionSource(lambda: watcher))
    up = LinkUp(reconnect=False, own_host=True)
    events(up)
    assert screen.model.observer and screen.shown == [(up, True)]
    player = ScreenEvents(Screen(), SessionSource(lambda: None))
    player(up)
    assert not player.screen.model.observer


class Session:
    """A session in the lobby that does not finish by itself, even once told its player left."""

    table = None
    spectator = False
    replaying = None

    def __init__(self) -> None:
        self.left = asyncio.Event()

    async def run(self) -> str:
        await asyncio.Event().wait()
        return "never returned: cancelled after the grace"

    async def leave(self) -> None:
        self.left.set()


class RunOn:
    """What a TableRun needs of a screen, recorded."""

    def __init__(self, session: Any, app_task: Any = None) -> None:
        self.agent = SeatAgent(Display())
        self.source = SessionSource(lambda: session)
        self.app_task = app_task
        self.said: list[Any] = []
        self.events = self

    def ended(self, result: Any) -> None:
        self.said.append(("ended", result))

    def end_shown(self) -> None:
        self.said.append("end shown")

    def new_table(self) -> None:
        self.said.append("new table")


def test_leaving_outside_a_decision_sends_the_notice_and_returns_the_left_result() -> None:
    from p2pcards.net.session_events import LEFT_IN_LOBBY
    from p2pcards.ui.tui.run import TableRun

    async def scene() -> tuple[Any, bool, list[Any]]:
        session = Session()
        screen = RunOn(session)
        runner = TableRun(screen)  # type: ignore[arg-type]
        runner.ready()
        playing = asyncio.ensure_future(runner.play(session.run()))
        await asyncio.sleep(0)
        screen.agent.leave()
        runner.leave()
        return await playing, session.left.is_set(), screen.said

    result, told, said = run(scene())
    assert result.reason == LEFT_IN_LOBBY and told and said == []  # no end box: he left


def test_the_end_box_waits_for_the_choice_of_a_new_table() -> None:
    from p2pcards.ui.tui.run import TableRun

    async def ended() -> str:
        return "the result"

    async def scene() -> tuple[Any, bool, list[Any]]:
        shown = asyncio.get_running_loop().create_future()  # the application, still running
        screen = RunOn(Session(), app_task=shown)
        runner = TableRun(screen)  # type: ignore[arg-type]
        playing = asyncio.ensure_future(runner.play(ended()))
        for _ in range(100):
            if "end shown" in screen.said:
                break
            await asyncio.sleep(0)
        runner.choose("again")
        result = await playing
        shown.cancel()
        return result, runner.again, screen.said

    result, again, said = run(scene())
    assert result == "the result" and again
    assert said == [("ended", "the result"), "end shown", "new table"]
