"""The simulations' clock: simulated time and a heap of timed actions, run in order.

Both simulations, the match's (``simulation.py``) and the evening's
(``evening.py``), are sans-IO: nothing sleeps, a run is a loop over this heap.
Actions due at the same moment run in the order they were put on it (a
sequence number breaks the tie, never the actions themselves), so one seed
gives one order of events: the replay the simulations promise. Every run is
bounded, in simulated time and in actions.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable


class Clock:
    """Simulated time (:attr:`now`) and the actions due, run by :meth:`run_until`."""

    def __init__(self) -> None:
        self.now = 0.0
        #: The actions run so far.
        self.events = 0
        self._heap: list[tuple[float, int, Callable[[], None]]] = []
        self._seq = 0

    def at(self, when: float, action: Callable[[], None]) -> None:
        """Run ``action`` at simulated time ``when`` (at once if that is past)."""
        self._seq += 1
        heapq.heappush(self._heap, (when, self._seq, action))

    def run_until(self, horizon: float, max_events: int,
                  settled: Callable[[], bool] = lambda: False) -> bool:
        """Run the actions due in time order until none is left, the next is due
        after ``horizon`` or ``settled()`` says the run is over; False when
        ``max_events`` actions ran with more still due."""
        while self._heap and self.events < max_events:
            when, _, action = heapq.heappop(self._heap)
            if when > horizon or settled():
                return True
            self.now = max(self.now, when)
            self.events += 1
            action()
        return not self._heap
