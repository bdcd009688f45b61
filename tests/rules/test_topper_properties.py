"""Whole Topper matches played at random, checked after every step; replay; renege always caught.

Every loop is bounded: a match by ``deal_limit * max_steps_per_deal`` steps
(the engine's own bound), a hand by its 24 cards.
"""

import random

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from p2pcards.bots.base import play_local_match
from p2pcards.cards import FULL_DECK, TOPPER_DECK, Card, Suit
from p2pcards.rules.errors import MatchOver, RuleError
from p2pcards.rules.topper import (
    Bid,
    HandScored,
    MatchEnded,
    NameTrump,
    PassBid,
    Phase,
    Play,
    Renege,
    Termination,
    TieContinues,
    TopperAction,
    TopperConfig,
    TopperState,
)
from p2pcards.rules.topper.order import effective_suit
from tests.rules.expect import known, known_hand

FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


class Chooser:
    """A seeded player of random legal actions that passes with a given bias when bidding."""

    name = "chooser"

    def __init__(self, rng: random.Random, pass_bias: float) -> None:
        self.rng = rng
        self.pass_bias = pass_bias

    def choose(self, view: TopperState) -> TopperAction:
        actions = tuple(view.legal_actions())
        if view.phase is Phase.BIDDING and self.rng.random() < self.pass_bias:
            return actions[0]
        return self.rng.choice(actions)


def faces_known_to(state: TopperState, seat: int) -> list[Card | None]:
    faces: list[Card | None] = [None] * len(state.config.deck)
    for slot, face in state.hand(seat):
        faces[slot] = face
    return faces


def check_invariants(state: TopperState) -> None:
    cfg = state.config
    phase = state.phase
    # Exactly one seat to act while a hand is on; none while a deal is awaited or after the end.
    assert state.awaiting_deal == (phase is Phase.DEAL)
    assert (state.outcome is not None) == (phase is Phase.MATCH_OVER)
    if phase in (Phase.BIDDING, Phase.TRUMP, Phase.PLAY):
        assert state.to_act is not None and 0 <= state.to_act < cfg.seats
        actions = tuple(state.legal_actions())
        assert actions and all(a.seat == state.to_act for a in actions)
        # The 24 cards are conserved: in hands or played, each once.
        held = [face for s in range(cfg.seats) for _, face in state.hand(s)]
        assert sorted(known(held) + list(state.played_cards)) == sorted(cfg.deck)
    else:
        assert state.to_act is None and tuple(state.legal_actions()) == ()
        assert sum(state.hand_sizes) == 0
        assert len(state.played_cards) in (0, len(cfg.deck))
    # A view never holds another seat's unplayed card.
    for seat in range(cfg.seats):
        view = state.view(seat)
        for other in range(cfg.seats):
            faces = [face for _, face in view.hand(other)]
            if other == seat:
                assert faces == [face for _, face in state.hand(seat)]
            else:
                assert faces == [None] * len(faces)
    assert sum(state.tricks_taken) == len(state.tricks)


class MatchAudit:
    """Checks every step of a match against the rules, and keeps four peers' referees in step."""

    def __init__(self, state: TopperState) -> None:
        self.scores = [0] * state.config.seats
        self.referees = [state.view(s) for s in range(state.config.seats)]
        self.steps = 0
        self.ends: set[Termination] = set()

    def __call__(self, state: TopperState, action: object, events: tuple[object, ...]) -> None:
        self.steps += 1
        cfg = state.config
        for seat, referee in enumerate(self.referees):
            if action is None:
                referee.deal(faces_known_to(state, seat))
            else:
                assert isinstance(action, TopperAction)
                referee.apply(action)  # a referee never refuses what the full engine accepts
            assert referee == state.view(seat)
        for i, event in enumerate(events):
            if isinstance(event, HandScored):
                self.check_scored(cfg, event, events[i + 1:], state)
        assert list(state.scores) == self.scores
        check_invariants(state)

    def check_scored(self, cfg: TopperConfig, hs: HandScored, after: tuple[object, ...],
                     state: TopperState) -> None:
        assert sum(hs.tricks) == cfg.hand_size
        assert hs.made == (hs.tricks[hs.bidder] >= hs.bid)
        for seat in range(cfg.seats):
            expected = -hs.bid if seat == hs.bidder and not hs.made else hs.tricks[seat]
            assert hs.changes[seat] == expected
            self.scores[seat] += expected
        assert hs.scores == tuple(self.scores)
        top = max(hs.scores)
        leaders = tuple(s for s, v in enumerate(hs.scores) if v == top)
        at_limit = cfg.deal_limit is not None and hs.hand >= cfg.deal_limit
        ended = [e.outcome for e in after if isinstance(e, MatchEnded)]
        if top >= cfg.target_score and len(leaders) == 1:
            assert ended[0].termination is Termination.TARGET_REACHED and ended[0].winners == leaders
        elif top >= cfg.target_score and hs.bidder in leaders:
            assert ended[0].termination is Termination.BIDDER_WINS_TIE and ended[0].winners == (hs.bidder,)
        elif at_limit:
            winners = (hs.bidder,) if hs.bidder in leaders else leaders
            assert ended[0].termination is Termination.DEAL_LIMIT and ended[0].winners == winners
        else:
            assert not ended and state.outcome is None
            if top >= cfg.target_score:
                assert TieContinues(leaders, top) in after
        if ended:
            self.ends.add(ended[0].termination)


configs = st.builds(
    TopperConfig,
    target_score=st.sampled_from([5, 11, 21]),
    deal_limit=st.sampled_from([8, 30]),
)


@FAST
@given(seed=st.integers(0, 2**32 - 1), dealer=st.integers(0, 3), config=configs,
       pass_bias=st.sampled_from([0.0, 0.6, 0.85]))
def test_random_matches_keep_every_invariant_and_end_within_the_bound(
        seed: int, dealer: int, config: TopperConfig, pass_bias: float) -> None:
    state = TopperState.new(config, dealer)
    audit = MatchAudit(state)
    players = [Chooser(random.Random(seed * 4 + s), pass_bias) for s in range(4)]
    assert config.deal_limit is not None
    bound = config.deal_limit * config.max_steps_per_deal
    play_local_match(state, players, config.deck, random.Random(seed), max_steps=bound + 1,
                     on_step=audit)
    assert state.outcome is not None and audit.steps <= bound
    assert state.hand_number <= config.deal_limit


Log = list[tuple[object, list[Card | None] | None, tuple[object, ...]]]


def transcript(seed: int) -> tuple[Log, TopperState]:
    log: Log = []
    state = TopperState.new(TopperConfig(deal_limit=20), seed % 4)
    players = [Chooser(random.Random(seed + s), 0.5) for s in range(4)]

    def record(st_: TopperState, action: object, events: tuple[object, ...]) -> None:
        log.append((action, faces_known_to_all(st_) if action is None else None, events))

    play_local_match(state, players, TOPPER_DECK, random.Random(seed), on_step=record)
    return log, state


def faces_known_to_all(state: TopperState) -> list[Card | None]:
    faces: list[Card | None] = [None] * len(state.config.deck)
    for seat in range(state.config.seats):
        for slot, face in state.hand(seat):
            faces[slot] = face
    return faces


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_same_seed_and_actions_give_the_same_states(seed: int) -> None:
    log, final = transcript(seed)
    again, final_again = transcript(seed)
    assert again == log and final_again == final
    replay = TopperState.new(TopperConfig(deal_limit=20), seed % 4)
    for action, faces, events in log:
        if action is None:
            assert faces is not None
            assert replay.deal(faces) == events
        else:
            assert isinstance(action, TopperAction)
            assert replay.apply(action) == events
    assert replay == final


@FAST
@given(seed=st.integers(0, 2**32 - 1))
def test_a_renege_is_caught_by_a_peers_referee_before_the_hand_ends(seed: int) -> None:
    rng = random.Random(seed)
    full = TopperState.new(TopperConfig(), rng.randrange(4))
    cheat: tuple[int, int, Card] | None = None
    for _ in range(40):  # honest play until some seat could renege
        if full.awaiting_deal:
            deck = list(TOPPER_DECK)
            rng.shuffle(deck)
            full.deal(deck)
            continue
        seat, led = full.to_act, full.led_suit
        if full.phase is Phase.PLAY and led is not None:
            assert seat is not None
            held = known_hand(full.hand(seat))
            off = [(p, c) for p, c in held if effective_suit(c, full.trump) != led]
            if off and len(off) < len(held):
                cheat = (seat, *rng.choice(off))
                break
        full.apply(rng.choice(tuple(full.legal_actions())))
    assume(cheat is not None)
    assert cheat is not None
    seat, slot, card = cheat
    trump = full.trump
    referee = full.view((seat + 1) % 4)
    hands = {s: [c for _, c in known_hand(full.hand(s))] for s in range(4)}
    slots = {c: p for s in range(4) for p, c in full.hand(s)}
    referee.apply(Play(seat, slot, card))  # the referee cannot see the hand: it accepts
    hands[seat].remove(card)
    caught = None
    for _ in range(24):
        assert referee.phase is Phase.PLAY, "the hand ended with the renege unproven"
        actor, led = referee.to_act, referee.led_suit
        assert actor is not None
        if actor == seat:
            choice = rng.choice(hands[actor])
        else:
            following = [c for c in hands[actor] if led is not None and effective_suit(c, trump) == led]
            choice = rng.choice(following or hands[actor])
        try:
            referee.apply(Play(actor, slots[choice], choice))
        except Renege as err:
            caught = err
            break
        hands[actor].remove(choice)
    assert caught is not None and caught.seat == seat and caught.rule == "topper.renege"
    assert effective_suit(caught.proof, trump) == caught.suit


# ------------------------------------------------------------- stateful

seats = st.integers(-1, 4)
any_action = st.one_of(
    st.builds(Bid, seats, st.integers(-1, 8)),
    st.builds(PassBid, seats),
    st.builds(NameTrump, seats, st.sampled_from(list(Suit) + [3, "S"])),
    st.builds(Play, seats, st.integers(-1, 25), st.sampled_from(FULL_DECK)),
)


class TopperMachine(RuleBasedStateMachine):
    """Legal and arbitrary actions in any order: a refusal never changes anything."""

    @initialize(dealer=st.integers(0, 3), limit=st.sampled_from([3, 10]))
    def start(self, dealer: int, limit: int) -> None:
        self.state = TopperState.new(TopperConfig(deal_limit=limit, target_score=9), dealer)
        self.referee = self.state.view(0)

    @precondition(lambda self: self.state.awaiting_deal)
    @rule(deck=st.permutations(TOPPER_DECK))
    def deal(self, deck: list[Card]) -> None:
        self.state.deal(list(deck))
        self.referee.deal(faces_known_to(self.state, 0))

    @precondition(lambda self: self.state.to_act is not None)
    @rule(data=st.data())
    def legal(self, data: st.DataObject) -> None:
        action = data.draw(st.sampled_from(tuple(self.state.legal_actions())))
        self.state.apply(action)
        self.referee.apply(action)

    @precondition(lambda self: self.state.outcome is None)
    @rule(action=any_action)
    def arbitrary(self, action: TopperAction) -> None:
        before = self.state.copy()
        try:
            self.state.check(action)
            expected = None
        except RuleError as err:
            expected = type(err)
        try:
            self.state.apply(action)
        except RuleError as err:
            assert type(err) is expected and err.rule
            assert self.state == before
            return
        assert expected is None
        self.referee.apply(action)

    @precondition(lambda self: self.state.outcome is not None)
    @rule(action=any_action, deck=st.permutations(TOPPER_DECK))
    def after_the_end(self, action: TopperAction, deck: list[Card]) -> None:
        """A finished match refuses every action and any further deal, and stays as it was."""
        before = self.state.copy()
        with pytest.raises(RuleError):  # MatchOver, or BadAction first for no such seat
            self.state.apply(action)
        with pytest.raises(MatchOver):
            self.state.deal(list(deck))
        assert self.state == before and self.state.to_act is None

    @invariant()
    def consistent(self) -> None:
        check_invariants(self.state)
        assert self.referee == self.state.view(0)


TopperMachine.TestCase.settings = settings(max_examples=30, stateful_step_count=60, deadline=None)
test_stateful_refusals_never_change_the_state = TopperMachine.TestCase
