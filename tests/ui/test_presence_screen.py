"""Presence on screen: a dropped seat's panel counts its window down, the status
line says the player to act dropped, and plain mode prints the same news."""

from __future__ import annotations

import time

from p2pcards.net.session_events import CONNECTED, DIRECT, RECONNECTING, Paths, Presence
from p2pcards.protocol.events import PlayersSeated
from p2pcards.ui.plain import PlainPrinter
from p2pcards.ui.tui.bars import status_line
from p2pcards.ui.tui.lines import width_of
from p2pcards.ui.tui.seats import LEFT, TOP, seat_panel
from tests.support.typed import present
from tests.ui.ui_scenes import panel_text, seated_model, topper_bidding


def test_a_dropped_seat_counts_its_window_down_and_comes_back() -> None:
    model = seated_model(me=1)
    model.apply(Paths({0: DIRECT, 2: DIRECT, 3: DIRECT}))
    model.apply(Presence({0: CONNECTED, 2: RECONNECTING, 3: CONNECTED}, {2: RECONNECTING}, 60.0))
    now = time.monotonic()
    left_panel = panel_text(seat_panel(model, LEFT, 24, 6, now + 15))  # seat 2 sits on the left
    assert "reconnecting 0:45" in left_panel and "direct" not in left_panel
    assert "reconnecting" not in panel_text(seat_panel(model, TOP, 46, 3, now))
    lines = seat_panel(model, LEFT, 18, 6, now)
    assert len(lines) == 6 and all(width_of(line) == 18 for line in lines)
    model.apply(Presence({0: CONNECTED, 2: CONNECTED, 3: CONNECTED}, {2: CONNECTED}, 60.0))
    back = panel_text(seat_panel(model, LEFT, 24, 6, now + 16))
    assert "reconnecting" not in back and "⇄ direct" in back


def test_the_status_line_says_the_player_to_act_dropped() -> None:
    model = seated_model(me=1)
    model.set_view(topper_bidding().view(1))
    to_act = model.view.to_act
    assert to_act is not None and to_act != 1
    assert "dropped" not in panel_text([status_line(model, None, 120)])
    model.apply(Presence({p: RECONNECTING if p == to_act else CONNECTED for p in (0, 2, 3)},
                         {to_act: RECONNECTING}, 60.0))
    assert "They dropped and are reconnecting." in panel_text([status_line(model, None, 120)])


def test_plain_mode_prints_who_dropped_and_who_is_back() -> None:
    lines: list[str] = []
    printer = PlainPrinter(lines.append, lambda: ("Ann", "Bob", "Cal", "Dee"))
    printer.on_event(PlayersSeated((1, 0, 3, 2), 0))
    printer.on_event(Presence({0: CONNECTED, 2: RECONNECTING, 3: CONNECTED}, {2: RECONNECTING}, 60))
    printer.on_event(Presence({0: CONNECTED, 2: CONNECTED, 3: CONNECTED}, {2: CONNECTED}, 60))
    assert lines[-2:] == ["Seat 3 (Dee) dropped; reconnecting (usually up to 60 s).",
                          "Seat 3 (Dee) is back."]


def test_the_board_and_the_seat_mark_the_last_move() -> None:
    from p2pcards.protocol.events import ActionApplied
    from p2pcards.rules.topper.events import BidMade
    from p2pcards.ui.tui.board import board_lines
    from p2pcards.ui.tui.seats import _header

    model = seated_model(me=1)
    model.set_view(topper_bidding().view(1))
    assert "◆" not in panel_text(board_lines(model, 46, 10))
    bidder = present(present(model.view).to_act)
    model.apply(ActionApplied(bidder, None, (BidMade(bidder, 2),), 9))  # type: ignore[arg-type]  # read: the results
    board = panel_text(board_lines(model, 46, 10))
    assert board.splitlines()[0].startswith("◆ ") and "bid 2" in board.splitlines()[0]
    assert "◆" in panel_text([_header(model, bidder)])
    assert all("◆" not in panel_text([_header(model, seat)]) for seat in range(4) if seat != bidder)


def test_a_new_deal_clears_the_last_move_of_the_one_before() -> None:
    from p2pcards.protocol.events import ActionApplied, HandReceived
    from p2pcards.rules.topper.events import BidMade
    from p2pcards.ui.tui.board import board_lines

    model = seated_model(me=1)
    model.set_view(topper_bidding().view(1))
    bidder = present(present(model.view).to_act)
    model.apply(ActionApplied(bidder, None, (BidMade(bidder, 2),), 9))  # type: ignore[arg-type]  # read: the results
    assert model.last_move is not None
    model.apply(HandReceived(1, ()))
    assert model.last_move is None and "◆" not in panel_text(board_lines(model, 46, 10))
