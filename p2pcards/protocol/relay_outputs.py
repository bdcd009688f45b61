"""What the relay asks its caller to do: the outputs of :class:`~p2pcards.protocol.relay.Relay`.

Kept apart from the relay's rules so that a caller (the host's sockets, the
simulation) reads the whole vocabulary in one place.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from p2pcards.protocol.lobby import LobbyPlayer


@dataclass(frozen=True)
class Send:
    """Send ``frame`` on link ``link``."""

    link: int
    frame: bytes = field(repr=False)


@dataclass(frozen=True)
class Broadcast:
    """Send ``frame`` on every link but ``exclude``."""

    frame: bytes = field(repr=False)
    exclude: int | None = None


@dataclass(frozen=True)
class Persist:
    """Store this transcript message before anything is forwarded."""

    raw: bytes = field(repr=False)


@dataclass(frozen=True)
class PersistNotice:
    """Store this signed notice (beside the transcript, never in it)."""

    raw: bytes = field(repr=False)


@dataclass(frozen=True)
class Close:
    """Close link ``link`` (after sending what precedes this output)."""

    link: int
    reason: str


@dataclass(frozen=True)
class Dropped:
    """A frame from ``link`` dropped without closing it (a bad or excess chat
    line): ``reason`` is for the host's log; nobody is blamed."""

    link: int
    reason: str


@dataclass(frozen=True)
class LobbyChanged:
    players: tuple[LobbyPlayer, ...]
    free_seats: int


@dataclass(frozen=True)
class TableStarted:
    session: bytes = field(repr=False)


@dataclass(frozen=True)
class AgainHeard:
    """A player's end-box choice about the finished match (PROTOCOL.md §14), for the
    host's count: its shape, session, sender and signature are checked."""

    raw: bytes = field(repr=False)


@dataclass(frozen=True)
class TakeAsked:
    """A newcomer's hello at a finished table whose end box has a free seat (PROTOCOL.md
    §14): the host decides (``AgainCount.take``), then tells a fill or refuses the link."""

    link: int
    public_key: bytes = field(repr=False)
    name: str
    bot: bool


@dataclass(frozen=True)
class LinkedChanged:
    """Who of the started table's players has a link to the host now changed (what a
    ``presence`` frame says): for the host's end box, which frees the seat of a player
    away past the grace (PROTOCOL.md §14)."""

    linked: tuple[int, ...]


Output = (Send | Broadcast | Persist | PersistNotice | Close | Dropped | LobbyChanged
          | TableStarted | AgainHeard | TakeAsked | LinkedChanged)
