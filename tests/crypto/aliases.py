"""Names for the shapes the mental-poker fixtures hand to tests (see conftest.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeAlias

from p2pcards.crypto.elgamal import CardMap, Ciphertext
from p2pcards.crypto.seeded import SeededRng
from p2pcards.crypto.shuffle import ShuffleProof

#: ``seeded(name)``: a fresh deterministic byte source named after its use.
Seeded: TypeAlias = Callable[[str], SeededRng]
#: Decrypts a whole deck with every seat's key.
Opener: TypeAlias = Callable[[Sequence[Ciphertext], CardMap], list[int]]
#: A deck, the deck shuffled from it, and the proof of that shuffle.
Shuffled: TypeAlias = tuple[list[Ciphertext], list[Ciphertext], ShuffleProof]
