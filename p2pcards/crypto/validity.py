"""What the group layer records: operation counts, validated encodings, pending ones.

Why apart from :mod:`p2pcards.crypto.group`: these are bookkeeping about the
group's values (how many operations ran, which encodings libsodium has
accepted), not the values themselves; the group layer consults them on every
decode and multiplication.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from p2pcards.crypto import sodium


class OpCounter:
    """How many group operations ran since the last :meth:`reset` (cheap, not thread-safe)."""

    __slots__ = ("scalarmult", "scalarmult_base", "add", "validate", "from_uniform")

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.scalarmult = 0
        self.scalarmult_base = 0
        self.add = 0
        self.validate = 0
        self.from_uniform = 0

    def snapshot(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in self.__slots__}


#: The process-wide operation counter.
OPS = OpCounter()


class ValidEncodings:
    """Point encodings that passed libsodium's validation in this process.

    Why: the peers of one process (a seat and its bots) parse the same
    messages, and validating a point costs about as much as a scalar
    multiplication. The validity of 32 bytes depends on nothing else, so a
    second peer meeting the same bytes skips the check. Only passes are
    kept; the set is emptied when full (bounded memory). ``enabled = False``
    makes every parse validate (a benchmark of peers on separate machines).
    """

    def __init__(self, capacity: int = 8192) -> None:
        self.capacity = capacity
        self.enabled = True
        self._seen: dict[bytes, None] = {}

    def __contains__(self, raw: bytes) -> bool:
        return self.enabled and raw in self._seen

    def clear(self) -> None:
        """Forget every encoding (a benchmark that times a fresh process's work again)."""
        self._seen.clear()

    def add(self, raw: bytes) -> None:
        if self.enabled:
            if len(self._seen) >= self.capacity:
                self._seen.clear()
            self._seen[raw] = None


#: The process-wide record of validated encodings.
VALID_POINTS = ValidEncodings()


class PendingPoints:
    """Encodings accepted without libsodium's validation yet, during one check.

    Why: libsodium's variable-base multiplication refuses a point that is not
    canonical, not on the curve, of small order or outside the prime-order
    subgroup (it returns -1), which are exactly the checks of
    ``crypto_core_ed25519_is_valid_point``; and validating costs about half a
    multiplication. A proof's check multiplies nearly every point it received,
    so inside :func:`deferring_validation` a point's bytes get only the cheap
    checks (length, canonical, identity) when decoded, and wait here; each
    multiplication that accepts a point takes it off (:meth:`multiplied`), and
    so does a check that found a received point equal to one it computed from
    points already accepted (:meth:`vouched`); :meth:`validate_rest` validates
    whatever is left. Nothing decoded in such a pass may be used unless that
    returns True (the caller then decodes again, validating every point as it is
    decoded, for the precise error). A point accepted either way is valid, and
    is kept in :data:`VALID_POINTS` like one that passed the validation itself.
    """

    def __init__(self) -> None:
        self._raw: set[bytes] = set()

    def __len__(self) -> int:
        return len(self._raw)

    def add(self, raw: bytes) -> None:
        self._raw.add(raw)

    def multiplied(self, raw: bytes) -> None:
        """libsodium multiplied ``raw`` by a non-zero scalar: it is a valid point."""
        if raw in self._raw:
            self._raw.discard(raw)
            VALID_POINTS.add(raw)

    #: A received point equal to a point computed from accepted ones is in the group too.
    vouched = multiplied

    def validate_rest(self) -> bool:
        """Validate every point nothing took off; whether all are valid."""
        while self._raw:
            raw = self._raw.pop()
            if raw in VALID_POINTS:  # accepted meanwhile, by another thread's check
                continue
            OPS.validate += 1
            if not sodium.is_valid_point(raw):
                return False
            VALID_POINTS.add(raw)
        return True


_PENDING: ContextVar[PendingPoints | None] = ContextVar("p2pcards_pending_points", default=None)


class Deferral:
    """Whether :func:`deferring_validation` defers at all. ``enabled = False``
    validates every point as it is decoded, as before (a benchmark counting
    the work of that construction)."""

    def __init__(self) -> None:
        self.enabled = True


#: The process-wide switch (see :class:`Deferral`).
DEFERRAL = Deferral()


@contextmanager
def deferring_validation() -> Iterator[PendingPoints]:
    """Decode points in this context (thread or task) without validating them yet;
    see :class:`PendingPoints`. Other threads decode as ever."""
    pending = PendingPoints()
    token = _PENDING.set(pending if DEFERRAL.enabled else None)
    try:
        yield pending
    finally:
        _PENDING.reset(token)


def pending_points() -> PendingPoints | None:
    """The pending points of this context's deferring verifier, or None (validate at once)."""
    return _PENDING.get()
