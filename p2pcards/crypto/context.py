"""The context bound into every proof, so that no proof can be replayed elsewhere.

A proof made at one table (``session``), by one seat, about one deck is
worthless at another table, for another seat or for another deck: all three
enter every Fiat–Shamir hash.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2pcards.crypto.errors import InvalidEncoding, describe
from p2pcards.crypto.hashing import u64

SESSION_BYTES = 32
_MAX_SEAT = (1 << 32) - 1
_MAX_DECK = (1 << 63) - 1


@dataclass(frozen=True)
class ProofContext:
    """``session``: the table's 32-byte session id; ``seat``: the prover;
    ``deck``: which deck of the session (one per shuffle-and-deal)."""

    session: bytes
    seat: int
    deck: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.session, bytes) or len(self.session) != SESSION_BYTES:
            raise InvalidEncoding(f"session id must be {SESSION_BYTES} bytes")
        for name, value, top in (("seat", self.seat, _MAX_SEAT), ("deck", self.deck, _MAX_DECK)):
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= top:
                raise InvalidEncoding(f"{name} must be an integer in 0..{top}, got {describe(value)}")

    def fields(self) -> tuple[bytes, bytes, bytes]:
        """``session, u64(seat), u64(deck)``: the first three fields of every proof hash."""
        return (self.session, u64(self.seat), u64(self.deck))
