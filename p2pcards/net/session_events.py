"""What a peer session tells its front end and agent: the events it emits
besides the table's own (lobby, links, waiting, paths, presence, refusal),
the decision an agent is asked for, the agent's two requests (leave, step
away), how a session ends, and a step of a resumed session's record told
again (:class:`Step`).

A vocabulary, no behaviour: front ends (``p2pcards.ui``) and the spectator's
session read these without needing the session itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from p2pcards.errors import P2PCardsError
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.events import TableEvent
from p2pcards.protocol.relay import AgainHeard, LobbyChanged, TableStarted, TakeAsked
from p2pcards.protocol.seat_fill import Fill
from p2pcards.protocol.talk import TalkLine
from p2pcards.protocol.verdict import Verdict
from p2pcards.rules.contract import Engine, Outcome
from p2pcards.wiremap import WireMap

#: How another player's messages reach this one (see :class:`Paths`).
DIRECT, VIA_HOST, HOST = "direct", "via host", "host"


@dataclass(frozen=True)
class Decision:
    """What an agent is told besides its view when it must act."""

    position: int
    """The transcript position the action will take (seeds reproducible bots)."""
    seat: int
    deadline: float
    """Event-loop time after which the others will blame this seat."""
    names: tuple[str, ...]
    """Display names by seat."""
    pauses_left: int = 0
    """Pauses (``away``) this seat may still take (see :class:`TakePause`)."""
    coached: tuple[int, ...] = ()
    """Hints each seat took, by seat (a table whose host allowed them; else empty)."""


class LeaveTable(P2PCardsError):
    """Raised by an agent whose player wants to leave: the session tells the
    others with a signed notice and ends."""


class TakePause(P2PCardsError):
    """Raised by an agent whose player steps away in his turn: the session writes
    ``away`` (one of the table's pauses, more time for this move, known to every
    peer) and asks the agent again."""


class Agent(Protocol):
    """Decides this seat's game actions from its view (a bot, or a person)."""

    async def decide(self, view: Engine, decision: Decision) -> object: ...


@dataclass(frozen=True)
class LobbyUpdate:
    """The host's list of joined players changed (before the table starts)."""

    game: str
    table: str
    config: WireMap
    players: tuple[tuple[bytes, str, bool], ...]


@dataclass(frozen=True)
class LinkUp:
    """Connected (or reconnected) to the host."""

    reconnect: bool
    #: This session is the host's own seat (its link is in-process): nothing to tell.
    own_host: bool = False


@dataclass(frozen=True)
class LinkDown:
    """The link to the host broke; the session will try to reconnect."""

    reason: str


@dataclass(frozen=True)
class Waiting:
    """Who must write next and until when (event-loop time), for a countdown."""

    player: int | None
    deadline: float


@dataclass(frozen=True)
class Paths:
    """How each other player's messages reach this one: ``"direct"`` (a live
    direct link), ``"host"`` (the host's own seat: its link is the host's), or
    ``"via host"`` (only through the host, which could withhold them)."""

    paths: dict[int, str]


#: A seat's presence (see :class:`Presence`).
CONNECTED, RECONNECTING = "connected", "reconnecting"


@dataclass(frozen=True)
class Presence:
    """Whether each other player is reachable now: ``"connected"`` (the host has
    its link, or a direct link to it is up) or ``"reconnecting"`` (neither).
    Advisory: it comes from the host's ``presence`` frames and this peer's own
    direct links, can be wrong, and never blames anyone. ``changed`` holds the
    players whose presence changed since the last such event (at the first, those
    not connected); ``window`` is how long a player usually has to come back
    (this peer's own reconnect window)."""

    states: dict[int, str]
    changed: dict[int, str]
    window: float


def paths_of(keys: list[bytes], me: int, linked: set[int], host_key: bytes | None) -> dict[int, str]:
    """How each other player's messages reach player ``me`` (see :class:`Paths`)."""
    out = {}
    for player, key in enumerate(keys):
        if player == me:
            continue
        out[player] = DIRECT if player in linked else HOST if key == host_key else VIA_HOST
    return out


def presence_of(count: int, me: int, linked: set[int], told: list[int] | None) -> dict[int, str]:
    """Each other player's presence (see :class:`Presence`): a player the host has
    said nothing about (``told``, its last ``presence``) and no direct link
    covers counts as connected."""
    out = {}
    for player in range(count):
        if player == me:
            continue
        via_host = told is None or player >= len(told) or bool(told[player])
        out[player] = CONNECTED if via_host or player in linked else RECONNECTING
    return out


def presence_news(before: dict[int, str], states: dict[int, str], window: float) -> Presence | None:
    """The :class:`Presence` event for ``states`` after ``before`` (a player not in
    ``before`` counts as connected), or None if nothing is new."""
    if not states or states == before:
        return None
    changed = {p: state for p, state in states.items() if before.get(p, CONNECTED) != state}
    return Presence(states, changed, window)


@dataclass(frozen=True)
class SeatFilled:
    """The host's word at the end box: who took a freed seat (PROTOCOL.md §14); this
    seat's own when it is the newcomer. Unsigned: the rematch's genesis binds."""

    fill: Fill


@dataclass(frozen=True)
class Degraded:
    """A part of this seat that is not needed to play could not start (its
    direct-link listener, its announcement on the LAN): the table goes on without
    it, and ``reason`` tells the person what failed and what that means."""

    reason: str


@dataclass(frozen=True)
class EndBoxWord:
    """The host's word on its end box to a newcomer waiting there (PROTOCOL.md §14):
    ``left`` seconds until it closes, and how it ended (``ending``: 0 still open, 1 the
    rematch opens, 2 its wait ran out, 3 the host left). Unsigned, advisory."""

    left: int
    ending: int


@dataclass(frozen=True)
class Rejected:
    """The host refused this peer; the session ends."""

    reason: str


@dataclass(frozen=True)
class SessionResult:
    """How the session ended: an outcome, a verdict, or neither (a rejection)."""

    outcome: Outcome | None = None
    verdict: Verdict | None = None
    reason: str = ""
    #: Why the host was never reached, in words, when that ended a resumed session:
    #: its table is kept in play (no verdict), to be resumed when the host is back.
    unreached: str | None = None

    @property
    def left_in_lobby(self) -> bool:
        """This player left before the table started: nothing was played or saved."""
        return self.reason == LEFT_IN_LOBBY


#: The reason of a session its player left before the genesis.
LEFT_IN_LOBBY = "left before the table started"


#: Everything a session hands its front end's ``on_event``: the table's events,
#: this module's (lobby, links, waiting, paths, presence, refusal, a part that
#: could not start), table talk,
#: a refusal of this player's own move (a :class:`ProtocolError`), and at a host
#: the relay's news (:class:`LobbyChanged`, :class:`TableStarted`).
SessionEvent = (TableEvent | LobbyUpdate | LinkUp | LinkDown | Waiting | Paths | Presence | Rejected
                | TalkLine | ProtocolError | LobbyChanged | TableStarted | AgainHeard | TakeAsked
                | SeatFilled | Degraded | EndBoxWord)


#: What a front end reads for a step that comes before this seat has a view.
NO_VIEW = None


@dataclass(frozen=True)
class Step:
    """Events told again from a seat's record, and the seat's view as it was just
    after them (``NO_VIEW`` before the seats are drawn): a front end that reads
    the view while it takes the events (a deal's chips, the hand) sees that
    moment of the table, not the end of the record."""

    events: tuple[SessionEvent, ...]
    view: Engine | None = NO_VIEW
