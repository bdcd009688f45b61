"""Console output in any encoding: stand-ins instead of UnicodeEncodeError, and the look."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest

from p2pcards.ui import console


@pytest.fixture
def look() -> Iterator[None]:
    yield
    console.choose_look(None)


def test_the_look_is_detected_from_the_terminals_encoding(
        look: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("P2PCARDS_ASCII", raising=False)
    cp1252 = io.TextIOWrapper(io.BytesIO(), encoding="cp1252")
    ascii_stream = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    utf8 = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    assert console.ascii_look(cp1252) and console.ascii_look(ascii_stream)
    assert not console.ascii_look(utf8)
    monkeypatch.setenv("P2PCARDS_ASCII", "1")
    assert console.ascii_look(utf8)
    console.choose_look(False)  # --ascii not given on the command line does not force it
    assert not console.ascii_look(cp1252)


def test_an_unencodable_character_becomes_a_stand_in_not_an_error() -> None:
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="cp1252", errors=console.ERRORS)
    stream.write("✓ Deck 0 dealt: Q♥ → Zoë · 10♠ … ⇄ direct 名\n")
    stream.flush()
    assert raw.getvalue().decode("cp1252") == "+ Deck 0 dealt: QH -> Zoë · 10S … <-> direct ?\n"
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii", errors=console.ERRORS)
    stream.write("Zoë ✓ ±0 —\n")
    stream.flush()
    assert raw.getvalue() == b"Zoe + +-0 --\n"


