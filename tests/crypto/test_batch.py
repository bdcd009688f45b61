"""Shuffle proofs checked in one batch: honest ones hold, one bad proof fails the batch and is named alone."""

from __future__ import annotations

import dataclasses

import nacl.bindings as nb
import pytest

from p2pcards.crypto.batch import ShuffleBatch
from p2pcards.crypto.context import ProofContext
from p2pcards.crypto.elgamal import Ciphertext, card_point, initial_deck
from p2pcards.crypto.errors import CryptoError, InvalidPoint, NotReEncrypted, ProofInvalid
from p2pcards.crypto.group import (
    OPS,
    G,
    Point,
    Scalar,
    deferring_validation,
    linear_combination,
    random_scalar,
    weighted_sum,
)
from p2pcards.crypto.shuffle import ShuffleProof, shuffle_and_prove, verify_shuffle
from tests.crypto.aliases import Seeded

CODES = list(range(12))
ORDER_8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")
Step = tuple[list[Ciphertext], list[Ciphertext], ShuffleProof, ProofContext]


@pytest.fixture(scope="module")
def two_deals(joint_key: Point, seeded: Seeded) -> list[Step]:
    """Two decks, each shuffled in turn by the four seats: eight proofs."""
    steps: list[Step] = []
    for deck in (1, 2):
        cards = initial_deck(CODES)
        for seat in range(4):
            ctx = ProofContext(bytes(range(32)), seat, deck)
            out, proof = shuffle_and_prove(cards, joint_key, ctx, seeded(f"batch/{deck}/{seat}"))
            steps.append((cards, out, proof, ctx))
            cards = out
    return steps


def batch_of(steps: list[Step], joint_key: Point) -> ShuffleBatch:
    batch = ShuffleBatch()
    for deck_in, deck_out, proof, ctx in steps:
        batch.add(deck_in, deck_out, proof, joint_key, ctx)
    return batch


def test_honest_shuffles_hold_together_for_fewer_multiplications(
        two_deals: list[Step], joint_key: Point) -> None:
    n = len(CODES)
    OPS.reset()
    for deck_in, deck_out, proof, ctx in two_deals:
        verify_shuffle(deck_in, deck_out, proof, joint_key, ctx)
    one_by_one = OPS.scalarmult
    OPS.reset()
    assert batch_of(two_deals, joint_key).holds()
    # Each proof's own points (5N + 5), plus once the points they share: H, the
    # joint key, h_0..h_{N-1} and the card points of the unmasked deck.
    assert OPS.scalarmult == len(two_deals) * (5 * n + 5) + 2 + 2 * n
    assert one_by_one == 2 * ((8 * n + 4) * 4 - n)
    assert OPS.scalarmult_base == 1


@pytest.mark.parametrize("bad", [0, 3, 6])
def test_a_single_bad_proof_fails_the_batch_and_alone_names_its_seat_and_check(
        two_deals: list[Step], joint_key: Point, bad: int) -> None:
    steps = list(two_deals)
    deck_in, deck_out, proof, ctx = steps[bad]
    forged = dataclasses.replace(proof, s_hat=(random_scalar(),) + proof.s_hat[1:])
    steps[bad] = (deck_in, deck_out, forged, ctx)
    assert not batch_of(steps, joint_key).holds()
    refused = []
    for deck_in, deck_out, proof, ctx in steps:
        try:
            verify_shuffle(deck_in, deck_out, proof, joint_key, ctx)
        except ProofInvalid as error:
            refused.append((error.seat, error.check, ctx.deck))
    assert refused == [(bad % 4, "t_hat[0]", 1 + bad // 4)]


def test_every_equation_counts_in_the_batch(two_deals: list[Step], joint_key: Point) -> None:
    """A claimed point of each equation swapped for another valid point fails the batch."""
    deck_in, deck_out, proof, ctx = two_deals[5]
    r = dataclasses.replace
    for forged in (r(proof, t1=proof.t2), r(proof, t2=proof.t1), r(proof, t3=proof.t1),
                   r(proof, t4_1=proof.t4_2), r(proof, t4_2=proof.t4_1),
                   r(proof, t_hat=proof.t_hat[::-1]), r(proof, chain=proof.chain[::-1]),
                   r(proof, s4=proof.s1), r(proof, s_prime=proof.s_prime[::-1])):
        steps = list(two_deals)
        steps[5] = (deck_in, deck_out, forged, ctx)
        assert not batch_of(steps, joint_key).holds()


def test_the_checks_without_multiplication_raise_at_once(
        two_deals: list[Step], joint_key: Point) -> None:
    deck_in, deck_out, proof, ctx = two_deals[1]
    with pytest.raises(NotReEncrypted):
        ShuffleBatch().add(deck_in, [deck_in[0], *deck_out[1:]], proof, joint_key, ctx)
    with pytest.raises(ProofInvalid, match="deck size"):
        ShuffleBatch().add(deck_in, deck_out[1:], proof, joint_key, ctx)


def test_a_point_outside_the_group_is_refused_by_the_multiplication_when_validation_waits(
        two_deals: list[Step], joint_key: Point) -> None:
    deck_in, deck_out, proof, ctx = two_deals[1]
    mixed = nb.crypto_core_ed25519_add(deck_out[3].c2.to_bytes(), ORDER_8)
    with deferring_validation() as pending:
        tagged = Point.from_bytes(mixed)  # only the cheap checks: it waits
        assert len(pending) == 1
        out = list(deck_out)
        out[3] = Ciphertext(deck_out[3].c1, tagged)
        batch = ShuffleBatch()
        batch.add(deck_in, out, proof, joint_key, ctx)
        with pytest.raises(CryptoError):
            batch.holds()
        assert len(pending) == 1 and not pending.validate_rest()


def test_pending_points_leave_when_multiplied_and_the_rest_are_validated() -> None:
    fresh = nb.crypto_core_ed25519_add(card_point(3).to_bytes(), card_point(4).to_bytes())
    unused = nb.crypto_core_ed25519_add(card_point(3).to_bytes(), card_point(6).to_bytes())
    mixed = nb.crypto_core_ed25519_add(card_point(5).to_bytes(), ORDER_8)
    with deferring_validation() as pending:
        a = Point.from_bytes(fresh)
        Point.from_bytes(mixed)
        assert len(pending) == 2
        random_scalar() * a
        assert len(pending) == 1  # the product vouches for a
        assert not pending.validate_rest()
    with deferring_validation() as pending:
        Point.from_bytes(unused)
        assert pending.validate_rest() and len(pending) == 0
    with pytest.raises(InvalidPoint):
        Point.from_bytes(mixed)  # outside a deferring pass: refused as it is decoded


def test_a_weighted_sum_is_the_linear_combination_of_its_terms() -> None:
    points = [card_point(i) for i in range(5)] + [G, Point.identity()]
    ks = [int.from_bytes(random_scalar().to_bytes(), "little") for _ in points]
    ks[2] = 0
    ks[3] = -ks[3] + 7 * 2**252  # negative and out of range: taken modulo the order
    expected = linear_combination([Scalar.from_int(k) for k in ks], points)
    assert weighted_sum(dict(zip(points, ks, strict=True))) == expected
