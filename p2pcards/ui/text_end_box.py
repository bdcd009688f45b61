"""The end box in words, on any screen (PROTOCOL.md §14): every choice and fill heard,
who took a freed seat, how the end box ended, and the time left while it waits.

The rules are the protocol's (:mod:`p2pcards.protocol.end_box`,
:mod:`p2pcards.protocol.end_box_host`); the host's and every joiner's screen say
them in these same words (:mod:`p2pcards.evening`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Protocol

from p2pcards.protocol.again import LEAVE, AgainCount, Chosen
from p2pcards.protocol.end_box import END_BOX_WAIT, EndBox, Ending, Over
from p2pcards.protocol.seat_fill import Fill
from p2pcards.ui.text_common import clean, quoted

#: Seconds left at which a plain screen says the time left again.
MILESTONES = (60, 30, 10)


def chosen_line(names: Sequence[str], chosen: Chosen, me: int | None = None) -> str:
    """One choice heard at the end box, in words."""
    who = "You" if chosen.player == me else quoted(names[chosen.player])
    if chosen.choice == LEAVE:
        return f"End box: {who} left; the seat is free."
    return f"End box: {who} chose again."


def evening_ended_line(ending: Ending | None, count: AgainCount, names: Sequence[str]) -> str:
    """How an end box ended, in words, from what it holds (the host's and every joiner's
    screen say it): the rematch, or why the evening ends."""
    if ending is Ending.REMATCH:
        return "End box: every seat is taken: the rematch starts."
    if ending is Ending.HOST_LEFT:
        return "End box: the host left; the evening ends here."
    if ending is Ending.TIMED_OUT:
        never = [quoted(names[p]) for p in count.undecided if p not in count.vacated]
        free = [quoted(names[p]) for p in count.free]
        why = []
        if never:
            why.append(f"{', '.join(never)} never chose")
        if free:
            why.append(f"nobody took the seat of {', '.join(free)}")
        reason = "; ".join(why) or "not every seat was taken again"
        return (f"End box: the wait ran out ({round(END_BOX_WAIT)} s): {reason}; "
                f"the evening ends here.")
    return "End box: not every seat was taken again; the evening ends here."


def over_line(over: Over, box: EndBox, names: Sequence[str]) -> str:
    """How a joiner's end box ended, in words (the host's word, or what it saw)."""
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


def filled_line(leaver: str, taker: str) -> str:
    """Who took a freed seat, said on the host's screen when it fills it."""
    return f"End box: {quoted(leaver)}'s seat goes to the bot {quoted(taker)}."


def fill_line(made: Fill, names: Sequence[str] | None = None, me: bytes | None = None) -> str:
    """What every end box says when the host tells a fill: who takes which seat
    (``names``: the finished match's, to name the leaver; ``me``: this seat's key)."""
    whose = f" ({quoted(names[made.player])}'s)" if names is not None else ""
    who = "You take" if made.public_key == me else \
        f"{quoted(made.name)}{' (bot)' if made.bot else ''} takes"
    return f"End box: {who} seat {made.seat}{whose}."


def takers_of(previous: Sequence[tuple[bytes, str]], now: Sequence[tuple[bytes, str]]) -> list[str]:
    """What a joiner says when its rematch's genesis names someone else in a seat of the
    match before (keys and names in join order): who took each freed seat."""
    return [f"Rematch: {quoted(old)}'s seat went to {quoted(new)}."
            for (old_key, old), (new_key, new) in zip(previous, now, strict=False)
            if old_key != new_key]


class WaitingScreen(Protocol):
    """Where an end box says what it waits for: a full screen keeps the line on its
    status line (``screen`` set), a plain screen prints it."""

    @property
    def screen(self) -> object | None: ...

    def say_waiting(self, text: str | None, log: bool = True) -> None: ...


class Countdown:
    """The time left at an end box on a screen: the full screen's status line at every
    refresh, a plain screen's line at a few moments (:data:`MILESTONES`)."""

    def __init__(self, front: WaitingScreen, line: Callable[[float], str | None]) -> None:
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
