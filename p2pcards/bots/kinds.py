"""The names of the bots a table can seat: kinds and search levels.

Apart from :mod:`p2pcards.bots.registry`, which builds the bots, so that the
command line can offer these names without loading every bot.
"""

from __future__ import annotations

#: Bot kinds, strongest first (the first is the default of ``play``). ``counter`` counts
#: cards without searching: the benchmark of the search (issue 26) and a fast opponent.
KINDS = ("search", "counter", "heuristic", "random")
LEVELS = ("easy", "normal", "hard")
DEFAULT_LEVEL = "normal"
