"""The per-process record of passed checks: a hit only for the very same check,
never for a failure, and the same errors as the underlying verification."""

from __future__ import annotations

import dataclasses
import threading

import pytest

from p2pcards.crypto import checks, keys
from p2pcards.crypto.context import ProofContext
from p2pcards.crypto.elgamal import initial_deck
from p2pcards.crypto.errors import ProofInvalid
from p2pcards.crypto.group import Point, Scalar
from p2pcards.crypto.shares import DecryptionShare, DleqProof, make_share
from p2pcards.crypto.shuffle import shuffle_and_prove
from tests.crypto.aliases import Seeded, Shuffled

CODES = [3, 17, 22, 30, 41, 44]


@pytest.fixture(scope="module")
def shuffled(joint_key: Point, ctxs: list[ProofContext], seeded: Seeded,
             ) -> Shuffled:
    deck = initial_deck(CODES)
    out, proof = shuffle_and_prove(deck, joint_key, ctxs[0], seeded("checks"))
    return deck, out, proof


def test_a_passed_check_is_run_once_per_record(shuffled: Shuffled, joint_key: Point, ctxs: list[ProofContext]) -> None:
    deck, out, proof = shuffled
    record = checks.VerifiedChecks()
    for _ in range(3):
        record.check(checks.shuffle_check(deck, out, proof, joint_key, ctxs[0]))
    assert (record.runs, record.hits) == (1, 2)


def test_any_other_binding_misses_and_fails_on_its_own(
        shuffled: Shuffled, joint_key: Point, ctxs: list[ProofContext], session: bytes) -> None:
    deck, out, proof = shuffled
    record = checks.VerifiedChecks()
    record.check(checks.shuffle_check(deck, out, proof, joint_key, ctxs[0]))
    others = [
        checks.shuffle_check(deck, out, proof, joint_key, ctxs[1]),  # another seat
        checks.shuffle_check(deck, out, proof, joint_key, ProofContext(session, 0, deck=2)),
        checks.shuffle_check(deck, out, proof, joint_key,
                             ProofContext(bytes(32), 0)),  # another session
        checks.shuffle_check(deck, out[1:] + out[:1], proof, joint_key, ctxs[0]),
        checks.shuffle_check(deck, out, dataclasses.replace(proof, s1=proof.s2), joint_key, ctxs[0]),
    ]
    for other in others:
        assert other.key != checks.shuffle_check(deck, out, proof, joint_key, ctxs[0]).key
        with pytest.raises(ProofInvalid):
            record.check(other)
    assert record.runs == 1 + len(others) and record.hits == 0


def test_a_failure_is_never_recorded(
        shuffled: Shuffled, joint_key: Point, ctxs: list[ProofContext], key_shares: list[keys.KeyShare]) -> None:
    deck, out, _ = shuffled
    share = make_share(key_shares[1], out[0], ctxs[1], 0)
    assert share.proof is not None
    bad = DecryptionShare(share.point, DleqProof(share.proof.challenge,
                                                 share.proof.response + Scalar.one()))
    record = checks.VerifiedChecks()
    for _ in range(2):
        with pytest.raises(ProofInvalid):
            record.check(checks.share_check(key_shares[1].public, out[0], bad, ctxs[1], 0))
    assert record.runs == 2
    good = checks.share_check(key_shares[1].public, out[0], share, ctxs[1], 0)
    record.check(good)
    assert good.key in record


def test_threads_meeting_one_check_run_it_once(shuffled: Shuffled, joint_key: Point, ctxs: list[ProofContext]) -> None:
    deck, out, proof = shuffled
    record = checks.VerifiedChecks()
    threads = [threading.Thread(target=record.check,
                                args=(checks.shuffle_check(deck, out, proof, joint_key, ctxs[0]),))
               for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert record.runs == 1 and record.hits == 2


def test_the_record_is_bounded(shuffled: Shuffled, joint_key: Point, ctxs: list[ProofContext]) -> None:
    record = checks.VerifiedChecks(capacity=2)
    for key in (b"a" * 32, b"b" * 32, b"c" * 32):
        record.passed(key)
    assert b"a" * 32 not in record and b"c" * 32 in record
