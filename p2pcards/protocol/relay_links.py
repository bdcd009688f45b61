"""A link as the host's relay knows it: the key that proved itself on it, what its
``hello`` made of it (a player's seat, a spectator's place), and how many answers it
may still be given before more is a flood.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from p2pcards.protocol import frames
from p2pcards.protocol.relay_outputs import Close, Output, Send

#: Pings a link gets answered per transcript message: an honest peer pings once when
#: a writer's deadline ran out, so more is a flood (dropped unanswered, without a clock).
PINGS_PER_MESSAGE = 2
#: Syncs a spectator's link gets answered per transcript message; one more before the
#: chain grows closes the link (a spectator hears every message: more is a flood).
SPECTATOR_SYNCS_PER_MESSAGE = 1


@dataclass
class PerMessage:
    """Answers a link was given since the chain was last this long: a budget that a
    longer chain fills again."""

    length: int = 0
    answered: int = 0

    def spend(self, length: int, limit: int) -> bool:
        """One more answer at chain ``length``, if ``limit`` allows it."""
        if length != self.length:
            self.length, self.answered = length, 0
        if self.answered >= limit:
            return False
        self.answered += 1
        return True


@dataclass
class RelayLink:
    """One link to the relay, from the handshake on."""

    public_key: bytes
    name: str | None = None
    player: int | None = None
    spectator: bool = False
    pings: PerMessage = field(default_factory=PerMessage)
    syncs: PerMessage = field(default_factory=PerMessage)


def refused(link: int, reason: str) -> list[Output]:
    """``link`` told why in a ``reject`` frame, then closed."""
    return [Send(link, frames.encode("reject", {"reason": reason[:200]})), Close(link, reason)]
