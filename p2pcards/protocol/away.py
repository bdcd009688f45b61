"""Whether a host that comes back finds its table still in play, or ended while it was away.

A player that loses its host redials for its reconnect window, then ends the
table naming the host ("could not be reached"), by its own clock. A host
killed and resumed later than that finds nobody left to play with: every
other player's table has ended. Its own clock ran while it was down, so it
must not name anyone by it (the players' records rightly name the host); it
says that the table ended while it was away, and its record names nobody.

A blame rule, so it is sans-IO: the caller passes ``now`` and when the host was
last known to be up (its heartbeat, see :func:`p2pcards.net.resume.keep_alive`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EndedWhileAway:
    """The table ended while its host was down: the others gave up on it."""

    away: float
    """Seconds since the host was last known to be up."""
    window: float
    """The reconnect window the players are taken to have (the host's own)."""
    others: int
    """Players in other processes, whose tables ended (this process's bots did not)."""

    def sentence(self) -> str:
        """What the host is told, naming nobody."""
        players = "player" if self.others == 1 else f"{self.others} players"
        return (f"the table ended while you were away: you were gone about {self.away:.0f} s, "
                f"longer than the {self.window:.0f} s the other {players} wait for a host "
                f"to come back, so their records end with the host that could not be "
                f"reached; yours names nobody")


def ended_while_away(now: float, up_at: float | None, reconnect_window: float, others: int,
                     precision: float = 0.0) -> EndedWhileAway | None:
    """A host's table ended while it was down, or None (it is still in play).

    ``up_at`` is the wall time the host was last known to be up (None: unknown,
    nothing is decided), ``others`` how many of the table's players are not in
    this process (none: only its own bots, which waited for it), ``precision``
    how stale ``up_at`` may be (the heartbeat's period): a host is gone too long
    only when even the latest moment it may have been up is beyond the window.
    """
    if up_at is None or others <= 0:
        return None
    away = now - up_at
    if away - precision <= reconnect_window:
        return None
    return EndedWhileAway(away, reconnect_window, others)
