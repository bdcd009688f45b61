"""Cards as points, ElGamal ciphertexts and their wire forms."""

from __future__ import annotations

import nacl.bindings as nb
import pytest

from p2pcards.crypto import keys
from p2pcards.crypto.elgamal import (
    CardMap,
    Ciphertext,
    card_point,
    deck_from_wire,
    deck_to_wire,
    initial_deck,
)
from p2pcards.crypto.errors import InvalidEncoding, InvalidPoint
from p2pcards.crypto.group import G, Point, random_scalar
from tests.crypto.aliases import Seeded

ORDER_8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")


def test_the_card_map_goes_from_codes_to_points_and_back() -> None:
    cards = CardMap(range(28, 52))
    assert len(cards) == 24 and 28 in cards and 0 not in cards
    for code in cards.codes:
        assert cards.code_of(cards.point(code)) == code
    assert cards.code_of(card_point(0)) is None  # a real card, but not of this deck
    assert cards.code_of(G) is None
    with pytest.raises(InvalidEncoding):
        cards.point(0)


@pytest.mark.parametrize("codes", [[], [1, 1], [52], [-1], [True], ["3"]])
def test_a_card_map_refuses_bad_codes(codes: list[object]) -> None:
    with pytest.raises(InvalidEncoding):
        CardMap(codes)  # type: ignore[arg-type]  # not card codes


def test_the_initial_deck_is_unmasked_cards_in_order() -> None:
    deck = initial_deck([5, 9, 2])
    assert [ct.c1.is_identity for ct in deck] == [True, True, True]
    assert [ct.c2 for ct in deck] == [card_point(5), card_point(9), card_point(2)]


def test_reencryption_keeps_the_card_and_changes_both_components(
        joint_key: Point, key_shares: list[keys.KeyShare], seeded: Seeded) -> None:
    ct = initial_deck([7])[0].reencrypt(random_scalar(seeded("r1")), joint_key)
    again = ct.reencrypt(random_scalar(seeded("r2")), joint_key)
    assert again.c1 != ct.c1 and again.c2 != ct.c2
    secret = sum((k.secret for k in key_shares[1:]), key_shares[0].secret)
    assert again.c2 - secret * again.c1 == card_point(7)


def test_a_deck_round_trips_through_its_wire_form(joint_key: Point, seeded: Seeded) -> None:
    deck = [ct.reencrypt(random_scalar(seeded(f"w{i}")), joint_key)
            for i, ct in enumerate(initial_deck(range(10)))]
    assert deck_from_wire(deck_to_wire(deck), seat=1) == deck


def test_a_wire_ciphertext_may_not_hold_the_identity_or_a_small_order_tag(joint_key: Point, seeded: Seeded) -> None:
    ct = initial_deck([3])[0].reencrypt(random_scalar(seeded("t")), joint_key)
    with pytest.raises(InvalidPoint) as err:
        Ciphertext.from_wire([Point.identity().to_bytes(), ct.c2.to_bytes()], seat=2)
    assert err.value.reason == InvalidPoint.IDENTITY and err.value.seat == 2
    tagged = nb.crypto_core_ed25519_add(ct.c2.to_bytes(), ORDER_8)
    with pytest.raises(InvalidPoint) as err:
        deck_from_wire([[ct.c1.to_bytes(), tagged]], seat=3)
    assert err.value.reason == InvalidPoint.NOT_IN_GROUP and "deck[0].c2" in str(err.value)


@pytest.mark.parametrize("wire", [[], "deck", [[b"x"]], [[bytes(32)] * 3], [[None, None]],
                                  [[bytes(32), bytes(32)]] * 257])
def test_malformed_decks_are_refused_before_any_curve_work(wire: object) -> None:
    with pytest.raises((InvalidEncoding, InvalidPoint)):
        deck_from_wire(wire, seat=0)
