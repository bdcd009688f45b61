"""One person's seat in the browser: the full screen's seat, shown as a page.

:class:`WebSeat` is what the command line hands a session instead of the
full screen (``--web``): the same :class:`~p2pcards.ui.tui.seatside.SeatSide`
— its agent (``decide``), its event sink (``on_event``, feeding the same
model) and the run of each table (the end box's choice), the coach, away,
talk, leaving — drawn by a :class:`~p2pcards.ui.web.table.WebTable` instead
of a terminal. What differs is how the person answers: the page sends a
choice (a key with the cards chosen, a discard's rank and stake, a chat
line), and the seat checks it exactly as the full screen checks a key press
(:func:`p2pcards.ui.tui.keymap.press`, the referee's ``check`` behind it). A
choice the rules refuse changes nothing; the status line says why in the
referee's words.
"""

from __future__ import annotations

import asyncio

from p2pcards.net.stopping import stop_task
from p2pcards.rules.contract import Engine
from p2pcards.ui.plain import Coach
from p2pcards.ui.text import labelled_hand
from p2pcards.ui.tui import keymap
from p2pcards.ui.tui.keymap import DiscardFlow, Refused
from p2pcards.ui.tui.seatside import SeatSide
from p2pcards.ui.tui.source import SessionGetter
from p2pcards.ui.web.messages import BadMessage, slots_field, text_field
from p2pcards.ui.web.page_games import Json
from p2pcards.ui.web.table import Echo, WebTable
from p2pcards.wiremap import WireMap

#: Seconds between the clock's redraws (and its warnings).
TICK = 1.0
#: The end box's choices as the page sends them, as the full screen's keys.
_END_KEYS = {"again": "n", "quit": "q"}


class WebSeat(SeatSide, WebTable):
    """A person's seat at a table, in the browser (see the module's docstring).

    The options are the full screen's: ``offer_again`` and ``again_label``
    (the end box's new table or rematch), ``summary_seconds``, ``bell`` (the
    page beeps with the clock's warnings), ``coach`` (None: hints refused).
    """

    def __init__(self, session: SessionGetter | None = None, *, offer_again: bool = False,
                 again_label: str = "a new table", summary_seconds: float | None = None,
                 bell: bool = True, coach: Coach | None = None, echo: Echo | None = None,
                 open_browser: bool = True) -> None:
        super().__init__(summary_seconds=summary_seconds, echo=echo, open_browser=open_browser)
        self.offer_again = offer_again
        self.again_label = again_label
        self.end_ready = False
        self._take_seat(session, coach, bell)
        #: Clock warnings so far: the page beeps when it grows.
        self.bells = 0
        self._ticking: asyncio.Task[None] | None = None

    # -- what the agent and the events tell the seat ----------------------------------------

    def decision_forced(self, view: Engine) -> None:
        self.model.set_view(view)
        self.model.note("Your discard was called: revealing it.", "info")
        self._invalidate()

    def decision_opened(self, view: Engine) -> None:
        self.model.set_view(view)
        self.message = None
        self._invalidate()

    def decision_closed(self) -> None:
        self._invalidate()

    # -- what the page shows -------------------------------------------------------------

    def shown_view(self) -> Engine | None:
        pending = self.agent.pending
        return pending.view if pending is not None else self.model.view

    def deciding_view(self) -> Engine | None:
        pending = self.agent.waiting
        return pending.view if pending is not None else None

    def end_box(self) -> Json:
        return {"ready": self.end_ready, "again": self.again_label if self.offer_again else None,
                "fill": self._can_fill(), "leave": "leave"}

    def extras(self) -> Json:
        pending = self.agent.waiting
        clocked = self.model.seconds_left(self.now()) is not None
        return {
            "away": pending.pauses_left if pending is not None and clocked else 0,
            "coach": self.coach is not None and pending is not None,
            "talk": (self.model.ending is None and not self.model.observer
                     and self.source.session is not None),
            "bells": self.bells if self.bell else 0,
            "fill": self._can_fill(),
            # Which decision the controls are for: the transcript position it writes.
            "decision": pending.decision.position if pending is not None
            and pending.decision is not None else None,
        }

    def history_text(self) -> list[str]:
        """The scoreboard and this deal's record, then the evening so far (``play``)."""
        return self._with_evening(super().history_text())

    # -- what the page sends -----------------------------------------------------------------

    def act(self, kind: str, message: WireMap) -> None:
        if kind == "key":
            self.press(text_field(message, "key", 8), slots_field(message),
                       text_field(message, "rank", 4), text_field(message, "stake", 12))
        elif kind == "away":
            self.take_pause()
        elif kind == "coach":
            self.ask_coach()
        elif kind == "say":
            if self._talk(text_field(message, "text", 400)):
                self.message = None
        elif kind == "leave":
            self.leave_now()
        elif kind == "end":
            if self.model.ending is None:
                raise BadMessage("the end box's choice comes once the table is over")
            self._end_key(_END_KEYS.get(text_field(message, "choice", 8), "?"))
        elif kind == "fill":
            self._fill()
        else:
            super().act(kind, message)

    def press(self, key: str, slots: list[int], rank: str = "", stake: str = "") -> None:
        """A game key with the cards chosen on the page (and a discard's rank and stake):
        the full screen's own key, checked by the referee the same way."""
        if self.model.ending is not None:
            self._end_key(key)
            return
        pending = self.agent.waiting
        if pending is None:
            self._refuse("it is not your turn: nothing was played")
            return
        hand = labelled_hand(pending.view, self.model.me) if self.model.me is not None else []
        picked = set(slots)
        chosen = [entry for entry in hand if entry.slot in picked]
        try:
            outcome = keymap.press(key, pending.view, chosen, chosen[0] if chosen else None)
            if isinstance(outcome, DiscardFlow):
                outcome = _complete(outcome, rank, stake)
        except Refused as refusal:
            self._refuse(str(refusal))
            return
        self.message = None
        self.agent.choose(outcome)
        self._invalidate()

    # -- the clock -------------------------------------------------------------------------

    async def _tick(self) -> None:
        """Once a second: the clocks on the page, the warnings at 30 and 10 seconds."""
        while True:
            await asyncio.sleep(TICK)
            if self._clock_warning(self.now()):
                self.bells += 1
            if (self.model.seconds_left(self.now()) is not None or self.model.dropped
                    or self.summary_until is not None):
                self._invalidate()

    # -- running ---------------------------------------------------------------------------

    async def start(self) -> None:
        if self.app_task is None:
            self.runner.ready()
            self.events.read_observer()
            await super().start()
            self._ticking = asyncio.ensure_future(self._tick())

    async def stop(self) -> None:
        ticking, self._ticking = self._ticking, None
        if ticking is not None:
            await stop_task(ticking)
        try:
            await self._stop_coaching()
        finally:
            await super().stop()


def _complete(flow: DiscardFlow, rank: str, stake: str) -> object:
    """A discard chosen on the page: its rank (when leading) and stake answer the full
    screen's questions in turn; :class:`Refused` for an answer the rules refuse."""
    for _ in range(3):  # rank, stake, done: at most three steps
        answer = {"rank": rank, "stake": stake}.get(flow.step, "")
        action = flow.answer(answer)
        if action is not None:
            return action
    raise Refused("choose the rank to claim and the stake beside the cards")
