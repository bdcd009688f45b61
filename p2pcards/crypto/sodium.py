"""The libsodium functions of the group layer, called straight through PyNaCl's cffi binding.

Why not ``nacl.bindings``: its Python wrappers check their arguments' types and
lengths with an error message formatted on every call, about 2 µs a call; an
offline check of a 20-deal match makes some 80,000 calls, and our group layer
(:mod:`p2pcards.crypto.group`) hands libsodium only bytes of the right length.
Here are the same C functions of the same library, from the same binding
(``nacl._sodium``, the compiled module behind ``nacl.bindings``), with their
return codes checked. ``tests/crypto/test_sodium.py`` checks each against
``nacl.bindings``.

A refusal (-1) raises :class:`~p2pcards.crypto.errors.CryptoError`: for the
group layer's validated points and non-zero scalars it never happens; for a point
whose validation a verifier deferred (:class:`~p2pcards.crypto.group.PendingPoints`)
it is libsodium refusing an invalid point.
"""

from __future__ import annotations

from collections.abc import Callable

from nacl._sodium import ffi, lib

from p2pcards.crypto.errors import CryptoError

_POINT = "unsigned char[32]"


def _refused(what: str) -> CryptoError:
    return CryptoError(f"libsodium refused {what} (a point that is not valid, or the identity)")


def _point_op(function: Callable[..., int], what: str, *args: bytes) -> bytes:
    out = ffi.new(_POINT)
    if function(out, *args) != 0:
        raise _refused(what)
    return bytes(ffi.buffer(out))


def scalarmult(n: bytes, p: bytes) -> bytes:
    """``crypto_scalarmult_ed25519_noclamp``: ``n·p``; refuses an invalid ``p``, a zero result."""
    return _point_op(lib.crypto_scalarmult_ed25519_noclamp, "a scalar multiplication", n, p)


def scalarmult_base(n: bytes) -> bytes:
    """``crypto_scalarmult_ed25519_base_noclamp``: ``n·G``."""
    return _point_op(lib.crypto_scalarmult_ed25519_base_noclamp, "a fixed-base multiplication", n)


def add(p: bytes, q: bytes) -> bytes:
    """``crypto_core_ed25519_add``: ``p + q``."""
    return _point_op(lib.crypto_core_ed25519_add, "an addition", p, q)


def sub(p: bytes, q: bytes) -> bytes:
    """``crypto_core_ed25519_sub``: ``p - q``."""
    return _point_op(lib.crypto_core_ed25519_sub, "a subtraction", p, q)


def is_valid_point(p: bytes) -> bool:
    """``crypto_core_ed25519_is_valid_point``: canonical, on the curve, in the
    prime-order subgroup, not of small order."""
    return bool(lib.crypto_core_ed25519_is_valid_point(p) == 1)


def _scalar_op(function: Callable[..., object], *args: bytes) -> bytes:
    out = ffi.new(_POINT)
    function(out, *args)
    return bytes(ffi.buffer(out))


def scalar_add(a: bytes, b: bytes) -> bytes:
    return _scalar_op(lib.crypto_core_ed25519_scalar_add, a, b)


def scalar_sub(a: bytes, b: bytes) -> bytes:
    return _scalar_op(lib.crypto_core_ed25519_scalar_sub, a, b)


def scalar_mul(a: bytes, b: bytes) -> bytes:
    return _scalar_op(lib.crypto_core_ed25519_scalar_mul, a, b)


def scalar_negate(a: bytes) -> bytes:
    return _scalar_op(lib.crypto_core_ed25519_scalar_negate, a)


def scalar_reduce(wide: bytes) -> bytes:
    """``crypto_core_ed25519_scalar_reduce`` of 64 bytes: their little-endian value mod ``L``."""
    if len(wide) != 64:
        raise ValueError("scalar_reduce takes 64 bytes")
    return _scalar_op(lib.crypto_core_ed25519_scalar_reduce, wide)


def equal(a: bytes, b: bytes) -> bool:
    """``sodium_memcmp`` of two 32-byte strings: equality in constant time."""
    return len(a) == len(b) == 32 and bool(lib.sodium_memcmp(a, b, 32) == 0)


def sha512(data: bytes) -> bytes:
    """``crypto_hash_sha512``."""
    out = ffi.new("unsigned char[64]")
    lib.crypto_hash_sha512(out, data, len(data))
    return bytes(ffi.buffer(out))
