"""How many spectators a table admits: the relay's limits, which its host may set.

Apart from :mod:`p2pcards.protocol.relay`, so that the command line can offer
them without loading the protocol.
"""

from __future__ import annotations

#: Spectators a table admits unless its host says otherwise.
DEFAULT_SPECTATORS = 8
MAX_SPECTATORS = 64
