"""The Topper search makes exactly the choices it made before it was made faster.

A regression test of behaviour, not of correctness: the expected values below
were generated once, by running the search as it stood before the speed-up
(main at 1495e02), on seeded positions across bidding, trump and play, early
and late in a hand, at ``easy`` and ``normal``. Arena figures measured with
that code stay valid for the faster one only if every choice, and every
random draw behind it, is the same; so each case pins both the action and
the next number the bot's generator gives after the decision (a search that
drew one number more or less would shift it). The ceilings are set out of
reach so the test is about the work done, not the time it took.

If a change is *meant* to alter the search's decisions, regenerate these
values with the new code and say so in the commit.
"""

from __future__ import annotations

import random

import pytest

from p2pcards.bots.registry import make_bot_factory
from p2pcards.bots.topper_search import SearchTopperBot
from p2pcards.rules.topper import TopperState

from .seeded_matches import seeded_positions

#: A ceiling no decision here comes near, CPU and clock alike.
GENEROUS = 3600.0


# (level, step of the match of seed 0, phase, the action chosen, the bot's next random draw)
CASES = [
    ("easy", 1, "bidding", "Bid(seat=1, tricks=2)", 0.5796272486365658),
    ("easy", 3, "bidding", "PassBid(seat=3)", 0.8858745661794234),
    ("easy", 4, "trump", "NameTrump(seat=3, suit=<Suit.CLUBS: 0>)", 0.03866725932768178),
    ("easy", 5, "play", "Play(seat=3, slot=11, card=Card(AC))", 0.6534342233286488),
    ("easy", 6, "play", "Play(seat=0, slot=4, card=Card(10H))", 0.9133812803685247),
    ("easy", 8, "play", "Play(seat=2, slot=18, card=Card(QS))", 0.2603320912607301),
    ("easy", 11, "play", "Play(seat=1, slot=1, card=Card(9C))", 0.3669207785547728),
    ("easy", 12, "play", "Play(seat=2, slot=10, card=Card(9H))", 0.6853034864659705),
    ("easy", 19, "play", "Play(seat=1, slot=5, card=Card(JS))", 0.8430341432543319),
    ("easy", 21, "play", "Play(seat=1, slot=13, card=Card(KS))", 0.7392194892841933),
    ("easy", 32, "bidding", "PassBid(seat=0)", 0.030368881760110655),
    ("easy", 33, "trump", "NameTrump(seat=0, suit=<Suit.CLUBS: 0>)", 0.6520435682196486),
    ("easy", 34, "play", "Play(seat=0, slot=0, card=Card(9C))", 0.6362930638451109),
    ("easy", 44, "play", "Play(seat=0, slot=0, card=Card(9C))", 0.26429826453329863),
    ("easy", 62, "play", "Play(seat=0, slot=12, card=Card(10C))", 0.577527127786977),
    ("easy", 72, "play", "Play(seat=3, slot=11, card=Card(9D))", 0.49906460968326727),
    ("easy", 79, "play", "Play(seat=1, slot=5, card=Card(QH))", 0.1845123969366501),
    ("easy", 89, "play", "Play(seat=0, slot=4, card=Card(JC))", 0.05899107460591824),
    ("easy", 100, "play", "Play(seat=1, slot=17, card=Card(9D))", 0.5929789920538362),
    ("easy", 102, "play", "Play(seat=1, slot=17, card=Card(9D))", 0.8306096485175011),
    ("normal", 1, "bidding", "Bid(seat=1, tricks=3)", 0.13834602021179643),
    ("normal", 3, "bidding", "PassBid(seat=3)", 0.8557853853114203),
    ("normal", 4, "trump", "NameTrump(seat=3, suit=<Suit.CLUBS: 0>)", 0.5647888170949713),
    ("normal", 8, "play", "Play(seat=2, slot=18, card=Card(QS))", 0.2782435764329181),
    ("normal", 19, "play", "Play(seat=1, slot=5, card=Card(JS))", 0.8362409044810608),
    ("normal", 33, "trump", "NameTrump(seat=0, suit=<Suit.SPADES: 3>)", 0.7152590842221709),
    ("normal", 72, "play", "Play(seat=3, slot=19, card=Card(QS))", 0.4492503752762448),
    ("normal", 89, "play", "Play(seat=0, slot=12, card=Card(KD))", 0.223061452083271),
]


@pytest.fixture(scope="module")
def match() -> dict[int, TopperState]:
    """Full states along the seeded match of seed 0, by step."""
    return {step: state.copy() for step, state in seeded_positions(0, 120)}


@pytest.mark.parametrize(("level", "step", "phase", "action", "draw"), CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES])
def test_the_search_decides_and_draws_as_it_did_before_it_was_made_faster(
        match: dict[int, TopperState], level: str, step: int, phase: str, action: str,
        draw: float) -> None:
    state = match[step]
    assert state.phase.value == phase  # the position is the one the values were made from
    rng = random.Random(1000 + step)
    bot = make_bot_factory("topper", "search", level)(rng)
    assert isinstance(bot, SearchTopperBot)
    bot.ceiling = bot.wall_ceiling = GENEROUS
    assert state.to_act is not None
    assert repr(bot.choose(state.view(state.to_act))) == action
    assert rng.random() == draw
