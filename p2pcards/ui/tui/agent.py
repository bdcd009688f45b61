"""The seat's agent on the full screen: a decision waits as a future that the person's keys settle.

The session asks the agent for this seat's action (the
:class:`~p2pcards.net.peer.Agent` protocol) and awaits it, but the person
answers later, by keys, on the same loop. So :class:`SeatAgent` keeps the
question as a :class:`PendingDecision` holding a future: the screen reads
its view to offer the legal keys, and settles it with the action chosen, a
pause (:class:`~p2pcards.net.session_events.TakePause`) or the person
leaving (:class:`~p2pcards.ui.plain.PlayerQuit`). The agent knows nothing
of keys or drawing: it tells a :class:`DecisionDisplay` when a decision
opens and closes.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Protocol

from p2pcards.net.session_events import Decision, TakePause
from p2pcards.rules.contract import Engine
from p2pcards.ui.plain import NothingToDecide, PlayerQuit


@dataclass
class PendingDecision:
    """A decision the session is waiting for: this seat's view and the future it awaits."""

    view: Engine
    decision: Decision | None
    future: asyncio.Future[object]

    @property
    def pauses_left(self) -> int:
        """The table's pauses this player may still take (0: none, or no clock to pause)."""
        return self.decision.pauses_left if self.decision is not None else 0


class DecisionDisplay(Protocol):
    """What the agent tells the screen about its decisions."""

    def decision_forced(self, view: Engine) -> None:
        """The rules chose this seat's action for it (a called Bluff discard is shown)."""

    def decision_opened(self, view: Engine) -> None:
        """A decision is pending: offer the legal keys for ``view``."""

    def decision_closed(self) -> None:
        """The pending decision was settled (or cancelled): the keys no longer act."""


class SeatAgent:
    """The seat's :class:`~p2pcards.net.peer.Agent`: one pending decision at a time,
    settled by :meth:`choose`, :meth:`step_away` or :meth:`leave`."""

    def __init__(self, display: DecisionDisplay) -> None:
        self.display = display
        self.pending: PendingDecision | None = None
        #: The person left (or is leaving) the table: no decision is taken any more.
        self.leaving = False

    async def decide(self, view: Engine, decision: Decision | None = None) -> object:
        """Offer ``view``'s legal actions and return the one the person completes.

        Raises :class:`NothingToDecide` if this seat is not to act in ``view``,
        :class:`PlayerQuit` if the person left, :class:`TakePause` if he steps away.
        """
        me = view.viewer if view.viewer is not None else view.to_act
        if view.to_act is None or view.to_act != me:
            raise NothingToDecide(f"seat {me} is not to act in this view")
        if self.leaving:
            raise PlayerQuit("the player left the table")
        forced = view.forced_action()
        if forced is not None:
            self.display.decision_forced(view)
            return forced
        future: asyncio.Future[object] = asyncio.get_running_loop().create_future()
        self.pending = PendingDecision(view, decision, future)
        self.display.decision_opened(view)
        try:
            return await future
        finally:
            self.pending = None
            self.display.decision_closed()

    @property
    def waiting(self) -> PendingDecision | None:
        """The pending decision if it is not settled yet, else None."""
        pending = self.pending
        return pending if pending is not None and not pending.future.done() else None

    def choose(self, action: object) -> None:
        """Settle the pending decision with ``action`` (nothing pending: nothing happens)."""
        pending = self.waiting
        if pending is not None:
            pending.future.set_result(action)

    def step_away(self) -> None:
        """Settle the pending decision with a pause (the caller checked one is left)."""
        pending = self.waiting
        if pending is None:
            raise NothingToDecide("no decision is pending: there is no move to step away from")
        pending.future.set_exception(TakePause("the player stepped away"))

    def leave(self) -> None:
        """The person leaves: a pending decision raises :class:`PlayerQuit`, and so does any later one."""
        self.leaving = True
        pending = self.waiting
        if pending is not None:
            pending.future.set_exception(PlayerQuit("the player left the table"))
