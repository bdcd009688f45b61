"""Joint random draws (seating, first leader, first dealer) by commit-then-reveal.

Why it is unbiased: every seat commits to a fresh 32-byte nonce before any
nonce is revealed, and the seed hashes all of them, so a seat that learns
the others' nonces can no longer change its own; as long as one seat's
nonce is random, the seed is. The only power left to a seat is to refuse to
reveal, which the protocol treats as a fault (it names the seat), never as
a reason to draw again.

Flow: each seat ``i`` publishes ``draw_commitment(session, i, purpose,
nonce_i)``; after all commitments, each reveals ``nonce_i``; everyone runs
:func:`verify_draw_nonce` for every seat, then :func:`draw_seed` over the
nonces in seat order, then :func:`uniform_index` or :func:`permutation`.
Use a distinct ``purpose`` for each draw of a session.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2pcards.crypto.context import ProofContext
from p2pcards.crypto.errors import CommitmentMismatch, InvalidEncoding
from p2pcards.crypto.group import Rng, default_rng
from p2pcards.crypto.hashing import (
    TAG_DRAW_COMMIT,
    TAG_DRAW_SEED,
    TAG_DRAW_STREAM,
    digest32,
    sha512_fields,
    u64,
)
from p2pcards.crypto.sampling import fisher_yates, uniform_below
from p2pcards.wiremap import WireValue

#: The purpose a nonce is committed under when one nonce serves the table's set-up draws.
SETUP_PURPOSE = "table set-up"
NONCE_BYTES = 32
SEED_BYTES = 32
COMMITMENT_BYTES = 32
_MAX_PURPOSE = 64


def _purpose_bytes(purpose: str | bytes) -> bytes:
    raw = purpose.encode("utf-8") if isinstance(purpose, str) else purpose
    if not isinstance(raw, bytes) or not 1 <= len(raw) <= _MAX_PURPOSE:
        raise InvalidEncoding(f"draw purpose must be 1..{_MAX_PURPOSE} bytes")
    return raw


def _check_bytes(value: object, size: int, what: str, seat: int | None) -> bytes:
    if not isinstance(value, bytes) or len(value) != size:
        raise InvalidEncoding(f"{what}: expected {size} bytes", seat=seat)
    return value


def _check_session(session: WireValue) -> bytes:
    return _check_bytes(session, 32, "session id", None)


def new_nonce(rng: Rng | None = None) -> bytes:
    """A fresh secret nonce for one draw (keep it until the reveal)."""
    return (default_rng if rng is None else rng)(NONCE_BYTES)


def draw_commitment(session: bytes, seat: int, purpose: str | bytes, nonce: bytes) -> bytes:
    """``H32(TAG_DRAW_COMMIT; session, u64(seat), purpose, nonce)``."""
    _check_session(session)
    _check_bytes(nonce, NONCE_BYTES, "draw nonce", seat)
    return digest32(TAG_DRAW_COMMIT, session, u64(seat), _purpose_bytes(purpose), nonce)


def verify_draw_nonce(commitment: WireValue, session: bytes, seat: int, purpose: str | bytes,
                      nonce: WireValue) -> None:
    """Raise :class:`CommitmentMismatch` naming ``seat`` unless ``nonce`` is what it committed."""
    _check_bytes(commitment, COMMITMENT_BYTES, "draw commitment", seat)
    _check_bytes(nonce, NONCE_BYTES, "draw nonce", seat)
    if draw_commitment(session, seat, purpose, nonce) != commitment:
        raise CommitmentMismatch("draw nonce", seat=seat)


def commit(ctx: ProofContext, nonce: bytes, purpose: str | bytes = SETUP_PURPOSE) -> bytes:
    """:func:`draw_commitment` for ``ctx.session`` and ``ctx.seat`` (``ctx.deck`` is not used)."""
    return draw_commitment(ctx.session, ctx.seat, purpose, nonce)


def verify_commitment(ctx: ProofContext, nonce: WireValue, commitment: WireValue,
                      purpose: str | bytes = SETUP_PURPOSE) -> bool:
    """Whether ``nonce`` is what ``ctx.seat`` committed to with :func:`commit`.

    Malformed inputs still raise :class:`InvalidEncoding`; only a mismatch
    returns ``False``. :func:`verify_draw_nonce` is the raising form.
    """
    try:
        verify_draw_nonce(commitment, ctx.session, ctx.seat, purpose, nonce)
    except CommitmentMismatch:
        return False
    return True


def draw_seed(session: bytes, purpose: str | bytes, nonces_in_seat_order: Sequence[bytes]) -> bytes:
    """``H32(TAG_DRAW_SEED; session, purpose, u64(count), nonce_0 || nonce_1 || ...)``."""
    _check_session(session)
    if not 1 <= len(nonces_in_seat_order) <= 1024:
        raise InvalidEncoding("a draw needs 1..1024 nonces")
    for seat, nonce in enumerate(nonces_in_seat_order):
        _check_bytes(nonce, NONCE_BYTES, "draw nonce", seat)
    return digest32(TAG_DRAW_SEED, session, _purpose_bytes(purpose), u64(len(nonces_in_seat_order)),
                    b"".join(nonces_in_seat_order))


class HashStream:
    """64-bit words from a seed: block ``k`` is ``SHA-512(TAG_DRAW_STREAM; seed, u64(k))``,
    read as eight big-endian words in order, blocks ``k = 0, 1, 2, ...``."""

    def __init__(self, seed: bytes) -> None:
        self._seed = _check_bytes(seed, SEED_BYTES, "draw seed", None)
        self._block = 0
        self._words: list[int] = []

    def __call__(self) -> int:
        if not self._words:
            block = sha512_fields(TAG_DRAW_STREAM, self._seed, u64(self._block))
            self._block += 1
            self._words = [int.from_bytes(block[i:i + 8], "big") for i in range(56, -8, -8)]
        return self._words.pop()

    def __repr__(self) -> str:
        return "HashStream(<seed hidden>)"


def uniform_index(seed: bytes, n: int) -> int:
    """An unbiased choice in ``0 .. n-1`` (e.g. the first dealer) from a draw seed."""
    return uniform_below(n, HashStream(seed))


def permutation(seed: bytes, n: int) -> list[int]:
    """An unbiased permutation of ``0 .. n-1`` (e.g. seating) from a draw seed."""
    return fisher_yates(n, HashStream(seed))
