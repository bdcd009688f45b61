"""Every refusal of the Bluff referee: exact class, seat, rule id, and no change of state."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from p2pcards.cards import FULL_DECK, Card, Rank
from p2pcards.rules.bluff import (
    BluffConfig,
    BluffState,
    Challenge,
    Discard,
    Pass,
    Reveal,
    faces_for_hands,
)
from p2pcards.rules.bluff.errors import (
    AlreadyRevealed,
    BadDeal,
    DealNotAwaited,
    DiscardCount,
    DuplicateSlots,
    FacesUnknown,
    LeaderMustDiscard,
    NothingToChallenge,
    RankRequired,
    RevealCount,
    StakeAboveStack,
    StakeTooLow,
    WrongRank,
)
from p2pcards.rules.errors import (
    BadAction,
    CardMismatch,
    ConfigError,
    MatchOver,
    NotYourCard,
    NotYourTurn,
    RuleError,
    WrongPhase,
)

ACES = [Card.parse(t) for t in ["AS", "AH", "AD", "AC"]]
FACES = faces_for_hands({0: ACES, 1: [Card.parse(t) for t in ["KS", "KH", "KD", "KC"]]},
                        FULL_DECK)


def leading() -> BluffState:
    """Seat 0 to lead; it holds the four aces at slots 0, 4, 8, 12."""
    state = BluffState.new(BluffConfig(), 0)
    state.deal(FACES)
    return state


def responding() -> BluffState:
    """Seat 0 claimed two aces (honestly) for 30; seat 1 to act."""
    state = leading()
    state.apply(Discard(0, (0, 4), 30, Rank.ACE))
    return state


def revealing() -> BluffState:
    """Seat 1 challenged seat 0's two aces; seat 0 must reveal."""
    state = responding()
    state.apply(Challenge(1))
    return state


def shown_honest() -> BluffState:
    state = revealing()
    state.apply(Reveal(0, (ACES[0], ACES[1])))
    return state


def round_about() -> BluffState:
    """Every seat discarded one card; seat 0 is to act again, slot 0 on the pile."""
    state = leading()
    for seat in range(4):
        state.apply(Discard(seat, (seat,), 10, Rank.ACE))
    return state


def finished() -> BluffState:
    state = BluffState.new(BluffConfig(starting_chips=10), 0)
    state.deal(FACES)
    for action in (Discard(0, (0,), 10, Rank.ACE), Pass(1), Pass(2), Pass(3)):
        state.apply(action)
    assert state.outcome is not None
    return state


CASES = [
    # (name, state factory, action, error class, seat, rule id)
    ("out of turn", responding, Pass(2), NotYourTurn, 2, "turn"),
    ("out of turn while revealing", revealing, Pass(2), NotYourTurn, 2, "turn"),
    ("act while a deal is awaited", lambda: BluffState.new(BluffConfig(), 0), Pass(0),
     WrongPhase, 0, "phase"),
    ("act after the match", finished, Pass(0), MatchOver, 0, "match.over"),
    ("leader passes", leading, Pass(0), LeaderMustDiscard, 0, "bluff.leader-must-discard"),
    ("challenge with nothing to challenge", leading, Challenge(0), NothingToChallenge, 0,
     "bluff.nothing-to-challenge"),
    ("challenge a revealed discard", shown_honest, Challenge(2), AlreadyRevealed, 2,
     "bluff.already-revealed"),
    ("reveal when nothing was challenged", responding, Reveal(1, (ACES[2],)), WrongPhase, 1,
     "phase"),
    ("discard instead of revealing", revealing, Discard(0, (8,), 30, None), WrongPhase, 0,
     "phase"),
    ("discard no card", leading, Discard(0, (), 10, Rank.ACE), DiscardCount, 0,
     "bluff.discard-count"),
    ("discard five cards", leading, Discard(0, (0, 4, 8, 12, 16), 10, Rank.ACE), DiscardCount,
     0, "bluff.discard-count"),
    ("discard a slot twice", leading, Discard(0, (0, 0), 10, Rank.ACE), DuplicateSlots, 0,
     "bluff.duplicate-slots"),
    ("discard another seat's slot", leading, Discard(0, (1,), 10, Rank.ACE), NotYourCard, 0,
     "card.not-held"),
    ("discard a slot already on the pile", round_about, Discard(0, (0,), 10, None),
     NotYourCard, 0, "card.not-held"),
    ("discard a slot outside the deck", leading, Discard(0, (52,), 10, Rank.ACE), BadAction, 0,
     "action.malformed"),
    ("lead without a rank", leading, Discard(0, (0,), 10, None), RankRequired, 0,
     "bluff.rank-required"),
    ("respond with another rank", responding, Discard(1, (1,), 30, Rank.KING), WrongRank, 1,
     "bluff.wrong-rank"),
    ("lead below the table minimum", leading, Discard(0, (0,), 9, Rank.ACE), StakeTooLow, 0,
     "bluff.stake-too-low"),
    ("respond below the current stake", responding, Discard(1, (1,), 20, None), StakeTooLow,
     1, "bluff.stake-too-low"),
    ("stake above the stack", leading, Discard(0, (0,), 501, Rank.ACE), StakeAboveStack, 0,
     "bluff.stake-above-stack"),
    ("reveal too few faces", revealing, Reveal(0, (ACES[0],)), RevealCount, 0,
     "bluff.reveal-count"),
    ("reveal faces that are not the dealt ones", revealing, Reveal(0, (ACES[0], ACES[2])),
     CardMismatch, 0, "card.mismatch"),
    ("reveal one card twice", revealing, Reveal(0, (ACES[0], ACES[0])), CardMismatch, 0,
     "card.mismatch"),
    ("not an action", leading, "pass", BadAction, None, "action.malformed"),
    ("no such seat", leading, Pass(4), BadAction, None, "action.malformed"),
    ("a boolean seat", leading, Pass(True), BadAction, None, "action.malformed"),
    ("slots not a tuple", leading, Discard(0, [0], 10, Rank.ACE), BadAction, 0,  # type: ignore[arg-type]
     "action.malformed"),
    ("a slot that is not a number", leading, Discard(0, ("0",), 10, Rank.ACE), BadAction, 0,  # type: ignore[arg-type]
     "action.malformed"),
    ("a rank that is not a Rank", leading, Discard(0, (0,), 10, 14), BadAction, 0,  # type: ignore[arg-type]
     "action.malformed"),
    ("a stake that is not a number", leading, Discard(0, (0,), "10", Rank.ACE), BadAction, 0,  # type: ignore[arg-type]
     "action.malformed"),
    ("a boolean stake", leading, Discard(0, (0,), True, Rank.ACE), BadAction, 0,
     "action.malformed"),
    ("faces that are not cards", revealing, Reveal(0, ("AS", "AH")), BadAction, 0,  # type: ignore[arg-type]
     "action.malformed"),
]


@pytest.mark.parametrize("name, make, action, error, seat, rule", CASES,
                         ids=[case[0] for case in CASES])
def test_illegal_action_raises_precise_error_and_changes_nothing(
        name: str, make: Callable[[], BluffState], action: object, error: type[RuleError], seat: int | None,
        rule: str) -> None:
    state = make()
    before = state.snapshot()
    with pytest.raises(error) as checked:
        state.check(action)  # some are no action at all
    with pytest.raises(error) as applied:
        state.apply(action)
    for raised in (checked.value, applied.value):
        assert type(raised) is error
        assert raised.seat == seat and raised.rule == rule
        assert isinstance(raised, RuleError)
    assert state.snapshot() == before


def test_refused_action_on_a_view_changes_nothing() -> None:
    view = responding().view(1)
    before = view.snapshot()
    with pytest.raises(StakeTooLow):
        view.apply(Discard(1, (1,), 10, None))
    assert view.snapshot() == before


def test_reveal_contradicting_a_card_the_referee_knows_elsewhere() -> None:
    # Seat 2's referee knows its own hand; seat 0 claims to show one of those cards.
    referee = revealing().view(2)
    own = referee.face(2)
    assert own is not None
    with pytest.raises(CardMismatch) as raised:
        referee.apply(Reveal(0, (own, ACES[1])))
    assert raised.value.seat == 0 and raised.value.rule == "card.mismatch"


def test_mismatch_message_does_not_name_the_known_card() -> None:
    referee = revealing().view(2)
    own = referee.face(2)
    assert own is not None
    with pytest.raises(CardMismatch) as raised:
        referee.apply(Reveal(0, (own, ACES[1])))
    assert own.ascii not in str(raised.value) and str(own) not in str(raised.value)


def test_deal_while_a_deal_is_in_play_is_refused() -> None:
    state = leading()
    with pytest.raises(DealNotAwaited) as raised:
        state.deal(FACES)
    assert raised.value.rule == "deal.not-awaited" and raised.value.seat is None


def test_deal_after_the_match_is_refused() -> None:
    with pytest.raises(MatchOver):
        finished().deal(FACES)


@pytest.mark.parametrize("faces", [
    FACES[:51],
    FACES[:51] + [FACES[0]],
    FACES[:51] + ["AS"],
    None,
], ids=["51 faces", "a card twice", "not a card", "not a sequence"])
def test_malformed_deal_is_refused_and_changes_nothing(faces: object) -> None:
    state = BluffState.new(BluffConfig(), 0)
    before = state.snapshot()
    with pytest.raises(BadDeal) as raised:
        state.deal(faces)  # type: ignore[arg-type]
    assert raised.value.rule == "deal.bad"
    assert state.snapshot() == before


def test_new_match_refuses_a_leader_that_is_not_a_seat() -> None:
    with pytest.raises(BadAction):
        BluffState.new(BluffConfig(), 4)


def test_legal_reveal_cannot_be_named_by_a_referee_blind_to_the_discard() -> None:
    referee = revealing().view(2)
    with pytest.raises(FacesUnknown):
        list(referee.legal_actions())


def test_new_match_refuses_a_config_that_is_not_a_bluff_config() -> None:
    with pytest.raises(TypeError):
        BluffState.new({"table_price": 10}, 0)  # type: ignore[arg-type]


@pytest.mark.parametrize(("settings", "setting"), [
    ({"table_price": 0}, "table_price"),
    ({"table_price": True}, "table_price"),
    ({"starting_chips": 0}, "starting_chips"),
    ({"pass_price": -1}, "pass_price"),
    ({"min_stake": 2.5}, "min_stake"),
    ({"deal_cap": 0}, "deal_cap"),
    ({"max_discard": 0}, "max_discard"),
    ({"max_discard": 14}, "max_discard"),
])
def test_a_setting_out_of_range_is_a_config_error_naming_that_setting(
        settings: dict[str, object], setting: str) -> None:
    with pytest.raises(ConfigError) as raised:
        BluffConfig(**settings)  # type: ignore[arg-type]
    assert raised.value.setting == setting
    assert setting in str(raised.value)
    assert isinstance(raised.value, ValueError)  # callers that catch ValueError still do
    assert not isinstance(raised.value, RuleError)  # no seat broke a rule: no table was made
