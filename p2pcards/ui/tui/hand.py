"""The player's hand drawn as cards: faces in colour, the selection, the cursor, the labels.

Three rows: a mark over each selected card, the faces (red suits red, black
suits black, on a white card; cards that may not be played now dimmed),
and under each card its label (the number the plain commands use) with
Topper's trump marks: ★ the Big Jack, ☆ the Little Jack, • another trump.
A click on any row of a card selects it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from p2pcards.cards import Card
from p2pcards.ui.text_common import HandCard
from p2pcards.ui.tui.lines import Line, Lines, clickable, fit, fragment, pad
from p2pcards.ui.tui.picker import HandPicker

CARD_WIDTH = 4
_NOTE_MARKS = {"Big Jack": "★", "Little Jack": "☆", "trump": "•"}


def face_text(card: Card | None) -> str:
    """A card face four columns wide: ``" Q♥ "``, ``"10♠ "``; ``" ?? "`` when unknown."""
    if card is None:
        return " ?? "
    face = f"{card.rank.label}{card.suit.symbol}"
    return face.rjust(3) + " "


def face_style(card: Card | None) -> str:
    if card is None:
        return "class:card.unknown"
    return "class:card.red" if card.suit.is_red else "class:card.black"


def hand_lines(hand: Sequence[HandCard], picker: HandPicker, width: int, *,
               playable: set[int] | None = None, active: bool = False,
               on_click: Callable[[int], object] | None = None,
               empty: str = "(no cards in your hand)") -> Lines:
    """The three rows of the hand for ``width`` columns.

    ``playable`` (slots) dims the other cards; ``active`` shows the cursor
    (only while this seat is deciding); ``empty`` is said when there is no card.
    """
    if not hand:
        return fit([[], [("class:dim", f"  {empty}")]], width, 3)
    gap = 1 if len(hand) * (CARD_WIDTH + 1) <= width else 0
    marks: Line = []
    faces: Line = []
    labels: Line = []
    for index, entry in enumerate(hand):
        handler = clickable(partial(on_click, index)) if on_click is not None else None
        selected = picker.is_selected(entry)
        cursor = active and index == min(picker.cursor, len(hand) - 1)
        style = face_style(entry.card)
        if playable is not None and entry.slot not in playable:
            style += " class:card.unplayable"
        if selected:
            style += " class:card.selected"
        if cursor:
            style += " class:card.cursor"
        marks.append(fragment("class:card.mark", " ▼  " if selected else " " * CARD_WIDTH, handler))
        faces.append(fragment(style, face_text(entry.card), handler))
        note = _NOTE_MARKS.get(entry.note, "")
        label = f"{entry.label}{note}".center(CARD_WIDTH)
        label_style = "class:card.label.cursor" if cursor else "class:card.label"
        labels.append(fragment(label_style, label, handler))
        if gap and index < len(hand) - 1:
            marks.append(("", " "))
            faces.append(("", " "))
            labels.append(("", " "))
    return [pad(marks, width), pad(faces, width), pad(labels, width)]
