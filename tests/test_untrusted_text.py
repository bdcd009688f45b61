"""One sanitiser for text from other peers: the wire refuses controls and bidi
overrides, and every screen and discovery listing blanks what it shows."""

from __future__ import annotations

import pytest

from p2pcards.net.table_record import clean_text
from p2pcards.protocol.errors import MalformedMessage
from p2pcards.protocol.schema import Text
from p2pcards.ui.text_common import clean
from p2pcards.untrusted_text import BIDI_CONTROLS, shown, unsafe_character

NAME = Text(32)


@pytest.mark.parametrize("bad", ["\x1b", "\x07", "\x9b", "\u202e", "\u2066", "\u200f"])
def test_a_message_string_with_a_control_or_bidi_override_is_refused_naming_it(bad: str) -> None:
    with pytest.raises(MalformedMessage, match=f"U\\+{ord(bad):04X} is not allowed"):
        NAME.check(f"Bob{bad}evil", "genesis.players[1].name")


def test_a_name_with_an_emoji_joiner_or_accents_is_accepted() -> None:
    family = "Zoë \U0001F468\u200d\U0001F469\u200d\U0001F467"
    assert NAME.check(family, "name") == family and unsafe_character(family) is None


def test_every_bidi_control_is_unsafe_and_shown_blank_everywhere() -> None:
    for ch in BIDI_CONTROLS:
        text = f"ab{ch}cd"
        assert unsafe_character(text) == ch
        # The same cleaning in the screens, the plain lines and the discovery listing.
        assert shown(text) == clean(text) == clean_text(text) == "ab cd"


def test_shown_cuts_long_text_with_an_ellipsis_and_folds_spaces() -> None:
    assert shown("a \t\n b") == "a b"
    assert shown("x" * 30, 10) == "x" * 9 + "…"
