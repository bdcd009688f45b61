"""A deterministic byte source, for test vectors and reproducible tests only.

Why it exists: every function that draws randomness takes ``rng``, so a
fixed seed reproduces keys, shuffles and proofs bit for bit in any language.
Never use it at a table: anyone who knows the seed knows every secret.

The stream is ``SHA-512(TAG_SEEDED_RNG; seed, u64(k))`` for blocks
``k = 0, 1, 2, ...`` concatenated; each call ``rng(n)`` returns the next
``n`` bytes of that stream.
"""

from __future__ import annotations

from p2pcards.crypto.errors import InvalidEncoding, describe
from p2pcards.crypto.hashing import TAG_SEEDED_RNG, sha512_fields, u64


class SeededRng:
    """``rng(n)``: the next ``n`` bytes of the seed's SHA-512 counter stream."""

    def __init__(self, seed: bytes) -> None:
        if not isinstance(seed, bytes) or not 1 <= len(seed) <= 256:
            raise InvalidEncoding("a seed must be 1..256 bytes")
        self._seed = seed
        self._block = 0
        self._buffer = b""

    def __call__(self, n: int) -> bytes:
        if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= 1 << 20:
            raise InvalidEncoding(f"cannot draw {describe(n)} bytes")
        while len(self._buffer) < n:
            self._buffer += sha512_fields(TAG_SEEDED_RNG, self._seed, u64(self._block))
            self._block += 1
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out

    def __repr__(self) -> str:
        return "SeededRng(<seed hidden>)"
