"""When the full screen warns that the clock is running out: once per mark, per decision.

The screen checks the clock once a second while it is this seat's turn, but
a warning (with the terminal's bell) must come once when 30 and once when 10
seconds are left, not every second after, and start over with the next
decision. :class:`ClockWarnings` remembers which marks were passed for
which decision; the screen says the words and rings the bell.
"""

from __future__ import annotations

from p2pcards.ui.text_common import CLOCK_WARNINGS


class ClockWarnings:
    """The clock marks (:data:`~p2pcards.ui.text_common.CLOCK_WARNINGS`) already
    announced for the decision being taken."""

    def __init__(self) -> None:
        self._warned: set[int] = set()
        self._decision: object = None

    def due(self, decision: object, left: int) -> bool:
        """Whether ``left`` seconds on ``decision`` passes a mark not announced yet
        (and so is announced now)."""
        if self._decision is not decision:
            self._decision, self._warned = decision, set()
        crossed = {mark for mark in CLOCK_WARNINGS if left <= mark}
        if not crossed - self._warned:
            return False
        self._warned |= crossed
        return True
