"""How many sit at a table: both games, the lobby, the deal and the screen count four.

One definition, so the rules, the protocol (lobby, dealing, frames) and the
screen cannot disagree on it.
"""

from __future__ import annotations

#: Players at every table, in both games.
SEATS = 4
