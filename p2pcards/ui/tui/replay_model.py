"""A saved table's screen at any step: the model a replay shows, however the step was reached.

The screen's :class:`~p2pcards.ui.tui.model.ScreenModel` is fed the very
events a live table gets and the view after each message, so every panel,
the log, the summaries and the end box are the table's own. Going forward
feeds the steps between; going back rebuilds the model from the first step
(nothing is checked again: the replay holds every step), so the screen at a
step is the same however it was reached. Both the terminal's replay and the
browser's step through a table this way, at the same speeds.
"""

from __future__ import annotations

from p2pcards.ui.replay_steps import Replay
from p2pcards.ui.tui.model import REPLAY, ScreenModel, SeatInfo

#: Moves per second the player may choose (faster and slower step through them).
SPEEDS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0)
DEFAULT_SPEED = 2.0
#: Seconds a deal's summary stays up while playing, before the next move.
SUMMARY_PAUSE = 3.0
#: The keys of a replay, as its help lists them (the terminal's and the browser's alike).
REPLAY_KEYS: tuple[tuple[str, str], ...] = (
    ("→  n", "next move"),
    ("←  p", "previous move"),
    ("]  [", "next deal / back to this deal's start (or the one before)"),
    ("g", "go to deal N (type its number, Enter)"),
    ("Home  End", "the start / the end of the table"),
    ("Space", "play or pause, one move at a time"),
    ("+  -", "play faster / slower"),
    ("PgUp PgDn", "scroll the log (or the mouse wheel)"),
    ("r", "the scoreboard and this deal's record"),
    ("v", "the log with every single cryptographic check, or one line per stage"),
    ("F1  ?", "this help"),
    ("q  Ctrl-C", "quit the replay"),
)



def model_at(record: Replay, index: int) -> ScreenModel:
    """The screen's model at step ``index``, built from the first step."""
    model = ScreenModel()
    model.link = REPLAY
    model.game, model.table_name = record.game, record.table
    players = tuple(SeatInfo(p.name, p.fingerprint, p.bot) for p in record.players)
    model.set_players(players, record.me_player)
    model.lobby = players  # the genesis lists all four: the lobby was full
    model.observer = record.me_player is None
    model.progress = "The table's genesis: four players, the seats not drawn yet."
    advance(model, record, 0, index)
    return model


def advance(model: ScreenModel, record: Replay, start: int, end: int) -> None:
    """Feed ``model`` steps ``start``..``end`` (inclusive), as a live table's screen is fed:
    a step's events, then the view after it. Only the last step's deal summary is
    kept up (a live player would have read the earlier ones)."""
    for step in record.steps[start:end + 1]:
        model.summary = None
        for event in step.events:
            model.apply(event)
        if record.me_seat is not None and model.seating is not None:
            model.me = record.me_seat
        if step.view is not None:
            model.set_view(step.view)


def moved(model: ScreenModel, record: Replay, now: int, index: int) -> ScreenModel:
    """The model at step ``index`` from ``model`` at step ``now`` (forward: fed the steps
    between; back: rebuilt), with the log's view kept as it was."""
    if index > now:
        advance(model, record, now + 1, index)
        return model
    if index == now:
        return model
    rebuilt = model_at(record, index)
    rebuilt.show_details = model.show_details
    return rebuilt


def next_speed(speed: float, steps: int) -> float:
    """The speed ``steps`` places up (or down) from the nearest to ``speed``."""
    index = min(range(len(SPEEDS)), key=lambda i: abs(SPEEDS[i] - speed))
    return SPEEDS[max(0, min(len(SPEEDS) - 1, index + steps))]
