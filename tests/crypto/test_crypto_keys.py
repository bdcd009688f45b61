"""Joint key setup: commitments, Schnorr proofs bound to session and seat, rogue keys."""

from __future__ import annotations

import pytest

from p2pcards.crypto import keys
from p2pcards.crypto.context import ProofContext
from p2pcards.crypto.errors import (
    CommitmentMismatch,
    InvalidEncoding,
    InvalidPoint,
    InvalidScalar,
    ProofInvalid,
)
from p2pcards.crypto.group import G, Point, Scalar, sum_points
from tests.crypto.aliases import Seeded


def test_honest_setup_gives_every_seat_the_same_joint_key(
        key_shares: list[keys.KeyShare], ctxs: list[ProofContext]) -> None:
    commitments = [keys.key_commitment(ctxs[i], k.public) for i, k in enumerate(key_shares)]
    proofs = [keys.prove_key_share(k, ctxs[i]).to_wire() for i, k in enumerate(key_shares)]
    for i, k in enumerate(key_shares):
        public = keys.public_from_wire(k.public.to_bytes(), i)
        keys.verify_key_commitment(commitments[i], ctxs[i], public)
        keys.verify_key_share(public, keys.SchnorrProof.from_wire(proofs[i], i), ctxs[i])
    joint = keys.joint_public_key(k.public for k in key_shares)
    assert joint == sum_points(k.public for k in key_shares)
    secret = sum((k.secret for k in key_shares[1:]), key_shares[0].secret)
    assert joint == secret * G


def test_a_revealed_key_other_than_the_committed_one_names_the_seat(
        key_shares: list[keys.KeyShare], ctxs: list[ProofContext]) -> None:
    commitment = keys.key_commitment(ctxs[2], key_shares[2].public)
    with pytest.raises(CommitmentMismatch) as err:
        keys.verify_key_commitment(commitment, ctxs[2], key_shares[3].public)
    assert err.value.seat == 2 and err.value.what == "key share"
    with pytest.raises(CommitmentMismatch):  # the same key committed for another seat
        keys.verify_key_commitment(commitment, ctxs[3], key_shares[2].public)
    with pytest.raises(InvalidEncoding):
        keys.verify_key_commitment(commitment[:31], ctxs[2], key_shares[2].public)


def test_a_rogue_share_chosen_to_cancel_the_others_has_no_valid_proof(
        key_shares: list[keys.KeyShare], ctxs: list[ProofContext], seeded: Seeded) -> None:
    # Seat 3 picks t, publishes X_3 = t·G - X_0 - X_1 - X_2 so that the joint key is t·G,
    # whose secret it alone would know. It cannot prove knowledge of log X_3.
    t = keys.KeyShare.generate(seeded("rogue"))
    rogue = t.public - sum_points(k.public for k in key_shares[:3])
    forged = keys.prove_key_share(keys.KeyShare(t.secret, rogue), ctxs[3])
    with pytest.raises(ProofInvalid) as err:
        keys.verify_key_share(rogue, forged, ctxs[3])
    assert (err.value.proof, err.value.seat) == (ProofInvalid.KEY_SHARE, 3)
    honest_proof = keys.prove_key_share(key_shares[3], ctxs[3])
    with pytest.raises(ProofInvalid):  # nor does a proof for another key carry over
        keys.verify_key_share(rogue, honest_proof, ctxs[3])


def test_a_share_cancelling_the_others_exactly_is_refused_as_an_identity_joint_key(
        key_shares: list[keys.KeyShare]) -> None:
    cancel = -sum_points(k.public for k in key_shares[:3])
    with pytest.raises(InvalidPoint) as err:
        keys.joint_public_key([*(k.public for k in key_shares[:3]), cancel])
    assert err.value.reason == InvalidPoint.IDENTITY
    with pytest.raises(InvalidPoint):
        keys.joint_public_key([key_shares[0].public, Point.identity()])
    with pytest.raises(InvalidEncoding):
        keys.joint_public_key([])


@pytest.mark.parametrize("other", [
    ProofContext(bytes(32), 1, 1),          # another session
    ProofContext(bytes(range(100, 132)), 2, 1),  # another seat
    ProofContext(bytes(range(100, 132)), 1, 2),  # another deck
])
def test_a_key_proof_does_not_verify_in_another_context(
        key_shares: list[keys.KeyShare], ctxs: list[ProofContext], other: ProofContext) -> None:
    proof = keys.prove_key_share(key_shares[1], ctxs[1])
    keys.verify_key_share(key_shares[1].public, proof, ctxs[1])
    with pytest.raises(ProofInvalid) as err:
        keys.verify_key_share(key_shares[1].public, proof, other)
    assert err.value.seat == other.seat


def test_altered_key_proof_fields_fail(key_shares: list[keys.KeyShare], ctxs: list[ProofContext]) -> None:
    proof = keys.prove_key_share(key_shares[0], ctxs[0])
    one = Scalar.one()
    for bad in (keys.SchnorrProof(proof.challenge + one, proof.response),
                keys.SchnorrProof(proof.challenge, proof.response + one)):
        with pytest.raises(ProofInvalid):
            keys.verify_key_share(key_shares[0].public, bad, ctxs[0])


def test_key_wire_forms_refuse_zero_scalars_identity_and_bad_shapes(
        key_shares: list[keys.KeyShare], ctxs: list[ProofContext]) -> None:
    proof = keys.prove_key_share(key_shares[0], ctxs[0]).to_wire()
    with pytest.raises(InvalidScalar) as err:
        keys.SchnorrProof.from_wire([proof[0], bytes(32)], seat=0)
    assert err.value.reason == InvalidScalar.ZERO and err.value.seat == 0
    with pytest.raises(InvalidEncoding):
        keys.SchnorrProof.from_wire(proof[:1], seat=0)
    with pytest.raises(InvalidPoint) as perr:
        keys.public_from_wire(Point.identity().to_bytes(), seat=1)
    assert perr.value.reason == InvalidPoint.IDENTITY and perr.value.seat == 1
    with pytest.raises(InvalidScalar):
        keys.KeyShare.from_secret(Scalar.zero())
    with pytest.raises(InvalidPoint):
        keys.verify_key_share(Point.identity(), keys.SchnorrProof.from_wire(proof), ctxs[0])


@pytest.mark.parametrize("args", [(b"short", 0, 0), (bytes(32), -1, 0), (bytes(32), 0, -1),
                                  (bytes(32), True, 0), (bytes(32), 0, 2**63)])
def test_proof_contexts_refuse_malformed_ids(args: tuple[bytes, int, int]) -> None:
    with pytest.raises(InvalidEncoding):
        ProofContext(*args)


def test_a_saved_secret_restores_the_same_share_and_bad_bytes_are_refused(key_shares: list[keys.KeyShare]) -> None:
    restored = keys.KeyShare.from_secret_bytes(key_shares[1].secret_bytes())
    assert restored == key_shares[1]
    with pytest.raises(InvalidScalar) as err:
        keys.KeyShare.from_secret_bytes(bytes(32))
    assert err.value.reason == InvalidScalar.ZERO
    with pytest.raises(InvalidEncoding):
        keys.KeyShare.from_secret_bytes(b"short")
