"""Domain-separated hashing and hash-to-curve: unambiguous inputs, independent points."""

from __future__ import annotations

import pytest

from p2pcards.crypto.elgamal import card_point
from p2pcards.crypto.errors import InvalidEncoding
from p2pcards.crypto.generators import chain_base, generators, generators_sum
from p2pcards.crypto.group import G, sum_points
from p2pcards.crypto.hashing import (
    ALL_TAGS,
    digest32,
    frame,
    hash_to_point,
    hash_to_scalar,
    sha512_fields,
    u64,
)

TAG = b"p2pcards/v1/test"


def test_framing_keeps_field_boundaries_apart() -> None:
    assert sha512_fields(TAG, b"ab", b"c") != sha512_fields(TAG, b"a", b"bc")
    assert sha512_fields(TAG, b"abc") != sha512_fields(TAG, b"abc", b"")
    assert sha512_fields(TAG + b"x", b"") != sha512_fields(TAG, b"x")
    assert frame(b"xyz") == b"\x00\x00\x00\x03xyz"


def test_every_domain_tag_is_distinct() -> None:
    assert len(set(ALL_TAGS)) == len(ALL_TAGS)
    assert all(tag.startswith(b"p2pcards/v1/") for tag in ALL_TAGS)


def test_derived_values_depend_on_the_tag() -> None:
    assert digest32(TAG, b"x") != digest32(TAG + b"2", b"x")
    assert hash_to_scalar(TAG, b"x") != hash_to_scalar(TAG + b"2", b"x")
    assert hash_to_point(TAG, b"x") == hash_to_point(TAG, b"x")
    assert hash_to_point(TAG, b"x") != hash_to_point(TAG + b"2", b"x")


@pytest.mark.parametrize("value", [-1, 1 << 64, True, 1.0, "1"])
def test_u64_refuses_what_is_not_an_unsigned_64_bit_integer(value: object) -> None:
    with pytest.raises(InvalidEncoding):
        u64(value)  # type: ignore[arg-type]


def test_cards_generators_and_bases_are_all_distinct_points() -> None:
    points = [G, chain_base(), *generators(52), *(card_point(c) for c in range(52))]
    assert len({p.to_bytes() for p in points}) == len(points) == 106
    assert not any(p.is_identity for p in points)
    assert generators_sum(24) == sum_points(generators(24))


def test_generator_counts_outside_the_limits_are_refused() -> None:
    for n in (0, 257, True):
        with pytest.raises(InvalidEncoding):
            generators(n)
