"""What each screen says when the host tells who took a freed seat (PROTOCOL.md §14):
a player's end box names the leaver, the newcomer's screen its own seat."""

from __future__ import annotations

from p2pcards.net.session_events import SeatFilled
from p2pcards.protocol.seat_fill import Fill
from p2pcards.ui.text_end_box import fill_line
from p2pcards.ui.text_events import describe

NAMES = ("Hana", "Ivo", "Juno", "Kai")


def _fill(name: str = "Nia", bot: bool = False) -> Fill:
    return Fill(bytes(32), bytes(32), 3, 2, bytes([7]) * 32, name, bot)


def test_a_players_end_box_names_the_taker_the_seat_and_the_leaver() -> None:
    assert fill_line(_fill(), NAMES) == 'End box: "Nia" takes seat 2 ("Kai"\'s).'
    assert fill_line(_fill(bot=True), NAMES) == 'End box: "Nia" (bot) takes seat 2 ("Kai"\'s).'
    assert fill_line(_fill(), NAMES, me=bytes([7]) * 32) == 'End box: You take seat 2 ("Kai"\'s).'


def test_a_takers_name_is_cleaned_of_terminal_escapes() -> None:
    line = fill_line(_fill("Ni\x1b[2Ja"), NAMES)
    assert "\x1b" not in line and line.startswith('End box: "Ni')


def test_the_newcomers_screen_says_the_seat_it_took_and_what_it_waits_for() -> None:
    line = describe(SeatFilled(_fill()), (), None)
    assert line == ('End box: "Nia" takes seat 2 of the match before; the rematch starts '
                    'when every seat is taken.')
