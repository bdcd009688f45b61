"""The group layer: canonical encodings, validation, and explicit identity and zero."""

from __future__ import annotations

import nacl.bindings as nb
import pytest

from p2pcards.crypto.elgamal import card_point
from p2pcards.crypto.errors import InvalidEncoding, InvalidPoint, InvalidScalar
from p2pcards.crypto.group import (
    OPS,
    ORDER,
    G,
    Point,
    Scalar,
    base_mul,
    linear_combination,
    random_scalar,
    scalar_mul,
)
from p2pcards.crypto.seeded import SeededRng


def seeded(name: str) -> SeededRng:
    return SeededRng(b"p2pcards/tests/group/" + name.encode())

IDENTITY = b"\x01" + bytes(31)
#: The seven non-identity points of small order (orders 2, 4, 8) and the
#: encodings libsodium lists with the sign bit set.
SMALL_ORDER = [bytes.fromhex(h) for h in (
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000080",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
    "0100000000000000000000000000000000000000000000000000000000000080",
)]
ORDER_8 = SMALL_ORDER[5]


def some_point(name: str = "p") -> Point:
    return base_mul(random_scalar(seeded(name)))


def test_a_valid_point_round_trips_through_its_canonical_bytes() -> None:
    p = some_point()
    assert Point.from_bytes(p.to_bytes()) == p
    assert bytes(p) == p.to_bytes() and len(p.to_bytes()) == 32


def test_from_bytes_refuses_the_identity_but_its_own_door_accepts_it() -> None:
    with pytest.raises(InvalidPoint) as err:
        Point.from_bytes(IDENTITY, what="key", seat=2)
    assert err.value.reason == InvalidPoint.IDENTITY and err.value.seat == 2
    assert Point.from_bytes_or_identity(IDENTITY).is_identity
    assert Point.identity().to_bytes() == IDENTITY


@pytest.mark.parametrize("raw", [
    (2**255 - 19).to_bytes(32, "little"),        # y = p
    (2**255 - 18).to_bytes(32, "little"),        # y = p + 1: a second encoding of y = 1
    (2**255 - 1).to_bytes(32, "little"),
    ((2**255 - 19) | (1 << 255)).to_bytes(32, "little"),
])
def test_from_bytes_refuses_non_canonical_encodings(raw: bytes) -> None:
    for door in (Point.from_bytes, Point.from_bytes_or_identity):
        with pytest.raises(InvalidPoint) as err:
            door(raw)
        assert err.value.reason == InvalidPoint.NON_CANONICAL


@pytest.mark.parametrize("raw", SMALL_ORDER)
def test_from_bytes_refuses_small_order_points(raw: bytes) -> None:
    for door in (Point.from_bytes, Point.from_bytes_or_identity):
        with pytest.raises(InvalidPoint) as err:
            door(raw)
        assert err.value.reason == InvalidPoint.NOT_IN_GROUP


def test_from_bytes_refuses_a_point_with_a_small_order_component() -> None:
    mixed = nb.crypto_core_ed25519_add(card_point(5).to_bytes(), ORDER_8)
    with pytest.raises(InvalidPoint) as err:
        Point.from_bytes(mixed)
    assert err.value.reason == InvalidPoint.NOT_IN_GROUP


def test_from_bytes_refuses_a_y_with_no_point_on_the_curve() -> None:
    off_curve = next(y.to_bytes(32, "little") for y in range(2, 50)
                     if not nb.crypto_core_ed25519_is_valid_point(y.to_bytes(32, "little")))
    with pytest.raises(InvalidPoint) as err:
        Point.from_bytes(off_curve)
    assert err.value.reason == InvalidPoint.NOT_IN_GROUP


@pytest.mark.parametrize("value", [None, "ab" * 16, bytearray(32), bytes(31), bytes(33), 7])
def test_points_and_scalars_refuse_wrong_types_and_lengths(value: object) -> None:
    with pytest.raises(InvalidEncoding):
        Point.from_bytes(value)
    with pytest.raises(InvalidEncoding):
        Scalar.from_bytes(value)


@pytest.mark.parametrize("value", [ORDER, ORDER + 1, 2**256 - 1])
def test_scalar_from_bytes_refuses_unreduced_values(value: int) -> None:
    for door in (Scalar.from_bytes, Scalar.from_bytes_or_zero):
        with pytest.raises(InvalidScalar) as err:
            door(value.to_bytes(32, "little"))
        assert err.value.reason == InvalidScalar.NON_CANONICAL


def test_scalar_from_bytes_refuses_zero_but_its_own_door_accepts_it() -> None:
    with pytest.raises(InvalidScalar) as err:
        Scalar.from_bytes(bytes(32), what="response", seat=3)
    assert err.value.reason == InvalidScalar.ZERO and err.value.seat == 3
    assert Scalar.from_bytes_or_zero(bytes(32)).is_zero
    assert Scalar.from_bytes((ORDER - 1).to_bytes(32, "little")) == -Scalar.one()


def test_identity_and_zero_are_handled_without_calling_libsodium() -> None:
    p = some_point()
    OPS.reset()
    assert scalar_mul(Scalar.zero(), p).is_identity
    assert scalar_mul(random_scalar(seeded("s")), Point.identity()).is_identity
    assert base_mul(Scalar.zero()).is_identity
    assert Point.identity() + p == p and p + Point.identity() == p
    assert p - Point.identity() == p
    assert OPS.scalarmult == OPS.scalarmult_base == OPS.add == 0
    assert (p - p).is_identity
    assert (-p + p).is_identity


def test_group_arithmetic_agrees_with_scalar_arithmetic() -> None:
    a, b = random_scalar(seeded("a")), random_scalar(seeded("b"))
    p = some_point()
    assert (a + b) * G == a * G + b * G
    assert (a * b) * G == a * (b * G)
    assert (a - b) * p == a * p - b * p
    assert (-a) * p == -(a * p)
    assert Scalar.from_int(ORDER + 5) == Scalar.from_int(5)
    assert linear_combination([a, b], [G, p]) == a * G + b * p


def test_multiplying_the_base_point_takes_the_fixed_base_path() -> None:
    s = random_scalar(seeded("base"))
    OPS.reset()
    via_g = s * G
    assert (OPS.scalarmult_base, OPS.scalarmult) == (1, 0)
    via_var = s * some_point("other")
    assert OPS.scalarmult == 1
    assert via_g == Point.from_bytes(nb.crypto_scalarmult_ed25519_noclamp(s.to_bytes(), G.to_bytes()))
    assert not via_var.is_identity


def test_points_and_scalars_are_immutable_and_built_only_through_their_doors() -> None:
    p, s = some_point(), random_scalar(seeded("x"))
    with pytest.raises(AttributeError):
        p._b = bytes(32)
    with pytest.raises(AttributeError):
        s._b = bytes(32)
    with pytest.raises(TypeError):
        Point()
    with pytest.raises(TypeError):
        Scalar()


def test_random_scalar_draws_from_the_given_source_and_skips_zero() -> None:
    draws = iter([bytes(64), (5).to_bytes(64, "little")])
    assert random_scalar(lambda n: next(draws)) == Scalar.from_int(5)
    assert random_scalar(seeded("r")) == random_scalar(seeded("r"))
    assert random_scalar() != random_scalar()


def test_points_and_scalars_have_wire_forms_that_validate_and_name_the_sender() -> None:
    p, s = some_point(), random_scalar(seeded("wire"))
    assert Point.from_wire(p.to_wire()) == p and Scalar.from_wire(s.to_wire()) == s
    with pytest.raises(InvalidPoint) as err:
        Point.from_wire(IDENTITY, seat=1)
    assert err.value.seat == 1
    with pytest.raises(InvalidScalar) as serr:
        Scalar.from_wire(bytes(32), seat=2)
    assert serr.value.seat == 2


def test_a_validated_encoding_is_validated_once_per_process_and_a_bad_one_never_recorded() -> None:
    from p2pcards.crypto.group import OPS, VALID_POINTS

    good = card_point(9).to_bytes()
    mixed = nb.crypto_core_ed25519_add(card_point(9).to_bytes(), ORDER_8)
    Point.from_bytes(good)
    OPS.reset()
    Point.from_bytes(good)
    assert OPS.validate == 0 and good in VALID_POINTS
    for _ in range(2):
        with pytest.raises(InvalidPoint):
            Point.from_bytes(mixed)
    assert OPS.validate == 2 and mixed not in VALID_POINTS
    VALID_POINTS.enabled = False
    try:
        Point.from_bytes(good)
        assert OPS.validate == 3
    finally:
        VALID_POINTS.enabled = True
