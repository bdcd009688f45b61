"""The direct libsodium calls compute exactly what ``nacl.bindings`` computes, and refuse what it refuses."""

from __future__ import annotations

import nacl.bindings as nb
import nacl.utils
import pytest

from p2pcards.crypto import sodium
from p2pcards.crypto.errors import CryptoError

ORDER_8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")


def scalar() -> bytes:
    return nb.crypto_core_ed25519_scalar_reduce(nacl.utils.random(64))


def test_each_call_matches_nacl_bindings() -> None:
    for _ in range(5):
        a, b = scalar(), scalar()
        p, q = nb.crypto_scalarmult_ed25519_base_noclamp(a), nb.crypto_scalarmult_ed25519_base_noclamp(b)
        wide = nacl.utils.random(64)
        assert sodium.scalarmult(a, q) == nb.crypto_scalarmult_ed25519_noclamp(a, q)
        assert sodium.scalarmult_base(a) == p
        assert sodium.add(p, q) == nb.crypto_core_ed25519_add(p, q)
        assert sodium.sub(p, q) == nb.crypto_core_ed25519_sub(p, q)
        assert sodium.is_valid_point(p) and not sodium.is_valid_point(nb.crypto_core_ed25519_add(p, ORDER_8))
        assert sodium.scalar_add(a, b) == nb.crypto_core_ed25519_scalar_add(a, b)
        assert sodium.scalar_sub(a, b) == nb.crypto_core_ed25519_scalar_sub(a, b)
        assert sodium.scalar_mul(a, b) == nb.crypto_core_ed25519_scalar_mul(a, b)
        assert sodium.scalar_negate(a) == nb.crypto_core_ed25519_scalar_negate(a)
        assert sodium.scalar_reduce(wide) == nb.crypto_core_ed25519_scalar_reduce(wide)
        assert sodium.sha512(wide) == nb.crypto_hash_sha512(wide)
        assert sodium.equal(a, a) and not sodium.equal(a, b)


def test_a_multiplication_refuses_a_point_outside_the_prime_order_group() -> None:
    p = nb.crypto_scalarmult_ed25519_base_noclamp(scalar())
    for bad in (nb.crypto_core_ed25519_add(p, ORDER_8), ORDER_8, bytes(32)):
        with pytest.raises(CryptoError):
            sodium.scalarmult(scalar(), bad)
    with pytest.raises(CryptoError):
        sodium.scalarmult(bytes(32), p)  # a zero scalar: the identity, refused
    with pytest.raises(ValueError, match="64 bytes"):
        sodium.scalar_reduce(bytes(32))
