"""What the host's relay keeps of its end box (PROTOCOL.md §14): the choices, the
host's fills and its word on the end box, and the keys whose seat went to someone
else.

Every link that arrives at the end box (a player's hello after the match) is
shown all of it again, so an end box that lost its link, or a player that comes
back, holds what the others hold: a leave sent while its link was down is not
lost to it. The store is bounded: at most :data:`MAX_CHOICES` choices, at most
:data:`MAX_CHOICES_PER_PLAYER` of one player, a fill per seat.
"""

from __future__ import annotations

import math

from p2pcards.protocol import frames
from p2pcards.protocol.again import Choice
from p2pcards.protocol.errors import BadSignature
from p2pcards.rules.seats import SEATS
from p2pcards.wiremap import WireMap

#: The most end-box choices the relay keeps: an again then a leave for each seat.
MAX_CHOICES = 2 * SEATS
#: The most it keeps of one player's: a player signing choices about other ends of
#: this session (the relay cannot tell the right end) fills only its own share,
#: never the seats whose players choose after it.
MAX_CHOICES_PER_PLAYER = 2


class EndBoxStore:
    """The relay's record of its end box (sans-IO; times are the relay's clock)."""

    def __init__(self) -> None:
        #: Choices kept (raw), in the order kept.
        self.choices: list[bytes] = []
        #: The host's fills (``fill`` frames), in the order made (at most one per seat).
        self.fills: list[bytes] = []
        #: Keys whose seat at the end box went to someone else: refused from then on.
        self.evicted: set[bytes] = set()
        self._word: tuple[float, int] | None = None  # (closes at, end)

    def refusal(self, choice: Choice, session: bytes | None, link_player: int | None,
                player_keys: list[bytes], link_key: bytes) -> str | None:
        """Why a choice from a player's link is dropped (nobody blamed), or None."""
        if link_key in self.evicted:
            return "a choice of a player whose seat went to someone else"
        if self.closed:
            return "a choice after the host's end box closed"
        if choice.session != session or choice.player != link_player:
            return "a choice about another session or by another player"
        try:
            choice.verify(player_keys[choice.player])
        except BadSignature as bad:
            return str(bad)
        return None

    @property
    def closed(self) -> bool:
        """The host said how its end box ended: no choice is kept after that (every end
        box, and the host's count, hold the same choices as its word went out)."""
        return self._word is not None and self._word[1] != 0

    def keep(self, raw: bytes) -> bool:
        """Keep a choice; False for one kept already, beyond the bounds, or after the
        host's end box closed."""
        if raw in self.choices or len(self.choices) >= MAX_CHOICES or self.closed:
            return False
        player = Choice.parse(raw).player
        if sum(Choice.parse(kept).player == player for kept in self.choices) \
                >= MAX_CHOICES_PER_PLAYER:
            return False
        self.choices.append(raw)
        return True

    def keep_fill(self, body: WireMap) -> bytes | None:
        """Keep the host's fill; its frame, or None beyond one per seat."""
        if len(self.fills) >= SEATS:
            return None
        frame = frames.encode("fill", body)
        self.fills.append(frame)
        return frame

    def say(self, left: float, end: int, now: float) -> bytes:
        """Keep the host's word (``left`` seconds until its end box closes, ``end`` how it
        ended, 0 while open) at ``now``; its frame."""
        self._word = (now + left, end)
        word = self.word(now)
        assert word is not None
        return word

    def word(self, now: float) -> bytes | None:
        """The host's latest word as an ``endbox`` frame, its time left counted down to
        ``now``; None before the host said any."""
        if self._word is None:
            return None
        closes, end = self._word
        left = 0 if end else max(0, min(3600, math.ceil(closes - now)))
        return frames.encode("endbox", {"left": left, "end": end})

    def shown(self, now: float) -> list[bytes]:
        """Every frame a link arriving at the end box is shown: the choices, the fills,
        the host's word (none during play: nothing is kept then)."""
        word = self.word(now)
        return ([frames.encode("again", raw) for raw in self.choices] + list(self.fills)
                + ([word] if word is not None else []))
