"""Decryption shares: Chaum–Pedersen proofs bound to seat, card and slot; recovering cards."""

from __future__ import annotations

import pytest

from p2pcards.crypto import keys, shares
from p2pcards.crypto.context import ProofContext
from p2pcards.crypto.elgamal import CardMap, Ciphertext, initial_deck
from p2pcards.crypto.errors import (
    CryptoError,
    InvalidEncoding,
    InvalidPoint,
    InvalidScalar,
    NotACard,
    ProofInvalid,
)
from p2pcards.crypto.group import G, Point, Scalar
from p2pcards.crypto.shares import DecryptionShare
from p2pcards.crypto.shuffle import shuffle_and_prove
from tests.crypto.aliases import Opener, Seeded

CODES = list(range(28, 36))


@pytest.fixture(scope="module")
def deck(joint_key: Point, ctxs: list[ProofContext], seeded: Seeded) -> list[Ciphertext]:
    out, _ = shuffle_and_prove(initial_deck(CODES), joint_key, ctxs[0], seeded("shares-deck"))
    return out


def assert_share_refused(
        public: Point, ciphertext: Ciphertext, share: DecryptionShare, ctx: ProofContext, slot: int) -> None:
    with pytest.raises(ProofInvalid) as err:
        shares.verify_share(public, ciphertext, share, ctx, slot)
    assert (err.value.proof, err.value.seat) == (ProofInvalid.DECRYPTION_SHARE, ctx.seat)
    assert err.value.slot == slot


def test_an_honest_share_verifies_and_is_the_seats_key_times_c1(
        deck: list[Ciphertext], key_shares: list[keys.KeyShare], ctxs: list[ProofContext]) -> None:
    share = shares.make_share(key_shares[2], deck[3], ctxs[2], 3)
    shares.verify_share(key_shares[2].public, deck[3], share, ctxs[2], 3)
    assert share.point == key_shares[2].secret * deck[3].c1
    assert share.point == shares.decryption_point(key_shares[2], deck[3])
    decoded = shares.DecryptionShare.from_wire(share.to_wire(), seat=2)
    assert decoded == share


def test_a_share_for_another_card_is_caught(
        deck: list[Ciphertext], key_shares: list[keys.KeyShare], ctxs: list[ProofContext]) -> None:
    share = shares.make_share(key_shares[1], deck[0], ctxs[1], 0)
    assert_share_refused(key_shares[1].public, deck[1], share, ctxs[1], 0)
    assert_share_refused(key_shares[1].public, deck[1], share, ctxs[1], 1)


def test_a_share_claimed_for_another_slot_seat_or_deck_is_caught(
        deck: list[Ciphertext], key_shares: list[keys.KeyShare], ctxs: list[ProofContext], session: bytes) -> None:
    share = shares.make_share(key_shares[1], deck[4], ctxs[1], 4)
    assert_share_refused(key_shares[1].public, deck[4], share, ctxs[1], 5)
    assert_share_refused(key_shares[1].public, deck[4], share, ProofContext(session, 1, 2), 4)
    assert_share_refused(key_shares[3].public, deck[4], share, ctxs[3], 4)


def test_a_wrong_share_point_with_the_proof_of_the_right_one_is_caught(
        deck: list[Ciphertext], key_shares: list[keys.KeyShare], ctxs: list[ProofContext]) -> None:
    honest = shares.make_share(key_shares[0], deck[2], ctxs[0], 2)
    lying = shares.DecryptionShare(honest.point + G, honest.proof)
    assert_share_refused(key_shares[0].public, deck[2], lying, ctxs[0], 2)
    other_card = shares.make_share(key_shares[0], deck[3], ctxs[0], 2)
    swapped = shares.DecryptionShare(other_card.point, honest.proof)
    assert_share_refused(key_shares[0].public, deck[2], swapped, ctxs[0], 2)
    assert honest.proof is not None
    for proof in (shares.DleqProof(honest.proof.challenge + Scalar.one(), honest.proof.response),
                  shares.DleqProof(honest.proof.challenge, honest.proof.response + Scalar.one())):
        assert_share_refused(key_shares[0].public, deck[2], shares.DecryptionShare(honest.point, proof),
                             ctxs[0], 2)


def test_share_wire_forms_refuse_identity_zero_and_bad_shapes(
        deck: list[Ciphertext], key_shares: list[keys.KeyShare], ctxs: list[ProofContext]) -> None:
    wire = shares.make_share(key_shares[0], deck[0], ctxs[0], 0).to_wire()
    with pytest.raises(InvalidPoint) as err:
        shares.DecryptionShare.from_wire([Point.identity().to_bytes(), *wire[1:]], seat=0)
    assert err.value.reason == InvalidPoint.IDENTITY and err.value.seat == 0
    with pytest.raises(InvalidScalar) as serr:
        shares.DecryptionShare.from_wire([wire[0], bytes(32), wire[2]], seat=0)
    assert serr.value.reason == InvalidScalar.ZERO
    with pytest.raises(InvalidEncoding):
        shares.DecryptionShare.from_wire(wire[:2], seat=0)


def test_an_unmasked_card_has_no_decryption_share(key_shares: list[keys.KeyShare], ctxs: list[ProofContext]) -> None:
    unmasked = initial_deck([5])[0]
    with pytest.raises(InvalidPoint):
        shares.make_share(key_shares[0], unmasked, ctxs[0], 0)
    with pytest.raises(InvalidPoint):
        shares.decryption_point(key_shares[0], unmasked)


@pytest.mark.parametrize("slot", [-1, 2**32, True, "0"])
def test_slots_must_be_unsigned_32_bit_integers(
        deck: list[Ciphertext], key_shares: list[keys.KeyShare], ctxs: list[ProofContext], slot: int) -> None:
    with pytest.raises(InvalidEncoding):
        shares.make_share(key_shares[0], deck[0], ctxs[0], slot)


def test_recovery_with_every_share_gives_the_card(
        deck: list[Ciphertext], key_shares: list[keys.KeyShare], open_deck: Opener) -> None:
    assert sorted(open_deck(deck, CardMap(CODES))) == CODES


def test_recovery_with_a_missing_or_wrong_share_names_the_seats_combined(
        deck: list[Ciphertext], key_shares: list[keys.KeyShare]) -> None:
    cards = CardMap(CODES)
    points = {seat: shares.decryption_point(k, deck[1]) for seat, k in enumerate(key_shares)}
    del points[2]
    with pytest.raises(NotACard) as err:
        shares.recover_code(deck[1], points, cards, slot=1)
    assert err.value.seats == (0, 1, 3) and err.value.slot == 1
    points[2] = shares.decryption_point(key_shares[2], deck[0])  # a share of another card
    with pytest.raises(NotACard) as err:
        shares.recover_code(deck[1], points, cards, slot=1)
    assert err.value.seats == (0, 1, 2, 3)


def test_a_card_outside_the_deck_is_not_a_card(deck: list[Ciphertext], key_shares: list[keys.KeyShare]) -> None:
    points = [shares.decryption_point(k, deck[0]) for k in key_shares]
    code = shares.recover_code(deck[0], points, CardMap(CODES))
    with pytest.raises(NotACard):
        shares.recover_code(deck[0], points, CardMap([c for c in range(52) if c != code]))


def test_a_private_share_has_no_proof_and_cannot_be_published_or_accepted(
        deck: list[Ciphertext], key_shares: list[keys.KeyShare], ctxs: list[ProofContext]) -> None:
    private = shares.make_share(key_shares[0], deck[0], ctxs[0], 0, with_proof=False)
    assert private.proof is None and private.point == shares.decryption_point(key_shares[0], deck[0])
    with pytest.raises(CryptoError):
        private.to_wire()
    assert_share_refused(key_shares[0].public, deck[0], private, ctxs[0], 0)
