"""The host's end box as rules: its stated end, who is there, the seats it frees (sans-IO).

The host's end box opens when its match ends (``opened_at``) and waits at most
:data:`~p2pcards.protocol.end_box.END_BOX_WAIT` for every seat to be taken
again; every end box is told the time left (``endbox`` frames, §14). A player
that has chosen nothing and has had no link to the host for
:data:`~p2pcards.protocol.end_box.END_BOX_GRACE` seconds (it closed its window,
its program crashed, it never dialled the end box) has its seat freed: a
newcomer or a bot may take it at once. Until someone does, the seat is its own
again as soon as it is linked again, and its own choice counts as anyone's. A
player that chose (again or leave) is never freed by absence: a signed choice
stands. Presence churn of a player who chose changes nothing here; of one who
did not, it only restarts its grace.

Events and ``now`` in (:meth:`EndLobby.present`, :meth:`~EndLobby.tick`,
:meth:`~EndLobby.host_left`), outputs out (:class:`Vacated`, :class:`Returned`,
:class:`Closed`); ``p2pcards.evening.host_side.EveningHost`` drives it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from p2pcards.protocol.again import AgainCount
from p2pcards.protocol.end_box import END_BOX_GRACE, END_BOX_WAIT, Ending
from p2pcards.rules.seats import SEATS


@dataclass(frozen=True)
class Vacated:
    """The seat of ``player`` is free: it chose nothing and was away past the grace."""

    player: int


@dataclass(frozen=True)
class Returned:
    """The player of a seat freed by absence is back before anyone took it."""

    player: int


@dataclass(frozen=True)
class Closed:
    """The host's end box ended: how (REMATCH, TIMED_OUT or HOST_LEFT)."""

    ending: Ending


Output = Vacated | Returned | Closed


class EndLobby:
    """The host's end box for one finished match (see the module docstring).

    ``local``: the players in the host's own process (its seat, its bots), always
    there; the others count as away until the host's relay says they are linked."""

    def __init__(self, count: AgainCount, opened_at: float, local: Iterable[int] = (0,),
                 wait: float = END_BOX_WAIT, grace: float = END_BOX_GRACE) -> None:
        self.count = count
        self.grace = grace
        self.closes_at = opened_at + wait
        self.local = frozenset(local)
        #: Since when each remote player has had no link to the host.
        self.away_since: dict[int, float] = {p: opened_at for p in range(SEATS)
                                             if p not in self.local}
        self.ending: Ending | None = None

    @property
    def done(self) -> bool:
        return self.ending is not None

    def left(self, now: float) -> float:
        """Seconds until the end box closes."""
        return max(0.0, self.closes_at - now)

    def wake_at(self) -> float:
        """When :meth:`tick` next has something to do (inf: never)."""
        if self.done:
            return math.inf
        frees = [since + self.grace for p, since in self.away_since.items()
                 if p in self.count.undecided and p not in self.count.vacated]
        return min([self.closes_at, *frees])

    def away(self, now: float) -> dict[int, float]:
        """Undecided players away now, and the seconds until each one's seat is freed."""
        return {p: max(0.0, since + self.grace - now) for p, since in self.away_since.items()
                if p in self.count.undecided and p not in self.count.vacated}

    # -- events -----------------------------------------------------------------------

    def present(self, linked: Sequence[int], now: float) -> list[Output]:
        """The host's relay says who is linked (``linked[p]``: 1 if player ``p`` has a
        link now). A player linked again gets a seat freed by absence back."""
        out: list[Output] = []
        for player in range(SEATS):
            if player in self.local:
                continue
            here = player < len(linked) and bool(linked[player])
            if here:
                self.away_since.pop(player, None)
                if not self.done and self.count.unvacate(player):
                    out.append(Returned(player))
            else:
                self.away_since.setdefault(player, now)
        return out

    def tick(self, now: float) -> list[Output]:
        """The time is ``now``: free the seats of players away past the grace; close
        once every seat is taken (REMATCH) or the wait ran out (TIMED_OUT)."""
        if self.done:
            return []
        out: list[Output] = []
        for player, since in sorted(self.away_since.items()):
            if now >= since + self.grace and self.count.vacate(player):
                out.append(Vacated(player))
        if self.count.ready:
            out += self._close(Ending.REMATCH)
        elif now >= self.closes_at:
            out += self._close(Ending.TIMED_OUT)
        return out

    def host_left(self, now: float) -> list[Output]:
        """The host's own choice was leave (or it stops): the evening ends."""
        return [] if self.done else self._close(Ending.HOST_LEFT)

    def _close(self, ending: Ending) -> list[Output]:
        self.ending = ending
        return [Closed(ending)]


__all__ = ["Closed", "EndLobby", "Output", "Returned", "Vacated"]
