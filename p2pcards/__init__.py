"""p2pcards: a peer-to-peer card table for the local network.

Layers, each knowing only those below it: ``cards`` and ``rules`` (pure
game referees), ``crypto`` (the mental-poker deck), ``protocol`` (the sans-IO
table state machine and transcript), ``net`` (sockets, link encryption,
discovery), and ``bots``, ``ui`` and ``cli`` on top.
"""

__version__ = "0.1.0"
