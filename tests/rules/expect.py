"""What a test knows of values whose type allows more: each face of a deal it wrote
out is known, each action of a list is of one kind. Anything else fails the test."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from p2pcards.cards import Card

T = TypeVar("T")


def known(faces: Iterable[Card | None]) -> list[Card]:
    """``faces``, each of which the test dealt itself (a None fails the test, saying where)."""
    out = list(faces)
    assert all(face is not None for face in out), f"unknown faces at {[i for i, f in enumerate(out) if f is None]}"
    return [face for face in out if face is not None]


def known_hand(hand: Iterable[tuple[int, Card | None]]) -> list[tuple[int, Card]]:
    """A hand of (slot, face) the test can see whole (a None fails the test)."""
    out = list(hand)
    assert all(face is not None for _, face in out), f"unknown faces at {[s for s, f in out if f is None]}"
    return [(slot, face) for slot, face in out if face is not None]


def each(kind: type[T], items: Iterable[object]) -> list[T]:
    """``items``, every one of which the test expects to be a ``kind``."""
    out = list(items)
    assert all(isinstance(item, kind) for item in out), [type(item).__name__ for item in out]
    return [item for item in out if isinstance(item, kind)]
