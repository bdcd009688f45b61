"""Unbiased integers and permutations from a stream of random 64-bit words.

Why rejection sampling: ``word mod n`` favours small values whenever ``n``
does not divide 2^64. Here a word ``w`` is accepted only below
``limit = 2^64 - (2^64 mod n)``, a multiple of ``n``, so ``w mod n`` is
exactly uniform. Permutations are Fisher–Yates over such draws.

The same two functions serve the public joint draw (words from a hash
stream, :mod:`p2pcards.crypto.draw`) and the secret shuffle (words from the
OS, :mod:`p2pcards.crypto.shuffle`).
"""

from __future__ import annotations

from collections.abc import Callable

from p2pcards.crypto.errors import CryptoError, InvalidEncoding, describe
from p2pcards.crypto.group import Rng

#: A source of uniformly random integers in ``0 .. 2^64 - 1``.
WordSource = Callable[[], int]

_TWO_64 = 1 << 64
_MAX_N = 1 << 32
_MAX_TRIES = 64  # each try fails with probability < 2^-32


def words_from_rng(rng: Rng) -> WordSource:
    """64-bit words from a byte source: 8 bytes per word, big-endian."""
    return lambda: int.from_bytes(rng(8), "big")


def uniform_below(n: int, next_word: WordSource) -> int:
    """A uniform integer in ``0 .. n-1`` (``1 <= n <= 2^32``)."""
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= _MAX_N:
        raise InvalidEncoding(f"range size must be an integer in 1..2^32, got {describe(n)}")
    limit = _TWO_64 - _TWO_64 % n
    for _ in range(_MAX_TRIES):
        word = next_word()
        if word < limit:
            return word % n
    raise CryptoError("the random source was rejected 64 times in a row")


def fisher_yates(n: int, next_word: WordSource) -> list[int]:
    """A uniform permutation of ``0 .. n-1``.

    ``p = [0, 1, ..., n-1]``; for ``i = n-1`` down to ``1``: ``j =
    uniform_below(i + 1)``, swap ``p[i]`` and ``p[j]``.
    """
    if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= _MAX_N:
        raise InvalidEncoding(f"permutation size must be an integer in 0..2^32, got {describe(n)}")
    perm = list(range(n))
    for i in range(n - 1, 0, -1):
        j = uniform_below(i + 1, next_word)
        perm[i], perm[j] = perm[j], perm[i]
    return perm
