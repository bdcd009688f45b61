"""p2pcards: a peer-to-peer card table for the local network.

Layers, each knowing only those below it (``tests/test_layers.py``): ``errors``,
``wiremap`` and ``untrusted_text`` (the exception root, the type of a decoded
map, another peer's text made safe to show), ``cards`` and
``rules`` (pure game referees), ``crypto`` (the mental-poker deck), ``protocol``
(the sans-IO table state machine and transcript), ``net`` (sockets, link
encryption, discovery), ``bots`` and ``ui`` (the front ends), ``app`` (a table
put together, a seat's front end), ``evening`` (the same players' matches one
after another), and ``commands`` and ``cli`` (the command line) on top.
"""

__version__ = "0.1.0"
