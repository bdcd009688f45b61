"""A received shuffle's or share's points are validated by the check's own multiplications,
and a point outside the group is still refused with the error decoding gives it."""

from __future__ import annotations

import nacl.bindings as nb
import pytest

from p2pcards.crypto import keys
from p2pcards.crypto.checks import VerifiedChecks
from p2pcards.crypto.group import OPS, VALID_POINTS, Point
from p2pcards.protocol.dealing import DeckDeal
from p2pcards.protocol.errors import BadProof
from p2pcards.wiremap import WireMap

SESSION = bytes(range(32))
CODES = list(range(16))
ORDER_8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")


def deals() -> tuple[DeckDeal, DeckDeal, list[keys.KeyShare]]:
    """Seat 0's deal and seat 1's, each with its own record of passed checks (two machines)."""
    shares = [keys.KeyShare.generate() for _ in range(4)]
    joint = keys.joint_public_key(k.public for k in shares)
    publics = [k.public for k in shares]
    return (DeckDeal(1, CODES, SESSION, joint, publics, checker=VerifiedChecks().check),
            DeckDeal(1, CODES, SESSION, joint, publics, checker=VerifiedChecks().check), shares)


@pytest.fixture(autouse=True)
def fresh_points() -> None:
    VALID_POINTS.clear()


def test_a_received_shuffle_costs_no_separate_validation_and_its_points_are_then_known_valid() -> None:
    mine, theirs, _ = deals()
    body = mine.make_shuffle(0)
    mine.accept_shuffle(0, body, trusted=True)
    OPS.reset()
    theirs.accept_shuffle(0, body)
    assert OPS.validate == 0 and OPS.scalarmult > 0
    cards = body["cards"]
    assert isinstance(cards, list)
    assert all(isinstance(card, list) and all(raw in VALID_POINTS for raw in card) for card in cards)
    assert theirs.deck == mine.deck and theirs.shuffles_done == 1


def test_a_point_outside_the_group_in_a_shuffle_is_refused_as_decoding_refuses_it() -> None:
    mine, theirs, _ = deals()
    body = mine.make_shuffle(0)
    cards = body["cards"]
    assert isinstance(cards, list) and isinstance(cards[3], list)
    c1, c2 = cards[3]
    assert isinstance(c2, bytes)
    tagged: WireMap = {**body, "cards": [*cards[:3], [c1, nb.crypto_core_ed25519_add(c2, ORDER_8)],
                                         *cards[4:]]}
    with pytest.raises(BadProof, match="not in the prime-order group"):
        theirs.accept_shuffle(0, tagged)
    assert theirs.shuffles_done == 0 and all(ct.c1.is_identity for ct in theirs.deck)  # unchanged


def test_a_share_outside_the_group_is_refused_as_decoding_refuses_it() -> None:
    dealer, owner, shares = deals()
    for seat in range(4):
        body = dealer.make_shuffle(seat)
        dealer.accept_shuffle(seat, body, trusted=True)
        owner.accept_shuffle(seat, body)
    body = dealer.make_shares(0, shares[0])
    items = body["shares"]
    assert isinstance(items, list) and isinstance(items[0], list)
    d, c, s = items[0]
    assert isinstance(d, bytes)
    bad: WireMap = {**body, "shares": [[nb.crypto_core_ed25519_add(d, ORDER_8), c, s], *items[1:]]}
    OPS.reset()
    assert owner.accept_shares(0, body, check_owner=1) == 4  # seat 1 owns slots 1, 5, 9, 13
    # Those four were multiplied in their checks; the eight checked later are validated now.
    assert OPS.validate == 8
    # Another peer holding the same deck (the dealer's own copy) refuses the tagged share.
    with pytest.raises(BadProof, match="not in the prime-order group"):
        dealer.accept_shares(0, bad, check_owner=1)
    assert dealer.shares_done == 0
    assert Point.from_bytes(d) == owner.public_shares[1][0].point


@pytest.mark.parametrize("bad", [(5,), (33,), (5, 33)])
def test_shares_checked_in_two_halves_name_the_first_bad_share_as_one_pass_would(
        bad: tuple[int, ...]) -> None:
    """Seat 1 checks seat 0's shares of its 13 cards in two halves at once (slots 1..21
    and 25..49): a bad share in either half is found, the first one named, nothing kept."""
    codes = list(range(52))
    key_shares = [keys.KeyShare.generate() for _ in range(4)]
    joint = keys.joint_public_key(k.public for k in key_shares)
    publics = [k.public for k in key_shares]
    mine, theirs = (DeckDeal(1, codes, SESSION, joint, publics, checker=VerifiedChecks().check)
                    for _ in range(2))
    shuffled = mine.make_shuffle(0)
    mine.accept_shuffle(0, shuffled, trusted=True)
    theirs.accept_shuffle(0, shuffled)
    body = mine.make_shares(0, key_shares[0])
    items = body["shares"]
    assert isinstance(items, list)
    slots = [p for p in range(52) if p % 4 != 0]
    honest = dict(zip(slots, items, strict=True))
    # Each bad slot gets the share made for the slot after it: a valid point, a wrong proof.
    forged = [honest[p + 1] if p in bad else honest[p] for p in slots]
    with pytest.raises(BadProof, match=f"for slot {min(bad)}"):
        theirs.accept_shares(0, {**body, "shares": forged}, check_owner=1)
    assert theirs.shares_done == 0 and not any(theirs.public_shares[p] for p in slots)
    assert theirs.accept_shares(0, body, check_owner=1) == 13 and theirs.shares_done == 1
