"""Nothing secret in a repr, an exception message or a log record."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

import pytest

from p2pcards.crypto import draw, keys, shares
from p2pcards.crypto.context import ProofContext
from p2pcards.crypto.elgamal import CardMap, initial_deck
from p2pcards.crypto.errors import CryptoError
from p2pcards.crypto.group import G, Point, random_scalar
from p2pcards.crypto.seeded import SeededRng
from p2pcards.crypto.shuffle import shuffle_and_prove, verify_shuffle
from tests.crypto.aliases import Seeded

HEX_RUN = re.compile(r"[0-9a-fA-F]{12,}")


def leaks(text: str, *secrets: bytes) -> bool:
    """True when ``text`` holds a secret (in hex, either case) or any long hex run."""
    lowered = text.lower()
    return bool(HEX_RUN.search(text)) or any(s.hex()[:12] in lowered for s in secrets)


def test_reprs_show_no_secret_values(
        key_shares: list[keys.KeyShare], joint_key: Point, ctxs: list[ProofContext], seeded: Seeded) -> None:
    share = key_shares[0]
    deck, proof = shuffle_and_prove(initial_deck(range(4)), joint_key, ctxs[0], seeded("repr"))
    own = shares.decryption_point(share, deck[0])
    dshare = shares.make_share(share, deck[0], ctxs[0], 0)
    nonce = draw.new_nonce(seeded("nonce"))
    values = [share, share.secret, own, dshare, dshare.proof, deck[0], proof, CardMap(range(4)),
              SeededRng(b"secret seed"), draw.HashStream(nonce), random_scalar()]
    for value in values:
        text = repr(value) + str(value)
        assert not leaks(text, share.secret.to_bytes(), own.to_bytes(), nonce), text
    assert share.public.to_bytes()[:4].hex() in repr(share)  # the public part may show
    assert repr(G) == "Point(G)" and repr(Point.identity()) == "Point(identity)"


def collect_errors(
        key_shares: list[keys.KeyShare], joint_key: Point, ctxs: list[ProofContext],
        seeded: Seeded) -> list[CryptoError]:
    """Provoke every family of failure with secrets around, and keep the exceptions."""
    errors: list[CryptoError] = []

    def catch(fn: Callable[..., object], *args: Any) -> None:
        with pytest.raises(CryptoError) as err:
            fn(*args)
        errors.append(err.value)

    deck, proof = shuffle_and_prove(initial_deck(range(6)), joint_key, ctxs[1], seeded("errs"))
    own = key_shares[2].secret.to_bytes()
    catch(verify_shuffle, initial_deck(range(6)), deck[::-1], proof, joint_key, ctxs[1])
    share = shares.make_share(key_shares[2], deck[0], ctxs[2], 0)
    catch(shares.verify_share, key_shares[2].public, deck[1], share, ctxs[2], 1)
    catch(shares.recover_code, deck[0], {2: share.point}, CardMap(range(6)))
    catch(keys.verify_key_share, key_shares[2].public, keys.prove_key_share(key_shares[3], ctxs[2]),
          ctxs[2])
    catch(keys.verify_key_commitment, bytes(32), ctxs[2], key_shares[2].public)
    catch(keys.SchnorrProof.from_wire, [own, bytes(32)], 2)
    catch(shares.DecryptionShare.from_wire, [own[:31], own, own], 2)
    catch(Point.from_bytes, share.point.to_bytes()[:-1] + b"\xff")
    catch(draw.verify_draw_nonce, bytes(32), bytes(32), 2, "x", own)
    return errors


def test_exception_messages_name_seats_and_checks_but_no_secret(
        key_shares: list[keys.KeyShare], joint_key: Point, ctxs: list[ProofContext], seeded: Seeded) -> None:
    errors = collect_errors(key_shares, joint_key, ctxs, seeded)
    secrets = [k.secret.to_bytes() for k in key_shares]
    assert len(errors) == 9
    for err in errors:
        assert not leaks(str(err), *secrets), str(err)
        assert not leaks(repr(err), *secrets), repr(err)
        assert str(err).endswith(f"[{err.code}]")
    assert "seat 1" in str(errors[0]) and "shuffle" in str(errors[0])


def test_no_log_record_is_written_during_a_whole_hand(
        key_shares: list[keys.KeyShare], joint_key: Point, ctxs: list[ProofContext], seeded: Seeded,
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    deck, proof = shuffle_and_prove(initial_deck(range(8)), joint_key, ctxs[0], seeded("log"))
    verify_shuffle(initial_deck(range(8)), deck, proof, joint_key, ctxs[0])
    for seat in range(1, 4):
        shares.verify_share(key_shares[seat].public, deck[0],
                            shares.make_share(key_shares[seat], deck[0], ctxs[seat], 0), ctxs[seat], 0)
    collect_errors(key_shares, joint_key, ctxs, seeded)
    assert caplog.records == []


def test_bad_arguments_are_described_by_type_never_by_content(
        ctxs: list[ProofContext], key_shares: list[keys.KeyShare]) -> None:
    secret = key_shares[0].secret_bytes()
    with pytest.raises(CryptoError) as err:
        shares.make_share(key_shares[0], initial_deck([1])[0], ctxs[0], secret)  # type: ignore[arg-type]
    assert secret.hex()[:12] not in str(err.value)
    for bad in (secret, secret.hex(), [secret]):
        with pytest.raises(CryptoError) as err:
            CardMap([bad])  # type: ignore[list-item]
        assert not leaks(str(err.value), secret), str(err.value)
