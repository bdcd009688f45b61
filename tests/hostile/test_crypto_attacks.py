"""Attacks on the mental-poker deck: key set-up, shuffles, decryption shares, reveals.

The cheater signs every message with its own key, so each of these ends the
table with a provable verdict naming it (rule ``crypto``, or
``message.malformed`` for a body of the wrong shape) and leaves every honest
peer's state as it was before the message.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from p2pcards.crypto import draw, keys, shares, shuffle
from p2pcards.crypto.elgamal import Ciphertext, card_point
from p2pcards.crypto.group import G, Point, random_scalar
from p2pcards.crypto.seeded import SeededRng
from p2pcards.protocol.table_keys import key_context
from p2pcards.protocol.table_records import Stage
from p2pcards.rules.bluff import BluffState
from tests.support.typed import present

from .bad_share import swap_share_for_next_seat
from .harness import (
    BAD_POINTS,
    BAD_SCALARS,
    Bench,
    Step,
    assert_transcripts_valid,
    assert_verdict,
    marks,
    recording,
    set_path,
)


def _bench(game: str, predicate: Any, nth: int = 0) -> tuple[Bench, Step]:
    return recording(game).bench_before(predicate, nth)


def _attack(bench: Bench, step: Step, body: dict[str, Any], rule: str = "crypto", mtype: str | None = None) -> None:
    before = marks(bench)
    raw = bench.forge(mtype or step.type, body)
    bench.deliver(raw, sender=step.player)
    assert_verdict(bench, rule, (step.player,), step.position, before)


def _bluff(bench: Bench) -> BluffState:
    """The reference referee's engine, at a Bluff table (typed ``Engine`` by the table)."""
    engine = bench.reference.engine
    assert isinstance(engine, BluffState)
    return engine


def _rng(label: str) -> SeededRng:
    return SeededRng(label.encode())


# -- every crypto field, every bad encoding ------------------------------------------------

_POINT_FIELDS = {
    "open.key": ("open", ("key",)),
    "shuffle.c1": ("shuffle", ("cards", 5, 0)),
    "shuffle.c2": ("shuffle", ("cards", 5, 1)),
    "shuffle.t1": ("shuffle", ("proof", 0)),
    "shuffle.t2": ("shuffle", ("proof", 1)),
    "shuffle.t3": ("shuffle", ("proof", 2)),
    "shuffle.t4_1": ("shuffle", ("proof", 3)),
    "shuffle.t4_2": ("shuffle", ("proof", 4)),
    "shuffle.t_hat": ("shuffle", ("proof", 5, 3)),
    "shuffle.commitment": ("shuffle", ("proof", 12, 3)),
    "shuffle.chain": ("shuffle", ("proof", 13, 3)),
    "shares.D": ("shares", ("shares", 7, 0)),
    "play.D": ("play", ("shares", 0, 0)),
}
_SCALAR_FIELDS = {
    "open.proof.c": ("open", ("proof", 0)),
    "open.proof.s": ("open", ("proof", 1)),
    "shuffle.s1": ("shuffle", ("proof", 6)),
    "shuffle.s2": ("shuffle", ("proof", 7)),
    "shuffle.s3": ("shuffle", ("proof", 8)),
    "shuffle.s4": ("shuffle", ("proof", 9)),
    "shuffle.s_hat": ("shuffle", ("proof", 10, 3)),
    "shuffle.s_prime": ("shuffle", ("proof", 11, 3)),
    "shares.c": ("shares", ("shares", 7, 1)),
    "shares.s": ("shares", ("shares", 7, 2)),
    "play.c": ("play", ("shares", 0, 1)),
    "play.s": ("play", ("shares", 0, 2)),
}
#: Fields the message schema checks before any crypto decoder: a wrong size
#: there is a malformed message rather than a bad proof.
_SCHEMA_CHECKED = {"open.key"}


def _field_cases() -> list[Any]:
    cases = []
    for name, (mtype, path) in _POINT_FIELDS.items():
        for bad in BAD_POINTS:
            cases.append(pytest.param(mtype, path, BAD_POINTS[bad], name in _SCHEMA_CHECKED
                                      and bad in ("short", "not-bytes"), id=f"{name}-{bad}"))
    for name, (mtype, path) in _SCALAR_FIELDS.items():
        for bad in BAD_SCALARS:
            cases.append(pytest.param(mtype, path, BAD_SCALARS[bad], False, id=f"{name}-{bad}"))
    return cases


@pytest.mark.parametrize("mtype,path,value,schema", _field_cases())
def test_invalid_point_or_scalar_in_a_crypto_field(mtype: str, path: tuple[Any, ...], value: Any,
                                                   schema: bool) -> None:
    """Small-order, mixed-order, non-canonical, off-curve and identity points and
    zero or non-canonical scalars, in every crypto field of every message."""
    bench, step = _bench("topper", lambda s: s.type == mtype
                         and (s.player if s.seat is None else s.seat) == 1)
    body = set_path(bench.peek().body, path, value)
    _attack(bench, step, body, "message.malformed" if schema else "crypto")


# -- key set-up -------------------------------------------------------------------------------


def _cancelling_key(bench: Bench, hostile: int, target: Point) -> Point:
    """``target - Σ others``: a share that makes the joint key whatever the cheater likes."""
    others = [present(bench.tables[p].secrets).key.public for p in range(4) if p != hostile]
    rogue = target
    for public in others:
        rogue = rogue - public
    return rogue


def test_key_share_chosen_after_seeing_the_others_breaks_its_commitment() -> None:
    """The last to open sees three shares and publishes one that cancels them."""
    bench, step = _bench("topper", lambda s: s.type == "open" and s.player == 3)
    t = random_scalar(_rng("attacker's own key"))
    rogue = _cancelling_key(bench, 3, t * G)
    body = dict(bench.peek().body, key=rogue.to_bytes())
    _attack(bench, step, body)


@pytest.mark.parametrize("target", ["attacker's key", "identity"])
def test_key_share_chosen_to_cancel_the_others_fails_its_proof(target: str) -> None:
    """Even a cheater that knew the others' shares before committing (impossible
    here, granted by the test) cannot prove knowledge of the cancelling share."""
    rec = recording("topper")
    bench = rec.bench_at(4)
    bench.set_hostile(3)
    wanted = Point.identity() if target == "identity" else random_scalar(_rng("t")) * G
    rogue = _cancelling_key(bench, 3, wanted)
    nonce = present(bench.tables[3].secrets).draw_nonce
    ctx = key_context(bench.reference.session, 3)
    bench.deliver(bench.forge("commit", {"key": keys.key_commitment(ctx, rogue),
                                         "draw": draw.commit(ctx, nonce)}), sender=3)
    for _ in range(3):
        bench.step()
    assert bench.writer == 3 and bench.reference.stage is Stage.OPEN
    proof = [random_scalar(_rng("c")).to_bytes(), random_scalar(_rng("s")).to_bytes()]
    before = marks(bench)
    position = bench.reference.next_position
    bench.deliver(bench.forge("open", {"key": rogue.to_bytes(), "proof": proof, "draw": nonce}),
                  sender=3)
    assert_verdict(bench, "crypto", (3,), position, before)


def test_key_share_proof_made_for_another_seat_is_refused() -> None:
    bench, step = _bench("topper", lambda s: s.type == "open" and s.player == 2)
    key = present(bench.tables[2].secrets).key
    wrong_ctx = key_context(bench.reference.session, 1)
    body = dict(bench.peek().body, proof=keys.prove_key_share(key, wrong_ctx, _rng("p")).to_wire())
    _attack(bench, step, body)


def test_draw_nonce_changed_after_seeing_the_others_is_refused() -> None:
    """The seat draw: the last to open would like another nonce."""
    bench, step = _bench("topper", lambda s: s.type == "open" and s.player == 3)
    _attack(bench, step, dict(bench.peek().body, draw=bytes(32)))


# -- shuffles -----------------------------------------------------------------------------------


def _shuffle_body(bench: Bench, deck: list[Ciphertext], seat: int, label: str = "cheat",
                  ctx_seat: int | None = None) -> dict[str, Any]:
    deal = present(bench.reference.deal)
    ctx = deal.context(seat if ctx_seat is None else ctx_seat)
    out, proof = shuffle.shuffle_and_prove(deck, deal.joint_key, ctx, rng=_rng(label))
    return {"deck": deal.number, "cards": [c.to_wire() for c in out], "proof": proof.to_wire()}


def _shuffler(seat: int) -> Callable[[Step], bool]:
    return lambda s: s.type == "shuffle" and s.seat == seat


@pytest.mark.parametrize("game", ["topper", "bluff"])
def test_shuffle_that_duplicates_a_card_and_drops_another(game: str) -> None:
    bench, step = _bench(game, _shuffler(2))
    deck = list(present(bench.reference.deal).deck)
    deck[3] = deck[9]
    _attack(bench, step, _shuffle_body(bench, deck, present(step.seat)))


def test_shuffle_that_drops_a_card_from_the_deck() -> None:
    bench, step = _bench("topper", _shuffler(1))
    body = bench.peek().body
    body["cards"] = body["cards"][:-1]
    _attack(bench, step, body, "message.malformed")


def test_shuffle_that_replaces_a_card_with_one_of_its_choice() -> None:
    """An ace of a suit the cheater likes, re-encrypted in place of a deck card."""
    bench, step = _bench("topper", _shuffler(1))
    deal = present(bench.reference.deal)
    r = random_scalar(_rng("r"))
    chosen = Ciphertext(r * G, card_point(51) + r * deal.joint_key)
    deck = list(deal.deck)
    deck[0] = chosen
    _attack(bench, step, _shuffle_body(bench, deck, present(step.seat)))


def test_shuffle_that_puts_a_card_from_outside_the_deck_in_the_first_shuffle() -> None:
    """Topper's deck has no twos: seat 0 slips one in instead of a nine."""
    bench, step = _bench("topper", _shuffler(0))
    deck = list(present(bench.reference.deal).deck)
    deck[0] = Ciphertext(Point.identity(), card_point(0))
    _attack(bench, step, _shuffle_body(bench, deck, 0))


def test_shuffle_that_tags_a_card_with_a_small_order_point() -> None:
    """Adding a torsion point to a ciphertext would let the cheater follow that
    card through later shuffles; it is not a point of the group."""
    import nacl.bindings as nb

    from .harness import ORDER_8_POINT
    bench, step = _bench("topper", _shuffler(1))
    body = bench.peek().body
    c1, c2 = body["cards"][4]
    body["cards"][4] = [c1, nb.crypto_core_ed25519_add(c2, ORDER_8_POINT)]
    _attack(bench, step, body)


def test_shuffle_that_tags_a_card_with_a_known_group_point() -> None:
    bench, step = _bench("topper", _shuffler(1))
    body = bench.peek().body
    c1, c2 = body["cards"][4]
    body["cards"][4] = [c1, (Point.from_bytes(c2) + G).to_bytes()]
    _attack(bench, step, body)


def test_shuffle_with_the_proof_of_another_shuffle() -> None:
    bench, step = _bench("topper", _shuffler(2))
    honest = bench.peek().body
    other = _shuffle_body(bench, list(present(bench.reference.deal).deck), present(step.seat), "another shuffle")
    _attack(bench, step, dict(honest, proof=other["proof"]))


def test_shuffle_proved_for_another_seat() -> None:
    bench, step = _bench("topper", _shuffler(2))
    body = _shuffle_body(bench, list(present(bench.reference.deal).deck), present(step.seat), ctx_seat=1)
    _attack(bench, step, body)


def test_shuffle_of_a_stale_deck_skipping_the_previous_seat() -> None:
    """Seat 2 re-shuffles the deck seat 1 was given, undoing seat 1's shuffle."""
    rec = recording("topper")
    earlier = rec.find(_shuffler(1))
    stale = list(present(rec.bench_at(earlier.position).reference.deal).deck)
    bench, step = _bench("topper", _shuffler(2))
    _attack(bench, step, _shuffle_body(bench, stale, present(step.seat)))


def test_shuffle_for_another_deck_number() -> None:
    bench, step = _bench("topper", _shuffler(1))
    _attack(bench, step, dict(bench.peek().body, deck=1), "message.malformed")


def test_shuffle_output_that_is_the_input_reordered_without_re_encryption() -> None:
    """A permutation the others could follow card by card: no proof exists."""
    bench, step = _bench("topper", _shuffler(2))
    deck = list(present(bench.reference.deal).deck)
    body = dict(bench.peek().body, cards=[c.to_wire() for c in reversed(deck)])
    _attack(bench, step, body)


def test_shuffle_that_only_permutes_with_a_valid_proof_is_refused() -> None:
    """Re-encryption by zero: the proof of shuffle verifies (every r'_i = 0), yet
    each card could be followed through it. Refused: no output may equal an input."""
    from p2pcards.crypto.errors import NotReEncrypted
    from p2pcards.crypto.group import Scalar
    from p2pcards.crypto.sampling import fisher_yates, words_from_rng

    bench, step = _bench("topper", _shuffler(2))
    deal = present(bench.reference.deal)
    deck_in = list(deal.deck)
    n = len(deck_in)
    rng = _rng("permute only")
    psi = fisher_yates(n, words_from_rng(rng))
    deck_out = [deck_in[psi[i]] for i in range(n)]
    ctx = deal.context(2)
    secrets = dataclasses.replace(shuffle._ProverSecrets.draw(psi, rng), r_prime=[Scalar.zero()] * n)
    _, proof = shuffle._prove(deck_in, psi, secrets, deal.joint_key, ctx, output=deck_out)
    with pytest.raises(NotReEncrypted) as caught:
        shuffle.verify_shuffle(deck_in, deck_out, proof, deal.joint_key, ctx)
    assert caught.value.seat == 2
    body = dict(bench.peek().body, cards=[c.to_wire() for c in deck_out], proof=proof.to_wire())
    _attack(bench, step, body)
    assert "not re-encrypted" in present(bench.reference.verdict).detail


# -- decryption shares ----------------------------------------------------------------------------


def _sharer(seat: int) -> Callable[[Step], bool]:
    return lambda s: s.type == "shares" and s.seat == seat


def test_decryption_shares_for_the_wrong_cards() -> None:
    """Every share is a genuine one, each for a neighbouring slot."""
    bench, step = _bench("topper", _sharer(1))
    body = bench.peek().body
    body["shares"] = body["shares"][1:] + body["shares"][:1]
    _attack(bench, step, body)


def test_decryption_share_proved_for_another_seat() -> None:
    """A share of the right card under a proof bound to another seat."""
    bench, step = _bench("topper", _sharer(1))
    deal = present(bench.reference.deal)
    key = present(bench.tables[step.player].secrets).key
    body = bench.peek().body
    slots = [p for p in range(deal.size) if p % 4 != step.seat]
    body["shares"] = [shares.make_share(key, deal.deck[p], deal.context(2), p, _rng("w")).to_wire()
                      for p in slots]
    _attack(bench, step, body)


def test_decryption_share_that_is_a_random_point() -> None:
    bench, step = _bench("topper", _sharer(2))
    body = bench.peek().body
    body["shares"] = [[(random_scalar(_rng(f"d{i}")) * G).to_bytes(), c, s]
                      for i, (d, c, s) in enumerate(body["shares"])]
    _attack(bench, step, body)


def test_decryption_shares_missing_one() -> None:
    bench, step = _bench("topper", _sharer(2))
    body = bench.peek().body
    body["shares"] = body["shares"][:-1]
    _attack(bench, step, body, "message.malformed")


def test_bad_share_for_one_owners_card_is_proven_to_every_peer() -> None:
    """A player checks at once only the shares of its own cards; the owner that
    finds a bad one ends the table, and its alert must convince the others
    (who hold the same signed shares message) to blame the cheater, not the
    reporter."""
    bench, step = _bench("topper", _sharer(1))
    body = bench.peek().body
    body["shares"], victim_seat = swap_share_for_next_seat(body["shares"], present(step.seat))
    victim = bench.player_at(victim_seat)
    raw = bench.forge("shares", body)
    before = marks(bench)
    bench.deliver(raw, sender=step.player)
    assert present(bench.tables[victim].verdict).rule == "crypto"
    bench.send_alerts()
    for who in bench.honest:
        verdict = bench.tables[who].verdict
        assert verdict is not None, f"player {who} plays on"
        assert verdict.rule == "crypto" and verdict.players == (step.player,), (who, verdict)
        assert verdict.evidence == (raw,)
    # The victim and the observer stopped before the bad message, the others just after it.
    assert_transcripts_valid(bench, bench.tables[victim].verdict, who=(victim, "observer"))
    for who in bench.honest:
        assert bench.tables[who].transcript()[:step.position] == list(before[victim].transcript)


# -- public reveals --------------------------------------------------------------------------------


def test_topper_play_revealed_with_the_share_of_another_own_card() -> None:
    bench, step = _bench("topper", lambda s: s.type == "play" and s.seat == 1)
    deal = present(bench.reference.deal)
    key = present(bench.tables[step.player].secrets).key
    body = bench.peek().body
    other = next(p for p in range(deal.size) if p % 4 == step.seat and p != body["slot"])
    body["shares"] = [shares.make_share(key, deal.deck[other], deal.context(present(step.seat)), other,
                                        _rng("x")).to_wire()]
    _attack(bench, step, body)


def test_topper_play_revealed_with_a_proof_for_another_seat() -> None:
    bench, step = _bench("topper", lambda s: s.type == "play" and s.seat == 2)
    deal = present(bench.reference.deal)
    key = present(bench.tables[step.player].secrets).key
    body = bench.peek().body
    slot = body["slot"]
    body["shares"] = [shares.make_share(key, deal.deck[slot], deal.context(0), slot,
                                        _rng("y")).to_wire()]
    _attack(bench, step, body)


def test_bluff_reveal_of_a_challenged_discard_with_wrong_shares() -> None:
    bench, step = _bench("bluff", lambda s: s.type == "show")
    body = bench.peek().body
    body["shares"] = [[d, s, c] for d, c, s in body["shares"]]
    _attack(bench, step, body)


def test_bluff_reveal_with_shares_of_other_cards_of_the_same_hand() -> None:
    """The cheater shows two other cards of its hand (of the claimed rank,
    perhaps) instead of the ones it discarded."""
    bench, step = _bench("bluff", lambda s: s.type == "show")
    deal = present(bench.reference.deal)
    key = present(bench.tables[step.player].secrets).key
    claim = present(_bluff(bench).last_claim)
    in_hand = [p for p in bench.tables[step.player].hand if p not in claim.slots
               and p in dict(present(bench.reference.engine).hand(present(step.seat)))]
    body = {"shares": [shares.make_share(key, deal.deck[p], deal.context(present(step.seat)), p,
                                         _rng(f"z{p}")).to_wire()
                       for p in in_hand[:len(claim.slots)]]}
    _attack(bench, step, body)


def test_bluff_reveal_with_too_few_shares() -> None:
    bench, step = _bench("bluff", lambda s: s.type == "show"
                         and len(present(_bluff(recording("bluff").bench_at(s.position))
                                         .last_claim).slots) > 1)
    body = bench.peek().body
    body["shares"] = body["shares"][:-1]
    _attack(bench, step, body, "message.malformed")
