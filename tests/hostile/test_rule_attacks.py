"""Attacks on the games' rules: well-signed, in-turn messages whose action is illegal.

Every peer runs the referee, so each of these ends the table with a verdict
``rules.<rule id>`` naming the cheater, backed by its signed message.
"""

from __future__ import annotations

from typing import Any

import pytest

from p2pcards.crypto.seeded import SeededRng
from p2pcards.protocol.envelope import SignedMessage
from p2pcards.protocol.table_records import Stage
from p2pcards.rules.bluff import BluffConfig, BluffState
from p2pcards.rules.bluff import Phase as BluffPhase
from p2pcards.rules.topper import TopperState
from p2pcards.rules.topper.order import effective_suit
from tests.support.typed import present

from .harness import (
    Bench,
    Rule,
    Step,
    When,
    assert_transcripts_valid,
    assert_verdict,
    marks,
    recording,
    replace,
)


def _bluff(bench: Bench) -> BluffState:
    """The reference referee's engine, at a Bluff table (typed ``Engine`` by the table)."""
    engine = bench.reference.engine
    assert isinstance(engine, BluffState)
    return engine


def _topper(bench: Bench) -> TopperState:
    """The reference referee's engine, at a Topper table."""
    engine = bench.reference.engine
    assert isinstance(engine, TopperState)
    return engine


def _attack(bench: Bench, step: Step, mtype: str, body: dict[str, Any], rule: str) -> None:
    before = marks(bench)
    bench.deliver(bench.forge(mtype, body), sender=step.player)
    assert_verdict(bench, rule, (step.player,), step.position, before)


def _reveal(bench: Bench, player: int, slots: list[int], label: str = "reveal") -> list[Any]:
    """The cheater's genuine decryption shares for its own ``slots``."""
    deal = present(bench.reference.deal)
    return deal.make_reveal(bench.seat_of(player), present(bench.tables[player].secrets).key, slots,
                            SeededRng(label.encode()))


def _bluff_turn(phase: BluffPhase, nth: int = 0) -> tuple[Bench, Step]:
    return recording("bluff").bench_before(lambda s: s.phase is phase, nth)


def _bluff_response_discard() -> tuple[Bench, Step]:
    """Before the first response that the recorded match answered with a discard
    (the honest message to alter), whatever the seed's first responses were."""
    return recording("bluff").bench_before(
        lambda s: s.phase is BluffPhase.RESPOND and s.type == "discard")


def _own_hand(bench: Bench, player: int) -> list[int]:
    """The slots of the player's hand, as the reference referee holds them."""
    return [h.slot for h in present(bench.reference.engine).hand(bench.seat_of(player))]


# -- Bluff ---------------------------------------------------------------------------------


def test_bluff_discard_of_another_seats_slot() -> None:
    bench, step = _bluff_turn(BluffPhase.LEAD)
    theirs = _own_hand(bench, bench.player_at((present(step.seat) + 1) % 4))[0]
    body = {"slots": [theirs], "stake": 10, "rank": 14}
    _attack(bench, step, "discard", body, "rules.card.not-held")


def test_bluff_discard_of_a_slot_already_discarded() -> None:
    bench, step = _bluff_turn(BluffPhase.LEAD, nth=1)
    seat = step.seat
    gone = [p for p in range(52) if p % 4 == seat and p not in _own_hand(bench, step.player)]
    assert gone
    _attack(bench, step, "discard", {"slots": [gone[0]], "stake": 10, "rank": 14},
            "rules.card.not-held")


def test_bluff_stake_below_the_minimum() -> None:
    bench, step = _bluff_response_discard()
    honest = bench.peek().body
    low = _bluff(bench).min_stake_for(present(step.seat)) - 1
    _attack(bench, step, "discard", dict(honest, stake=low), "rules.bluff.stake-too-low")


def test_bluff_stake_above_the_stack() -> None:
    bench, step = _bluff_response_discard()
    honest = bench.peek().body
    high = _bluff(bench).stacks[present(step.seat)] + 1
    _attack(bench, step, "discard", dict(honest, stake=high), "rules.bluff.stake-above-stack")


def test_bluff_response_claiming_another_rank() -> None:
    bench, step = _bluff_response_discard()
    honest = bench.peek().body
    named = int(present(_bluff(bench).named_rank))
    other = 2 if named != 2 else 3
    _attack(bench, step, "discard", dict(honest, rank=other), "rules.bluff.wrong-rank")


def test_bluff_discard_naming_one_slot_twice() -> None:
    bench, step = _bluff_turn(BluffPhase.LEAD)
    slot = _own_hand(bench, step.player)[0]
    _attack(bench, step, "discard", {"slots": [slot, slot], "stake": 10, "rank": 14},
            "rules.bluff.duplicate-slots")


def test_bluff_discard_of_more_cards_than_allowed() -> None:
    bench, step = _bluff_turn(BluffPhase.LEAD)
    slots = _own_hand(bench, step.player)[:5]
    _attack(bench, step, "discard", {"slots": slots, "stake": 10, "rank": 14},
            "rules.bluff.discard-count")


def test_bluff_discard_naming_rank_one() -> None:
    bench, step = _bluff_turn(BluffPhase.LEAD)
    slot = _own_hand(bench, step.player)[0]
    _attack(bench, step, "discard", {"slots": [slot], "stake": 10, "rank": 1},
            "message.malformed")


def test_bluff_leader_passing() -> None:
    bench, step = _bluff_turn(BluffPhase.LEAD)
    _attack(bench, step, "pass", {}, "rules.bluff.leader-must-discard")


def test_bluff_leader_challenging_with_nothing_on_the_table() -> None:
    bench, step = _bluff_turn(BluffPhase.LEAD)
    _attack(bench, step, "challenge", {}, "rules.bluff.nothing-to-challenge")


def test_bluff_show_when_nothing_was_challenged() -> None:
    """The leader 'reveals' cards of its hand instead of leading."""
    bench, step = _bluff_turn(BluffPhase.LEAD, nth=1)
    own = _own_hand(bench, step.player)[:2]
    _attack(bench, step, "show", {"shares": _reveal(bench, step.player, own)}, "rules.phase")


def test_bluff_show_of_another_players_discard() -> None:
    bench, step = _bluff_turn(BluffPhase.RESPOND)
    claim = present(_bluff(bench).last_claim)
    assert claim.seat != step.seat
    own = _own_hand(bench, step.player)[:len(claim.slots)]
    _attack(bench, step, "show", {"shares": _reveal(bench, step.player, own)},
            "rules.card.not-held")


def test_bluff_refused_reveal_replaced_by_a_pass() -> None:
    """Challenged, the cheater tries to move on without showing its discard."""
    bench, step = _bluff_turn(BluffPhase.REVEAL)
    _attack(bench, step, "pass", {}, "rules.phase")


def test_bluff_challenged_discard_of_more_than_four_cards_is_shown() -> None:
    """Regression: a table allowing discards of up to 13 cards can reveal them."""
    bench = Bench("bluff", seed=5, config=BluffConfig(deal_cap=1, max_discard=13),
                  bot_kind="random")
    bench.run(until=lambda b: b.reference.stage is Stage.PLAY
              and present(b.reference.engine).phase is BluffPhase.REVEAL
              and len(present(_bluff(b).last_claim).slots) > 4)
    assert bench.writer is not None
    count = len(present(_bluff(bench).last_claim).slots)
    bench.step()
    shown = SignedMessage.parse(bench.reference.transcript()[-1])
    assert shown.type == "show" and len(shown.body["shares"]) == count
    bench.finish()
    assert bench.reference.stage is Stage.OVER
    assert_transcripts_valid(bench)


# -- Topper --------------------------------------------------------------------------------


def _topper_turn(mtype: str, nth: int = 0, **where: Any) -> tuple[Bench, Step]:
    def pick(s: Step) -> bool:
        return s.type == mtype and all(getattr(s, k) == v for k, v in where.items())
    return recording("topper").bench_before(pick, nth)


def test_topper_bid_not_higher() -> None:
    rec = recording("topper")
    bench, step = rec.bench_before(
        lambda s: s.type in ("bid", "pass") and _topper(rec.bench_at(s.position)).public().high_bid is not None)
    high = _topper(bench).public().high_bid
    _attack(bench, step, "bid", {"tricks": high}, "rules.topper.bid-not-higher")


def test_topper_bid_out_of_range() -> None:
    bench, step = _topper_turn("bid")
    _attack(bench, step, "bid", {"tricks": 7}, "rules.topper.bid-range")


def test_topper_trump_that_is_not_a_suit() -> None:
    bench, step = _topper_turn("trump")
    _attack(bench, step, "trump", {"suit": 4}, "message.malformed")


def test_topper_play_during_the_bidding() -> None:
    """A play in the bidding reveals the card (the cheater's own loss) and is refused."""
    bench, step = _topper_turn("bid")
    slot = _own_hand(bench, step.player)[0]
    _attack(bench, step, "play", {"slot": slot, "shares": _reveal(bench, step.player, [slot])},
            "rules.phase")


def test_topper_play_of_another_seats_slot() -> None:
    bench, step = _topper_turn("play", seat=1)
    theirs = _own_hand(bench, bench.player_at(2))[0]
    mine = _own_hand(bench, step.player)[0]
    body = {"slot": theirs, "shares": _reveal(bench, step.player, [mine])}
    _attack(bench, step, "play", body, "rules.card.not-held")


def test_topper_play_of_a_card_already_played() -> None:
    rec = recording("topper")
    first = rec.find(lambda s: s.type == "play" and s.seat == 1)
    played = SignedMessage.parse(rec.transcript[first.position]).body["slot"]
    bench, step = _topper_turn("play", nth=1, seat=1)
    body = {"slot": played, "shares": _reveal(bench, step.player, [played])}
    _attack(bench, step, "play", body, "rules.card.not-held")


def _renege_chance(bench: Bench, player: int) -> tuple[int, int] | None:
    """(off-suit slot to play, proving slot kept back) if ``player`` must follow
    suit now, holds another card too, and will have another turn this hand."""
    engine = _topper(bench)
    led, trump = engine.led_suit, engine.trump
    if led is None or len(engine.tricks) >= 4:
        return None
    hand = {slot: face for slot, face in bench.tables[player].hand.items()
            if slot in dict(engine.hand(bench.seat_of(player)))}
    follow = [s for s, f in hand.items() if effective_suit(f, trump) == led]
    other = [s for s, f in hand.items() if effective_suit(f, trump) != led]
    return (other[0], follow[0]) if follow and other else None


def test_topper_renege_is_caught_when_the_proving_card_is_played() -> None:
    """The cheater discards off-suit while holding the led suit. Nobody can see
    that yet; when it later plays a card of that suit, every referee knows it
    held one when it showed void, and names the renege."""
    rec = recording("topper")
    for step in rec.steps:
        if step.type != "play":
            continue
        bench = rec.bench_at(step.position)
        chance = _renege_chance(bench, step.player)
        if chance is not None:
            break
    else:
        pytest.fail("the recorded hand offers no chance to renege")
    cheater = step.player
    bench.set_hostile(cheater)
    off_suit, proof_card = chance
    bench.deliver(bench.forge("play", {"slot": off_suit, "shares": _reveal(
        bench, cheater, [off_suit], "off-suit")}), sender=cheater)
    assert bench.reference.stage is Stage.PLAY, bench.reference.verdict
    assert _topper(bench).voids(bench.seat_of(cheater))
    bench.run(until=lambda b: b.writer == cheater, max_steps=20)
    assert bench.writer == cheater
    position = bench.reference.next_position
    before = marks(bench)
    bench.deliver(bench.forge("play", {"slot": proof_card, "shares": _reveal(
        bench, cheater, [proof_card], "proof")}), sender=cheater)
    assert_verdict(bench, "rules.topper.renege", (cheater,), position, before)


# -- messages that belong to no game or no stage -----------------------------------------------


@pytest.mark.parametrize("game,mtype,body", [
    ("topper", "discard", {"slots": [0], "stake": 10, "rank": 14}),
    ("bluff", "bid", {"tricks": 3}),
    ("bluff", "genesis", {}),
    ("topper", "shuffle", {"deck": 0, "cards": [], "proof": []}),
])
def test_message_type_the_game_does_not_have(game: str, mtype: str, body: dict[str, Any]) -> None:
    bench, step = recording(game).bench_before(lambda s: s.stage is Stage.PLAY)
    _attack(bench, step, mtype, body, "message.malformed")


@pytest.mark.parametrize("mtype", ["bid", "play", "open", "shares"])
def test_message_type_of_another_stage(mtype: str) -> None:
    """The shuffler's message is replaced, on its way out, by one of another stage."""
    bench, step = recording("topper").bench_before(lambda s: s.stage is Stage.SHUFFLE)
    other = replace(lambda out, b: b.forge(mtype, {"tricks": 3}, position=out.position,
                                           prev=out.message.prev))
    present(bench.hostile).rules.append(Rule(When(stage=Stage.SHUFFLE), other))
    before = marks(bench)
    bench.step()
    assert_verdict(bench, "message.malformed", (step.player,), step.position, before)


@pytest.mark.parametrize("body", [
    {"tricks": "3"}, {"tricks": 3, "extra": 1}, {}, {"tricks": True}, {"tricks": 3.0},
    {"tricks": -1}, {"tricks": 2**40}, {"tricks": None}, {"tricks": b"\x03"},
])
def test_action_body_of_the_wrong_shape(body: dict[str, Any]) -> None:
    bench, step = _topper_turn("bid")
    _attack(bench, step, "bid", body, "message.malformed")
