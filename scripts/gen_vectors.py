#!/usr/bin/env python3
"""Generate the mental-poker test vectors in ``protocol/vectors/`` from fixed seeds.

Every random input comes from :class:`p2pcards.crypto.seeded.SeededRng` with
a seed named after what it draws (``"key/seat0"``, ``"shuffle/seat1"``, ...),
so another implementation can reproduce each value on its own. Bytes are
lower-case hex; wire structures keep the shape of ``to_wire()`` with every
byte string in hex.

Usage: ``python scripts/gen_vectors.py [--check]`` (``--check`` compares with
the files instead of writing them and exits non-zero on any difference).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, ROOT)

from p2pcards.crypto import draw, keys, shares  # noqa: E402
from p2pcards.crypto.context import ProofContext  # noqa: E402
from p2pcards.crypto.elgamal import CardMap, card_point, deck_to_wire, initial_deck  # noqa: E402
from p2pcards.crypto.generators import chain_base, generators  # noqa: E402
from p2pcards.crypto.group import G  # noqa: E402
from p2pcards.crypto.hashing import digest32, hash_to_point, hash_to_scalar, sha512_fields, u64  # noqa: E402
from p2pcards.crypto.seeded import SeededRng  # noqa: E402
from p2pcards.crypto.shuffle import shuffle_and_prove  # noqa: E402

VECTOR_DIR = os.path.join(ROOT, "protocol", "vectors")
SEED_PREFIX = b"p2pcards/vectors/v1/"
SEATS = 4
SESSION = bytes(range(32))
DECK_ID = 7
#: Topper's 24-card deck (9, 10, J, Q, K, A), in code order.
TOPPER_CODES = list(range(28, 52))


def rng(name: str) -> SeededRng:
    """The deterministic byte source for one named draw."""
    return SeededRng(SEED_PREFIX + name.encode("ascii"))


def hexed(value: Any) -> Any:
    """Bytes to hex, recursively through lists (the shape of ``to_wire()``)."""
    if isinstance(value, bytes):
        return value.hex()
    if isinstance(value, (list, tuple)):
        return [hexed(v) for v in value]
    if isinstance(value, dict):
        return {k: hexed(v) for k, v in value.items()}
    return value


def hashing_vectors() -> dict:
    fields = [b"", b"\x00", u64(52), bytes(range(32))]
    return {
        "description": {
            "seeded_rng": "the first 200 bytes of the seeded generator (CRYPTO.md §13) for seed "
                          "'p2pcards/vectors/v1/example'",
            "sha512_fields": "SHA512F(tag; fields): SHA-512 of frame(tag) || frame(f1) || ... "
                             "with frame(x) = u32be(len(x)) || x (CRYPTO.md §3)",
            "digest32": "H32(tag; fields): the first 32 bytes of sha512_fields.digest",
            "hash_to_scalar": "Hs(tag; fields): sha512_fields.digest as a little-endian integer "
                              "mod L, 32 bytes little-endian",
            "hash_to_point": "H2C(tag; fields): crypto_core_ed25519_from_uniform of digest32",
        },
        "seeded_rng": {"seed": (SEED_PREFIX + b"example").hex(),
                       "first_200_bytes": rng("example")(200).hex()},
        "sha512_fields": {"tag": b"p2pcards/v1/example".hex(), "fields": hexed(fields),
                          "digest": sha512_fields(b"p2pcards/v1/example", *fields).hex()},
        "digest32": digest32(b"p2pcards/v1/example", *fields).hex(),
        "hash_to_scalar": hash_to_scalar(b"p2pcards/v1/example", *fields).to_bytes().hex(),
        "hash_to_point": hash_to_point(b"p2pcards/v1/example", *fields).to_bytes().hex(),
    }


def point_vectors() -> dict:
    return {
        "G": G.to_bytes().hex(),
        "H": chain_base().to_bytes().hex(),
        "h": [p.to_bytes().hex() for p in generators(52)],
        "cards": {str(code): card_point(code).to_bytes().hex() for code in range(52)},
    }


def draw_vectors() -> dict:
    """The protocol's own draws: nonces committed under "table set-up" (as in the
    ``commit`` messages), then the seed of each draw under its purpose, "seats"
    (the seating permutation) and "first" (the first leader or dealer)."""
    nonces = [draw.new_nonce(rng(f"draw/seat{seat}")) for seat in range(SEATS)]
    commitments = [draw.draw_commitment(SESSION, seat, draw.SETUP_PURPOSE, nonces[seat])
                   for seat in range(SEATS)]
    seed = draw.draw_seed(SESSION, "seats", nonces)
    stream = draw.HashStream(seed)
    first = draw.draw_seed(SESSION, "first", nonces)
    return {
        "session": SESSION.hex(), "commit_purpose": draw.SETUP_PURPOSE, "purpose": "seats",
        "nonces": hexed(nonces), "commitments": hexed(commitments), "seed": seed.hex(),
        "first_10_words": [stream() for _ in range(10)],
        "uniform_index_4": draw.uniform_index(seed, 4),
        "uniform_index_52": draw.uniform_index(seed, 52),
        "permutation_4": draw.permutation(seed, 4),
        "permutation_52": draw.permutation(seed, 52),
        "first": {"purpose": "first", "seed": first.hex(),
                  "uniform_index_4": draw.uniform_index(first, 4)},
    }


def setup_keys() -> tuple[list[keys.KeyShare], dict]:
    key_shares = [keys.KeyShare.generate(rng(f"key/seat{seat}")) for seat in range(SEATS)]
    seats = []
    for seat, share in enumerate(key_shares):
        ctx = ProofContext(SESSION, seat, DECK_ID)
        seats.append({
            "seat": seat,
            "secret": share.secret.to_bytes().hex(),
            "public": share.public.to_bytes().hex(),
            "commitment": keys.key_commitment(ctx, share.public).hex(),
            "proof": hexed(keys.prove_key_share(share, ctx, rng(f"key-proof/seat{seat}")).to_wire()),
        })
    joint = keys.joint_public_key(s.public for s in key_shares)
    return key_shares, {"session": SESSION.hex(), "deck": DECK_ID, "seats": seats,
                        "joint_key": joint.to_bytes().hex()}


def build_vectors() -> dict[str, dict]:
    """Every vector file's content, keyed by file name."""
    key_shares, key_vectors = setup_keys()
    joint = keys.joint_public_key(s.public for s in key_shares)

    # Two shuffles of the 24-card deck: seat 0 from the unmasked deck, then seat 1.
    deck = initial_deck(TOPPER_CODES)
    shuffles = []
    for seat in (0, 1):
        ctx = ProofContext(SESSION, seat, DECK_ID)
        out, proof = shuffle_and_prove(deck, joint, ctx, rng(f"shuffle/seat{seat}"))
        shuffles.append({"seat": seat, "rng_seed": (SEED_PREFIX + f"shuffle/seat{seat}".encode()).hex(),
                         "deck_in": hexed(deck_to_wire(deck)), "deck_out": hexed(deck_to_wire(out)),
                         "proof": hexed(proof.to_wire())})
        deck = out
    shuffle_vectors = {"session": SESSION.hex(), "deck": DECK_ID, "codes": TOPPER_CODES,
                       "joint_key": joint.to_bytes().hex(),
                       "initial_deck_is_identity_then_card": True, "shuffles": shuffles}

    # Private dealing of the final deck (slot p to seat p % 4), then two public reveals.
    card_map = CardMap(TOPPER_CODES)
    slots = []
    for slot, ct in enumerate(deck):
        owner = slot % SEATS
        published = {}
        points = {}
        for seat in range(SEATS):
            ctx = ProofContext(SESSION, seat, DECK_ID)
            if seat == owner:
                points[seat] = shares.decryption_point(key_shares[seat], ct)
                continue
            share = shares.make_share(key_shares[seat], ct, ctx, slot, rng(f"share/seat{seat}/slot{slot}"))
            published[str(seat)] = hexed(share.to_wire())
            points[seat] = share.point
        slots.append({"slot": slot, "owner": owner, "shares": published,
                      "owner_point": points[owner].to_bytes().hex(),
                      "code": shares.recover_code(ct, points, card_map, slot=slot)})
    reveals = []
    for slot in (0, 1):
        owner = slot % SEATS
        ctx = ProofContext(SESSION, owner, DECK_ID)
        share = shares.make_share(key_shares[owner], deck[slot], ctx, slot, rng(f"reveal/slot{slot}"))
        reveals.append({"slot": slot, "seat": owner, "share": hexed(share.to_wire())})
    share_vectors = {"session": SESSION.hex(), "deck": DECK_ID, "codes": TOPPER_CODES,
                     "final_deck": hexed(deck_to_wire(deck)), "dealing": slots, "reveals": reveals}

    return {
        "hashing.json": hashing_vectors(),
        "points.json": point_vectors(),
        "draw.json": draw_vectors(),
        "keys.json": key_vectors,
        "shuffle.json": shuffle_vectors,
        "shares.json": share_vectors,
    }


def render(content: dict) -> str:
    return json.dumps(content, indent=1, sort_keys=True) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args()
    vectors = build_vectors()
    os.makedirs(VECTOR_DIR, exist_ok=True)
    differ = []
    for name, content in vectors.items():
        path = os.path.join(VECTOR_DIR, name)
        text = render(content)
        if args.check:
            with open(path, encoding="utf-8") as f:
                if f.read() != text:
                    differ.append(name)
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
    if differ:
        print("vectors differ: " + ", ".join(differ))
        return 1
    print(("checked " if args.check else "wrote ") + ", ".join(sorted(vectors)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
