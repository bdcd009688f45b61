"""One person's seat in the browser: the full screen's agent, events and run, shown as a page.

:class:`WebSeat` is what the command line hands a session instead of the
full screen (``--web``): its agent (``decide``, the full screen's
:class:`~p2pcards.ui.tui.agent.SeatAgent`), its event sink (``on_event``,
the full screen's :class:`~p2pcards.ui.tui.sink.ScreenEvents`, feeding the
same model) and the run of each table (:class:`~p2pcards.ui.tui.run.TableRun`:
the end box's choice). What differs is how the person answers: the page
sends a choice (a key with the cards chosen, a discard's rank and stake,
a chat line), and the seat checks it exactly as the full screen checks a
key press (:func:`p2pcards.ui.tui.keymap.press`, the referee's ``check``
behind it). A choice the rules refuse changes nothing; the status line
says why in the referee's words.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Protocol, TypeVar, cast

from p2pcards.net.session_events import Decision, SessionEvent, SessionResult
from p2pcards.net.stopping import stop_task
from p2pcards.protocol.events import MatchCompleted
from p2pcards.protocol.table_settings import PAUSE_SECONDS
from p2pcards.protocol.talk import TalkRefused
from p2pcards.rules.contract import Engine
from p2pcards.ui.evening import EveningTally
from p2pcards.ui.plain import Coach
from p2pcards.ui.text import labelled_hand
from p2pcards.ui.text_common import HINTS_OFF, clean, no_pause
from p2pcards.ui.tui import keymap
from p2pcards.ui.tui.agent import PendingDecision, SeatAgent
from p2pcards.ui.tui.clockwarn import ClockWarnings
from p2pcards.ui.tui.keymap import DiscardFlow, Refused, TalkFlow
from p2pcards.ui.tui.model import ScreenModel
from p2pcards.ui.tui.run import TableRun
from p2pcards.ui.tui.sink import ScreenEvents
from p2pcards.ui.tui.source import SessionGetter, SessionSource
from p2pcards.ui.web.messages import BadMessage, slots_field, text_field
from p2pcards.ui.web.page_games import Json
from p2pcards.ui.web.table import Echo, WebTable
from p2pcards.wiremap import WireMap

if TYPE_CHECKING:
    from p2pcards.ui.tui.screen import SeatFiller

#: What a table's session returns (its result, or a spectator's).
R = TypeVar("R")
#: Seconds between the clock's redraws (and its warnings).
TICK = 1.0


class _Talking(Protocol):
    """A session with table talk (a player's; a spectator only listens)."""

    def say(self, text: str) -> object: ...


class WebSeat(WebTable):
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
        self.bell = bell
        self.coach = coach
        self.source = SessionSource(session or (lambda: None))
        self.agent = SeatAgent(self)
        self.events = ScreenEvents(self, self.source)
        self.runner = TableRun(self)
        self.warnings = ClockWarnings()
        #: The evening so far at this screen (shown where a new table is offered: ``play``).
        self.evening = EveningTally()
        #: The host's end box count while it waits (the page's "a bot takes the seat").
        self.filler: SeatFiller | None = None
        #: The end box offers its choices (nothing is closing any more).
        self.end_ready = False
        #: Clock warnings so far: the page beeps when it grows.
        self.bells = 0
        self._coaching: asyncio.Task[None] | None = None
        self._ticking: asyncio.Task[None] | None = None

    # -- what the session calls ----------------------------------------------------------

    async def decide(self, view: Engine, decision: Decision | None = None) -> object:
        """Offer ``view``'s legal choices on the page; the legal action the person completes."""
        return await self.agent.decide(view, decision)

    def on_event(self, event: SessionEvent) -> None:
        self.events.on_event(event)

    __call__ = on_event

    @property
    def pending(self) -> PendingDecision | None:
        return self.agent.pending

    # -- what the agent, the events and the run tell the seat ----------------------------

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

    @property
    def deciding(self) -> bool:
        return self.agent.pending is not None

    def view_taken(self) -> None:
        return None

    def event_shown(self, event: SessionEvent, at_rest: bool) -> None:
        if isinstance(event, MatchCompleted) and self.offer_again:
            self.evening.take(event.outcome, self.model.names())
            self.model.evening = self.evening.lines()
        self._invalidate()

    def end_shown(self) -> None:
        self.end_ready = True
        self._invalidate()

    def new_table(self) -> None:
        """Forget the last table (keep the log) before the next one's events arrive."""
        log, details, show = self.model.log, self.model.details, self.model.show_details
        self.model = ScreenModel()
        self.model.log, self.model.details, self.model.show_details = log, details, show
        self.model.note("— a new table —", "info")
        self.agent.pending = None
        self.message = None
        self.end_ready = False
        self._invalidate()

    def waiting(self, text: str | None, log: bool = True) -> None:
        """An end box after "again": what it waits for (and the time left), in the log
        (unless ``log`` is off: a refresh) and on the status line — in the end box on the
        page — until the wait is over (None)."""
        if text is not None and log:
            self.model.note(clean(text, 300), "info")
        self.message = None if text is None else ("info", clean(text, 300))
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
        playing = self.model.ending is None
        return {
            "away": pending.pauses_left if pending is not None and clocked else 0,
            "coach": self.coach is not None and pending is not None,
            "talk": playing and not self.model.observer and self.source.session is not None,
            "bells": self.bells if self.bell else 0,
            "fill": self._can_fill(),
            # Which decision the controls are for: the transcript position it writes.
            "decision": pending.decision.position if pending is not None
            and pending.decision is not None else None,
        }

    def history_text(self) -> list[str]:
        """The scoreboard and this deal's record, then the evening so far (``play``)."""
        lines = super().history_text()
        evening = self.evening.lines()
        return lines + ([""] + evening if evening else [])

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
            self.say(text_field(message, "text", 400))
        elif kind == "leave":
            self.leave_now()
        elif kind == "end":
            self.choose(text_field(message, "choice", 8))
        elif kind == "fill":
            self._fill()
        else:
            super().act(kind, message)

    def press(self, key: str, slots: list[int], rank: str = "", stake: str = "") -> None:
        """A game key with the cards chosen on the page (and a discard's rank and stake):
        the full screen's own key, checked by the referee the same way."""
        if self.model.ending is not None:
            self.choose({"n": "again", "q": "quit"}.get(key, key))
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

    def take_pause(self) -> None:
        """Away: more time for this move, taking one of the table's pauses."""
        pending = self.agent.waiting
        if pending is None:
            self._refuse("away is for your own turn, to get more time for it")
            return
        if pending.pauses_left <= 0:
            self._refuse(no_pause(pending.decision.deadline if pending.decision else None))
            return
        self.message = ("info", f"Away: {PAUSE_SECONDS // 60} more minutes on this move, "
                                f"for every player's clock.")
        self.agent.step_away()
        self._invalidate()

    def ask_coach(self) -> None:
        """The coach's move for this turn and why, at a table that allows hints."""
        if self.coach is None:
            self._refuse(HINTS_OFF)
            return
        pending = self.agent.waiting
        if pending is None:
            self._refuse("the coach advises on your own turn")
            return
        if self._coaching is not None and not self._coaching.done():
            self.message = ("info", "The coach is still thinking…")
            return
        self.message = ("info", "The coach is thinking…")
        self._coaching = asyncio.ensure_future(self._ask(self.coach, pending))

    async def _ask(self, coach: Coach, pending: PendingDecision) -> None:
        position = pending.decision.position if pending.decision is not None else 0
        line = await coach(pending.view, self.model.names(), position, True)
        if self.agent.pending is not pending:
            return  # the turn is over: its advice is moot
        if line.startswith("Not accepted: "):
            self._refuse(line.removeprefix("Not accepted: ").rstrip("."))
            return
        self.message = ("info", line)
        self.model.note(line, "info")
        self._invalidate()

    def say(self, text: str) -> None:
        """A chat line (a lone 1-6: a quick reaction), signed and sent by the session."""
        session = self.source.session
        try:
            line = TalkFlow().answer(text)
            if session is None or getattr(session, "talk", None) is None:
                raise Refused("there is nobody to talk to yet: the table has not started")
            cast(_Talking, session).say(line)  # a player's session: it has a table talk
        except (Refused, TalkRefused) as refusal:
            self._refuse(str(refusal))
            return
        self.message = None

    def leave_now(self) -> None:
        """Leave the table (the page asked first): the other players are told."""
        if self.model.ending is not None:
            self.runner.choose("quit")
            return
        if self.agent.leaving:
            return
        self.model.note("You are leaving the table; telling the other players.", "warn")
        self.message = ("info", "Leaving: telling the other players and closing the table…")
        self.agent.leave()
        self.runner.leave()

    def choose(self, choice: str) -> None:
        """The end box's choice: ``again`` (where offered) or ``quit``."""
        if self.model.ending is None:
            raise BadMessage("the end box's choice comes once the table is over")
        if choice == "again" and self.offer_again:
            self.runner.choose("again")
        elif choice == "quit":
            self.runner.choose("quit")
        else:
            again = f"again for {self.again_label}, " if self.offer_again else ""
            self.message = ("info", f"The table is over: {again}leave to leave.")

    def _can_fill(self) -> bool:
        return self.filler is not None and self.filler.seat_free

    def _fill(self) -> None:
        """While the host waits at the end box: a bot takes the first free seat."""
        if self.filler is None or not self.filler.seat_free:
            self._refuse("no seat is free for a bot now")
            return
        said = self.filler.fill_free_seat()
        if said is not None:
            self.note(said)

    # -- the clock -------------------------------------------------------------------------

    async def _tick(self) -> None:
        """Once a second: the clocks on the page, the warnings at 30 and 10 seconds."""
        while True:
            await asyncio.sleep(TICK)
            left = self.model.seconds_left(self.now())
            pending = self.agent.waiting
            if left is not None and pending is not None and self.warnings.due(pending, left):
                self.message = ("warn", f"{left} seconds left to move: after that the others "
                                        f"end the table naming you.")
                self.bells += 1
            if left is not None or self.model.dropped or self.summary_until is not None:
                self._invalidate()

    # -- running ---------------------------------------------------------------------------

    async def start(self) -> None:
        if self.app_task is None:
            self.runner.ready()
            self.events.read_observer()
            await super().start()
            self._ticking = asyncio.ensure_future(self._tick())

    async def play(self, run: Awaitable[R]) -> R | SessionResult:
        """Run one table's session (``run``) until it ends or the person leaves; then the
        end box waits for the person's choice (see :class:`~p2pcards.ui.tui.run.TableRun`)."""
        return await self.runner.play(run)

    @property
    def again(self) -> bool:
        """After :meth:`play`: the person asked for a new table."""
        return self.runner.again

    async def stop(self) -> None:
        for task in (self._coaching, self._ticking):
            if task is not None and not task.done():
                await stop_task(task)
        self._coaching = self._ticking = None
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
