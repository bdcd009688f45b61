"""The four seats around the table: who sits there, his key, his chips or score, whose turn.

Seats are placed as the players sit: this player at the bottom, and play
going clockwise from him, so the next seat is on his left, then across,
then on his right. Each panel is drawn for the room it is given: five
lines or more at the sides, three across the table, one line for this player
(whose cards are drawn below it).
"""

from __future__ import annotations

from p2pcards.rules.bluff import BluffState
from p2pcards.rules.bluff import Phase as BluffPhase
from p2pcards.rules.games import BLUFF, TOPPER
from p2pcards.rules.seats import SEATS
from p2pcards.rules.topper import Phase as TopperPhase
from p2pcards.rules.topper import TopperState
from p2pcards.ui.tui.hand import face_style, face_text
from p2pcards.ui.tui.lines import Line, Lines, fit, pack
from p2pcards.ui.tui.model import REPLAY, ScreenModel

#: Where each seat sits relative to this player's: 0 bottom, 1 left, 2 top, 3 right.
BOTTOM, LEFT, TOP, RIGHT = range(4)


def seat_at(model: ScreenModel, place: int) -> int:
    """The seat drawn at ``place`` (this player's seat at the bottom)."""
    me = model.me if model.me is not None else 0
    return (me + place) % SEATS


def clock(seconds: int) -> str:
    return f"{seconds // 60}:{seconds % 60:02d}"


def _header(model: ScreenModel, seat: int) -> Line:
    info = model.seat_info(seat)
    view = model.view
    acting = view is not None and view.to_act == seat and model.ending is None
    style = "class:seat.name" + (" class:seat.acting" if acting else "")
    if seat == model.me:
        name = f"You ({info.name})" if info else "You"
        style += " class:seat.me"
    else:
        name = info.name if info else "—"
    tag = " (bot)" if info and info.bot else ""
    coached = model.coached_at(seat)
    if coached:  # every screen marks a seat that asked the coach (host --hints)
        tag += f" (coached {coached})"
    last = model.last_move is not None and model.last_move.seat == seat and model.ending is None
    mark: Line = [("class:lastmove", " ◆")] if last else []  # who made the last move
    return [(style + (" class:seat.last" if last else ""), f"Seat {seat} · {name}"),
            ("class:seat.bot", tag)] + mark


def _fingerprint(model: ScreenModel, seat: int) -> Line:
    info = model.seat_info(seat)
    return [("class:fp", info.fingerprint)] if info else []


def _bluff_facts(view: BluffState, seat: int) -> list[Line]:
    facts: list[Line] = [[("class:value", str(view.stacks[seat])), ("", " chips")]]
    if view.out[seat]:
        facts.append([("class:seat.out", "out of the match")])
        return facts
    if view.phase is not BluffPhase.DEAL and view.outcome is None:
        facts.append(_cards(view.hand_sizes[seat]))
    if view.discarder == seat and view.table_stake:
        facts.append([("", "stake "), ("class:value", str(view.table_stake)), ("", " on table")])
    if view.phase is BluffPhase.LEAD and view.leader == seat:
        facts.append([("class:dim", "leads")])
    return facts


def _topper_facts(view: TopperState, seat: int) -> list[Line]:
    cfg = view.config
    facts: list[Line] = [[("", "score "), ("class:value", str(view.scores[seat])),
                          ("class:dim", f"/{cfg.target_score}")]]
    bids = dict(view.bids)
    if seat in bids:
        facts.append([("", "passed")] if bids[seat] is None else
                     [("", "bid "), ("class:value", str(bids[seat]))])
    if view.phase is TopperPhase.PLAY or view.tricks:
        facts.append([("", "tricks "), ("class:value", str(view.tricks_taken[seat]))])
    for played_by, card in view.current_trick:
        if played_by == seat:
            facts.append([("", "plays "), (face_style(card), face_text(card).strip())])
    if view.phase not in (TopperPhase.DEAL, TopperPhase.MATCH_OVER):
        facts.append(_cards(view.hand_sizes[seat]))
    if view.dealer == seat:
        facts.append([("class:dim", "dealer")])
    return facts


def _status(model: ScreenModel, seat: int, now: float) -> Line:
    if model.ending is not None:
        return []
    view = model.view
    left = model.seconds_left(now)
    timer: Line = [("class:countdown" + (" class:countdown.low" if left is not None and left <= 10
                                   else ""), f" {clock(left)}")] if left is not None else []
    if view is not None and view.to_act == seat and view.outcome is None:
        word = "YOUR TURN" if seat == model.me else "to act"
        turn: Line = [("class:turn", f"▶ {word}")]
        return turn + (timer if model.waiting_seat == seat else [])
    if model.waiting_seat == seat:
        working: Line = [("class:working", "… working")]
        return working + timer
    return []


def _facts(model: ScreenModel, seat: int) -> list[Line]:
    """What a seat's panel says, by the view's own game (nothing before one)."""
    view = model.view
    if BLUFF.is_view(view):
        return _bluff_facts(view, seat)
    if TOPPER.is_view(view):
        return _topper_facts(view, seat)
    return []


def seat_panel(model: ScreenModel, place: int, width: int, height: int, now: float) -> Lines:
    """The panel of the seat drawn at ``place``, for ``width`` × ``height`` cells."""
    if not model.seated:
        waiting = "waiting for the seat draw" if model.lobby else "waiting for the table"
        title = "You" if place == BOTTOM and not model.observer else "Seat ?"
        return fit([[("class:seat.name", title)], [("class:dim", waiting)]], width, height)
    seat = seat_at(model, place)
    header, fp, status = _header(model, seat), _fingerprint(model, seat), _status(model, seat, now)
    facts = _facts(model, seat)
    if place == BOTTOM and seat == model.me:
        link: Line = [("class:link.ok" if model.link in ("connected", REPLAY) else "class:link.bad",
                 f"● {model.link}")]
        facts = facts + [link]
    elif (away := model.reconnecting_left(seat, now)) is not None:
        facts = facts + [[("class:link.bad", f"● reconnecting {clock(away)}")]]
    else:
        path = model.path_of_seat(seat)
        if path is not None:
            # Which links are direct: a host can withhold only what goes through it.
            facts = facts + [[("class:link.ok" if path != "via host" else "class:dim",
                               "⇄ direct" if path == "direct" else path)]]
    if height <= 1:
        # One line: the turn and the countdown before the rest, so a narrow window keeps them.
        return fit(pack([header, status] + facts + [fp], width)[:1], width, height)
    if height < 4:
        first = pack([header, fp], width)[:1]
        rest = pack(facts, width)
        body = rest[:max(0, height - 2)]
        lines = first + body + [status]
        return fit(lines, width, height)
    rest = pack(facts, width, separator=" · ")
    room = max(0, height - 3)
    lines = [header, fp] + rest[:room] + [[]] * max(0, room - len(rest)) + [status]
    return fit(lines, width, height)


def seat_label(model: ScreenModel, seat: int | None) -> str:
    """``Seat 2 (Bob)`` or ``you``, for the board's sentences."""
    if seat is None:
        return "nobody"
    if seat == model.me:
        return "you"
    info = model.seat_info(seat)
    return f"{info.name}" if info else f"Seat {seat}"


def _cards(count: int) -> Line:
    """``5 cards``, ``1 card``."""
    return [("class:value", str(count)), ("", " card" if count == 1 else " cards")]
