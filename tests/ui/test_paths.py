"""Which links are direct: the seat panels and the plain-mode line say so, and the
80x24 panels keep their exact sizes with it."""

from __future__ import annotations

from p2pcards.net.session_events import DIRECT, HOST, VIA_HOST, Paths
from p2pcards.protocol.events import PlayersSeated
from p2pcards.ui.plain import PlainPrinter
from p2pcards.ui.tui.lines import width_of
from p2pcards.ui.tui.seats import BOTTOM, LEFT, RIGHT, TOP, seat_panel
from tests.ui.ui_scenes import panel_text, seated_model


def test_each_other_seat_says_how_its_messages_come() -> None:
    model = seated_model(me=1)
    model.apply(Paths({0: HOST, 2: DIRECT, 3: VIA_HOST}))
    # me = seat 1: left is seat 2, top seat 3, right seat 0.
    assert "⇄ direct" in panel_text(seat_panel(model, LEFT, 24, 6, 0.0))
    assert "via host" in panel_text(seat_panel(model, TOP, 46, 3, 0.0))
    assert "host" in panel_text(seat_panel(model, RIGHT, 24, 6, 0.0))
    assert "direct" not in panel_text(seat_panel(model, BOTTOM, 80, 1, 0.0))


def test_without_direct_links_the_panels_say_nothing_of_paths() -> None:
    model = seated_model()
    for place in (LEFT, TOP, RIGHT):
        text = panel_text(seat_panel(model, place, 24, 6, 0.0))
        assert "direct" not in text and "via host" not in text


def test_panels_keep_their_sizes_at_80_columns_with_paths() -> None:
    model = seated_model(me=2)
    model.apply(Paths({0: HOST, 1: DIRECT, 3: DIRECT}))
    for place, width, height in ((TOP, 46, 3), (LEFT, 18, 6), (RIGHT, 18, 6), (BOTTOM, 80, 1)):
        lines = seat_panel(model, place, width, height, 0.0)
        assert len(lines) == height
        assert all(width_of(line) == width for line in lines)


def test_plain_mode_prints_the_links() -> None:
    lines: list[str] = []
    printer = PlainPrinter(lines.append, lambda: ("Ann", "Bob", "Cal", "Dee"))
    printer.on_event(PlayersSeated((1, 0, 3, 2), 0))
    printer.on_event(Paths({0: HOST, 2: DIRECT, 3: VIA_HOST}))
    assert lines[-1] == ("Links: seat 1 (Bob) is the host, seat 3 (Dee) direct, "
                         "seat 2 (Cal) via the host.")
