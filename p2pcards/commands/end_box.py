"""A joiner's end box on its screen: opened the moment its match ends (while the
person still looks at the result and decides), told the choice when it is made,
and said in words as it goes: every choice and fill, the time left, and how it
ended (PROTOCOL.md §14). The rules are :class:`~p2pcards.protocol.end_box.EndBox`'s
and the links :class:`~p2pcards.net.rematch.EndBoxLink`'s; this only shows them.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from p2pcards.net.session_events import SessionResult
from p2pcards.protocol.again import LEAVE, Choice, Chosen
from p2pcards.protocol.end_box import (
    END_BOX_GRACE,
    END_BOX_WAIT,
    ChoiceHeard,
    EndBox,
    Ending,
    EndStated,
    FillHeard,
    Output,
    Over,
)
from p2pcards.ui.text_common import clean, quoted

if TYPE_CHECKING:
    from p2pcards.app.front import FrontEnd
    from p2pcards.net.rematch import EndBoxLink
    from p2pcards.protocol.identity import Identity

#: Seconds between refreshes of a full screen's time left.
TICK = 5.0
#: Seconds left at which a plain screen says the time left again.
MILESTONES = (60, 30, 10)


def chosen_line(names: Sequence[str], chosen: Chosen, me: int | None = None) -> str:
    """One choice heard at the end box, in words."""
    who = "You" if chosen.player == me else quoted(names[chosen.player])
    if chosen.choice == LEAVE:
        return f"End box: {who} left; the seat is free."
    return f"End box: {who} chose again."


def over_line(over: Over, box: EndBox, names: Sequence[str]) -> str:
    """How this end box ended, in words (the host's word, or what this end box saw)."""
    from p2pcards.evening_flow import evening_ended_line
    if over.ending in (Ending.REMATCH, Ending.TIMED_OUT, Ending.HOST_LEFT):
        return evening_ended_line(over.ending, box.count, names)
    if over.ending is Ending.LEFT:
        return ("End box: you left; the others were told." if not over.reason else
                f"End box: you left, but {clean(over.reason, 80)}; the evening ends here.")
    if over.ending is Ending.REFUSED:
        return f"End box: the host refused this seat ({clean(over.reason, 120)}); the evening ends here."
    if over.ending is Ending.HOST_GONE:
        return "End box: the host is gone (its table closed); the evening ends here."
    return (f"End box: no word from the host within {round(END_BOX_WAIT)} s; "
            f"the evening ends here.")


class Countdown:
    """The time left at an end box on a screen: the full screen's status line every
    :data:`TICK` s, a plain screen's line at a few moments (:data:`MILESTONES`)."""

    def __init__(self, front: FrontEnd, line: Callable[[float], str | None]) -> None:
        self.front, self.line = front, line
        self._said: str | None = None
        self._milestone = math.inf

    def show(self, now: float, left: float | None, changed: bool = False) -> None:
        """Show the line at ``now`` (``left``: seconds left; ``changed``: what it waits
        for changed, so a plain screen says it again)."""
        text = self.line(now)
        if text is None:
            return
        passed = [m for m in MILESTONES if left is not None and left <= m < self._milestone]
        if self._said is None or passed or changed or self.front.screen is not None:
            logged = self._said is None or bool(passed) or changed
            self.front.say_waiting(text, log=logged)
            self._said = text
            if passed:
                self._milestone = min(passed)

    def done(self) -> None:
        self.front.say_waiting(None)


class JoinerEndBox:
    """One joiner's end box for the match its session just finished."""

    def __init__(self, front: FrontEnd, identity: Identity, host: str, port: int,
                 fingerprint: bytes | str | None) -> None:
        self.front, self.identity = front, identity
        self.host, self.port, self.fingerprint = host, port, fingerprint
        self.link: EndBoxLink | None = None
        self.task: asyncio.Task[Over] | None = None
        self.names: tuple[str, ...] = ()
        self.me: int | None = None
        self._countdown: Countdown | None = None
        self._ticker: asyncio.Task[None] | None = None
        self.chosen = self.chosen_again = False

    async def after(self, run: Awaitable[SessionResult]) -> SessionResult:
        """Run a session; the moment its match ends normally, open its end box."""
        result = await run
        self.open(result)
        return result

    def open(self, result: SessionResult) -> bool:
        """Open the end box of the session's finished match (once); False when there is
        none (no match ended normally here)."""
        from p2pcards.net.rematch import EndBoxLink
        session = self.front.session
        table = getattr(session, "table", None)
        if self.task is not None or result.outcome is None or table is None \
                or table.me_player is None:
            return self.task is not None
        loop = asyncio.get_running_loop()
        self.names = tuple(p.name for p in table.players)
        self.me = table.me_player
        box = EndBox(table.finished(), tuple(p.public_key for p in table.players), loop.time())
        self.link = EndBoxLink(self.identity, self.host, self.port, box, table.next_position,
                               expected_peer=self.fingerprint, on_output=self._told)
        self.task = loop.create_task(self.link.run())
        if self.front.chooses_at_end:  # a person: the time left while he decides, too
            self._start_countdown()
        return True

    def _start_countdown(self) -> None:
        if self._ticker is None:
            self._countdown = Countdown(self.front, self._waiting_line)
            self._ticker = asyncio.get_running_loop().create_task(self._tick())

    @property
    def box(self) -> EndBox:
        assert self.link is not None
        return self.link.box

    def choose(self, mine: Choice) -> None:
        """The person's (or the script's) signed choice."""
        assert self.link is not None
        self.chosen, self.chosen_again = True, mine.choice != LEAVE
        self.link.choose(mine)
        if self._countdown is not None:
            self._countdown.show(asyncio.get_running_loop().time(),
                                 self.box.shown_end - asyncio.get_running_loop().time(),
                                 changed=True)
        self._start_countdown()

    async def over(self) -> Over:
        """Until the end box ended; its last words said."""
        assert self.task is not None
        try:
            over = await self.task
        finally:
            if self._ticker is not None:
                self._ticker.cancel()
            if self._countdown is not None:
                self._countdown.done()
        self.front.say(over_line(over, self.box, self.names))
        return over

    def opening_line(self) -> str:
        """What the end box says when it opens (before the person chose)."""
        return (f"End box: open for {round(END_BOX_WAIT)} s: choose again for a rematch with "
                f"the same players, or leave. A player away {round(END_BOX_GRACE)} s without "
                f"choosing loses the seat to whoever comes.")

    def _waiting_line(self, now: float) -> str | None:
        box = self.box
        if box.done:
            return None
        left = max(0, round(box.shown_end - now))
        if not self.chosen:
            return f"End box: choose again for a rematch, or leave ({left} s left)."
        if self.chosen_again:
            return f"End box: you chose again; waiting for the others ({left} s left)."
        return f"End box: you leave; telling the host ({left} s left)."

    async def _tick(self) -> None:
        loop = asyncio.get_running_loop()
        while self._countdown is not None and not self.box.done:
            self._countdown.show(loop.time(), self.box.shown_end - loop.time())
            await asyncio.sleep(TICK)

    def _told(self, out: Output) -> None:
        from p2pcards.evening_flow import fill_line
        if isinstance(out, ChoiceHeard):
            if out.chosen.player != self.me:  # its own is said as it is made
                self.front.say(chosen_line(self.names, out.chosen, self.me))
        elif isinstance(out, FillHeard):
            self.front.say(fill_line(out.fill, self.names, self.identity.public_key))
        elif isinstance(out, EndStated) and self._countdown is not None:
            self._countdown.show(asyncio.get_running_loop().time(),
                                 out.at - asyncio.get_running_loop().time())


__all__ = ["Countdown", "JoinerEndBox", "chosen_line", "over_line"]
