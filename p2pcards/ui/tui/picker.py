"""The cursor and the selection in the player's hand, by deal slot.

Cards are remembered by slot, not by position, so a selection survives the
hand being redrawn (a card played, a caught bluff taken back) and never
points at a card that left the hand.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2pcards.ui.text_common import HandCard


class HandPicker:
    """Where the cursor is and which cards are selected.

    ``single`` (Topper) keeps at most one card selected; Bluff selects
    several for one discard.
    """

    def __init__(self, single: bool = False) -> None:
        self.single = single
        self.cursor = 0
        self.selected: list[int] = []

    def sync(self, hand: Sequence[HandCard]) -> None:
        """Forget selected cards no longer held; keep the cursor on a card."""
        held = {entry.slot for entry in hand}
        self.selected = [slot for slot in self.selected if slot in held]
        self.cursor = max(0, min(self.cursor, len(hand) - 1))

    def move(self, delta: int, hand: Sequence[HandCard]) -> None:
        if hand:
            self.cursor = max(0, min(self.cursor + delta, len(hand) - 1))

    def jump(self, index: int, hand: Sequence[HandCard]) -> None:
        if hand:
            self.cursor = max(0, min(index, len(hand) - 1))

    def toggle(self, hand: Sequence[HandCard]) -> int | None:
        """Select or unselect the card under the cursor; its slot (None: empty hand)."""
        entry = self.at_cursor(hand)
        if entry is None:
            return None
        if entry.slot in self.selected:
            self.selected.remove(entry.slot)
        elif self.single:
            self.selected = [entry.slot]
        else:
            self.selected.append(entry.slot)
        return entry.slot

    def click(self, index: int, hand: Sequence[HandCard]) -> int | None:
        """A mouse click on the ``index``-th card: the cursor goes there and toggles it."""
        if not 0 <= index < len(hand):
            return None
        self.cursor = index
        return self.toggle(hand)

    def clear(self) -> None:
        self.selected = []

    def at_cursor(self, hand: Sequence[HandCard]) -> HandCard | None:
        if not hand:
            return None
        return hand[max(0, min(self.cursor, len(hand) - 1))]

    def chosen(self, hand: Sequence[HandCard]) -> list[HandCard]:
        """The selected cards, in the order the hand shows them."""
        picked = set(self.selected)
        return [entry for entry in hand if entry.slot in picked]

    def is_selected(self, entry: HandCard) -> bool:
        return entry.slot in self.selected
