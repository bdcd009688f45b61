"""The Bluff belief: the count a seat makes, the certain-lie rule, what passes and stakes say,
and that it never rules out a claim that was true. Counts are checked against tallies
written here from the table's record and the seat's own cards."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from p2pcards.bots.bluff_belief import OF_A_RANK, TableBelief
from p2pcards.bots.bluff_record import passes, round_starts
from p2pcards.cards import FULL_DECK, Card, Rank
from p2pcards.rules.bluff import BluffState, Challenge, Discard, Pass
from p2pcards.rules.contract import faces_for_hands
from tests.bots.seeded_matches import bluff_states


def cards(text: str) -> list[Card]:
    return [Card.parse(word) for word in text.split()]


def dealt(hands: dict[int, list[Card]], leader: int = 0) -> BluffState:
    state = BluffState.new(None, leader)
    state.deal(faces_for_hands(hands, FULL_DECK))
    return state


def slots(state: BluffState, seat: int, count: int) -> tuple[int, ...]:
    return tuple(slot for slot, _ in state.hand(seat))[:count]


def played(seed: int, steps: int) -> BluffState:
    """A table after ``steps`` moves of four random bots (seeded)."""
    *_, state = bluff_states(seed, steps, bots_from=4)  # live: the table after the last move
    return state


# --- the count ---------------------------------------------------------------------------

def slot_of(state: BluffState, seat: int, face: str) -> int:
    return next(slot for slot, held in state.hand(seat) if held == Card.parse(face))


def test_the_count_takes_the_hand_the_own_discards_the_shown_cards_and_the_claims() -> None:
    """Dan holds AS AH. He sheds AH claimed as a King; then leads 2S as an Ace, Ann claims
    one more, Ben two (AC AD, true: Cat's call shows them). Dan counts 1 in hand, 1
    discarded, 2 shown, 1 claimed unseen: no Ace is left unseen, so Ann's is a certain lie."""
    state = dealt({0: cards("KS KH KD 2C 3C 4C 5C 6C 7C 8C 9C 10C JC"),
                   1: cards("AC AD 2D 3D 4D 5D 6D 7D 8D 9D 10D JD QD"),
                   3: cards("AS AH 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS")})
    state.apply(Discard(0, (slot_of(state, 0, "KS"),), 10, Rank.KING))
    state.apply(Pass(1))
    state.apply(Pass(2))
    state.apply(Discard(3, (slot_of(state, 3, "AH"),), 10, None))  # a King claimed: an Ace
    for seat in (0, 1, 2):
        state.apply(Pass(seat))  # the round is over: Dan leads
    state.apply(Discard(3, (slot_of(state, 3, "2S"),), 10, Rank.ACE))
    state.apply(Discard(0, (slot_of(state, 0, "2C"),), 10, None))
    state.apply(Discard(1, (slot_of(state, 1, "AC"), slot_of(state, 1, "AD")), 10, None))
    state.apply(Challenge(2))
    forced = state.forced_action()
    assert forced is not None
    state.apply(forced)
    assert state.to_act == 3
    count = TableBelief(state.view(3), 3).count(Rank.ACE)
    # Tallied here from Dan's cards and the record.
    in_hand = sum(1 for _, f in state.hand(3) if f is not None and f.rank is Rank.ACE)
    claimed = sum(c.count for c in state.claims if c.rank is Rank.ACE and c.seat != 3 and not c.revealed)
    shown = sum(1 for c in state.claims if c.faces and c.seat != 3 for f in c.faces if f.rank is Rank.ACE)
    assert (in_hand, shown, claimed) == (1, 2, 1)
    assert (count.in_hand, count.discarded, count.shown, count.claimed) == (in_hand, 1, shown, claimed)
    assert count.unseen == OF_A_RANK - 1 - 1 - 2 == 0
    assert count.at_most_true == 0 and count.certain_lies == 1
    ann = state.claims[-2]
    assert ann.seat == 0 and TableBelief(state.view(3), 3).chance_true(ann) == 0.0


# --- the certain-lie rule, and no false certainty ------------------------------------------

@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(5, 160), st.integers(0, 3))
def test_a_claim_beyond_the_unseen_cards_is_a_certain_lie_and_a_true_claim_is_never_ruled_out(
        seed: int, steps: int, judge: int) -> None:
    state = played(seed, steps)
    if state.awaiting_deal or state.outcome is not None:
        return
    view = state.view(judge)
    belief = TableBelief(view, judge)
    for claim in view.claims:
        faces = [view.face(slot) for slot in claim.slots]
        unknown = sum(1 for face in faces if face is None)
        seen = sum(1 for slot in range(52) if (f := view.face(slot)) is not None and f.rank == claim.rank)
        chance = belief.chance_true(claim)
        if unknown > OF_A_RANK - seen or any(f is not None and f.rank != claim.rank for f in faces):
            assert chance == 0.0, (seed, steps, judge, claim)
        elif unknown == 0:
            assert chance == 1.0
        truth = all(state.face(slot).rank == claim.rank for slot in claim.slots)  # type: ignore[union-attr]
        if truth:
            assert chance > 0.0, (seed, steps, judge, claim)


# --- what passes and stakes say ----------------------------------------------------------

def test_passes_are_read_from_the_record() -> None:
    """Ann leads, Ben passes, Cat answers: Ben passed on the rank; then Dan and Ann pass and
    Ben calls Cat (a bluff): Dan and Ann passed on it, and Ben leads the next round."""
    state = dealt({2: cards("2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC")})
    state.apply(Discard(0, slots(state, 0, 1), 10, Rank.SEVEN))
    state.apply(Pass(1))
    state.apply(Discard(2, slots(state, 2, 1), 10, None))  # 2C: not a seven
    assert passes(state.view(3)) == [(0.5, 1, Rank.SEVEN)]
    state.apply(Pass(3))
    state.apply(Pass(0))
    state.apply(Challenge(1))
    forced = state.forced_action()
    assert forced is not None
    state.apply(forced)
    view = state.view(1)
    assert passes(view) == [(0.5, 1, Rank.SEVEN), (1.5, 3, Rank.SEVEN), (1.5, 0, Rank.SEVEN)]
    state.apply(Discard(1, slots(state, 1, 1), 10, Rank.FOUR))
    assert round_starts(state.view(2)) == [0, 2]


def test_a_pass_makes_its_maker_less_likely_to_hold_the_rank() -> None:
    """One who holds the rank sheds it for free rather than pay for a pass."""
    state = dealt({})
    state.apply(Discard(0, slots(state, 0, 1), 10, Rank.NINE))
    before = TableBelief(state.view(2), 2).chance_holds(1, Rank.NINE)
    state.apply(Pass(1))
    after = TableBelief(state.view(2), 2).chance_holds(1, Rank.NINE)
    assert 0 < after < before < 1


def test_a_raised_stake_is_read_as_confidence() -> None:
    low, high = dealt({}), dealt({})
    low.apply(Discard(0, slots(low, 0, 2), 10, Rank.NINE))
    high.apply(Discard(0, slots(high, 0, 2), 60, Rank.NINE))
    believed = [TableBelief(s.view(1), 1).chance_true(s.claims[-1]) for s in (low, high)]
    assert 0 < believed[0] < believed[1] < 1


def test_claims_beyond_the_unseen_cards_share_the_doubt_and_a_lead_is_believed_most() -> None:
    """Dan holds two Aces; Ann leads one Ace, Ben and Cat answer one each: three claimed of
    the two unseen, so one at least lied. A leader named the rank (likely one he holds):
    his claim is believed most; Ben's and Cat's alike (nothing tells them apart)."""
    state = dealt({3: cards("AS AH 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS")})
    state.apply(Discard(0, slots(state, 0, 1), 10, Rank.ACE))
    state.apply(Discard(1, slots(state, 1, 1), 10, None))
    state.apply(Discard(2, slots(state, 2, 1), 10, None))
    belief = TableBelief(state.view(3), 3)
    first, second, third = (belief.chance_true(c) for c in state.claims)
    assert belief.count(Rank.ACE).certain_lies == 1
    assert 0 < third == second < first < 1  # which of the three lied is not certain
