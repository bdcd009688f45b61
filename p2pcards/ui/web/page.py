"""The browser table's page as data: what the full screen would show this seat, as JSON.

Everything here is read from the screen's model (fed by this seat's events)
and this seat's own view: the seats around the table, the board, the hand,
the controls of a pending decision, the status line, a deal's summary, the
end box, the log. Nothing else crosses into the browser, so the page can
hold no card this seat may not know (tests check it at every step of a
seeded match). The words are the text modules' (:mod:`p2pcards.ui.text`),
the same the terminal shows.
"""

from __future__ import annotations

from typing import Protocol

from p2pcards.protocol.talk import REACTIONS
from p2pcards.rules.contract import Engine, Outcome
from p2pcards.rules.seats import SEATS
from p2pcards.ui import text_bluff, text_topper
from p2pcards.ui.text import labelled_hand
from p2pcards.ui.text_common import game_name, plural
from p2pcards.ui.tui.model import REPLAY, ScreenModel
from p2pcards.ui.web import page_games
from p2pcards.ui.web.page_games import Json

#: Where each seat sits around the table, from this player's (at the bottom), clockwise.
PLACES = ("bottom", "left", "top", "right")
#: What a game's standings count, by the outcome's game.
_UNITS = {"bluff": "chip", "topper": "point"}


class Shown(Protocol):
    """What the page is built from: a seat's browser table or a replay's."""

    model: ScreenModel
    #: The last refusal or notice (kind, text) for the status line; None: whose turn.
    message: tuple[str, str] | None

    def now(self) -> float:
        """The loop's clock (the session's deadlines are on it)."""

    def shown_view(self) -> Engine | None:
        """The view the hand is drawn from (a pending decision's, else the latest)."""

    def deciding_view(self) -> Engine | None:
        """The view of the decision this seat is asked now, else None."""

    def summary_seconds_left(self) -> int | None:
        """Seconds before a LAN table's summary closes by itself; None: until read."""

    def end_box(self) -> Json:
        """The end box's choices: ``ready``, ``again`` (its label or None), ``fill``, ``leave``."""

    def extras(self) -> Json:
        """What else the seat may do now (coach, away, talk), and the bell's count."""


def clock(seconds: int) -> str:
    return f"{seconds // 60}:{seconds % 60:02d}"


def table_part(shown: Shown) -> Json:
    """The page's main part: everything but the log, the help and the history."""
    model = shown.model
    view = model.view
    deciding = shown.deciding_view()
    controls = page_games.controls(deciding) if deciding is not None else None
    now = shown.now()
    return {
        "game": model.game,
        "phase": model.phase_word,
        "observer": model.observer,
        "title": _title(model),
        "lobby": _lobby(model) if not model.seated else None,
        "seats": [_seat(model, place, now) for place in range(SEATS)] if model.seated else None,
        "board": page_games.board(model, view),
        "progress": model.progress,
        "result": model.result_line,
        "last_move": None if model.last_move is None or (view is not None and view.awaiting_deal)
        else {"seat": model.last_move.seat, "text": model.last_move.text},
        "hand": _hand(shown, controls),
        "controls": controls,
        "status": _status(shown, now),
        "summary": _summary(shown),
        "ending": _ending(shown),
        **shown.extras(),
    }


def _title(model: ScreenModel) -> Json:
    replaying = model.link == REPLAY
    return {
        "game": (model.game or "").upper(),
        "table": model.table_name,
        "parts": page_games.title_parts(model.view),
        "no_clock": model.clock == 0 and model.ending is None,
        "hints": model.hints and model.ending is None,
        "link": "over" if model.ending is not None and not replaying else model.link,
        "replay": replaying,
    }


def _lobby(model: ScreenModel) -> Json:
    joined = [{"name": info.name, "fp": info.fingerprint, "bot": info.bot,
               "role": "host" if index == 0 else ("bot" if info.bot else "")}
              for index, info in enumerate(model.lobby)]
    return {"players": joined, "seats": SEATS,
            "text": f"{len(model.lobby)} of {SEATS} joined" if model.lobby
            else "waiting for the table"}


def _seat(model: ScreenModel, place: int, now: float) -> Json:
    me = model.me if model.me is not None else 0
    seat = (me + place) % SEATS
    info = model.seat_info(seat)
    view = model.view
    mine = seat == model.me and not model.observer
    acting = (view is not None and view.to_act == seat and view.outcome is None
              and model.ending is None)
    waited = model.waiting_seat == seat and model.ending is None
    left = model.seconds_left(now) if waited else None
    name = info.name if info else "—"
    return {
        "place": PLACES[place], "seat": seat, "you": mine,
        "name": f"You ({name})" if mine and info else ("You" if mine else name),
        "bot": bool(info and info.bot), "fp": info.fingerprint if info else "",
        "coached": model.coached_at(seat),
        "acting": acting, "turn": ("YOUR TURN" if mine else "to act") if acting else None,
        "working": waited and not acting,
        "clock": clock(left) if left is not None else None, "low": left is not None and left <= 10,
        "last": model.last_move is not None and model.last_move.seat == seat
        and model.ending is None,
        "presence": _presence(model, seat, mine, now),
        **page_games.seat_facts(view, seat),
    }


def _presence(model: ScreenModel, seat: int, mine: bool, now: float) -> Json | None:
    """This seat's link, or how another player reaches this one (advisory, never blame)."""
    if mine:
        return {"text": f"● {model.link}", "ok": model.link in ("connected", REPLAY)}
    away = model.reconnecting_left(seat, now)
    if away is not None:
        return {"text": f"● reconnecting {clock(away)}", "ok": False}
    path = model.path_of_seat(seat)
    if path is None:
        return None
    return {"text": "⇄ direct" if path == "direct" else path, "ok": path != "via host"}


def _hand(shown: Shown, controls: Json | None) -> Json:
    """This seat's cards in the order shown, each marked whether a click acts on it now."""
    model = shown.model
    view, me = shown.shown_view(), model.me
    empty = ("the public view: no player's hand is shown" if model.observer
             else "no cards in your hand")
    if view is None or me is None or model.observer or view.awaiting_deal or view.outcome:
        return {"cards": [], "empty": empty}
    held = labelled_hand(view, me)
    choosable = controls is not None and controls.get("select") is not None
    playable = controls.get("playable") if controls is not None else None
    allowed = set(playable) if isinstance(playable, list) else None
    return {"empty": empty, "cards": [
        {"slot": entry.slot, "label": entry.label, "note": entry.note,
         **page_games.card(entry.card),
         "playable": choosable and (allowed is None or entry.slot in allowed)}
        for entry in held]}


def _status(shown: Shown, now: float) -> Json:
    """The last refusal or notice if any, else whose turn it is (as the full screen says)."""
    if shown.message is not None:
        kind, text = shown.message
        return {"kind": kind, "text": text}
    return {"kind": "turn", "text": shown.model.status_text(now)}


def _summary(shown: Shown) -> Json | None:
    summary = shown.model.summary
    if summary is None or shown.model.ending is not None:
        return None
    return {"title": summary.title, "lines": list(summary.lines),
            "seconds": shown.summary_seconds_left()}


def _ending(shown: Shown) -> Json | None:
    model = shown.model
    ending = model.ending
    if ending is None:
        return None
    return {"title": ending.title, "text": ending.text, "kind": ending.kind,
            "results": _results(model), "evening": list(model.evening), **shown.end_box()}


def _results(model: ScreenModel) -> list[Json]:
    outcome = model.outcome
    unit = _UNITS.get(game_name(outcome) or "")
    if not isinstance(outcome, Outcome) or unit is None:
        return []
    rows: list[Json] = []
    for seat, value in enumerate(outcome.standings):
        info = model.seat_info(seat)
        name = info.name if info else f"Seat {seat}"
        mine = seat == model.me and not model.observer
        rows.append({"seat": seat, "name": f"You ({name})" if mine else name,
                     "value": plural(value, unit), "winner": seat in outcome.winners})
    return rows


def log_part(model: ScreenModel) -> Json:
    """The log the page shows: one line per stage of checks, or every single check."""
    return {"details": model.show_details,
            "lines": [[line.kind, line.text] for line in model.visible_log()]}


#: Rows of the help's keys: (key, what it does).
KeyRows = tuple[tuple[str, str], ...]

#: The keys of the browser table (a seat's), as its help lists them.
SEAT_KEYS: KeyRows = (
    ("← → Home End", "move the cursor in your hand"),
    ("Space", "select or unselect the card under the cursor (or click a card)"),
    ("Esc", "clear the selection, or close a box"),
    ("Bluff: d or Enter", "discard the selected cards as the rank and stake chosen beside them"),
    ("Bluff: p · b", "pass · call \"Bluff!\" on the last discard"),
    ("Topper: p · 1 … 6", "pass · bid that many tricks"),
    ("Topper: c d h s", "name trump: clubs, diamonds, hearts, spades"),
    ("Topper: Enter", "play the card under the cursor (or click a card that may be played)"),
    ("a", "away: in your turn, 5 more minutes on every clock (a few per table)"),
    ("w", "the coach, in your turn (at a table against bots, or where the host allowed hints)"),
    ("t", "talk to the table (the chat line; Enter sends)"),
    ("r", "the scoreboard and this deal's record"),
    ("v", "the log with every single cryptographic check, or one line per stage"),
    ("?", "this help"),
    ("q", "leave the table (asks first; the other players are told)"),
    ("n", "at the end: a new table, or a rematch at a LAN table"),
)


def help_part(game: str | None, keys: KeyRows = SEAT_KEYS) -> Json:
    """The keys, then the rules in short (both games before the game is known)."""
    rules = {"bluff": text_bluff.rules_summary(), "topper": text_topper.rules_summary()}
    games = [game] if game in rules else list(rules)
    return {"keys": [list(row) for row in keys],
            "rules": [" ".join(rules[name].split("\n")) for name in games],
            "reactions": list(REACTIONS)}
