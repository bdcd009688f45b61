"""Random whole matches and random (mostly illegal) actions, with the invariants after every step.

Invariants: 52 cards conserved (hands + pile + out of play), chips conserved,
exactly one seat to act unless a deal is awaited or the match is over, an
empty stack only for a seat that is out or has a stake on the table, a view
never holds another seat's hidden card, peers' referees agree with the full
engine, and a match ends within a bound.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from p2pcards.bots.base import play_local_match, shuffled_faces
from p2pcards.bots.bluff import HeuristicBluffBot, RandomBluffBot
from p2pcards.cards import FULL_DECK, Rank
from p2pcards.rules.bluff import (
    Action,
    BluffConfig,
    BluffState,
    Challenge,
    Discard,
    Pass,
    Phase,
    Reveal,
)
from p2pcards.rules.errors import RuleError

#: Far above any match seen (a few hundred steps); the rules bound it (see bluff.py).
MATCH_STEP_BOUND = 20_000


def assert_invariants(state: BluffState) -> None:
    config = state.config
    assert sum(state.stacks) + state.safe_box + state.table_stake == config.total_chips
    assert min(state.stacks) >= 0 and state.safe_box >= 0 and state.table_stake >= 0

    if state.deal_number:
        hands = [{h.slot for h in state.hand(seat)} for seat in range(4)]
        pile, gone = set(state.pile), set(state.out_of_play)
        assert sum(map(len, hands)) + len(pile) + len(gone) == 52
        assert set().union(*hands, pile, gone) == set(range(52))
        for seat, hand in enumerate(hands):
            assert all(slot % 4 == seat for slot in hand)
            if state.out[seat]:
                assert not hand and state.stacks[seat] == 0

    if state.outcome is not None:
        assert state.phase is Phase.MATCH_OVER and state.to_act is None
    elif state.awaiting_deal:
        assert state.to_act is None and state.table_stake == 0
    else:
        assert state.to_act is not None
        seat = state.to_act
        assert seat in range(4) and not state.out[seat]
        if state.phase is Phase.REVEAL:
            assert seat == state.discarder
        else:
            assert state.hand(seat) and state.stacks[seat] > 0
    assert (state.table_stake > 0) == (state.discarder is not None)
    for seat in range(4):
        if state.stacks[seat] == 0:
            assert state.out[seat] or state.discarder == seat

    shown = {slot for slot, _ in state.revealed}
    for seat in range(4):
        view = state.view(seat)
        for slot in range(52):
            if view.face(slot) is not None:
                assert slot % 4 == seat or slot in shown


class Table:
    """A full engine with the four peers' referees fed alongside."""

    def __init__(self, config: BluffConfig, leader: int, seed: int, heuristic: int = -1) -> None:
        self.full = BluffState.new(config, leader)
        self.peers = [BluffState.new(config, leader) for _ in range(4)]
        self.rng = random.Random(seed)
        self.bots = [HeuristicBluffBot(random.Random(seed + s)) if s == heuristic
                     else RandomBluffBot(random.Random(seed + s)) for s in range(4)]

    def deal(self) -> None:
        faces = shuffled_faces(FULL_DECK, self.rng)
        self.full.deal(faces)
        for seat, peer in enumerate(self.peers):
            peer.deal([face if p % 4 == seat else None for p, face in enumerate(faces)])

    def act(self, action: Action) -> None:
        events = self.full.apply(action)
        for peer in self.peers:
            assert peer.apply(action) == events

    def step(self) -> None:
        if self.full.awaiting_deal:
            self.deal()
        else:
            seat = self.full.to_act
            assert seat is not None
            self.act(self.bots[seat].choose(self.full.view(seat)))

    def assert_agree(self) -> None:
        for seat, peer in enumerate(self.peers):
            assert peer.public() == self.full.public()
            assert peer.snapshot()[1] == self.full.view(seat).snapshot()[1]


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), chips=st.sampled_from([None, 40, 120]),
       heuristic=st.integers(-1, 3), leader=st.integers(0, 3))
def test_random_matches_keep_every_invariant_and_end(seed: int, chips: int | None, heuristic: int,
                                                    leader: int) -> None:
    table = Table(BluffConfig(starting_chips=chips), leader, seed, heuristic)
    for _ in range(MATCH_STEP_BOUND):
        if table.full.outcome is not None:
            break
        table.step()
        assert_invariants(table.full)
        table.assert_agree()
    outcome = table.full.outcome
    assert outcome is not None
    assert sum(outcome.chips) == table.full.config.total_chips
    assert outcome.winners and all(outcome.chips[w] == max(outcome.chips)
                                   for w in outcome.winners)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), cap=st.integers(1, 3))
def test_matches_with_a_deal_cap_end_after_at_most_that_many_deals(seed: int, cap: int) -> None:
    state = BluffState.new(BluffConfig(deal_cap=cap), seed % 4)
    bots = [HeuristicBluffBot(random.Random(seed + s)) for s in range(4)]
    state = play_local_match(state, bots, FULL_DECK, random.Random(seed),
                             max_steps=MATCH_STEP_BOUND)
    assert state.outcome is not None
    assert state.outcome.deals <= cap and state.deal_number <= cap


ARBITRARY_ACTIONS = st.one_of(
    st.builds(Pass, st.integers(-1, 4)),
    st.builds(Challenge, st.integers(-1, 4)),
    st.builds(Discard, st.integers(-1, 4),
              st.lists(st.integers(-1, 53), max_size=5).map(tuple),
              st.integers(-5, 600),
              st.none() | st.sampled_from(list(Rank))),
    st.builds(Reveal, st.integers(-1, 4),
              st.lists(st.sampled_from(FULL_DECK), max_size=4).map(tuple)),
)


class BluffMachine(RuleBasedStateMachine):
    """Legal play interleaved with arbitrary actions, which must be refused cleanly."""

    @initialize(seed=st.integers(0, 2**32 - 1), chips=st.sampled_from([15, 40, 500]))
    def start(self, seed: int, chips: int) -> None:
        self.table = Table(BluffConfig(starting_chips=chips), seed % 4, seed)

    @precondition(lambda self: self.table.full.outcome is None)
    @rule()
    def legal_step(self) -> None:
        self.table.step()

    @rule(action=ARBITRARY_ACTIONS)
    def arbitrary_action(self, action: Action) -> None:
        full = self.table.full
        before = full.snapshot()
        try:
            full.check(action)
        except RuleError as refused:
            with pytest.raises(type(refused)) as again:
                full.apply(action)
            assert (again.value.seat, again.value.rule) == (refused.seat, refused.rule)
            assert full.snapshot() == before
        else:
            self.table.act(action)

    @invariant()
    def invariants_hold(self) -> None:
        assert_invariants(self.table.full)
        self.table.assert_agree()


BluffMachine.TestCase.settings = settings(max_examples=25, stateful_step_count=80,
                                          deadline=None)
test_arbitrary_actions_never_corrupt_the_referee = BluffMachine.TestCase
