"""What the session's rules ask their driver to do: the outputs of
:class:`~p2pcards.protocol.session.SessionRules`, and the paths they name.

The driver (:class:`~p2pcards.net.peer.PeerSession`, or the seeded simulation)
acts on each in order: it sends frames, shows events, saves accepted messages,
runs the heavy checks and the speculative work off its event loop, and feeds
their results back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from p2pcards.protocol.events import TableEvent
from p2pcards.protocol.table_ahead import Offer

#: The path to the host (a direct link is the other player's index).
HOST = None
Path = int | None


@dataclass(frozen=True)
class Send:
    """Send ``frame`` on ``path`` (``HOST`` or a direct link's player)."""

    path: Path
    frame: bytes = field(repr=False)


@dataclass(frozen=True)
class Emit:
    """Table events for the driver to act on and show (in order)."""

    events: list[TableEvent]


@dataclass(frozen=True)
class Save:
    """Append this accepted message to the journal (before anything is shown)."""

    raw: bytes = field(repr=False)


@dataclass(frozen=True)
class Clock:
    """The writer and when its time is up changed (for a countdown)."""

    writer: int | None
    deadline: float


@dataclass(frozen=True)
class Check:
    """Heavy work: run ``job`` (the table's full check of ``raw``) off the event
    loop, then feed its result or error to :meth:`SessionRules.checked`."""

    raw: bytes = field(repr=False)
    source: Path
    before: int
    job: Callable[[], list[TableEvent]] = field(repr=False)


@dataclass(frozen=True)
class Speculate:
    """Start this seat's work on the deck in the message at ``position`` (its
    shuffle, or its shares of the last one: :meth:`~.table_ahead.WorkAhead.speculative_job`) on a
    bounded executor of its own; :class:`Settle` says what becomes of it."""

    position: int
    job: Callable[[], Offer] = field(repr=False)


@dataclass(frozen=True)
class Settle:
    """The message at ``position`` was checked: offer its speculative work to
    the table (``keep``) or drop it."""

    position: int
    keep: bool


Output = Send | Emit | Save | Clock | Check | Speculate | Settle
