"""Keys to actions on the full-screen table (p2pcards.ui.tui.keymap, picker): only legal actions
are made, every refusal says why, and a refused key changes nothing."""

from __future__ import annotations

import random
from typing import Any

import pytest

from p2pcards.bots.bluff import HeuristicBluffBot
from p2pcards.bots.topper import HeuristicTopperBot
from p2pcards.cards import FULL_DECK, TOPPER_DECK, Rank, Suit
from p2pcards.rules.bluff import Challenge, Discard, Pass
from p2pcards.rules.contract import Engine
from p2pcards.rules.topper import Bid, NameTrump, PassBid, Play
from p2pcards.ui.text import labelled_hand
from p2pcards.ui.text_common import HandCard
from p2pcards.ui.tui.keymap import DiscardFlow, Refused, hints, press
from p2pcards.ui.tui.picker import HandPicker
from tests.support.typed import present
from tests.ui.ui_scenes import (
    bluff_after_honest_call,
    bluff_lead,
    bluff_respond,
    c,
    topper_after_bid,
    topper_bidding,
    topper_lead,
    topper_play,
    topper_trump,
    walk_match,
)


def hand_of(view: Engine) -> list[HandCard]:
    return labelled_hand(view, present(view.viewer))


def chosen(view: Engine, *labels: int) -> list[HandCard]:
    return [entry for entry in hand_of(view) if entry.label in labels]


# --- the action bar ------------------------------------------------------------------------

def test_bluff_leader_is_offered_discard_only() -> None:
    shown = {h.key: h.label for h in hints(bluff_lead().view(0)) if h.key}
    assert shown == {"d": "discard as any rank"}


def test_bluff_responder_is_offered_discard_pass_and_bluff() -> None:
    shown = {h.key: h.label for h in hints(bluff_respond().view(1)) if h.key}
    assert shown == {"d": "discard as Q", "p": "pass (10)", "b": "Bluff!"}


def test_bluff_discard_shown_honest_cannot_be_called_again_so_no_bluff_key() -> None:
    shown = {h.key for h in hints(bluff_after_honest_call().view(2))}
    assert "b" not in shown and "p" in shown


def test_topper_bar_follows_the_phase_and_the_high_bid() -> None:
    assert [(h.shown, h.label) for h in hints(topper_bidding().view(0))] == [
        ("p", "pass"), ("1-6", "bid")]
    assert [(h.shown, h.label) for h in hints(topper_after_bid().view(1))] == [
        ("p", "pass"), ("3-6", "bid")]
    assert [h.key for h in hints(topper_trump().view(0))] == ["c", "d", "h", "s"]
    assert [h.key for h in hints(topper_lead().view(0)) if h.key] == ["enter"]


def test_no_bar_for_a_seat_that_does_not_act_now() -> None:
    assert hints(bluff_respond().view(2)) == []
    assert hints(topper_bidding().view(2)) == []


# --- Bluff keys ----------------------------------------------------------------------------

def test_bluff_pass_and_bluff_keys_make_the_actions() -> None:
    view = bluff_respond().view(1)
    assert press("p", view, [], None) == Pass(1)
    assert press("b", view, [], None) == Challenge(1)


def test_bluff_leader_discard_asks_rank_then_stake_and_makes_a_checked_discard() -> None:
    view = bluff_lead().view(0)
    flow = press("d", view, chosen(view, 11, 12), None)
    assert isinstance(flow, DiscardFlow) and flow.step == "rank"
    assert "claim which rank" in flow.question
    assert flow.answer("q") is None and flow.step == "stake"
    assert flow.default == "10" and "stake? (10 to 500)" in flow.question
    action = flow.answer("30")
    slots = tuple(e.slot for e in chosen(view, 11, 12))
    assert action == Discard(0, slots, 30, Rank.QUEEN)


def test_bluff_stake_prompt_takes_the_least_stake_on_an_empty_answer() -> None:
    view = bluff_respond().view(1)
    flow = press("enter", view, chosen(view, 1), None)
    assert isinstance(flow, DiscardFlow)
    assert flow.step == "stake" and flow.default == "20"
    action = flow.answer("")
    assert isinstance(action, Discard) and action.stake == 20 and action.rank is None


@pytest.mark.parametrize("answer, reason", [
    ("x", "'x' is not a rank"),
    ("15", "'15' is not a rank"),
])
def test_bluff_a_bad_rank_answer_is_refused_and_the_question_stays(answer: str, reason: str) -> None:
    view = bluff_lead().view(0)
    flow = press("d", view, chosen(view, 1), None)
    assert isinstance(flow, DiscardFlow)
    with pytest.raises(Refused, match=reason):
        flow.answer(answer)
    assert flow.step == "rank" and flow.rank is None


@pytest.mark.parametrize("answer, reason", [
    ("5", "stake 5 is below the minimum 20"),
    ("9999", "stake 9999 is more than your 500 chips"),
    ("lots", "the stake must be a number"),
])
def test_bluff_a_bad_stake_answer_is_refused_and_the_question_stays(answer: str, reason: str) -> None:
    view = bluff_respond().view(1)
    flow = press("d", view, chosen(view, 1), None)
    assert isinstance(flow, DiscardFlow)
    with pytest.raises(Refused, match=reason):
        flow.answer(answer)
    assert flow.step == "stake" and flow.stake is None


def test_bluff_discarding_five_cards_is_refused_before_any_question() -> None:
    view = bluff_lead().view(0)
    before = view.snapshot()
    with pytest.raises(Refused, match="discard 1 to 4 cards, not 5"):
        press("d", view, chosen(view, 1, 2, 3, 4, 5), None)
    assert view.snapshot() == before


def test_bluff_discard_without_a_selection_says_how_to_select() -> None:
    with pytest.raises(Refused, match="select the cards to discard first"):
        press("d", bluff_lead().view(0), [], None)


def test_bluff_leader_pass_is_refused_with_the_rule() -> None:
    with pytest.raises(Refused, match="you lead this round: you must discard"):
        press("p", bluff_lead().view(0), [], None)


def test_bluff_calling_a_discard_shown_honest_is_refused() -> None:
    with pytest.raises(Refused, match="already shown honest"):
        press("b", bluff_after_honest_call().view(2), [], None)


def test_bluff_key_without_a_meaning_lists_the_keys_of_the_moment() -> None:
    with pytest.raises(Refused) as refused:
        press("z", bluff_respond().view(1), [], None)
    message = str(refused.value)
    assert "'z' does nothing here" in message and "p pass (10)" in message and "b Bluff!" in message


def test_bluff_a_stake_the_seat_cannot_pay_refuses_the_discard_key() -> None:
    state = bluff_respond()
    state._stacks[1] = 5  # seat 1 cannot cover the round stake of 20
    view = state.view(1)
    with pytest.raises(Refused, match="you cannot discard; pass or challenge"):
        press("d", view, chosen(view, 1), None)


# --- Topper keys ---------------------------------------------------------------------------

def test_topper_bidding_keys() -> None:
    view = topper_after_bid().view(1)
    assert press("p", view, [], None) == PassBid(1)
    assert press("4", view, [], None) == Bid(1, 4)
    with pytest.raises(Refused, match="bid 2 does not top the highest bid, 2 by seat 0"):
        press("2", view, [], None)
    with pytest.raises(Refused, match="a bid is 1 to 6 tricks, not 9"):
        press("9", view, [], None)


def test_topper_trump_keys_name_each_suit() -> None:
    view = topper_trump().view(0)
    for key, suit in zip("cdhs", Suit, strict=False):
        assert press(key, view, [], None) == NameTrump(0, suit)


def test_topper_keys_of_another_stage_say_which_stage_this_is() -> None:
    with pytest.raises(Refused, match="you cannot name trump now: this is the bidding"):
        press("h", topper_bidding().view(0), [], None)
    with pytest.raises(Refused, match="you cannot bid now: this is the play of the cards"):
        press("3", topper_lead().view(0), [], None)
    with pytest.raises(Refused, match="you cannot play a card now: this is the bidding"):
        press("enter", topper_bidding().view(0), [], None)


def test_topper_enter_plays_the_selected_card_else_the_cursor_card() -> None:
    view = topper_lead().view(0)
    hand = hand_of(view)
    assert press("enter", view, [], hand[2]) == Play(0, hand[2].slot, present(hand[2].card))
    assert press("enter", view, [hand[4]], hand[2]) == Play(0, hand[4].slot, present(hand[4].card))


def test_topper_playing_off_suit_is_refused_and_names_the_cards_that_follow() -> None:
    view = topper_play().view(1)  # hearts trump, the Little Jack led: seat 1 must follow hearts
    before = (view.hand(1), view.current_trick)
    off_suit = next(e for e in hand_of(view) if e.card == c("QC"))
    with pytest.raises(Refused) as refused:
        press("enter", view, [], off_suit)
    message = str(refused.value)
    assert message.startswith("you must follow hearts: play one of")
    assert "K♥" in message and "9♥" in message and "Q♣" not in message and "KH" not in message
    assert (view.hand(1), view.current_trick) == before


# --- whole matches: the keys reach every action a bot chooses ----------------------------------

def _key_for(wanted: object) -> str:
    if isinstance(wanted, Bid):
        return str(wanted.tricks)
    if isinstance(wanted, NameTrump):
        return wanted.suit.letter.lower()
    return {"Pass": "p", "PassBid": "p", "Challenge": "b", "Discard": "d", "Play": "enter"}[
        type(wanted).__name__]


def _complete(flow: DiscardFlow, wanted: Discard) -> Discard:
    """Answer the discard questions as ``wanted`` would."""
    for _ in range(3):
        if flow.step == "rank":
            answer = present(wanted.rank).label
        elif flow.step == "stake":
            answer = str(wanted.stake)
        else:
            answer = ""
        action = flow.answer(answer)
        if action is not None:
            assert isinstance(action, Discard)
            return action
    raise AssertionError("the discard flow did not finish")


@pytest.mark.parametrize("game", ["bluff", "topper"])
def test_every_action_of_whole_matches_can_be_made_with_keys(game: str) -> None:
    """Each action a good player chooses, pressed as keys through ``press`` and the questions."""
    rng = random.Random(11)
    state: Any
    bot: Any
    if game == "bluff":
        from p2pcards.rules.bluff import BluffConfig, BluffState
        state, deck, bot = BluffState.new(BluffConfig(deal_cap=2), 1), FULL_DECK, HeuristicBluffBot
    else:
        from p2pcards.rules.topper import TopperConfig, TopperState
        state, deck, bot = TopperState.new(TopperConfig(target_score=6), 2), TOPPER_DECK, \
            HeuristicTopperBot
    bots = [bot(random.Random(seat)) for seat in range(4)]
    made = 0
    for before in walk_match(state, bots, deck, rng):
        if before.outcome is not None or before.to_act != 0:
            continue
        view = before.view(0)
        wanted = bots[0].choose(view)
        if type(wanted).__name__ == "Reveal":
            continue  # not a key: the screen reveals a called discard by itself
        hand = hand_of(view)
        picker = HandPicker(single=game == "topper")
        slots = wanted.slots if isinstance(wanted, Discard) else (
            (wanted.slot,) if isinstance(wanted, Play) else ())
        for slot in slots:
            picker.jump(next(i for i, e in enumerate(hand) if e.slot == slot), hand)
            picker.toggle(hand)
        got = press(_key_for(wanted), view, picker.chosen(hand), picker.at_cursor(hand))
        if isinstance(got, DiscardFlow):
            got = _complete(got, wanted)
            assert set(got.slots) == set(wanted.slots) and got.stake == wanted.stake
        else:
            assert got == wanted
        made += 1
    assert made > 5


# --- the hand picker -----------------------------------------------------------------------------

def test_picker_keeps_a_selection_by_slot_and_drops_cards_that_left_the_hand() -> None:
    view = bluff_lead().view(0)
    hand = hand_of(view)
    picker = HandPicker()
    picker.jump(3, hand)
    picker.toggle(hand)
    picker.move(5, hand)
    picker.toggle(hand)
    assert [e.label for e in picker.chosen(hand)] == [4, 9]
    picker.sync([e for e in hand if e.label != 4])
    assert picker.selected == [hand[8].slot]
    picker.move(99, hand)
    assert picker.cursor == len(hand) - 1
    picker.move(-99, hand)
    assert picker.cursor == 0


def test_picker_in_single_mode_selects_one_card_and_a_click_moves_the_cursor() -> None:
    view = topper_lead().view(0)
    hand = hand_of(view)
    picker = HandPicker(single=True)
    picker.click(1, hand)
    picker.click(4, hand)
    assert picker.selected == [hand[4].slot] and picker.cursor == 4
    picker.click(4, hand)
    assert picker.selected == []
    assert picker.click(9, hand) is None and picker.cursor == 4
