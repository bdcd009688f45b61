"""What the page sends: one small JSON object per choice, its fields checked here.

The page is the player's own, but whatever arrives on its socket is read as
untrusted input: a field of the wrong shape is a :class:`BadMessage` naming it, never
a crash of the peer that holds the seat.
"""

from __future__ import annotations

from p2pcards.errors import P2PCardsError
from p2pcards.wiremap import WireMap


class BadMessage(P2PCardsError):
    """A message from the page that is not one the table takes; the message says why."""


def text_field(message: WireMap, name: str, limit: int = 200) -> str:
    """A text field of a message from the page (at most ``limit`` characters)."""
    value = message.get(name, "")
    if not isinstance(value, (str, int)) or isinstance(value, bool):
        raise BadMessage(f"the page's {name!r} is not text")
    return str(value)[:limit]


def slots_field(message: WireMap, name: str = "slots", most: int = 52) -> list[int]:
    """A list of card slots in a message from the page."""
    value = message.get(name, [])
    if (not isinstance(value, list) or len(value) > most
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise BadMessage(f"the page's {name!r} is not a list of card slots")
    return list(value)
