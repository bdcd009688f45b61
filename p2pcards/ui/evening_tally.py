"""The evening so far at one screen: the matches this program played, table after table.

``p2pcards play`` offers a new table when a match ends; its end box and the
``r`` history then show the evening so far — matches played, each player's
wins and totals (Bluff chips, Topper points), by display name (the bots keep
their names from table to table). It counts what this screen saw end, which
is what its own seat checked; ``p2pcards standings`` counts saved records,
each checked again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from p2pcards.rules.contract import Outcome
from p2pcards.rules.games import UnknownGame, game_of
from p2pcards.ui.text_common import clean

_UNITS = {"bluff": "chips", "topper": "points"}


@dataclass
class EveningTally:
    """Wins and totals by name over the matches taken in."""

    matches: int = 0
    wins: dict[str, int] = field(default_factory=dict)
    totals: dict[str, dict[str, int]] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)

    def take(self, outcome: Outcome, names: Sequence[str]) -> None:
        """A match ended with ``outcome``; ``names`` are the display names by seat."""
        if not isinstance(outcome, Outcome) or len(names) != len(outcome.standings):
            return
        try:
            game = game_of(outcome).name
        except UnknownGame:
            return
        self.matches += 1
        for seat, name in enumerate(names):
            who = clean(name, 32) or f"Seat {seat}"
            if who not in self.order:
                self.order.append(who)
            self.wins[who] = self.wins.get(who, 0) + (seat in outcome.winners)
            per_game = self.totals.setdefault(game, {})
            per_game[who] = per_game.get(who, 0) + int(outcome.standings[seat])

    def lines(self) -> list[str]:
        """``This evening: 2 matches. Wins: Me 1, Ada 1, Bob 0, Cy 0.`` and the totals by game."""
        if not self.matches:
            return []
        ranked = sorted(self.order, key=lambda who: (-self.wins.get(who, 0), self.order.index(who)))
        count = f"{self.matches} match" + ("es" if self.matches != 1 else "")
        out = [f"This evening: {count}. Wins: "
               + ", ".join(f"{who} {self.wins.get(who, 0)}" for who in ranked) + "."]
        for game, per in sorted(self.totals.items()):
            out.append(f"{game.capitalize()} {_UNITS.get(game, 'score')} in all: "
                       + ", ".join(f"{who} {per[who]}" for who in ranked if who in per) + ".")
        return out


__all__ = ["EveningTally"]
