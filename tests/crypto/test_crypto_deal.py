"""Honest four-seat hands end to end: key setup, four shuffles, private dealing, a reveal."""

from __future__ import annotations

from typing import Any

import pytest

from p2pcards.crypto import keys, shares
from p2pcards.crypto.context import ProofContext
from p2pcards.crypto.elgamal import CardMap, deck_from_wire, deck_to_wire, initial_deck
from p2pcards.crypto.shuffle import ShuffleProof, shuffle_and_prove, verify_shuffle

SEATS = 4


def play_hand(codes: list[int], session: bytes, deck_id: int) -> dict[str, Any]:
    """One hand as the protocol runs it, every value through its wire form."""
    ctx = [ProofContext(session, seat, deck_id) for seat in range(SEATS)]
    key_shares = [keys.KeyShare.generate() for _ in range(SEATS)]
    commits = [keys.key_commitment(ctx[i], key_shares[i].public) for i in range(SEATS)]
    reveals = [(k.public.to_bytes(), keys.prove_key_share(k, ctx[i]).to_wire())
               for i, k in enumerate(key_shares)]
    publics = []
    for seat, (public_wire, proof_wire) in enumerate(reveals):
        public = keys.public_from_wire(public_wire, seat)
        keys.verify_key_commitment(commits[seat], ctx[seat], public)
        keys.verify_key_share(public, keys.SchnorrProof.from_wire(proof_wire, seat), ctx[seat])
        publics.append(public)
    joint = keys.joint_public_key(publics)

    deck = initial_deck(codes)
    for shuffler in range(SEATS):
        out, proof = shuffle_and_prove(deck, joint, ctx[shuffler])
        received = deck_from_wire(deck_to_wire(out), shuffler)
        verify_shuffle(deck, received, ShuffleProof.from_wire(proof.to_wire(), shuffler), joint,
                       ctx[shuffler])
        deck = received

    card_map = CardMap(codes)
    hands: dict[int, list[int]] = {seat: [] for seat in range(SEATS)}
    published: dict[tuple[int, int], bytes] = {}
    for slot, ct in enumerate(deck):
        owner = slot % SEATS
        points = {}
        for seat in range(SEATS):
            if seat == owner:
                points[seat] = shares.decryption_point(key_shares[seat], ct)
                continue
            wire = shares.make_share(key_shares[seat], ct, ctx[seat], slot).to_wire()
            share = shares.DecryptionShare.from_wire(wire, seat)
            shares.verify_share(publics[seat], ct, share, ctx[seat], slot)
            published[(slot, seat)] = share.point  # type: ignore[assignment]
            points[seat] = share.point
        hands[owner].append(shares.recover_code(ct, points, card_map, slot=slot))

    # Public reveal of slot 1: its owner publishes its share; seat 3 checks it and opens the card.
    owner = 1
    reveal = shares.DecryptionShare.from_wire(
        shares.make_share(key_shares[owner], deck[1], ctx[owner], 1).to_wire(), owner)
    shares.verify_share(publics[owner], deck[1], reveal, ctx[owner], 1)
    points = {seat: published[(1, seat)] for seat in range(SEATS) if seat != owner}  # type: ignore[misc]
    points[owner] = reveal.point
    revealed = shares.recover_code(deck[1], points, card_map, slot=1)
    return {"hands": hands, "revealed": revealed, "deck": deck, "key_shares": key_shares}


@pytest.mark.parametrize("codes", [list(range(52)), list(range(28, 52))], ids=["bluff-52", "topper-24"])
def test_an_honest_hand_deals_every_card_once_to_its_owner(codes: list[int], session: bytes) -> None:
    result = play_hand(codes, session, deck_id=3)
    hands = result["hands"]
    per_seat = len(codes) // SEATS
    assert all(len(hands[seat]) == per_seat for seat in range(SEATS))
    assert sorted(c for hand in hands.values() for c in hand) == sorted(codes)
    # Independently of the shares: decrypt with the whole key; slot p belongs to seat p % 4.
    secret = sum((k.secret for k in result["key_shares"][1:]), result["key_shares"][0].secret)
    card_map = CardMap(codes)
    faces = [card_map.code_of(ct.c2 - secret * ct.c1) for ct in result["deck"]]
    assert all(hands[seat] == faces[seat::SEATS] for seat in range(SEATS))
    assert result["revealed"] == hands[1][0]
    assert [c for hand in hands.values() for c in hand] != codes  # the deck did move
