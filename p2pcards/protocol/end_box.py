"""A joiner's end box as rules: what it reads, when it stops, what it tells (sans-IO).

After a match ends normally (OVER) each player's end box is linked to the
finished match's host: it sends this player's signed choice, hears the
others' choices and fills, and waits for the host's word on how the end box
ended (an ``endbox`` frame: the rematch opens, the lobby timed out, the host
left). Its life is decided by time and by that word, never by how many frames
arrived: the end box listens until the lobby's stated end (the host's
``endbox`` says the seconds left; its own bound is :data:`END_BOX_WAIT` plus
:data:`END_BOX_SLACK` from when it opened, and no word of the host can hold it
longer), and only choice and fill frames, the ones that cost a signature
check, count against a budget per link (:data:`CHOICE_FRAMES_PER_LINK`; beyond
it they are dropped unread, the end box still listens). Presence, peers,
pings, a frame it cannot decode: read and dropped, free. So another player's
churn at the host (a presence frame to every end box each time its link comes
or goes) cannot end an end box early and cannot make it miss a later leave
(issue 37).

Events and ``now`` in (:meth:`EndBox.linked`, :meth:`~EndBox.choose`,
:meth:`~EndBox.frame`, :meth:`~EndBox.unlinked`, :meth:`~EndBox.unreachable`,
:meth:`~EndBox.tick`), outputs out: a frame to send, a choice or fill heard,
the stated end changed, and once, how the end box ended (:class:`Over`). The
asyncio driver is ``p2pcards.net.end_box_link``; the seeded simulation
(``tests/sim/evening.py``) drives the same rules.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass

from p2pcards.protocol import frames
from p2pcards.protocol.again import LEAVE, AgainCount, Choice, Chosen
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.rematch_genesis import FinishedMatch
from p2pcards.protocol.seat_fill import Fill

#: Seconds the host's end box waits, from the match's end at the host, for every seat
#: to be taken again (the lobby's stated end; every screen shows the time left).
END_BOX_WAIT = 120.0
#: Seconds a player may be away from the end box (no link to the host) without having
#: chosen before the host frees its seat for a newcomer or a bot.
END_BOX_GRACE = 10.0
#: Seconds a joiner's end box listens beyond the host's stated end (the host's last
#: frames, a link's delay) before it stops on its own clock.
END_BOX_SLACK = 15.0
#: Seconds a leaving end box waits for its leave to come back from the host's relay
#: (the relay shows every choice it keeps to every end box, the sender's included).
LEAVE_ACK_WAIT = 5.0
#: Choice and fill frames an end box reads on one link: an honest host sends at most
#: 8 choices and 4 fills per link; the rest are dropped unread (the box listens on).
CHOICE_FRAMES_PER_LINK = 64


class Ending(enum.IntEnum):
    """How an end box ended. The first four are the host's word (``endbox.end``)."""

    OPEN = 0
    """Not ended (the host's ``endbox`` while it waits)."""
    REMATCH = 1
    """Every seat is taken: the host opens the rematch on the same address."""
    TIMED_OUT = 2
    """The lobby's wait ran out with a seat undecided or free: the evening ends."""
    HOST_LEFT = 3
    """The host left (its own choice was leave, or it stopped): the evening ends."""
    LEFT = 10
    """This player left (its leave went to the host)."""
    NO_WORD = 11
    """This end box's own clock ran out with no word of the host."""
    HOST_GONE = 12
    """The host could not be reached again (its table closed, or it went away)."""
    REFUSED = 13
    """The host refused this end box (``reject``: its seat went to someone else)."""


#: What the host may say in ``endbox.end``.
HOST_ENDINGS = (Ending.OPEN, Ending.REMATCH, Ending.TIMED_OUT, Ending.HOST_LEFT)


def statement(left: float, end: Ending = Ending.OPEN) -> bytes:
    """The host's ``endbox`` frame: ``left`` seconds until its end box closes, ``end``
    how it ended (OPEN while it waits)."""
    if end not in HOST_ENDINGS:
        raise ValueError(f"the host says OPEN, REMATCH, TIMED_OUT or HOST_LEFT, not {end!r}")
    seconds = 0 if end is not Ending.OPEN else max(0, min(3600, math.ceil(left)))
    return frames.encode("endbox", {"left": seconds, "end": int(end)})


@dataclass(frozen=True)
class SendFrame:
    """Send ``frame`` on the end box's link to the host."""

    frame: bytes


@dataclass(frozen=True)
class ChoiceHeard:
    """A choice counted (this player's own too): say it."""

    chosen: Chosen


@dataclass(frozen=True)
class FillHeard:
    """The host says who took a freed seat: say it."""

    fill: Fill


@dataclass(frozen=True)
class EndStated:
    """The host's stated end of its end box moved: ``at`` on this end box's clock."""

    at: float


@dataclass(frozen=True)
class Over:
    """The end box ended (once): how, and the host's reason for a refusal."""

    ending: Ending
    reason: str = ""


Output = SendFrame | ChoiceHeard | FillHeard | EndStated | Over


class EndBox:
    """One player's end box (see the module docstring): ``finished`` its record of
    the match, ``player_keys`` that match's players in join order, opened at ``now``."""

    def __init__(self, finished: FinishedMatch, player_keys: tuple[bytes, ...], now: float,
                 wait: float = END_BOX_WAIT) -> None:
        self.count = AgainCount(finished, player_keys)
        #: This player's own signed choice, once made (sent again on every new link).
        self.mine: Choice | None = None
        #: The latest the end box listens: no word of the host moves it later.
        self.bound = now + wait + END_BOX_SLACK
        #: When it stops on its own clock (the host's stated end plus the slack).
        self.closes_at = self.bound
        #: The host's stated end (its clock's seconds left, read on this one), once said.
        self.stated_end: float | None = None
        self.ending: Ending | None = None
        self.reason = ""
        self.is_linked = False
        #: Choice and fill frames still read on this link.
        self.budget = CHOICE_FRAMES_PER_LINK
        #: Frames dropped unread or unusable (junk, beyond the budget, refused): no one blamed.
        self.dropped = 0
        self._leave_by: float | None = None

    @property
    def done(self) -> bool:
        return self.ending is not None

    @property
    def shown_end(self) -> float:
        """When the end box closes, as a screen says it: the host's stated end, else
        this end box's own wait."""
        return self.stated_end if self.stated_end is not None else self.bound - END_BOX_SLACK

    @property
    def wants_link(self) -> bool:
        """Whether a lost link should be dialled again (the end box is still open)."""
        return not self.done

    def wake_at(self) -> float:
        """When :meth:`tick` next has something to do (inf: never)."""
        if self.done:
            return math.inf
        return min(self.closes_at, self._leave_by if self._leave_by is not None else math.inf)

    # -- events -----------------------------------------------------------------------

    def linked(self, now: float) -> list[Output]:
        """A link to the host is up (its first frame came: it seated this end box)."""
        if self.done:
            return []
        self.is_linked, self.budget = True, CHOICE_FRAMES_PER_LINK
        if self.mine is None:
            return []
        return self._send_mine(now)

    def unlinked(self, now: float) -> list[Output]:
        """The link to the host is down (the driver dials again while :attr:`wants_link`)."""
        self.is_linked = False
        return []

    def unreachable(self, now: float) -> list[Output]:
        """The host could not be dialled again: its finished table is closed, or it went
        away. A leave already sent is done (the relay may have kept it)."""
        if self.done:
            return []
        if self.mine is not None and self.mine.choice == LEAVE:
            sent = self._leave_by is not None
            return self._over(Ending.LEFT, "" if sent else "the host could not be reached")
        return self._over(Ending.HOST_GONE)

    def choose(self, mine: Choice, now: float) -> list[Output]:
        """This player's own signed choice: counted, and sent (now, or on the next link).
        A leave ends the end box once the relay shows it back, or after
        :data:`LEAVE_ACK_WAIT`."""
        if self.done or self.mine is not None:
            return []
        self.mine = mine
        out: list[Output] = []
        chosen = self.count.receive(mine.raw)
        if chosen is not None:
            out.append(ChoiceHeard(chosen))
        if self.is_linked:
            out += self._send_mine(now)
        return out

    def _send_mine(self, now: float) -> list[Output]:
        assert self.mine is not None
        if self.mine.choice == LEAVE and self._leave_by is None:
            self._leave_by = now + LEAVE_ACK_WAIT  # from its first send
        return [SendFrame(frames.encode("again", self.mine.raw))]

    def frame(self, data: bytes, now: float) -> list[Output]:
        """One frame from the host. Only ``again`` and ``fill`` cost the budget; a
        frame this end box cannot use is dropped, free, and ends nothing."""
        if self.done:
            return []
        try:
            frame = frames.decode(data)
        except ProtocolError:
            self.dropped += 1
            return []
        if frame.kind == "endbox":
            return self._stated(frame.body["left"], frame.body["end"], now)
        if frame.kind == "reject":
            return self._over(Ending.REFUSED, str(frame.body["reason"]))
        if frame.kind not in ("again", "fill"):
            return []  # presence, peers, ping, ...: the finished table's, not the end box's
        if self.budget <= 0:
            self.dropped += 1
            return []
        self.budget -= 1
        if frame.kind == "fill":
            return self._fill(frame.body)
        return self._choice(frame.body, now)

    def tick(self, now: float) -> list[Output]:
        """The time is ``now``: a leave not shown back in time is done anyway; past the
        end box's end it stops (no word of the host came)."""
        if self.done:
            return []
        if self._leave_by is not None and now >= self._leave_by:
            return self._over(Ending.LEFT)
        if now >= self.closes_at:
            return self._over(Ending.NO_WORD)
        return []

    # -- what came ----------------------------------------------------------------------

    def _choice(self, raw: bytes, now: float) -> list[Output]:
        if self.mine is not None and raw == self.mine.raw:
            return self._over(Ending.LEFT) if self.mine.choice == LEAVE else []
        try:
            chosen = self.count.receive(raw)
        except ProtocolError:
            self.dropped += 1
            return []
        return [ChoiceHeard(chosen)] if chosen is not None else []

    def _fill(self, body: object) -> list[Output]:
        try:
            made = Fill.from_wire(body)
            new = self.count.hear_fill(made)
        except ProtocolError:
            self.dropped += 1
            return []
        return [FillHeard(made)] if new else []

    def _stated(self, left: int, end: int, now: float) -> list[Output]:
        if end != Ending.OPEN:
            return self._over(Ending(end))
        self.stated_end = min(self.bound - END_BOX_SLACK, now + left)
        self.closes_at = self.stated_end + END_BOX_SLACK
        return [EndStated(self.stated_end)]

    def _over(self, ending: Ending, reason: str = "") -> list[Output]:
        self.ending, self.reason = ending, reason
        self._leave_by = None
        return [Over(ending, reason)]


__all__ = ["CHOICE_FRAMES_PER_LINK", "END_BOX_GRACE", "END_BOX_SLACK", "END_BOX_WAIT",
           "HOST_ENDINGS", "LEAVE_ACK_WAIT", "ChoiceHeard", "EndBox", "EndStated", "Ending",
           "FillHeard", "Output", "Over", "SendFrame", "statement"]
