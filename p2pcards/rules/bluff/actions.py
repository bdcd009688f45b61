"""What a seat can do in Bluff: discard (with a claim and a stake), pass, challenge, reveal.

Each action names its seat, so the referee can blame precisely; a discard
names deal *slots*, never faces, since a discard is face down.
"""

from __future__ import annotations

from dataclasses import dataclass

from p2pcards.cards import Card, Rank


@dataclass(frozen=True)
class Discard:
    """Put the cards of ``slots`` face down, claiming they are all ``rank``.

    ``rank`` is required when leading; when responding it may be ``None`` or
    must repeat the rank named for the round.
    """

    seat: int
    slots: tuple[int, ...]
    stake: int
    rank: Rank | None = None


@dataclass(frozen=True)
class Pass:
    """Let the last discard stand for now, paying the pass price to the safe box."""

    seat: int


@dataclass(frozen=True)
class Challenge:
    """Call "Bluff!" on the last discard."""

    seat: int


@dataclass(frozen=True)
class Reveal:
    """Show the faces of the challenged discard, in the order of its slots."""

    seat: int
    faces: tuple[Card, ...]


Action = Discard | Pass | Challenge | Reveal
