"""What the boxes over the table say: help, "leave the table?", a deal's summary, the end.

The end box shows the result of a match (each seat's chips or score, the
winners) or, loudly, the verdict of a table that ended early, with the
keys that follow: a new table (``p2pcards play``) or leave.
"""

from __future__ import annotations

from p2pcards.rules.contract import Outcome
from p2pcards.ui.text_common import game_name, plural
from p2pcards.ui.tui.helptext import KEY_COLUMN, KeyRows, help_text
from p2pcards.ui.tui.lines import Line, Lines, fit, pack, wrapped
from p2pcards.ui.tui.model import REPLAY, ScreenModel

CONFIRM_TEXT = "Leave the table? The other players are told, and the table ends."


def _help_rows(game: str | None, width: int, keys: KeyRows | None = None) -> Lines:
    rows: Lines = []
    for line in help_text(game, keys):
        if not line:
            rows.append([])
        elif line.startswith("  "):
            rows.extend(wrapped(line, width, "", indent=" " * KEY_COLUMN))
        else:
            rows.extend(wrapped(line, width, "class:value" if line.endswith(":") else "",
                                indent=""))
    return rows


def help_lines(game: str | None, offset: int, width: int, height: int,
               keys: KeyRows | None = None) -> Lines:
    """The help text from line ``offset`` (the help scrolls with ↑ ↓ PgUp PgDn)."""
    rows = _help_rows(game, width, keys)
    last = max(0, len(rows) - height + 1)
    start = max(0, min(offset, last))
    shown = rows[start:start + height - 1]
    more = "↑↓ scroll · " if len(rows) > height - 1 else ""
    shown.append([("class:dim", f"{more}any other key closes")])
    return fit(shown, width, height)


def help_length(game: str | None, width: int, keys: KeyRows | None = None) -> int:
    return len(_help_rows(game, width, keys))


def confirm_lines(width: int, height: int) -> Lines:
    lines = wrapped(CONFIRM_TEXT, width)
    lines.append([])
    lines.append([("class:dialog.key", " y "), ("", " leave   "),
                  ("class:dialog.key", " n "), ("", " stay at the table")])
    return fit(lines, width, height)


def summary_lines(model: ScreenModel, seconds_left: int | None, width: int,
                  height: int) -> Lines:
    """A finished deal's summary, and how it goes away: any key, or a countdown."""
    summary = model.summary
    if summary is None:
        return []
    lines: Lines = []
    for text in summary.lines:
        lines.extend(wrapped(text, width))
    lines.append([])
    if seconds_left is None:
        lines.append([("class:dim", "any key: back to the table")])
    else:
        lines.append([("class:dim", f"the table goes on in {seconds_left} s · any key: now")])
    return fit(lines, width, height)


def history_lines(text: list[str], width: int, height: int) -> Lines:
    """The scoreboard and the record (``r``); any key closes it."""
    lines: Lines = []
    for line in text:
        lines.extend(wrapped(line, width, indent="    ") if line else [[]])
    lines = lines[-(height - 1):] if len(lines) > height - 1 else lines
    lines.append([("class:dim", "any key closes")])
    return fit(lines, width, height)


def summary_height(model: ScreenModel, width: int) -> int:
    summary = model.summary
    if summary is None:
        return 1
    return sum(len(wrapped(text, width)) for text in summary.lines) + 2


#: What a game's standings count, by the name of the outcome's game.
_STANDINGS_UNIT = {"bluff": "chip", "topper": "point"}


def _seat_results(model: ScreenModel) -> Lines:
    outcome = model.outcome
    unit = _STANDINGS_UNIT.get(game_name(outcome) or "")
    if not isinstance(outcome, Outcome) or unit is None:
        return []
    values = outcome.standings
    rows: Lines = []
    for seat, value in enumerate(values):
        info = model.seat_info(seat)
        name = ("You" if seat == model.me else "") + (
            f" ({info.name})" if info and seat == model.me else (info.name if info else ""))
        mark: Line = [("class:result", "  ★ winner")] if seat in outcome.winners else []
        row: Line = [("", f"Seat {seat} · "), ("class:seat.name", name.strip() or f"Seat {seat}"),
                     ("", f": {plural(value, unit)}")]
        rows.append(row + mark)
    return rows


def ending_lines(model: ScreenModel, offer_again: bool, ready: bool,
                 width: int, height: int, again_label: str = "a new table") -> Lines:
    """The end box: what happened, the results by seat, the keys (once the table closed)."""
    ending = model.ending
    if ending is None:
        return []
    lines: Lines = wrapped(ending.text, width)
    results = _seat_results(model)
    if results:
        lines.append([])
        lines.extend(line for row in results for line in pack([row], width))
    if model.evening:
        lines.append([])
        for text in model.evening:
            lines.extend(wrapped(text, width))
    lines.append([])
    if not ready:
        lines.append([("class:dim", "Closing the table…")])
    else:
        keys: Line = []
        if offer_again:
            keys += [("class:dialog.key", " n "), ("", f" {again_label}   ")]
        keys += [("class:dialog.key", " q "), ("", " quit" if model.link == REPLAY else " leave")]
        lines.append(keys)
    return fit(lines, width, height)


def ending_height(model: ScreenModel, width: int) -> int:
    """Rows the end box needs at ``width``."""
    if model.ending is None:
        return 1
    rows = len(wrapped(model.ending.text, width)) + 2
    results = _seat_results(model)
    evening = sum(len(wrapped(text, width)) for text in model.evening)
    return rows + (len(results) + 1 if results else 0) + (evening + 1 if evening else 0)
