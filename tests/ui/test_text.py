"""Text rendering, command parsing and event descriptions of both games (p2pcards.ui.text)."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pcards.bots.base import shuffled_faces
from p2pcards.bots.bluff import HeuristicBluffBot, RandomBluffBot
from p2pcards.bots.topper import HeuristicTopperBot, RandomTopperBot
from p2pcards.cards import FULL_DECK, TOPPER_DECK, Rank, Suit
from p2pcards.net.session_events import LinkDown, LinkUp, LobbyUpdate, Rejected, Waiting
from p2pcards.protocol import events as proto
from p2pcards.protocol.table_errors import IllegalAction
from p2pcards.protocol.verdict import Verdict
from p2pcards.rules import bluff as bm
from p2pcards.rules.bluff import BluffState, Challenge, Discard, Pass, Reveal, faces_for_hands
from p2pcards.rules.bluff.errors import StakeTooLow
from p2pcards.rules.contract import Engine
from p2pcards.rules.topper import Bid, NameTrump, PassBid, Play, TopperState
from p2pcards.rules.topper import events as te
from p2pcards.ui.text import (
    CommandError,
    UnknownGame,
    describe,
    labelled_hand,
    options_help,
    parse_command,
    render,
)
from tests.support.typed import present
from tests.ui.ui_scenes import (
    NAMES,
    bluff_after_honest_call,
    bluff_caught,
    bluff_lead,
    bluff_respond,
    bluff_reveal,
    c,
    cards,
    faces_in,
    known_to,
    slots_of,
    topper_after_bid,
    topper_bidding,
    topper_lead,
    topper_play,
    topper_trump,
    walk_match,
)

# --- rendering: Bluff --------------------------------------------------------------------

def test_bluff_lead_render_shows_sorted_labelled_hand_chips_names_and_turn() -> None:
    text = render(bluff_lead().view(0), NAMES, 0)
    assert "[1] 2C" in text and "[10] JC" in text and "[11] QD" in text and "[13] QS" in text
    for name in NAMES:
        assert name in text
    assert "Alice (you)" in text
    assert text.count(" 500 ") >= 4  # every seat's chips
    assert "Your turn: you lead this round." in text
    assert "Named rank: none yet" in text and "Safe box: 0." in text
    assert "Stake on the table: none." in text


def test_bluff_render_shows_the_claim_stake_pile_and_who_acts() -> None:
    text = render(bluff_respond().view(1), NAMES, 1)
    assert "Last claim: Seat 0 (Alice) discarded 2 cards as Q, stake 20." in text
    assert "stake 20 on the table" in text
    assert "Pile: 2 cards face down" in text and "Named rank: Q" in text
    assert "Round stake: 20" in text and "Stake on the table: 20." in text
    assert "Your turn." in text
    assert " 480 " in text  # seat 0's stack after staking 20


def test_bluff_render_of_another_seats_turn_says_whom_we_wait_for() -> None:
    text = render(bluff_respond().view(3), NAMES, 3)
    assert "Waiting for seat 1 (Bob) to act." in text


def test_bluff_render_shows_what_a_call_revealed() -> None:
    honest = render(bluff_after_honest_call().view(3), NAMES, 3)
    assert "Last call showed seat 0 (Alice)'s 2 cards claimed as Q: QH QS (honest)" in honest
    assert "stake 20. Shown honest: it cannot be called again." in " ".join(honest.split())
    caught = render(bluff_caught().view(0), NAMES, 0)
    assert "Last call showed seat 1 (Bob)'s 1 card claimed as Q: 2D (a bluff)." in caught


def test_bluff_render_never_shows_a_face_the_view_does_not_hold() -> None:
    state = bluff_respond()
    for seat in range(4):
        view = state.view(seat)
        shown = faces_in(render(view, NAMES, seat))
        assert shown <= known_to(view)
    # Seat 1's hand is known to the test: none of it may appear in seat 2's table.
    assert not faces_in(render(state.view(2), NAMES, 2)) & set(cards("KH KS KD 2D"))


def test_bluff_render_marks_a_seat_out_and_the_end_of_the_match() -> None:
    state = BluffState.new(bm.BluffConfig(table_price=10, starting_chips=10), 0)
    rng = random.Random(4)
    bots = [RandomBluffBot(random.Random(i)) for i in range(4)]
    *_, final = [None, *walk_match(state, bots, FULL_DECK, rng)]  # the match's last state
    text = render(final.view(0), NAMES, 0)
    assert "Match over: one player has all the chips; won by" in text
    assert text.count("out") >= 3


def test_render_is_plain_and_fits_80_columns_through_whole_matches() -> None:
    names = ("A very long player name indeed", "Bob", "Carol", "Dave")
    for game, state, bots, deck in (
        ("bluff", BluffState.new(None, 1), [HeuristicBluffBot, RandomBluffBot] * 2, FULL_DECK),
        ("topper", TopperState.new(None, 2), [HeuristicTopperBot, RandomTopperBot] * 2,
         TOPPER_DECK),
    ):
        players = [kind(random.Random(i)) for i, kind in enumerate(bots)]
        for step, current in enumerate(walk_match(state, players, deck, random.Random(9))):
            if step % 3:
                continue
            for seat in range(4):
                view = current.view(seat)
                text = render(view, names, seat)
                assert max(len(line) for line in text.splitlines()) <= 80, (game, text)
                assert "\x1b" not in text
                assert faces_in(text) <= known_to(view), (game, text)


# --- rendering: Topper -------------------------------------------------------------------

def test_topper_bidding_render_shows_dealer_bids_and_turn() -> None:
    text = render(topper_after_bid().view(1), NAMES, 1)
    assert "Dealer: Seat 3 (Dave)" in text
    assert "Highest bid so far: 2 by seat 0 (Alice)" in text
    assert "Your turn to bid (highest bid 2)." in text
    rows = {line.split()[1]: line for line in text.splitlines() if line[:4].strip().isdigit()}
    assert rows["Alice"].split()[3] == "2"  # score 0, bid 2


def test_topper_render_marks_big_and_little_jack_and_sorts_trumps_first() -> None:
    view = topper_lead().view(0)
    text = render(view, NAMES, 0)
    assert "[1] JH (Big Jack)" in text
    assert "[2] JD (Little Jack)" in text
    assert "[3] AH (trump)" in text
    assert "Trump: hearts (Big Jack JH, Little Jack JD)" in text
    assert "Bidder: You (seat 0), bid 2." in text
    assert [e.card for e in labelled_hand(view, 0)] == cards("JH JD AH 9C KS 10S")


def test_topper_render_shows_the_trick_in_progress_and_follow_hint() -> None:
    text = render(topper_play().view(1), NAMES, 1)
    assert "Trick 1 so far: seat 0 (Alice) JD." in text
    assert "Your turn: follow hearts if you can." in text


def test_topper_render_shows_tricks_scores_and_voids_after_plays() -> None:
    state = topper_play()
    for seat, face in ((1, "9H"), (2, "10H"), (3, "AD")):
        slot = next(s for s, f in state.hand(seat) if f == c(face))
        state.apply(Play(seat, slot, c(face)))
    text = render(state.view(2), NAMES, 2)
    assert "Last trick (1): seat 0 (Alice) JD, seat 1 (Bob) 9H, you (seat 2) 10H, " \
           "seat 3 (Dave) AD; won by seat 0 (Alice)." in " ".join(text.split())
    dave = next(line for line in text.splitlines()
                if "Dave" in line and line[:4].strip().isdigit())
    assert "no hearts" in dave
    alice = next(line for line in text.splitlines() if line.startswith("   0"))
    assert alice.split()[4] == "1" and "bidder" in alice  # one trick taken


def test_topper_render_shows_scores_after_a_hand_and_never_foreign_faces() -> None:
    state = topper_lead()
    bots = [HeuristicTopperBot(random.Random(i)) for i in range(4)]
    while not state.awaiting_deal:
        seat = present(state.to_act)
        for view_seat in range(4):
            view = state.view(view_seat)
            assert faces_in(render(view, NAMES, view_seat)) <= known_to(view)
        state.apply(bots[seat].choose(state.view(seat)))
    text = render(state.view(0), NAMES, 0)
    assert "Waiting for the next deal" in text
    for seat in range(4):
        assert f"{state.scores[seat]:>5}" in text


# --- options -----------------------------------------------------------------------------

def test_bluff_options_list_only_legal_kinds() -> None:
    lead = options_help(bluff_lead().view(0))
    assert "discard <cards> as <rank>" in lead
    assert "pass" not in lead and "challenge" not in lead
    respond = options_help(bluff_respond().view(1))
    assert "pass (p)" in respond and "challenge" in respond and "discard <cards>" in respond
    assert "stake 20 to 500" in respond
    after = options_help(bluff_after_honest_call().view(2))
    assert "challenge" not in after and "pass (p)" in after
    assert options_help(bluff_respond().view(2)).startswith("Nothing to choose now")


def _short_of_the_stake() -> BluffState:
    """Seat 1 has 20 chips while the round's stake is 30: it may not discard."""
    state = BluffState.new(bm.BluffConfig(table_price=10, starting_chips=30), 0)
    state.deal(FULL_DECK)
    state.apply(Discard(0, (0,), 30, Rank.ACE))
    for seat in (1, 2, 3):
        state.apply(Pass(seat))  # the round ends; seat 0 takes his stake back and leads
    state.apply(Discard(0, (4,), 30, Rank.TWO))
    return state


def test_bluff_options_without_chips_for_the_stake_offer_no_discard() -> None:
    view = _short_of_the_stake().view(1)
    text = options_help(view)
    assert "discard <cards>" not in text
    assert "(no discard: you have 20 chips, the stake is at least 30)" in text
    with pytest.raises(CommandError) as caught:
        parse_command("d 1", view)
    assert str(caught.value) == ("you have 20 chips and the stake is at least 30: "
                                 "you cannot discard; pass or challenge")


def test_topper_options_by_phase() -> None:
    assert "bid <n>" in options_help(topper_bidding().view(0))
    assert "n is 3 to 6" in options_help(topper_after_bid().view(1))
    assert "trump <suit>" in options_help(topper_trump().view(0))
    play = options_help(topper_play().view(1))
    assert "[1] KH (trump)" in play and "[2] 9H (trump)" in play
    assert "QC" not in play  # not playable: seat 1 must follow hearts
    assert options_help(topper_play().view(2)).startswith("Nothing to choose now")


def test_topper_bid_range_follows_the_high_bid() -> None:
    state = topper_bidding()
    state.apply(PassBid(0))
    text = options_help(state.view(1))
    assert "bid <n>" in text
    state = topper_bidding()
    state.apply(Bid(0, 5))
    assert "n is 6" in options_help(state.view(1))


# --- parsing: Bluff ---------------------------------------------------------------------

def test_parse_lead_by_labels_with_default_stake() -> None:
    state = bluff_lead()
    action = parse_command("d 11 12 13 as Q", state.view(0))
    assert action == Discard(0, slots_of(state, 0, cards("QD QH QS")), 10, Rank.QUEEN)


def test_parse_lead_by_faces_any_case_commas_and_stake() -> None:
    state = bluff_lead()
    action = parse_command("  DISCARD qh,  QS\t2c As q  Stake 30 ", state.view(0))
    assert action == Discard(0, slots_of(state, 0, cards("QH QS 2C")), 30, Rank.QUEEN)
    ten = parse_command("d 9 as 10", state.view(0))
    assert isinstance(ten, Discard)
    assert ten.rank == Rank.TEN and ten.slots == slots_of(state, 0, cards("10C"))


def test_parse_tells_the_ace_of_spades_from_the_word_as() -> None:
    state = BluffState.new(None, 0)
    state.deal(faces_for_hands({0: cards("AS AH 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC")}, FULL_DECK))
    view = state.view(0)
    ace, hearts = slots_of(state, 0, [c("AS")])[0], slots_of(state, 0, [c("AH")])[0]
    two_c = slots_of(state, 0, [c("2C")])[0]  # label 1
    assert parse_command("d as ah as a", view) == Discard(0, (ace, hearts), 10, Rank.ACE)
    assert parse_command("d as as q", view) == Discard(0, (ace,), 10, Rank.QUEEN)
    assert parse_command("d as 1 as q", view) == Discard(0, (ace, two_c), 10, Rank.QUEEN)
    assert parse_command("d 1 as q stake 20", view) == Discard(0, (two_c,), 20, Rank.QUEEN)
    with pytest.raises(CommandError, match="name the rank you claim"):
        parse_command("d as", view)  # the Ace of spades, and no rank


def test_parse_respond_pass_challenge_and_discard_without_rank() -> None:
    state = bluff_respond()
    view = state.view(1)
    assert parse_command("pass", view) == Pass(1) == parse_command("P", view)
    for word in ("bluff", "challenge", "c", "Bluff!"):
        assert parse_command(word, view) == Challenge(1)
    labels = {e.card: e.label for e in labelled_hand(view, 1)}
    action = parse_command(f"d {labels[c('KH')]}", view)
    assert action == Discard(1, slots_of(state, 1, [c("KH")]), 20, None)
    staked = parse_command("d KH as q stake 25", view)
    assert isinstance(staked, Discard) and staked.stake == 25


def test_parse_reveal_when_called() -> None:
    state = bluff_reveal()
    assert parse_command("reveal", state.view(0)) == Reveal(0, tuple(cards("QH QS")))
    with pytest.raises(CommandError, match="type reveal"):
        parse_command("pass", state.view(0))


@pytest.mark.parametrize("scene, seat, line, message", [
    (bluff_lead, 0, "d 99 as Q", "no card labelled 99 in your hand"),
    (bluff_lead, 0, "d 0 as Q", "no card labelled 0 in your hand"),
    (bluff_lead, 0, "d KH as Q", "you hold no KH"),
    (bluff_lead, 0, "d zz as Q", "'zz' is neither a card label nor a card"),
    (bluff_lead, 0, "d 1 2 3 4 5 as Q", "discard 1 to 4 cards, not 5"),
    (bluff_lead, 0, "d 1 1 as Q", "is named twice"),
    (bluff_lead, 0, "d as Q", "name the cards to discard"),
    (bluff_lead, 0, "d 1 2", "you lead this round: name the rank you claim"),
    (bluff_lead, 0, "d 1 as X", "'x' is not a rank"),
    (bluff_lead, 0, "d 1 as", "'as' needs a rank"),
    (bluff_lead, 0, "d 1 as q 2 as k", "name the rank once"),
    (bluff_lead, 0, "d 1 as Q stake 5", "stake 5 is below the minimum 10"),
    (bluff_lead, 0, "d 1 as Q stake 501", "stake 501 is more than your 500 chips"),
    (bluff_lead, 0, "d 1 as Q stake lots", "the stake must be a number"),
    (bluff_lead, 0, "d 1 as Q stake", "'stake' needs a number"),
    (bluff_lead, 0, "pass", "you lead this round: you must discard"),
    (bluff_lead, 0, "challenge", "there is no discard on the table to challenge"),
    (bluff_lead, 0, "reveal", "nothing of yours was called"),
    (bluff_lead, 0, "dance", "unknown command 'dance'"),
    (bluff_lead, 0, "", "type a command"),
    (bluff_lead, 0, "pass now", "takes nothing after it"),
    (bluff_lead, 1, "pass", "it is not your turn: seat 0 is to act"),
    (bluff_respond, 1, "d KH stake 10", "stake 10 is below the minimum 20"),
    (bluff_respond, 1, "d KH as K", "the rank of this round is Q"),
    (bluff_after_honest_call, 2, "c", "already shown honest"),
])
def test_parse_errors_name_what_was_wrong(scene: Callable[[], Engine], seat: int, line: str, message: str) -> None:
    view = scene().view(seat)
    with pytest.raises(CommandError) as caught:
        parse_command(line, view)
    assert message in str(caught.value)


def test_parse_when_nobody_acts() -> None:
    state = BluffState.new(None, 0)
    with pytest.raises(CommandError, match="a deal is awaited"):
        parse_command("pass", state.view(0))


def test_stake_error_sentence_names_the_minimum() -> None:
    view = bluff_respond().view(1)
    with pytest.raises(CommandError) as caught:
        parse_command("d KH stake 15", view)
    assert str(caught.value) == "stake 15 is below the minimum 20"
    assert not isinstance(caught.value, StakeTooLow)


# --- parsing: Topper --------------------------------------------------------------------

def test_parse_topper_bids_and_passes() -> None:
    view = topper_bidding().view(0)
    assert parse_command("bid 2", view) == Bid(0, 2) == parse_command(" B   2 ", view)
    assert parse_command("pass", view) == PassBid(0) == parse_command("p", view)


def test_parse_topper_trump_in_every_spelling() -> None:
    view = topper_trump().view(0)
    for line in ("trump h", "t hearts", "T H", "hearts", "h", "trump ♥", "trump heart"):
        assert parse_command(line, view) == NameTrump(0, Suit.HEARTS), line


def test_parse_topper_play_by_label_face_or_bare() -> None:
    state = topper_play()
    view = state.view(1)
    slot = next(s for s, f in state.hand(1) if f == c("KH"))
    expected = Play(1, slot, c("KH"))
    for line in ("play 1", "play KH", "pl kh", "1", "KH"):
        assert parse_command(line, view) == expected, line


@pytest.mark.parametrize("scene, seat, line, message", [
    (topper_after_bid, 1, "bid 1", "bid 1 does not top the highest bid, 2 by seat 0"),
    (topper_after_bid, 1, "bid 2", "bid 2 does not top the highest bid"),
    (topper_bidding, 0, "bid 9", "a bid is 1 to 6 tricks, not 9"),
    (topper_bidding, 0, "bid 0", "a bid is 1 to 6 tricks, not 0"),
    (topper_bidding, 0, "bid x", "a bid must be a number"),
    (topper_bidding, 0, "bid", "say how many tricks"),
    (topper_bidding, 0, "trump h", "you cannot name trump now: this is the bidding"),
    (topper_bidding, 0, "play 1", "you cannot play a card now"),
    (topper_trump, 0, "trump x", "'x' is not a suit"),
    (topper_trump, 0, "trump", "name one suit"),
    (topper_trump, 0, "bid 3", "you cannot bid now: this is naming trump"),
    (topper_play, 1, "play QC", "you must follow hearts: play one of [1] KH (trump), [2] 9H"),
    (topper_play, 1, "play 9", "no card labelled 9 in your hand (labels are 1 to 6)"),
    (topper_play, 1, "play JH", "you hold no JH"),
    (topper_play, 1, "play", "name one card to play"),
    (topper_play, 1, "dance", "unknown command 'dance'"),
    (topper_play, 2, "play 1", "it is not your turn: seat 1 is to act"),
])
def test_parse_topper_errors_name_what_was_wrong(scene: Callable[[], Engine], seat: int, line: str,
                                                 message: str) -> None:
    with pytest.raises(CommandError) as caught:
        parse_command(line, scene().view(seat))
    assert message in str(caught.value)


def test_parse_topper_follow_error_lists_only_following_cards() -> None:
    with pytest.raises(CommandError) as caught:
        parse_command("play AC", topper_play().view(1))
    text = str(caught.value)
    assert "KH" in text and "9H" in text and "QC" not in text.split(":", 1)[1]


def test_text_functions_refuse_a_foreign_view() -> None:
    with pytest.raises(UnknownGame):
        render(object(), NAMES, 0)  # type: ignore[arg-type]  # deliberately no game's view


# --- any text --------------------------------------------------------------------------

_VIEWS: list[Engine] = [
    bluff_lead().view(0), bluff_respond().view(1), bluff_reveal().view(0),
    bluff_after_honest_call().view(2), bluff_caught().view(2), bluff_respond().view(3),
    BluffState.new(None, 0).view(0),
    topper_bidding().view(0), topper_after_bid().view(1), topper_trump().view(0),
    topper_play().view(1), topper_lead().view(0), topper_play().view(3),
]
_WORDS = ["d", "discard", "as", "stake", "p", "pass", "c", "bluff", "reveal", "bid", "b",
          "trump", "t", "play", "pl", "h", "S", "♥", "q", "10", "1", "2", "4", "13", "99", "0",
          "QH", "qs", "kh", "JD", "9c", "10h", "-1", "1e9", "²", "٣", ",", "x" * 40,
          "123456789012345678901234567890"]


def _check_result(text: str, view: Engine) -> None:
    try:
        action = parse_command(text, view)
    except CommandError as error:
        assert str(error)
        return
    view.check(action)  # a returned action is legal


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60), st.sampled_from(range(len(_VIEWS))))
def test_any_text_gives_an_action_or_a_command_error(text: str, index: int) -> None:
    _check_result(text, _VIEWS[index])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_WORDS), max_size=8), st.sampled_from(range(len(_VIEWS))))
def test_any_command_like_words_give_an_action_or_a_command_error(words: list[str], index: int) -> None:
    _check_result(" ".join(words), _VIEWS[index])


# --- describe ----------------------------------------------------------------------------

def test_describe_bluff_events_in_words() -> None:
    qs = cards("QH QS")
    lines = {
        bm.HandDealt(2, 1): "Deal 2 begins: seat 1 (Bob) leads.",
        bm.Discarded(1, (1, 5), Rank.QUEEN, 20, True):
            "Seat 1 (Bob) led: named Q, staked 20 and discarded 2 cards face down.",
        bm.Discarded(0, (0,), Rank.QUEEN, 20, False):
            "You (seat 0) discarded 1 card as Q, stake 20.",
        bm.StakeReturned(1, 20): "Seat 1 (Bob) took back a stake of 20: the claim was accepted.",
        bm.Passed(2, 10): "Seat 2 (Carol) passed and paid 10 into the safe box.",
        bm.Challenged(3, 1): "Seat 3 (Dave) called BLUFF on seat 1 (Bob)!",
        bm.ChallengeResolved(3, 1, True, tuple(qs), 1, 20):
            "It was a bluff: QH QS. Seat 1 (Bob) lost the stake of 20 and took the cards back.",
        bm.ChallengeResolved(3, 1, False, tuple(qs), 3, 20):
            "It was honest: QH QS. Seat 3 (Dave) paid 20 into the safe box.",
        bm.RoundEnded(2, 5): "Round over (5 cards left play unseen); seat 2 (Carol) leads the "
                             "next round.",
        bm.PlayerOut(2): "Seat 2 (Carol) ran out of chips and is out of the match.",
        bm.DealWon(1, 80): "Seat 1 (Bob) won the deal and the safe box of 80.",
        bm.MatchEnded(bm.BluffOutcome(bm.Termination.DEAL_CAP, (1, 2), (0, 900, 900, 200), 20)):
            "Match over: deal cap reached after 20 deals. Seat 1 (Bob) and seat 2 (Carol) "
            "share the win. Chips: Alice 0, Bob 900, Carol 900, Dave 200.",
    }
    for event, line in lines.items():
        assert describe(event, NAMES, 0) == line


def test_describe_topper_events_in_words() -> None:
    out = te.TopperOutcome(te.Termination.TARGET_REACHED, (2,), (5, 8, 22, -3), 9)
    lines = {
        te.HandDealt(3, first=2, dealer=1): "Hand 3: seat 1 (Bob) dealt; seat 2 (Carol) bids first.",
        te.BidMade(2, 3): "Seat 2 (Carol) bid 3.",
        te.BidPassed(0): "You (seat 0) passed.",
        te.BiddingWon(2, 3): "Seat 2 (Carol) won the bidding with 3 and names trump.",
        te.ThrownIn(4, 1, 2): "Everyone passed: hand 4 is thrown in; seat 2 (Carol) deals next.",
        te.TrumpNamed(2, Suit.SPADES, c("JC")):
            "Seat 2 (Carol) named spades trump (Big Jack JS, Little Jack JC).",
        te.CardPlayed(1, 5, c("QS"), 0): "Seat 1 (Bob) played QS.",
        te.ShowedVoid(3, Suit.HEARTS, 1, c("9C")):
            "Seat 3 (Dave) has no hearts left this hand (played 9C in trick 2).",
        te.TrickWon(0, 2, ((1, c("QS")), (2, c("AS")), (3, c("9S")), (0, c("10S")))):
            "Seat 2 (Carol) won trick 1 (QS AS 9S 10S).",
        te.HandScored(5, 2, 3, (1, 1, 2, 2), False, (1, 1, -3, 2), (10, 11, 4, 12)):
            "Hand 5 scored: seat 2 (Carol) bid 3 but took only 2 tricks (3 points lost). "
            "Scores: Alice 10, Bob 11, Carol 4, Dave 12.",
        te.TieContinues((0, 3), 22): "Tie at 22 between you (seat 0) and seat 3 (Dave), the "
                                     "bidder not among them: another hand.",
        te.MatchEnded(out): "Match over: target score reached after 9 hands scored. Seat 2 "
                            "(Carol) won. Scores: Alice 5, Bob 8, Carol 22, Dave -3.",
    }
    for event, line in lines.items():
        assert describe(event, NAMES, 0) == line


def test_describe_every_engine_event_of_whole_matches() -> None:
    seen = set()
    for state, bots, deck in (
        (BluffState.new(None, 0), [HeuristicBluffBot(random.Random(i)) for i in range(4)],
         FULL_DECK),
        (TopperState.new(None, 0), [RandomTopperBot(random.Random(i)) for i in range(4)],
         TOPPER_DECK),
    ):
        rng = random.Random(11)
        for _ in range(20000):
            if state.outcome is not None:
                break
            if state.awaiting_deal:
                events = state.deal(shuffled_faces(deck, rng))
            else:
                seat = present(state.to_act)
                events = state.apply(bots[seat].choose(state.view(seat)))  # type: ignore[arg-type]
            for event in events:
                line = describe(event, NAMES, 1)
                assert line and "\n" not in line, event
                seen.add(type(event))
    assert {bm.Discarded, bm.Passed, bm.ChallengeResolved, te.CardPlayed, te.HandScored,
            bm.MatchEnded, te.MatchEnded} <= seen


def test_describe_protocol_events() -> None:
    seating = (2, 0, 3, 1)  # player 2 sits at seat 0, ...
    hand = ((0, c("QS")), (4, c("2C")))
    assert describe(proto.ShuffleVerified(2, 0, False), NAMES, 0) == \
        "Seat 2 (Carol) shuffled deck 0; proof verified."
    assert describe(proto.ShuffleVerified(0, 1, True), NAMES, 0) == \
        "You shuffled deck 1 and proved the shuffle."
    assert describe(proto.SharesVerified(1, 0, 39, False), NAMES, 0) == \
        "Shares for deck 0 from seat 1 (Bob) verified (39 proofs)."
    assert describe(proto.HandReceived(0, hand), NAMES, 0) == "Deck 0 dealt. Your hand: 2C QS."
    assert describe(proto.HandReceived(0, ()), NAMES, None) == "Deck 0 dealt."
    assert describe(proto.Committed(2), NAMES, 0, seating) == \
        "You (seat 0) committed to a key share and a draw nonce."
    assert describe(proto.KeyShareVerified(3), NAMES, 0, seating) == \
        "Seat 2 (Carol) opened a key share; proof verified."
    # Before the seats are drawn: names in join order, "you" for this peer; never an index.
    joined = ("Zed", "Yan", "Xia", "Wes")
    assert describe(proto.KeyShareVerified(3), (), None, players=joined, me_player=1) == \
        "Wes opened a key share; proof verified."
    assert describe(proto.KeyShareVerified(1), (), None, players=joined, me_player=1) == \
        "You opened your key share; proof verified."
    assert describe(proto.PlayersSeated(seating, 3), NAMES, 0) == (
        "Seats drawn (Seat 0: Alice (you), Seat 1: Bob, Seat 2: Carol, Seat 3: Dave); "
        "seat 3 (Dave) starts.")
    assert present(describe(proto.PlayersSeated(seating, 0), NAMES, 0)).endswith("you (seat 0) start.")
    # Topper's first seat is its first dealer: "deals", not "starts".
    assert present(describe(proto.PlayersSeated(seating, 0), NAMES, 0, game="topper")).endswith(
        "you (seat 0) deal first.")
    assert present(describe(proto.PlayersSeated(seating, 3), NAMES, 0, game="topper")).endswith(
        "seat 3 (Dave) deals first.")
    assert describe(proto.CardsRevealed(1, ((5, c("KH")),)), NAMES, 0) == \
        "Seat 1 (Bob) opened KH; decryption shares verified."


def test_describe_action_applied_gives_its_results_and_leaves_the_end_to_match_ended() -> None:
    outcome = bm.BluffOutcome(bm.Termination.LAST_WITH_CHIPS, (1,), (0, 2000, 0, 0), 3)
    applied = proto.ActionApplied(2, Pass(2), (bm.Passed(2, 10), bm.PlayerOut(2),
                                              bm.MatchEnded(outcome)), 99)
    text = present(describe(applied, NAMES, 0))
    assert text.splitlines() == ["Seat 2 (Carol) passed and paid 10 into the safe box.",
                                 "Seat 2 (Carol) ran out of chips and is out of the match."]
    ended = present(describe(proto.MatchCompleted(outcome), NAMES, 0))
    assert ended.startswith("Match over: one player has all the chips after 3 deals. "
                            "Seat 1 (Bob) won.")
    assert describe(proto.ActionApplied(0, Pass(0), (), 5), NAMES, 0) is None


def test_describe_verdicts_loudly_with_the_blamed_players_name() -> None:
    seating = (2, 0, 3, 1)
    crypto = Verdict("crypto", (3,), 40, "shuffle proof does not verify", (b"x",))
    assert describe(proto.TableEnded(crypto), NAMES, 1, seating) == (
        "Table ended: Seat 2 (Carol) sent a cryptographic proof that fails (shuffle proof "
        "does not verify), proven by their signed message.")
    late = Verdict("deadline", (0,), 41, "player 0 did not write before the deadline")
    assert describe(proto.TableEnded(late), NAMES, 1, seating) == \
        "Table ended: You (seat 1) ran out of time."
    left = Verdict("left", (1,), 41, "left the table", (b"x",))
    assert describe(proto.TableEnded(left), NAMES, 1, seating) == \
        "Table ended: Seat 3 (Dave) left the table."
    held = Verdict("rules.card.not-held", (2,), 42, "slot 9 is not in seat 0's hand", (b"x",))
    assert describe(proto.TableEnded(held), NAMES, 1, seating) == (
        "Table ended: Seat 0 (Alice) tried to play a card not in their hand, "
        "proven by their signed message.")
    assert describe(proto.TableEnded(held), NAMES, 0, seating) == (
        "Table ended: You (seat 0) tried to play a card not in your hand, "
        "proven by your signed message.")


def test_describe_a_report_as_unconfirmed_never_as_a_verdict() -> None:
    """Another peer's unchecked report: who says what, and that nothing follows here."""
    seating = (2, 0, 3, 1)
    report = proto.Reported(reporter=3, rule="deadline", players=(0,), position=41,
                            detail="player 0 did not write before the deadline")
    line = describe(report, NAMES, 1, seating)
    assert line == ("Seat 2 (Carol) reports that you (seat 1) ran out of time "
                    "(not confirmed here; play goes on).")
    assert "Table ended" not in line


def test_describe_session_events() -> None:
    lobby = LobbyUpdate("bluff", "Friday", {}, ((b"k1", "Alice", False), (b"k2", "Bot", True)))
    assert describe(lobby, NAMES, None) == (
        'Table "Friday" (bluff): 2 players joined: Alice, Bot (bot); waiting for 2 more.')
    assert describe(LinkUp(False, own_host=True), NAMES, None) is None
    assert describe(LinkUp(False), NAMES, None) == "Connected to the host."
    assert describe(LinkUp(True), NAMES, None) == "Reconnected to the host."
    assert describe(LinkDown("connection reset"), NAMES, None) == \
        "Lost the link to the host (connection reset); reconnecting."
    assert describe(Waiting(3, 123.0), NAMES, 0, (2, 0, 3, 1)) == "Waiting for seat 2 (Carol)."
    assert describe(Waiting(None, 1.0), NAMES, 0) is None
    assert describe(Rejected("table full"), NAMES, None) == \
        "The host refused this player: table full."


def test_the_lobby_line_says_when_the_table_has_no_clock_and_only_then() -> None:
    players = ((b"k1", "Alice", False),)
    untimed = present(describe(LobbyUpdate("bluff", "Friday", {"move_time": 0}, players), NAMES, None))
    assert untimed.startswith('Table "Friday" (bluff, no clock: anyone can stall it for ever): ')
    for config in ({"move_time": 120}, {}):  # a clock, or a lobby that does not say
        assert "clock" not in present(describe(LobbyUpdate("bluff", "Friday", config, players), NAMES, None))


def test_describe_own_refused_action_and_unknown_events() -> None:
    refused = IllegalAction(StakeTooLow(0, "stake at least 20, not 10"))
    assert present(describe(refused, NAMES, 0)).startswith("Your action was refused: seat 0: stake at")
    assert describe(object(), NAMES, 0) is None


def test_describe_before_names_are_known_says_seats_only() -> None:
    assert describe(bm.Passed(2, 10), (), None) == "Seat 2 passed and paid 10 into the safe box."
    assert describe(proto.KeyShareVerified(1), (), None, (1, 0, 2, 3)) == \
        "Seat 0 opened a key share; proof verified."
    assert "   2  Seat 2 " in render(bluff_lead().view(0), (), 0)


def test_describe_and_render_clean_control_characters_from_remote_text() -> None:
    names = ("\x1b[2J\x1b[31mEvil", "Bob\r\nFAKE: you won", "Carol", "Dave")
    line = present(describe(bm.Passed(0, 10), names, 3))
    assert "\x1b" not in line and "Evil" in line
    lobby = LobbyUpdate("bluff", "t\x07able", {}, ((b"k", "a\x1bb", False),))
    assert "\x1b" not in present(describe(lobby, names, None)) and "\x07" not in present(describe(lobby, names, None))
    text = render(bluff_lead().view(0), names, 0)
    assert "\x1b" not in text and "\r" not in text
    assert "FAKE" in text and all(not line.startswith("FAKE") for line in text.splitlines())
    verdict = Verdict("crypto\x1b[0m", (0,), 1, "bad\x1b]0;title\x07", (b"x",))
    assert "\x1b" not in present(describe(proto.TableEnded(verdict), names, 0))


def test_lines_about_this_peer_use_the_verb_that_agrees_with_you() -> None:
    from p2pcards.rules.bluff.events import RoundEnded
    from p2pcards.ui.text import describe
    names = ["Ann", "Bob", "Cy", "Dee"]
    assert present(describe(RoundEnded(leader=1, cards_out=3), names, me=1)).endswith(
        "you (seat 1) lead the next round.")
    assert present(describe(RoundEnded(leader=2, cards_out=3), names, me=1)).endswith(
        "seat 2 (Cy) leads the next round.")
