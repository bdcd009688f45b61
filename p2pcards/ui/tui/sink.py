"""The session's event sink for the full screen: events and session reads into the screen's model.

A peer session reports what happens (``on_event``) from its own task; the
screen must take it in without touching the live table while a worker
thread changes it. :class:`ScreenEvents` applies every event to the
:class:`~p2pcards.ui.tui.model.ScreenModel`, and reads the session (its
players, seating and this seat's view) only on the session's own events,
which come between its steps, when the table is at rest. What is shown
over the table (a deal's summary, the end box) is the screen's business:
the sink tells it through :class:`EventScreen` after each event.
"""

from __future__ import annotations

from typing import Protocol

from p2pcards.net.session_events import (
    LinkDown,
    LinkUp,
    LobbyUpdate,
    Paths,
    Rejected,
    SessionEvent,
    SessionResult,
    Waiting,
)
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.events import (
    ActionApplied,
    CardsRevealed,
    Committed,
    HandReceived,
    KeyShareVerified,
    MatchCompleted,
    PlayersSeated,
    SharesVerified,
    ShuffleVerified,
    TableEnded,
)
from p2pcards.ui.text_common import clean
from p2pcards.ui.tui.model import Ending, ScreenModel
from p2pcards.ui.tui.source import SessionSource, players_of

#: Events a peer session emits between its steps (the table is then at rest).
SESSION_EVENTS = (LobbyUpdate, LinkUp, LinkDown, Waiting, Paths, Rejected, ProtocolError, Committed,
                  KeyShareVerified, PlayersSeated, ShuffleVerified, SharesVerified, HandReceived,
                  CardsRevealed, ActionApplied, MatchCompleted, TableEnded)


class EventScreen(Protocol):
    """The screen a :class:`ScreenEvents` feeds."""

    #: What the screen shows (replaced by a fresh one for a new table).
    model: ScreenModel

    @property
    def deciding(self) -> bool:
        """A decision is pending: its own view is shown, not the session's."""

    def view_taken(self) -> None:
        """The model took a new view of this seat from the session."""

    def event_shown(self, event: SessionEvent, at_rest: bool) -> None:
        """``event`` is in the model (``at_rest``: the session was read as well)."""


class ScreenEvents:
    """Feeds one screen's model from its session's events (call it with each event)."""

    def __init__(self, screen: EventScreen, source: SessionSource) -> None:
        self.screen = screen
        self.source = source

    def on_event(self, event: SessionEvent) -> None:
        """Take in an event of the session (called between the session's steps).

        Only the session's own events are a moment to read its table: the
        host's relay reports from its own task, perhaps while a worker
        thread changes the table.
        """
        self.read_observer()
        self.screen.model.apply(event)
        at_rest = isinstance(event, SESSION_EVENTS)
        if at_rest:
            self._read_session()
        if self.source.replaying() is not None:
            # A resumed seat's record told again: its deals' summaries were read before
            # the crash (the history keeps them); none pops up over the table now.
            self.screen.model.summary = None
            at_rest = False
        self.screen.event_shown(event, at_rest)

    __call__ = on_event

    def read_observer(self) -> None:
        """Whether the model has a seat of its own: not when the session is a spectator's."""
        self.screen.model.observer = self.source.spectating()

    def _read_session(self) -> None:
        model, seen = self.screen.model, self.source.snapshot()
        if not model.players:
            players = players_of(seen)
            if players:
                model.set_players(players, seen.me_player)
                model.game = seen.game or model.game
        if seen.seating is not None:
            model.seating = tuple(seen.seating)
        if seen.my_seat is not None:
            model.me = seen.my_seat
        if not self.screen.deciding:
            view = seen.view
            if view is not None:
                model.set_view(view)
                self.screen.view_taken()

    def ended(self, result: object) -> None:
        """The session returned ``result``: the model's end, unless an event already said it."""
        model = self.screen.model
        if model.ending is not None:
            return
        if isinstance(result, SessionResult) and result.outcome is not None:
            model.apply(MatchCompleted(result.outcome))
        elif isinstance(result, SessionResult) and result.verdict is not None:
            model.apply(TableEnded(result.verdict))
        else:
            reason = clean(getattr(result, "reason", "") or "the table closed", 200)
            model.ending = Ending("TABLE CLOSED", f"The table closed: {reason}.", "closed")
            model.note(f"The table closed: {reason}.", "warn")
