"""The full-screen replay of a saved table: the same table screen, fed from a :class:`Replay`.

The model at each step is :mod:`~p2pcards.ui.tui.replay_model`' (the very events a
live table gets and the view after each message), so every panel, the log, the
summaries and the end box are the table's own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from prompt_toolkit.filters import Condition
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.output import Output

from p2pcards.net.stopping import stop_task
from p2pcards.ui.replay_steps import Replay
from p2pcards.ui.tui.app import SUMMARY, Question, TableApp
from p2pcards.ui.tui.bindings import add_reading_keys
from p2pcards.ui.tui.lines import Line, pad
from p2pcards.ui.tui.replay_model import DEFAULT_SPEED, REPLAY_KEYS, SUMMARY_PAUSE, model_at, moved, next_speed


@dataclass
class DealQuestion:
    """The ``g`` question: which deal to go to."""

    deals: int
    default: str = ""
    step: str = "deal"

    @property
    def question(self) -> str:
        return f"Go to deal (1-{self.deals}):"


class ReplayScreen(TableApp):
    """A saved table stepped through on the table's own application (no seat, no session)."""

    way_out = "Ctrl-C quits the replay"

    def __init__(self, record: Replay, *, speed: float = DEFAULT_SPEED, input: Input | None = None,
                 output: Output | None = None, clock: Callable[[], float] | None = None) -> None:
        super().__init__(replay_bindings, input=input, output=output, clock=clock)
        self.record = record
        self.index = 0
        self.playing = False
        self.speed = speed
        self.help_keys = REPLAY_KEYS
        self.end_ready = True  # the end box offers q at once: nothing is closing
        self._done: asyncio.Event | None = None
        self._summary_since: float | None = None
        self.model = model_at(record, 0)

    # -- moving -----------------------------------------------------------------------

    def go(self, index: int) -> None:
        """Show the table at step ``index`` (forward: feed the steps between; back: rebuild)."""
        index = max(0, min(index, len(self.record.steps) - 1))
        self.model = moved(self.model, self.record, self.index, index)
        self.index = index
        if self.overlay == SUMMARY:
            self.overlay = None
        self.summary_until = None
        self._summary_since = None
        self.show_summary()
        if self.overlay == SUMMARY:
            self._summary_since = self.now()
        self.scroll.to_end()
        self.message = None
        self._invalidate()

    def next_move(self) -> None:
        self.go(self.record.next_move(self.index))

    def previous_move(self) -> None:
        self.go(self.record.previous_move(self.index))

    def next_deal(self) -> None:
        self.go(self.record.next_deal(self.index))

    def previous_deal(self) -> None:
        self.go(self.record.previous_deal(self.index))

    def go_home(self) -> None:
        self.go(0)

    def go_end(self) -> None:
        self.go(len(self.record.steps) - 1)

    def go_to_deal(self, number: int) -> None:
        """The start of deal ``number`` (1-based); a number out of range is refused."""
        try:
            self.go(self.record.deal_start(number))
        except IndexError as error:
            self._refuse(str(error))

    @property
    def at_end(self) -> bool:
        return self.index >= len(self.record.steps) - 1

    # -- playing ----------------------------------------------------------------------

    def toggle_play(self) -> None:
        """Space: play from here one move at a time, or pause (from the end: from the start)."""
        self.playing = not self.playing
        if self.playing and self.at_end:
            self.go(0)
        self._invalidate()

    def faster(self, steps: int) -> None:
        """``+``/``-``: the next speed up or down."""
        self.speed = next_speed(self.speed, steps)
        self._invalidate()

    def tick(self) -> None:
        """One beat of play: the next move, or (a summary up) close it after a pause."""
        if not self.playing:
            return
        if self.overlay == SUMMARY:
            if self._summary_since is not None and \
                    self.now() - self._summary_since < SUMMARY_PAUSE:
                return
            self.close_overlay()
            return
        if self.overlay is not None or self.flow is not None:
            return
        if self.at_end:
            self.playing = False
            self._invalidate()
            return
        self.next_move()

    async def _play(self) -> None:
        while True:
            await asyncio.sleep(1.0 / self.speed)
            self.tick()

    # -- the deal question ------------------------------------------------------------

    def ask_deal(self) -> None:
        """``g``: ask the deal's number on the question line."""
        if not self.record.deals:
            self._refuse("no deal was dealt at this table")
            return
        self.playing = False
        self.open_question(DealQuestion(self.record.deals),
                           "Type the deal's number and press Enter (Esc cancels).")

    def answer(self, flow: Question, text: str) -> None:
        self.close_question()
        text = text.strip()
        if not text.isdigit():
            self._refuse(f"a deal is a number from 1 to {self.record.deals}, not {text!r}")
            return
        self.go_to_deal(int(text))

    # -- what the panels ask ----------------------------------------------------------

    def position_text(self) -> str:
        """Where the replay is: the move and the deal."""
        record = self.record
        step = record.steps[self.index]
        deal = f"deal {step.deal}/{record.deals}" if step.deal else "no deal yet"
        return f" move {record.move_of(self.index)}/{len(record.moves) - 1} · {deal} "

    def action_bar(self, width: int) -> Line:
        if self.flow is not None:
            return pad([("class:bar.label", " Enter go · Esc back")], width, "class:bar")
        line: Line = [("class:bar.key", self.position_text())]
        for key, label in (("←→", "move"), ("[ ]", "deal"), ("g", "go to"),
                           ("Space", "pause" if self.playing else "play"),
                           ("+-", f"{self.speed:g}/s")):
            line.append(("class:bar.key", f" {key}"))
            line.append(("class:bar.label", f" {label} "))
        return pad(line, width, "class:bar")

    def press(self, key: str) -> None:
        """A key with no replay meaning: say so (nothing changes)."""
        shown = "Space" if key == " " else key
        self._refuse(f"the key {shown!r} does nothing in a replay (? lists the keys)")

    def _refuse(self, text: str) -> None:
        self.message = ("error", f"Not accepted: {text}")  # not logged: the log is the table's
        self._invalidate()

    def leave_now(self) -> None:
        """q: stop the replay (nobody to tell)."""
        if self._done is not None:
            self._done.set()

    def close_overlay(self) -> None:
        self._summary_since = None
        super().close_overlay()

    # -- running ----------------------------------------------------------------------

    async def run(self, playing: bool = False) -> None:
        """Show the replay until ``q`` (``playing``: start playing at once)."""
        self._done = asyncio.Event()
        await self.start()
        self.playing = playing
        player = asyncio.ensure_future(self._play())
        done = asyncio.ensure_future(self._done.wait())
        try:
            waiters = {done} | ({self._app_task} if self._app_task is not None else set())
            await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
        finally:
            try:
                for task in (player, done):
                    await stop_task(task)
            finally:
                await self.stop()


def replay_bindings(screen: ReplayScreen) -> KeyBindings:
    """The keys of a replay: moving through the table, playing, help, log, quit."""
    kb = KeyBindings()
    at_table = Condition(lambda: screen.overlay is None and screen.flow is None)
    moves: dict[str, Callable[[], None]] = {
        "right": screen.next_move, "n": screen.next_move,
        "left": screen.previous_move, "p": screen.previous_move,
        "]": screen.next_deal, "[": screen.previous_deal,
        "home": screen.go_home, "end": screen.go_end,
        "g": screen.ask_deal, " ": screen.toggle_play,
        "+": lambda: screen.faster(1), "=": lambda: screen.faster(1),
        "-": lambda: screen.faster(-1),
        "?": screen.show_help, "f1": screen.show_help, "q": screen.leave_now,
        "r": screen.show_history, "v": screen.toggle_details,
        "pageup": lambda: screen.scroll_log(5), "pagedown": lambda: screen.scroll_log(-5),
    }
    for key, action in moves.items():
        kb.add(key, filter=at_table)(lambda event, action=action: action())

    @kb.add("c-c", eager=True)
    def _quit(event: KeyPressEvent) -> None:
        screen.leave_now()

    add_reading_keys(kb, screen)
    return kb
