"""Views, peers' referees, determinization, legal actions and replay of the Bluff referee."""

from __future__ import annotations

import random

import pytest

from p2pcards.bots.base import shuffled_faces
from p2pcards.bots.bluff import RandomBluffBot
from p2pcards.cards import FULL_DECK, Card, Rank
from p2pcards.rules.bluff import (
    Action,
    BluffConfig,
    BluffState,
    Challenge,
    ChallengeResolved,
    Discard,
    Pass,
    Phase,
    Reveal,
    faces_for_hands,
)
from p2pcards.rules.bluff.errors import StakeTooLow
from tests.rules.expect import each, known

ACES = [Card.parse(t) for t in ["AS", "AH", "AD", "AC"]]
FACES = faces_for_hands({0: ACES}, FULL_DECK)


def dealt(leader: int = 0) -> BluffState:
    state = BluffState.new(BluffConfig(), leader)
    state.deal(FACES)
    return state


def known_slots(state: BluffState) -> set[int]:
    return {slot for slot in range(52) if state.face(slot) is not None}


def test_view_holds_its_own_dealt_slots_only() -> None:
    view = dealt().view(2)
    assert known_slots(view) == set(range(2, 52, 4))
    assert view.viewer == 2


def test_view_hides_an_unchallenged_discard_from_other_seats() -> None:
    state = dealt()
    state.apply(Discard(0, (0, 4), 10, Rank.ACE))
    for seat in (1, 2, 3):
        assert state.view(seat).face(0) is None and state.view(seat).face(4) is None
    assert state.view(0).face(0) == ACES[0]


def test_view_shows_a_challenged_discard_to_every_seat() -> None:
    state = dealt()
    state.apply(Discard(0, (0, 4), 10, Rank.TWO))
    state.apply(Challenge(1))
    state.apply(Reveal(0, (ACES[0], ACES[1])))
    for seat in range(4):
        view = state.view(seat)
        assert view.face(0) == ACES[0] and view.face(4) == ACES[1]
        assert view.face(8) == (ACES[2] if seat == 0 else None)


def test_view_keeps_every_public_fact() -> None:
    state = dealt()
    state.apply(Discard(0, (0, 4), 30, Rank.ACE))
    state.apply(Pass(1))
    view = state.view(3)
    assert view.public() == state.public()
    assert (view.stacks, view.safe_box, view.table_stake, view.named_rank) == \
        ((470, 490, 500, 500), 10, 30, Rank.ACE)
    assert view.last_claim is not None
    assert view.last_claim.seat == 0 and view.last_claim.count == 2
    assert view.hand_sizes == (11, 13, 13, 13) and len(view.pile) == 2


def test_view_of_a_view_knows_no_more_than_both() -> None:
    view = dealt().view(1).view(2)
    assert known_slots(view) == set()


def test_view_answers_options_and_legal_actions_for_its_seat() -> None:
    view = dealt().view(0)
    opts = view.options()
    assert opts is not None
    assert opts.seat == 0 and opts.must_lead and opts.hand == tuple(range(0, 52, 4))
    first = next(view.legal_actions())
    view.check(first)
    assert isinstance(first, Discard) and first.stake == 10


def test_view_applies_actions_with_unknown_faces() -> None:
    view = dealt().view(2)
    view.apply(Discard(0, (0,), 10, Rank.TWO))
    view.apply(Challenge(1))
    events = view.apply(Reveal(0, (ACES[0],)))
    assert isinstance(events[0], ChallengeResolved)
    assert events[0].bluff and view.face(0) == ACES[0] and view.to_act == 1


def test_referee_knowing_nothing_referees_every_public_rule() -> None:
    blind = BluffState.new(BluffConfig(), 0)
    blind.deal([None] * 52)
    blind.apply(Discard(0, (0,), 10, Rank.ACE))
    with pytest.raises(StakeTooLow):
        blind.apply(Discard(1, (1,), 5, None))
    blind.apply(Challenge(1))
    blind.apply(Reveal(0, (ACES[0],)))
    assert blind.to_act == 2 and blind.stacks[1] == 490


def test_legal_actions_default_to_the_minimum_stake() -> None:
    state = dealt()
    actions = list(state.legal_actions())
    # 13 ranks × (13 + 78 + 286 + 715) ways to pick 1..4 of 13 slots.
    assert len(actions) == 13 * 1092
    assert {a.stake for a in each(Discard, actions)} == {10}


def test_legal_actions_offer_each_given_stake_within_limits() -> None:
    state = dealt()
    state.apply(Discard(0, (0,), 10, Rank.ACE))
    actions = list(state.legal_actions(stakes=[5, 10, 20, 20, 600]))
    assert actions[:2] == [Pass(1), Challenge(1)]
    discards = each(Discard, actions[2:])
    assert {a.stake for a in discards} == {10, 20}
    assert len(discards) == 2 * 1092 and all(a.rank is Rank.ACE for a in discards)


def test_every_listed_action_passes_check() -> None:
    state = dealt()
    state.apply(Discard(0, (0, 4), 20, Rank.ACE))
    for action in state.legal_actions(stakes=[20, 35]):
        state.check(action)


def test_options_after_an_honest_challenge_forbid_a_second_challenge() -> None:
    state = dealt()
    state.apply(Discard(0, (0,), 10, Rank.ACE))
    state.apply(Challenge(1))
    state.apply(Reveal(0, (ACES[0],)))
    opts = state.options()
    assert opts is not None
    assert opts.seat == 2 and opts.can_pass and not opts.can_challenge and opts.can_discard
    assert Challenge(2) not in list(state.legal_actions())


def test_reveal_is_the_only_legal_action_of_a_challenged_discarder() -> None:
    state = dealt()
    state.apply(Discard(0, (0, 4), 10, Rank.ACE))
    state.apply(Challenge(1))
    assert state.phase is Phase.REVEAL
    assert list(state.view(0).legal_actions()) == [Reveal(0, (ACES[0], ACES[1]))]
    opts = state.view(0).options()
    assert opts is not None and opts.reveal_slots == (0, 4)


def test_determinize_keeps_what_the_seat_knows_and_fills_the_rest() -> None:
    state = dealt()
    state.apply(Discard(0, (0,), 10, Rank.TWO))
    state.apply(Challenge(1))
    state.apply(Reveal(0, (ACES[0],)))
    view = state.view(3)
    full = view.determinize(random.Random(5))
    assert full.viewer is None
    assert sorted(known(full.face(s) for s in range(52))) == sorted(FULL_DECK)
    for slot in known_slots(view):
        assert full.face(slot) == view.face(slot)
    assert full.public() == view.public()


def test_determinize_depends_only_on_the_rng_seed() -> None:
    view = dealt().view(1)
    one = view.determinize(random.Random(9))
    assert one == view.determinize(random.Random(9))
    assert one != view.determinize(random.Random(10))


def test_determinized_state_plays_on() -> None:
    full = dealt().view(1).determinize(random.Random(3))
    full.apply(Discard(0, (0,), 10, Rank.ACE))
    full.apply(Challenge(1))
    first = next(full.legal_actions())
    assert isinstance(first, Reveal) and first.faces == (full.face(0),)


def test_determinize_before_any_deal_is_the_same_state() -> None:
    state = BluffState.new(BluffConfig(), 0)
    assert state.determinize(random.Random(1)).snapshot() == state.snapshot()


def test_repr_names_no_card() -> None:
    text = repr(dealt())
    assert "Card(" not in text and not any(str(card) in text for card in FULL_DECK)


#: ("deal", faces) or ("act", action), in the order fed.
Fed = list[tuple[str, list[Card] | Action]]


def _transcript(seed: int, steps: int) -> tuple[BluffState, Fed]:
    """A seeded random match: the final state and everything fed to it."""
    rng = random.Random(seed)
    bots = [RandomBluffBot(random.Random(seed * 4 + s)) for s in range(4)]
    state = BluffState.new(BluffConfig(), seed % 4)
    fed: Fed = []
    for _ in range(steps):
        if state.outcome is not None:
            break
        if state.awaiting_deal:
            faces = shuffled_faces(FULL_DECK, rng)
            state.deal(faces)
            fed.append(("deal", faces))
            continue
        assert state.to_act is not None
        action = bots[state.to_act].choose(state.view(state.to_act))
        state.apply(action)
        fed.append(("act", action))
    return state, fed


def test_same_seed_gives_the_same_match() -> None:
    one, fed_one = _transcript(11, 400)
    two, fed_two = _transcript(11, 400)
    assert fed_one == fed_two and one == two
    other, _ = _transcript(12, 400)
    assert other != one


def test_replaying_a_transcript_gives_the_same_state() -> None:
    final, fed = _transcript(21, 400)
    replay = BluffState.new(BluffConfig(), 21 % 4)
    for kind, item in fed:
        if kind == "deal":
            assert isinstance(item, list)
            replay.deal(item)
        else:
            assert not isinstance(item, list)
            replay.apply(item)
    assert replay == final and replay.snapshot() == final.snapshot()


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_peer_referee_reaches_the_same_public_state_as_the_full_engine(seed: int) -> None:
    """Four referees each knowing one seat's faces, fed the full engine's actions."""
    _, fed = _transcript(seed, 3000)
    full = BluffState.new(BluffConfig(), seed % 4)
    peers = [BluffState.new(BluffConfig(), seed % 4) for _ in range(4)]
    for kind, item in fed:
        if kind == "deal":
            assert isinstance(item, list)
            full.deal(item)
            for seat, peer in enumerate(peers):
                peer.deal([face if p % 4 == seat else None for p, face in enumerate(item)])
        else:
            assert not isinstance(item, list)
            full_events = full.apply(item)
            for peer in peers:
                assert peer.apply(item) == full_events
        for seat, peer in enumerate(peers):
            assert peer.public() == full.public()
            assert peer.snapshot()[:2] == full.view(seat).snapshot()[:2]
    assert full.outcome is not None


def test_queries_refuse_seats_and_slots_that_do_not_exist() -> None:
    state = dealt()
    for query, bad in ((state.hand, -1), (state.hand, 4), (state.face, -1), (state.face, 52)):
        with pytest.raises(IndexError):
            query(bad)
