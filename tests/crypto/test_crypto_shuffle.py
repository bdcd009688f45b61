"""The verifiable shuffle: honest shuffles verify, every tampering is caught and blamed."""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable

import nacl.bindings as nb
import pytest

from p2pcards.crypto import keys
from p2pcards.crypto.context import ProofContext
from p2pcards.crypto.elgamal import (
    CardMap,
    Ciphertext,
    card_point,
    deck_from_wire,
    deck_to_wire,
    initial_deck,
)
from p2pcards.crypto.errors import InvalidEncoding, InvalidPoint, InvalidScalar, ProofInvalid
from p2pcards.crypto.group import G, Point, Rng, Scalar, random_scalar
from p2pcards.crypto.shuffle import ShuffleProof, shuffle_and_prove, verify_shuffle
from tests.crypto.aliases import Opener, Seeded, Shuffled

CODES = [3, 17, 22, 30, 41, 44, 50, 51]
ORDER_8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")
POINT_FIELDS = ("t1", "t2", "t3", "t4_1", "t4_2")
SCALAR_FIELDS = ("s1", "s2", "s3", "s4")
POINT_LISTS = ("t_hat", "commitments", "chain")
SCALAR_LISTS = ("s_hat", "s_prime")


@pytest.fixture(scope="module")
def masked(joint_key: Point, ctxs: list[ProofContext], seeded: Seeded,
           ) -> Shuffled:
    """Seat 0 shuffled the unmasked deck; seat 1 then shuffled that (the proof under test)."""
    first, _ = shuffle_and_prove(initial_deck(CODES), joint_key, ctxs[0], seeded("s0"))
    second, proof = shuffle_and_prove(first, joint_key, ctxs[1], seeded("s1"))
    return first, second, proof


def assert_refused(
        deck_in: list[Ciphertext], deck_out: list[Ciphertext], proof: ShuffleProof, joint_key: Point,
        ctx: ProofContext, *, check: str | None = None) -> None:
    """The shuffle must be refused as a bad shuffle proof by ``ctx.seat`` (at ``check``)."""
    with pytest.raises(ProofInvalid) as err:
        verify_shuffle(deck_in, deck_out, proof, joint_key, ctx)
    assert (err.value.proof, err.value.seat) == (ProofInvalid.SHUFFLE, ctx.seat)
    if check is not None:
        assert err.value.check == check


def test_honest_shuffles_verify_and_keep_every_card(
        masked: Shuffled, joint_key: Point, ctxs: list[ProofContext], open_deck: Opener) -> None:
    first, second, proof = masked
    verify_shuffle(first, second, proof, joint_key, ctxs[1])
    fresh, fresh_proof = shuffle_and_prove(initial_deck(CODES), joint_key, ctxs[0])
    verify_shuffle(initial_deck(CODES), fresh, fresh_proof, joint_key, ctxs[0])
    cards = CardMap(CODES)
    assert sorted(open_deck(fresh, cards)) == sorted(CODES)
    assert sorted(open_deck(second, cards)) == sorted(CODES)
    assert {ct.c1 for ct in second}.isdisjoint({ct.c1 for ct in first})


def test_an_honest_proof_survives_its_wire_form(masked: Shuffled, joint_key: Point, ctxs: list[ProofContext]) -> None:
    first, second, proof = masked
    decoded = ShuffleProof.from_wire(proof.to_wire(), seat=1)
    assert decoded == proof
    verify_shuffle(first, deck_from_wire(deck_to_wire(second), 1), decoded, joint_key, ctxs[1])


@pytest.mark.parametrize("field", POINT_FIELDS + SCALAR_FIELDS)
def test_altering_any_single_proof_value_is_caught(
        masked: Shuffled, joint_key: Point, ctxs: list[ProofContext], field: str) -> None:
    first, second, proof = masked
    value = getattr(proof, field)
    altered = value + (G if isinstance(value, Point) else Scalar.one())
    assert_refused(first, second, dataclasses.replace(proof, **{field: altered}), joint_key, ctxs[1])


@pytest.mark.parametrize("field", POINT_LISTS + SCALAR_LISTS)
@pytest.mark.parametrize("index", [0, 4, len(CODES) - 1])
def test_altering_any_entry_of_a_proof_list_is_caught(
        masked: Shuffled, joint_key: Point, ctxs: list[ProofContext], field: str, index: int) -> None:
    first, second, proof = masked
    values = list(getattr(proof, field))
    values[index] = values[index] + (G if isinstance(values[index], Point) else Scalar.one())
    assert_refused(first, second, dataclasses.replace(proof, **{field: tuple(values)}),  # type: ignore[arg-type]
                   joint_key, ctxs[1])


@pytest.mark.parametrize("field", POINT_LISTS + SCALAR_LISTS)
def test_reordering_a_proof_list_is_caught(
        masked: Shuffled, joint_key: Point, ctxs: list[ProofContext], field: str) -> None:
    first, second, proof = masked
    values = list(getattr(proof, field))
    values[1], values[2] = values[2], values[1]
    assert_refused(first, second, dataclasses.replace(proof, **{field: tuple(values)}),  # type: ignore[arg-type]
                   joint_key, ctxs[1])


def test_a_proof_whose_lists_are_too_short_is_refused_by_size(
        masked: Shuffled, joint_key: Point, ctxs: list[ProofContext]) -> None:
    first, second, proof = masked
    assert_refused(first, second, dataclasses.replace(proof, chain=proof.chain[:-1]),
                   joint_key, ctxs[1], check="proof size")


def test_an_output_card_replaced_by_another_card_is_caught(
        masked: Shuffled, joint_key: Point, ctxs: list[ProofContext], seeded: Seeded) -> None:
    first, second, proof = masked
    r = random_scalar(seeded("replace"))
    intruder = Ciphertext(r * G, card_point(0) + r * joint_key)  # the 2 of clubs, not in the deck
    for position in (0, 5):
        tampered = list(second)
        tampered[position] = intruder
        assert_refused(first, tampered, proof, joint_key, ctxs[1])


def test_an_output_card_duplicated_is_caught(
        masked: Shuffled, joint_key: Point, ctxs: list[ProofContext], seeded: Seeded) -> None:
    first, second, proof = masked
    copied = list(second)
    copied[2] = second[3]
    rerandomized = list(second)
    rerandomized[2] = second[3].reencrypt(random_scalar(seeded("dup")), joint_key)
    for tampered in (copied, rerandomized):
        assert_refused(first, tampered, proof, joint_key, ctxs[1])


def test_two_output_cards_swapped_is_caught(masked: Shuffled, joint_key: Point, ctxs: list[ProofContext]) -> None:
    first, second, proof = masked
    swapped = list(second)
    swapped[0], swapped[1] = swapped[1], swapped[0]
    assert_refused(first, swapped, proof, joint_key, ctxs[1])


def test_an_output_card_dropped_is_refused_by_deck_size(
        masked: Shuffled, joint_key: Point, ctxs: list[ProofContext]) -> None:
    first, second, proof = masked
    assert_refused(first, second[:-1], proof, joint_key, ctxs[1], check="deck size")


def test_an_output_card_tagged_with_a_small_order_point_is_refused_on_receipt(masked: Shuffled) -> None:
    _, second, _ = masked
    wire = deck_to_wire(second)
    for component in (0, 1):
        tampered = [list(card) for card in wire]
        tampered[4][component] = nb.crypto_core_ed25519_add(tampered[4][component], ORDER_8)
        with pytest.raises(InvalidPoint) as err:
            deck_from_wire(tampered, seat=1)
        assert err.value.reason == InvalidPoint.NOT_IN_GROUP and err.value.seat == 1


def test_an_identity_in_the_output_deck_is_refused(
        masked: Shuffled, joint_key: Point, ctxs: list[ProofContext]) -> None:
    first, second, proof = masked
    tampered = list(second)
    tampered[0] = Ciphertext(Point.identity(), second[0].c2)
    with pytest.raises(InvalidPoint) as err:
        verify_shuffle(first, tampered, proof, joint_key, ctxs[1])
    assert err.value.reason == InvalidPoint.IDENTITY and err.value.seat == 1


@pytest.mark.parametrize("other", [
    ProofContext(bytes(32), 1, 1),                # another session
    ProofContext(bytes(range(100, 132)), 2, 1),   # another seat claims it
    ProofContext(bytes(range(100, 132)), 1, 9),   # another deck
])
def test_a_proof_from_another_session_seat_or_deck_is_refused(
        masked: Shuffled, joint_key: Point, other: ProofContext) -> None:
    first, second, proof = masked
    assert_refused(first, second, proof, joint_key, other)


def test_a_proof_against_another_input_deck_or_joint_key_is_refused(
        masked: Shuffled, joint_key: Point, ctxs: list[ProofContext], key_shares: list[keys.KeyShare]) -> None:
    first, second, proof = masked
    assert_refused(initial_deck(CODES), second, proof, joint_key, ctxs[1])
    assert_refused(first, second, proof, key_shares[0].public, ctxs[1])
    with pytest.raises(InvalidPoint):
        verify_shuffle(first, second, proof, Point.identity(), ctxs[1])


def test_the_proof_wire_form_refuses_bad_points_scalars_and_shapes(masked: Shuffled) -> None:
    _, _, proof = masked
    wire = proof.to_wire()

    def with_field(index: int, value: object) -> list[object]:
        changed = list(wire)
        changed[index] = value
        return changed

    cases = [
        (with_field(0, Point.identity().to_bytes()), InvalidPoint, InvalidPoint.IDENTITY),
        (with_field(1, (2**255 - 1).to_bytes(32, "little")), InvalidPoint, InvalidPoint.NON_CANONICAL),
        (with_field(5, [ORDER_8] + wire[5][1:]), InvalidPoint, InvalidPoint.NOT_IN_GROUP),
        (with_field(6, bytes(32)), InvalidScalar, InvalidScalar.ZERO),
        (with_field(11, wire[11][:-1] + [(2**253).to_bytes(32, "little")]), InvalidScalar,
         InvalidScalar.NON_CANONICAL),
        (with_field(13, wire[13][:-1]), InvalidEncoding, None),
        (wire[:-1], InvalidEncoding, None),
        (with_field(12, []), InvalidEncoding, None),
    ]
    for bad, error, reason in cases:
        with pytest.raises(error) as err:
            ShuffleProof.from_wire(bad, seat=1)
        assert err.value.seat == 1  # type: ignore[attr-defined]
        if reason is not None:
            assert err.value.reason == reason  # type: ignore[attr-defined]


def test_the_shuffler_refuses_an_identity_joint_key_and_an_empty_deck(
        ctxs: list[ProofContext], joint_key: Point) -> None:
    with pytest.raises(InvalidPoint):
        shuffle_and_prove(initial_deck(CODES), Point.identity(), ctxs[0])
    with pytest.raises(InvalidEncoding):
        shuffle_and_prove([], joint_key, ctxs[0])


def test_proven_shuffles_put_each_card_in_each_position_about_equally_often(
        joint_key: Point, ctxs: list[ProofContext], open_deck: Opener, seeded: Seeded) -> None:
    codes, rounds = [0, 1, 2], 120
    cards = CardMap(codes)
    counts = {(card, pos): 0 for card in codes for pos in range(3)}
    deck = initial_deck(codes)
    for k in range(rounds):
        out, proof = shuffle_and_prove(deck, joint_key, ctxs[k % 4], seeded(f"stat{k}"))
        verify_shuffle(deck, out, proof, joint_key, ctxs[k % 4])
        for pos, card in enumerate(open_deck(out, cards)):
            counts[(card, pos)] += 1
    expected = rounds / 3
    chi = sum((c - expected) ** 2 / expected for c in counts.values())
    assert chi < 30.0  # 9 cells, df 4; p < 1e-5
    assert all(counts[(card, pos)] > 0 for card, pos in itertools.product(codes, range(3)))


def cheating_proof(deck_in: list[Ciphertext], joint_key: Point, ctx: ProofContext, rng: Rng,
                   tamper: Callable[[list[Ciphertext]], list[Ciphertext]]) -> tuple[list[Ciphertext], ShuffleProof]:
    """A shuffler that follows the prover's algorithm on an output it tampered with.

    White-box: it runs the module's own prover on witnesses of its choosing,
    the strongest cheat short of breaking the discrete log.
    """
    from p2pcards.crypto import shuffle as shuffle_module
    from p2pcards.crypto.sampling import fisher_yates, words_from_rng

    n = len(deck_in)
    psi = fisher_yates(n, words_from_rng(rng))
    secrets = shuffle_module._ProverSecrets.draw(psi, rng)
    deck_out = tamper([deck_in[psi[i]].reencrypt(secrets.r_prime[i], joint_key) for i in range(n)])
    return shuffle_module._prove(deck_in, psi, secrets, joint_key, ctx, output=deck_out)


def test_a_changed_plaintext_under_an_honest_looking_proof_fails_at_t4_1(
        masked: Shuffled, joint_key: Point, ctxs: list[ProofContext], seeded: Seeded) -> None:
    first, _, _ = masked

    def swap_card(deck: list[Ciphertext]) -> list[Ciphertext]:
        deck[3] = Ciphertext(deck[3].c1, deck[3].c2 + card_point(0) - card_point(1))
        return deck

    deck_out, proof = cheating_proof(first, joint_key, ctxs[2], seeded("cheat1"), swap_card)
    assert_refused(first, deck_out, proof, joint_key, ctxs[2], check="t4_1")


def test_a_changed_c1_under_an_honest_looking_proof_fails_at_t4_2(
        masked: Shuffled, joint_key: Point, ctxs: list[ProofContext], seeded: Seeded) -> None:
    first, _, _ = masked

    def shift_c1(deck: list[Ciphertext]) -> list[Ciphertext]:
        deck[5] = Ciphertext(deck[5].c1 + G, deck[5].c2)
        return deck

    deck_out, proof = cheating_proof(first, joint_key, ctxs[2], seeded("cheat2"), shift_c1)
    assert_refused(first, deck_out, proof, joint_key, ctxs[2], check="t4_2")


def test_a_duplicated_card_under_an_honest_looking_proof_is_refused(
        masked: Shuffled, joint_key: Point, ctxs: list[ProofContext], seeded: Seeded) -> None:
    first, _, _ = masked
    extra = random_scalar(seeded("extra"))

    def duplicate(deck: list[Ciphertext]) -> list[Ciphertext]:
        deck[1] = deck[0].reencrypt(extra, joint_key)  # card at 0 twice, the card at 1 gone
        return deck

    deck_out, proof = cheating_proof(first, joint_key, ctxs[2], seeded("cheat3"), duplicate)
    assert_refused(first, deck_out, proof, joint_key, ctxs[2])


def test_the_prover_makes_the_same_bytes_with_its_second_core_free_or_busy(
        joint_key: Point, ctxs: list[ProofContext], seeded: Seeded) -> None:
    """t1 … t4 are computed beside the output deck and the chain when the process's
    helper thread is free, in turn when it is busy (another seat's check): the same
    seeded shuffle must come out byte for byte the same either way."""
    import threading

    from p2pcards.crypto.halves import both_halves

    deck = initial_deck(range(12))
    beside = shuffle_and_prove(deck, joint_key, ctxs[0], seeded("both-ways"))
    release, taken = threading.Event(), threading.Event()

    def hold_the_helper() -> None:
        taken.set()
        release.wait(10)

    holder = threading.Thread(target=both_halves, args=(lambda: release.wait(10), hold_the_helper))
    holder.start()
    try:
        assert taken.wait(10)
        in_turn = shuffle_and_prove(deck, joint_key, ctxs[0], seeded("both-ways"))
    finally:
        release.set()
        holder.join(timeout=10)
    assert [ct.to_wire() for ct in beside[0]] == [ct.to_wire() for ct in in_turn[0]]
    assert beside[1].to_wire() == in_turn[1].to_wire()
    verify_shuffle(deck, in_turn[0], in_turn[1], joint_key, ctxs[0])
