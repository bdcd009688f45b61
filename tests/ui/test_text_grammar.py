"""Plural forms and pronouns agree in everything the text module says.

Whole matches of both games are played with bots; every event line, turn
line and board is rendered for every seat as "you", and every verdict is
said of "you" and of another seat. The checks look for the slips people
notice: "1 cards", "you leads", "you has", "seat 2 (Bob) go".
"""

from __future__ import annotations

import random
import re

import pytest

from p2pcards.bots.bluff import HeuristicBluffBot
from p2pcards.bots.topper import HeuristicTopperBot
from p2pcards.cards import FULL_DECK, TOPPER_DECK
from p2pcards.protocol import events as proto
from p2pcards.protocol.verdict import Verdict
from p2pcards.rules.bluff import BluffState
from p2pcards.rules.topper import TopperState
from p2pcards.ui.text import describe, render
from p2pcards.ui.text_bluff import turn_line as bluff_turn
from p2pcards.ui.text_events import _OFFENCES
from p2pcards.ui.text_topper import turn_line as topper_turn
from tests.support.typed import present
from tests.ui.ui_scenes import NAMES

NOUNS = "card|deal|hand|player|trick|chip|proof|message|share"
SINGULAR_WITH_PLURAL = re.compile(rf"(?<![\d.-])1 ({NOUNS})s\b")
PLURAL_WITH_SINGULAR = re.compile(rf"(?<![\d.-])(?:[02-9]|\d\d+) ({NOUNS})\b(?!s)")
#: "you" (alone or "you (seat 2)") followed by a third-person verb.
YOU_THIRD_PERSON = re.compile(
    r"\b[Yy]ou(?: \(seat \d\))? (has|is|was|leads|deals|bids|names|goes|opens|reports|does)\b")
#: a seat named in the third person followed by a first-person form of those verbs.
SEAT_FIRST_PERSON = re.compile(r"\b[Ss]eat \d \([^)]*\) (have|are|were|lead|deal|go|report)\b")


def slips(text: str) -> list[str]:
    found = []
    for pattern in (SINGULAR_WITH_PLURAL, PLURAL_WITH_SINGULAR, YOU_THIRD_PERSON,
                    SEAT_FIRST_PERSON):
        found += [match.group(0) for match in pattern.finditer(text)]
    return found


def test_the_checks_catch_the_slips_they_are_for() -> None:
    assert slips("1 cards; you leads it; Seat 2 (Bob) have no hearts; 3 deal") == [
        "1 cards", "3 deal", "you leads", "Seat 2 (Bob) have"]
    assert slips("1 card; you lead it; Seat 2 (Bob) has no hearts; 3 deals; 10 cards") == []


@pytest.mark.parametrize("game", ["bluff", "topper"])
def test_every_line_of_a_whole_match_agrees_for_every_seat_as_you(game: str) -> None:
    if game == "bluff":
        state = BluffState.new(None, 0)
        bots = [HeuristicBluffBot(random.Random(i)) for i in range(4)]
        deck, turn = FULL_DECK, bluff_turn
    else:
        state = TopperState.new(None, 0)  # type: ignore[assignment]
        bots = [HeuristicTopperBot(random.Random(i)) for i in range(4)]  # type: ignore[misc]
        deck, turn = TOPPER_DECK, topper_turn  # type: ignore[assignment]
    rng = random.Random(5)
    problems: list[str] = []
    for step in range(20000):
        if state.outcome is not None:
            break
        if state.awaiting_deal:
            faces = list(deck)
            rng.shuffle(faces)
            events = state.deal(faces)
        else:
            seat = present(state.to_act)
            events = state.apply(bots[seat].choose(state.view(seat)))
        for me in range(4):
            for event in events:
                problems += slips(describe(event, NAMES, me) or "")
            if step % 25 == 0 or state.outcome is not None:
                view = state.view(me)
                problems += slips(turn(view, NAMES, me)) + slips(render(view, NAMES, me))
    assert state.outcome is not None
    assert problems == [], sorted(set(problems))


def test_every_verdict_agrees_with_you_and_with_another_seat() -> None:
    seating = (2, 0, 3, 1)
    for rule in [*_OFFENCES, "rules.bluff.stake-too-low", "message.unknown"]:
        verdict = Verdict(rule, (0,), 40, "player 0 did something", (b"x",))
        for me in range(4):  # player 0 sits at seat 1: "you" once, another seat three times
            line = describe(proto.TableEnded(verdict), NAMES, me, seating)
            assert line and not slips(line), (rule, me, line)
            if me == 1:
                assert line.startswith("Table ended: You (seat 1) ") and "their" not in line, line
            else:
                assert line.startswith("Table ended: Seat 1 (Bob) "), line
                assert "you" not in line.lower().replace("your", "") and "your" not in line, line
