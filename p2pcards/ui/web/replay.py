"""``p2pcards replay --web``: a saved table stepped through in the browser.

The page is the table's own, fed as the full screen's replay feeds its
model (:mod:`p2pcards.ui.tui.replay_model`: the very events a live table
gets, and the view after each message), so the seats,
the board, the log, each deal's summary and the end box are the ones the
players saw. The page's buttons and keys move through it; nothing is
checked twice (the replay checked everything once, as ``verify`` does).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from p2pcards.net.stopping import stop_task
from p2pcards.ui.replay_steps import Replay
from p2pcards.ui.tui.replay_model import DEFAULT_SPEED, REPLAY_KEYS, SUMMARY_PAUSE, model_at, moved, next_speed
from p2pcards.ui.web.messages import BadMessage, text_field
from p2pcards.ui.web.page_games import Json
from p2pcards.ui.web.table import Echo, WebTable
from p2pcards.wiremap import WireMap


class WebReplay(WebTable):
    """A saved table on the browser's page (no seat, no session): :meth:`run` until quit."""

    help_keys = REPLAY_KEYS

    def __init__(self, record: Replay, *, speed: float = DEFAULT_SPEED, echo: Echo | None = None,
                 open_browser: bool = True) -> None:
        super().__init__(echo=echo, open_browser=open_browser)
        self.record = record
        self.index = 0
        self.playing = False
        self.speed = speed
        self.model = model_at(record, 0)
        self._done = asyncio.Event()
        self._summary_since: float | None = None

    # -- moving --------------------------------------------------------------------------

    def go(self, index: int) -> None:
        """Show the table at step ``index`` (forward: feed the steps between; back: rebuild)."""
        index = max(0, min(index, len(self.record.steps) - 1))
        self.model = moved(self.model, self.record, self.index, index)
        self.index = index
        self._summary_since = self.now() if self.model.summary is not None else None
        self.message = None

    @property
    def at_end(self) -> bool:
        return self.index >= len(self.record.steps) - 1

    def act(self, kind: str, message: WireMap) -> None:
        if kind != "replay":
            super().act(kind, message)
            return
        what = text_field(message, "do", 20)
        record = self.record
        moves: dict[str, Callable[[], int]] = {
            "next": lambda: record.next_move(self.index),
            "previous": lambda: record.previous_move(self.index),
            "next_deal": lambda: record.next_deal(self.index),
            "previous_deal": lambda: record.previous_deal(self.index),
            "start": lambda: 0, "end": lambda: len(record.steps) - 1,
        }
        if what in moves:
            self.go(moves[what]())
        elif what == "deal":
            self.go_to_deal(text_field(message, "deal", 8))
        elif what == "play":
            self.playing = not self.playing
            if self.playing and self.at_end:
                self.go(0)
        elif what in ("faster", "slower"):
            self.speed = next_speed(self.speed, 1 if what == "faster" else -1)
        elif what == "quit":
            self._done.set()
        else:
            raise BadMessage(f"a replay does not {what!r}")

    def go_to_deal(self, text: str) -> None:
        """The start of deal ``text`` (1-based); anything else is refused, saying why."""
        text = text.strip()
        try:
            if not text.isdigit():
                raise IndexError(f"a deal is a number from 1 to {self.record.deals}, not {text!r}")
            self.go(self.record.deal_start(int(text)))
        except IndexError as error:
            self.message = ("error", f"Not accepted: {error}")

    def close_summary(self) -> None:
        self._summary_since = None
        super().close_summary()

    # -- what the page shows -----------------------------------------------------------

    def end_box(self) -> Json:
        return {"ready": True, "again": None, "fill": False, "leave": "quit"}

    def extras(self) -> Json:
        record = self.record
        step = record.steps[self.index]
        deal = f"deal {step.deal}/{record.deals}" if step.deal else "no deal yet"
        return {"talk": False, "away": 0, "coach": False, "bells": 0, "replay": {
            "position": f"move {record.move_of(self.index)}/{len(record.moves) - 1} · {deal}",
            "playing": self.playing, "speed": f"{self.speed:g}", "deals": record.deals}}

    # -- running -----------------------------------------------------------------------

    def tick(self) -> None:
        """One beat of play: the next move, or (a summary up) close it after a pause."""
        if not self.playing:
            return
        if self.model.summary is not None:
            since = self._summary_since
            if since is None or self.now() - since >= SUMMARY_PAUSE:
                self.close_summary()
                self._invalidate()
            return
        if self.at_end:
            self.playing = False
        else:
            self.go(self.record.next_move(self.index))
        self._invalidate()

    async def _play(self) -> None:
        while True:
            await asyncio.sleep(1.0 / self.speed)
            self.tick()

    async def run(self, playing: bool = False) -> None:
        """Serve the replay until the page (or Ctrl-C) quits it (``playing``: play at once)."""
        await self.start()
        await self.opened()
        self.playing = playing
        self._invalidate()
        player = asyncio.ensure_future(self._play())
        try:
            await self._done.wait()
        finally:
            try:
                await stop_task(player)
            finally:
                await self.stop()
