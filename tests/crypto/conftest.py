"""Shared fixtures for the mental-poker tests: a session, four seats' keys, decks.

Everything random comes from :class:`SeededRng` with a fixed seed per use, so
every test is reproducible and none can fail by chance.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from p2pcards.crypto import keys, shares
from p2pcards.crypto.context import ProofContext
from p2pcards.crypto.elgamal import CardMap, Ciphertext
from p2pcards.crypto.group import Point
from p2pcards.crypto.seeded import SeededRng
from tests.crypto.aliases import Opener, Seeded

SEATS = 4
SESSION = bytes(range(100, 132))
FULL_DECK = list(range(52))
TOPPER_DECK = list(range(28, 52))


def _seeded(name: str) -> SeededRng:
    return SeededRng(b"p2pcards/tests/" + name.encode())


@pytest.fixture(scope="session")
def seeded() -> Seeded:
    """``seeded(name)``: a fresh deterministic byte source named after its use."""
    return _seeded


@pytest.fixture(scope="session")
def session() -> bytes:
    return SESSION


@pytest.fixture(scope="session")
def key_shares() -> list[keys.KeyShare]:
    return [keys.KeyShare.generate(_seeded(f"key/{seat}")) for seat in range(SEATS)]


@pytest.fixture(scope="session")
def joint_key(key_shares: list[keys.KeyShare]) -> Point:
    return keys.joint_public_key(k.public for k in key_shares)


@pytest.fixture(scope="session")
def ctxs() -> list[ProofContext]:
    return [ProofContext(SESSION, seat, 1) for seat in range(SEATS)]


@pytest.fixture(scope="session")
def open_deck(key_shares: list[keys.KeyShare]) -> Opener:
    """Decrypt a whole deck with every seat's key (only a test may hold them all)."""

    def opener(deck: Sequence[Ciphertext], card_map: CardMap) -> list[int]:
        return [shares.recover_code(ct, [shares.decryption_point(k, ct) for k in key_shares],
                                    card_map, slot=slot) for slot, ct in enumerate(deck)]

    return opener
