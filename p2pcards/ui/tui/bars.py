"""The three one-line bars: the title, the action bar and the status line.

The action bar lists only what is legal now, each with its key (a click on
an entry presses its key); the status line says whose turn it is, or why
the last key was refused.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from functools import partial

from p2pcards.rules.bluff import BluffState
from p2pcards.rules.games import BLUFF, TOPPER
from p2pcards.rules.topper import TopperState
from p2pcards.ui.text_common import plural
from p2pcards.ui.tui.keymap import KeyHint
from p2pcards.ui.tui.lines import Line, clickable, fragment, pad, width_of
from p2pcards.ui.tui.model import REPLAY, ScreenModel


def _bluff_title(view: BluffState) -> list[str]:
    cap = view.config.deal_cap
    if view.outcome is not None:
        # A match may end inside a deal (the last player with chips): count as the outcome
        # does, the deals won, not the number of the deal that was cut short.
        played = plural(view.outcome.deals, "deal")
        return [f"over after {played}" + (f" (cap {cap})" if cap else ""),
                f"price {view.config.table_price}"]
    return [f"deal {view.deal_number}" + (f" of {cap}" if cap else ""),
            f"price {view.config.table_price}"]


def _topper_title(view: TopperState) -> list[str]:
    return [f"hand {view.hand_number}", f"first to {view.config.target_score}"]


def _title_parts(view: object) -> list[str]:
    """What the title says of the match, by the view's own game (nothing before one)."""
    if BLUFF.is_view(view):
        return _bluff_title(view)
    if TOPPER.is_view(view):
        return _topper_title(view)
    return []


def title_line(model: ScreenModel, width: int) -> Line:
    view = model.view
    parts = [" p2pcards", (model.game or "").upper()]
    if model.clock == 0 and model.ending is None:
        # Nobody is timed: any seat can stall the table for ever. Early, so a
        # narrow title cuts the match's details, not this.
        parts.append("no clock")
    if model.hints and model.ending is None:
        parts.append("hints on")  # the host allowed the coach: a coached seat is marked
    parts.extend(_title_parts(view))
    # Once the table is over the link no longer matters (a finished table dials nobody).
    replaying = model.link == REPLAY
    link = "over" if model.ending is not None and not replaying else model.link
    link_style = "class:title.ok" if link in ("connected", "over", REPLAY) else "class:title.bad"
    right: Line = [(link_style, f" ● {link}"),
                   ("class:title", "  ? help  q quit " if replaying else "  ? help  q leave ")]
    room = width - width_of(right)
    named = " · ".join(p for p in parts + [model.table_name] if p)
    short = " · ".join(p for p in parts if p)
    left: Line = [("class:title", named if len(named) < room else short)]
    if room < 20:
        return pad(left, width, "class:title")
    return pad(left, room, "class:title") + right


def action_line(hints: Sequence[KeyHint], deciding: bool, width: int,
                press: Callable[[str], object] | None = None, asking: bool = False,
                watching: bool = False) -> Line:
    """The keys that act now (clickable), then the keys that always work; while
    this seat's own move asks a question (a rank, a stake), how to answer it."""
    line: Line = []
    if asking:
        line.append(("class:bar.label", " Your move: answer the question above. "))
        line.append(("class:bar.dim", " Enter confirm · Esc back"))
    elif deciding:
        for hint in hints:
            handler = (clickable(partial(press, hint.key))
                       if press is not None and hint.key is not None else None)
            line.append(fragment("class:bar.key", f" {hint.shown} ", handler))
            line.append(fragment("class:bar.label", f" {hint.label}  ", handler))
        line.append(("class:bar.dim", " ? help"))
    else:
        line.append(("class:bar.idle", " Watching: every move checked, no hand shown. "
                     if watching else " Not your turn. "))
        line.append(("class:bar.dim", " PgUp/PgDn log · ? help · q leave"))
    return pad(line, width, "class:bar")


def status_line(model: ScreenModel, message: tuple[str, str] | None, width: int) -> Line:
    """The last refusal or notice if any, else whose turn it is."""
    if message is not None:
        kind, text = message
        return pad([(f"class:status.{kind}", f" {text}")], width)
    return pad([("class:status.turn", f" {model.status_text(time.monotonic())}")], width)
