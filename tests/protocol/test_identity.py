"""The fingerprint as PROTOCOL.md §1 defines it, recomputed with hashlib alone."""

from __future__ import annotations

import hashlib

from p2pcards.net.table_record import parse_table
from p2pcards.protocol.identity import Identity, fingerprint


def test_fingerprint_is_blake2b_with_a_six_byte_digest_under_the_v2_person() -> None:
    key = bytes(range(32))
    digest = hashlib.blake2b(key, digest_size=6, person=b"p2pcards-fp-v2").hexdigest()
    assert fingerprint(key) == f"{digest[0:4]}-{digest[4:8]}-{digest[8:12]}"


def test_fingerprint_is_not_the_prefix_of_a_longer_digest() -> None:
    """BLAKE2b's parameter block holds the digest size: a 6-byte digest is its own
    hash, so an implementation that truncates a longer one disagrees."""
    key = bytes(range(32))
    prefix = hashlib.blake2b(key, digest_size=32, person=b"p2pcards-fp-v2").hexdigest()[:12]
    assert fingerprint(key).replace("-", "") != prefix


def test_discovery_accepts_a_key_whose_fingerprint_is_computed_this_way() -> None:
    """Discovery's fp/pk check and the fingerprint agree (a joiner pins the key)."""

    class Info:
        name = "Den [x]._p2pcards._tcp.local."
        port = 4000

    ident = Identity.generate("host")
    digest = hashlib.blake2b(ident.public_key, digest_size=6, person=b"p2pcards-fp-v2").hexdigest()
    fp = f"{digest[0:4]}-{digest[4:8]}-{digest[8:12]}"
    Info.properties = {b"game": b"bluff", b"name": b"Den", b"free": b"2", b"v": b"2",  # type: ignore[attr-defined]
                       b"fp": fp.encode(), b"port": b"4000", b"pk": ident.public_key.hex().encode()}
    table = parse_table(Info(), "127.0.0.1")  # type: ignore[arg-type]
    assert table is not None and table.public_key == ident.public_key and table.fingerprint == fp
