"""The cryptographic checks folded into one line per stage, for a log people read.

Every commitment, key share, shuffle and decryption share is checked as it
arrives, and each check has its own line (:func:`~p2pcards.ui.text_events.describe`):
about ten per deal, which crowd out the game. A :class:`CheckFolder` counts
them and says one line when a stage is complete for all four ("✓ Deck 3
shuffled by all four; every shuffle proof verified."); the single lines stay
available as details. A check that fails never folds: it ends the table
with a verdict, which is always shown.
"""

from __future__ import annotations

from p2pcards.protocol import events as proto
from p2pcards.rules.seats import SEATS

#: The events a folder counts (each also has its own detail line).
CHECKS = (proto.Committed, proto.KeyShareVerified, proto.ShuffleVerified,
          proto.SharesVerified, proto.CardsRevealed)


class CheckFolder:
    """Counts one table's checks; says a line when a stage completes for every seat."""

    def __init__(self) -> None:
        self._committed: set[int] = set()
        self._keys: set[int] = set()
        self._shuffles: dict[int, set[int]] = {}
        self._shares: dict[int, set[int]] = {}

    def fold(self, event: object) -> str | None:
        """The stage line ``event`` completes, or None (also for events that are no check)."""
        if isinstance(event, proto.Committed):
            return self._count(self._committed, event.player,
                               "All four players committed to their key shares and draw nonces.")
        if isinstance(event, proto.KeyShareVerified):
            return self._count(self._keys, event.player,
                               "The table key is set: all four key shares opened and proven.")
        if isinstance(event, proto.ShuffleVerified):
            return self._count(self._shuffles.setdefault(event.deck, set()), event.seat,
                               f"Deck {event.deck} shuffled by all four; every shuffle proof "
                               f"verified.")
        if isinstance(event, proto.SharesVerified):
            return self._count(self._shares.setdefault(event.deck, set()), event.seat,
                               f"Deck {event.deck}: every decryption share verified.")
        return None

    @staticmethod
    def _count(done: set[int], who: int, line: str) -> str | None:
        before = len(done)
        done.add(who)
        return f"✓ {line}" if len(done) == SEATS and before < SEATS else None
