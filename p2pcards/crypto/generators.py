"""Independent generators for the shuffle proof's Pedersen commitments.

Why hash-to-curve: the proof is sound only if nobody knows a discrete log
between ``G``, the chain base ``H`` and ``h_0 .. h_{N-1}`` (nor the card
points, hashed under another tag). Each comes out of
:func:`~p2pcards.crypto.hashing.hash_to_point` under its own domain tag, so
nobody, the authors included, chose them. They depend on nothing secret or
session-specific, so they are computed once per process and cached.
"""

from __future__ import annotations

from functools import lru_cache

from p2pcards.crypto.errors import InvalidEncoding, describe
from p2pcards.crypto.group import Point, sum_points
from p2pcards.crypto.hashing import TAG_GEN_CHAIN, TAG_GEN_PERM, hash_to_point, u64
from p2pcards.crypto.wire import MAX_DECK_SIZE


@lru_cache(maxsize=1)
def chain_base() -> Point:
    """``H = hash_to_point(TAG_GEN_CHAIN)``: the base of the commitment chain (CHVote's ``h``)."""
    return hash_to_point(TAG_GEN_CHAIN)


@lru_cache(maxsize=MAX_DECK_SIZE)
def _generator(index: int) -> Point:
    return hash_to_point(TAG_GEN_PERM, u64(index))


def generators(n: int) -> tuple[Point, ...]:
    """``h_i = hash_to_point(TAG_GEN_PERM; u64(i))`` for ``i = 0 .. n-1`` (CHVote's ``h_1..h_N``)."""
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_DECK_SIZE:
        raise InvalidEncoding(f"generator count must be 1..{MAX_DECK_SIZE}, got {describe(n)}")
    return tuple(_generator(i) for i in range(n))


@lru_cache(maxsize=16)
def generators_sum(n: int) -> Point:
    """``Σ h_i`` for ``i < n``: the verifier's ``Π h_i``, fixed for a deck size, so cached."""
    return sum_points(generators(n))
