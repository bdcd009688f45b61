"""The cards the browser table shows are drawn here, as self-contained SVG: a face for
every card of the 52, the back, each one naming its card for a screen reader."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from p2pcards.cards import FULL_DECK
from p2pcards.ui.web.cardart import BACK, BLACK, NAMES, RED, card_name, drawing, icon_svg

SVG = "{http://www.w3.org/2000/svg}"


@pytest.mark.parametrize("card", FULL_DECK, ids=lambda card: card.ascii)
def test_every_face_is_a_named_svg_in_its_suits_colour(card: object) -> None:
    from p2pcards.cards import Card
    assert isinstance(card, Card)
    text = drawing(card.ascii)
    root = ET.fromstring(text)
    assert root.tag == f"{SVG}svg" and root.get("viewBox") == "0 0 200 280"
    assert root.findtext(f"{SVG}title") == card_name(card)
    colour = RED if card.suit.is_red else BLACK
    assert f'fill="{colour}"' in text and f'fill="{RED if colour == BLACK else BLACK}"' not in text
    assert f">{card.rank.label}</text>" in text  # the rank in its corners


def test_the_back_and_the_icon_name_nothing() -> None:
    back = ET.fromstring(drawing(BACK))
    assert back.findtext(f"{SVG}title") == "a card face down"
    ET.fromstring(icon_svg())
    assert {card.ascii for card in FULL_DECK} | {BACK} == NAMES


def test_nothing_from_elsewhere_and_no_script_in_any_drawing() -> None:
    for name in NAMES:
        text = drawing(name)
        for forbidden in ("<script", "<image", "<foreignObject", "http://", "https://",
                          "@import", "url(http"):
            assert forbidden not in text.replace('xmlns="http://www.w3.org/2000/svg"', ""), name


def test_a_name_that_is_no_card_is_no_drawing() -> None:
    for name in ("ZZ", "1H", "QX", "", "../QH", "qh"):
        with pytest.raises(KeyError):
            drawing(name)


def test_a_card_is_named_in_words() -> None:
    from p2pcards.cards import Card
    assert card_name(Card.parse("QH")) == "queen of hearts"
    assert card_name(Card.parse("10S")) == "10 of spades"
    assert card_name(Card.parse("AC")) == "ace of clubs"
