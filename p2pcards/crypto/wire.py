"""Shape checks shared by every ``from_wire``: lists of the right length, then points and scalars.

Why here and not in the protocol: a crypto value is only safe to use once
every point in it is validated, and that must not depend on the caller
remembering to do it. The protocol's strict msgpack decoding comes first;
these checks come second and raise :class:`~p2pcards.crypto.errors.InvalidEncoding`,
:class:`~p2pcards.crypto.errors.InvalidPoint` or
:class:`~p2pcards.crypto.errors.InvalidScalar` naming the sender's seat.
"""

from __future__ import annotations

from p2pcards.crypto.errors import CryptoError, InvalidEncoding
from p2pcards.crypto.group import Point, Scalar
from p2pcards.wiremap import WireList

#: The most cards a deck (and so a shuffle proof) may have on the wire.
MAX_DECK_SIZE = 256


def expect_list(obj: object, what: str, seat: int | None, *, length: int | None = None,
                lo: int = 0, hi: int = MAX_DECK_SIZE) -> WireList:
    if not isinstance(obj, (list, tuple)):
        raise InvalidEncoding(f"{what}: expected a list, got {type(obj).__name__}", seat=seat)
    if length is not None and len(obj) != length:
        raise InvalidEncoding(f"{what}: expected {length} items, got {len(obj)}", seat=seat)
    if not lo <= len(obj) <= hi:
        raise InvalidEncoding(f"{what}: expected {lo}..{hi} items, got {len(obj)}", seat=seat)
    return list(obj)


def points_from_wire(obj: object, what: str, seat: int | None, *, length: int | None = None,
                     lo: int = 1, hi: int = MAX_DECK_SIZE) -> tuple[Point, ...]:
    items = expect_list(obj, what, seat, length=length, lo=lo, hi=hi)
    try:
        return tuple(Point.from_bytes(b, what=what, seat=seat) for b in items)
    except CryptoError:
        # Decoded again, item by item, so that the error names the item (its name is
        # built only now: thousands are decoded per shuffle).
        return tuple(Point.from_bytes(b, what=f"{what}[{i}]", seat=seat)
                     for i, b in enumerate(items))


def scalars_from_wire(obj: object, what: str, seat: int | None, *, length: int | None = None,
                      lo: int = 1, hi: int = MAX_DECK_SIZE) -> tuple[Scalar, ...]:
    items = expect_list(obj, what, seat, length=length, lo=lo, hi=hi)
    try:
        return tuple(Scalar.from_bytes(b, what=what, seat=seat) for b in items)
    except CryptoError:  # as points_from_wire: the item's name only for its error
        return tuple(Scalar.from_bytes(b, what=f"{what}[{i}]", seat=seat)
                     for i, b in enumerate(items))
