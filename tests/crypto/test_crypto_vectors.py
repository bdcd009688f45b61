"""The published test vectors: recomputed bit for bit, and checked by the verifiers alone."""

from __future__ import annotations

import importlib.util
import json
import pathlib
from typing import Any

import pytest

from p2pcards.crypto import draw, keys, shares
from p2pcards.crypto.context import ProofContext
from p2pcards.crypto.elgamal import CardMap, card_point, deck_from_wire, deck_to_wire, initial_deck
from p2pcards.crypto.generators import chain_base, generators
from p2pcards.crypto.group import G
from p2pcards.crypto.shuffle import ShuffleProof, verify_shuffle

ROOT = pathlib.Path(__file__).resolve().parents[2]
VECTORS = ROOT / "protocol" / "vectors"
NAMES = ["hashing.json", "points.json", "draw.json", "keys.json", "shuffle.json", "shares.json"]


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((VECTORS / name).read_text(encoding="utf-8"))
    return data


def unhex(value: Any) -> Any:
    """Hex text, or nested lists of it (JSON: any shape), as bytes."""
    if isinstance(value, str):
        return bytes.fromhex(value)
    return [unhex(v) for v in value]


@pytest.fixture(scope="module")
def generated() -> dict[str, Any]:
    spec = importlib.util.spec_from_file_location("gen_vectors", ROOT / "scripts" / "gen_vectors.py")
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return {name: json.loads(module.render(content)) for name, content in module.build_vectors().items()}


@pytest.mark.parametrize("name", NAMES)
def test_recomputing_from_the_seeds_gives_the_published_vectors(generated: dict[str, Any], name: str) -> None:
    assert generated[name] == load(name)


def test_published_points_are_the_hash_to_curve_outputs() -> None:
    points = load("points.json")
    assert points["G"] == G.to_bytes().hex() and points["H"] == chain_base().to_bytes().hex()
    assert points["h"] == [p.to_bytes().hex() for p in generators(52)]
    assert points["cards"] == {str(c): card_point(c).to_bytes().hex() for c in range(52)}


def test_published_draw_verifies() -> None:
    v = load("draw.json")
    session = bytes.fromhex(v["session"])
    nonces = unhex(v["nonces"])
    for seat, commitment in enumerate(unhex(v["commitments"])):
        draw.verify_draw_nonce(commitment, session, seat, v["commit_purpose"], nonces[seat])
    seed = draw.draw_seed(session, v["purpose"], nonces)
    assert seed.hex() == v["seed"]
    assert draw.permutation(seed, 52) == v["permutation_52"]
    assert draw.uniform_index(seed, 4) == v["uniform_index_4"]
    first = draw.draw_seed(session, v["first"]["purpose"], nonces)
    assert first.hex() == v["first"]["seed"]
    assert draw.uniform_index(first, 4) == v["first"]["uniform_index_4"]


def test_published_keys_verify_and_sum_to_the_joint_key() -> None:
    v = load("keys.json")
    session = bytes.fromhex(v["session"])
    publics = []
    for entry in v["seats"]:
        ctx = ProofContext(session, entry["seat"], v["deck"])
        public = keys.public_from_wire(bytes.fromhex(entry["public"]), entry["seat"])
        keys.verify_key_commitment(bytes.fromhex(entry["commitment"]), ctx, public)
        keys.verify_key_share(public, keys.SchnorrProof.from_wire(unhex(entry["proof"])), ctx)
        publics.append(public)
    assert keys.joint_public_key(publics).to_bytes().hex() == v["joint_key"]


def test_published_shuffles_verify() -> None:
    v = load("shuffle.json")
    session = bytes.fromhex(v["session"])
    joint = keys.public_from_wire(bytes.fromhex(v["joint_key"]))
    deck_in = initial_deck(v["codes"])
    assert deck_to_wire(deck_in) == unhex(v["shuffles"][0]["deck_in"])
    for entry in v["shuffles"]:
        deck_out = deck_from_wire(unhex(entry["deck_out"]), entry["seat"])
        proof = ShuffleProof.from_wire(unhex(entry["proof"]), entry["seat"])
        verify_shuffle(deck_in, deck_out, proof, joint, ProofContext(session, entry["seat"], v["deck"]))
        deck_in = deck_out


def test_published_shares_verify_and_open_every_card_once() -> None:
    v = load("shares.json")
    publics = [keys.public_from_wire(bytes.fromhex(e["public"])) for e in load("keys.json")["seats"]]
    session = bytes.fromhex(v["session"])
    deck = deck_from_wire(unhex(v["final_deck"]))
    card_map = CardMap(v["codes"])
    opened = []
    for entry in v["dealing"]:
        slot, ct = entry["slot"], deck[entry["slot"]]
        points = {entry["owner"]: keys.public_from_wire(bytes.fromhex(entry["owner_point"]))}
        for seat_text, wire in entry["shares"].items():
            seat = int(seat_text)
            share = shares.DecryptionShare.from_wire(unhex(wire), seat)
            shares.verify_share(publics[seat], ct, share, ProofContext(session, seat, v["deck"]), slot)
            points[seat] = share.point
        code = shares.recover_code(ct, points, card_map, slot=slot)
        assert code == entry["code"]
        opened.append(code)
    assert sorted(opened) == sorted(v["codes"])
    for reveal in v["reveals"]:
        share = shares.DecryptionShare.from_wire(unhex(reveal["share"]), reveal["seat"])
        shares.verify_share(publics[reveal["seat"]], deck[reveal["slot"]], share,
                            ProofContext(session, reveal["seat"], v["deck"]), reveal["slot"])
        assert share.point.to_bytes().hex() == v["dealing"][reveal["slot"]]["owner_point"]
