"""Keys and randomness derived from one number, so that a table can be played again
exactly: for tests and benchmarks only.

It is NOT secure: whoever knows the seed knows every key share, nonce and shuffle,
so every card. The command line takes a seed only when told that it is a test
(``P2PCARDS_INSECURE_SEED=1``); a real table draws from the OS.
"""

from __future__ import annotations

from collections.abc import Callable

from nacl.signing import SigningKey

from p2pcards.crypto.hashing import digest32
from p2pcards.crypto.seeded import SeededRng
from p2pcards.protocol.identity import Identity

_SEED_TAG = b"p2pcards/test-seed/v1"


def derive(seed: int, *labels: str) -> bytes:
    """32 bytes of ``seed`` for what ``labels`` name (a bot's key, the genesis nonce)."""
    return digest32(_SEED_TAG, str(seed).encode(), *(label.encode() for label in labels))


def seeded_identity(seed: int, label: str, name: str) -> Identity:
    return Identity(SigningKey(derive(seed, "identity", label)), name)


def randomness_for(seed: int | None, label: str) -> Callable[[int], Callable[[int], bytes]] | None:
    """A seat's randomness at each transcript position (None without a seed: the OS's)."""
    if seed is None:
        return None
    return lambda position: SeededRng(derive(seed, "rng", label, str(position)))
