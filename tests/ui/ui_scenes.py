"""Scripted tables for the text front-end tests: known hands, known phases, and face spotting."""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Callable, Iterator
from typing import Any

from p2pcards.bots.base import shuffled_faces
from p2pcards.cards import FULL_DECK, TOPPER_DECK, Card, Suit
from p2pcards.rules.bluff import BluffState, Challenge, Discard, Reveal
from p2pcards.rules.topper import (
    Bid,
    NameTrump,
    PassBid,
    Play,
    TopperState,
    faces_for_hands,
)
from p2pcards.rules.topper.order import big_jack, little_jack

NAMES = ("Alice", "Bob", "Carol", "Dave")

# A card face written as text (QH, 10D): not inside a longer word or number.
_FACE = re.compile(r"(?<![0-9A-Za-z])(10|[2-9JQKA])([CDHS])(?![0-9A-Za-z])")


def faces_in(text: str) -> set[Card]:
    """Every card face that ``text`` writes out."""
    return {Card.parse(rank + suit) for rank, suit in _FACE.findall(text)}


def c(text: str) -> Card:
    return Card.parse(text)


def cards(text: str) -> list[Card]:
    return [c(t) for t in text.split()]


# --- Bluff ---------------------------------------------------------------------------

#: Seat 0 holds three queens and the clubs 2..J; labels: 2C=1 .. JC=10, QD=11, QH=12, QS=13.
BLUFF_HANDS = {
    0: cards("QH QS QD 2C 3C 4C 5C 6C 7C 8C 9C 10C JC"),
    1: cards("KH KS KD 2D 3D 4D 5D 6D 7D 8D 9D 10D JD"),
}


def bluff_lead() -> BluffState:
    """Deal 1, seat 0 to lead."""
    state = BluffState.new(None, 0)
    state.deal(faces_for_hands(BLUFF_HANDS, FULL_DECK))
    return state


def slots_of(state: BluffState, seat: int, faces: list[Card]) -> tuple[int, ...]:
    return tuple(next(s for s, g in state.hand(seat) if g == f) for f in faces)


def bluff_respond() -> BluffState:
    """Seat 0 led two queens (honest) at stake 20; seat 1 is to respond."""
    state = bluff_lead()
    state.apply(Discard(0, slots_of(state, 0, cards("QH QS")), 20, c("QH").rank))
    return state


def bluff_reveal() -> BluffState:
    """Seat 1 called seat 0's queens; seat 0 must reveal."""
    state = bluff_respond()
    state.apply(Challenge(1))
    return state


def bluff_after_honest_call() -> BluffState:
    """The call found QH QS; seat 2 is to act, the discard cannot be called again."""
    state = bluff_reveal()
    state.apply(Reveal(0, tuple(cards("QH QS"))))
    return state


def bluff_caught() -> BluffState:
    """Seat 1 discarded 2D claiming a queen, seat 2 called it: a bluff; seat 2 leads."""
    state = bluff_respond()
    state.apply(Discard(1, slots_of(state, 1, cards("2D")), 20, None))
    state.apply(Challenge(2))
    state.apply(Reveal(1, (c("2D"),)))
    return state


# --- Topper ----------------------------------------------------------------------------

TOPPER_HANDS = [
    cards("JH JD AH 9C 10S KS"),
    cards("KH 9H QC AC 9S QS"),
    cards("QH 10H JC KC AS JS"),
    cards("10C 9D 10D QD KD AD"),
]


def topper_bidding() -> TopperState:
    """Dealer 3: seat 0 bids first."""
    state = TopperState.new(None, 3)
    state.deal(faces_for_hands(TOPPER_HANDS))
    return state


def topper_after_bid() -> TopperState:
    """Seat 0 bid 2; seat 1 to bid."""
    state = topper_bidding()
    state.apply(Bid(0, 2))
    return state


def topper_trump() -> TopperState:
    """Everyone else passed: seat 0 must name trump."""
    state = topper_after_bid()
    for seat in (1, 2, 3):
        state.apply(PassBid(seat))
    return state


def play_card(state: TopperState, seat: int, card: Card) -> None:
    slot = next(s for s, f in state.hand(seat) if f == card)
    state.apply(Play(seat, slot, card))


def topper_play() -> TopperState:
    """Hearts trump; seat 0 led JD (the Little Jack: a trump lead); seat 1 must follow hearts."""
    state = topper_trump()
    state.apply(NameTrump(0, Suit.HEARTS))
    play_card(state, 0, c("JD"))
    return state


def topper_lead() -> TopperState:
    """Hearts trump, seat 0 to lead the first trick."""
    state = topper_trump()
    state.apply(NameTrump(0, Suit.HEARTS))
    return state


def known_to(view: Any) -> set[Card]:
    """Faces ``view`` holds (its own and those revealed), plus names every seat may read."""
    if isinstance(view, BluffState):
        return {f for f in (view.face(s) for s in range(52)) if f is not None}
    known = set(view.played_cards)
    if view.viewer is not None:
        known |= {f for _, f in view.hand(view.viewer) if f is not None}
    if view.trump is not None:
        known |= {big_jack(view.trump), little_jack(view.trump)}
    return known


def walk_match(state: Any, bots: list[Any], deck: tuple[Card, ...], rng: random.Random,
               max_steps: int = 5000) -> Iterator[Any]:
    """Yield the state before every action of a local match (deals done in between)."""
    for _ in range(max_steps):
        if state.outcome is not None:
            yield state
            return
        if state.awaiting_deal:
            state.deal(shuffled_faces(deck, rng))
            continue
        yield state
        seat = state.to_act
        state.apply(bots[seat].choose(state.view(seat)))
    raise AssertionError("the match did not end")


def full_deck(game: str) -> tuple[Card, ...]:
    return FULL_DECK if game == "bluff" else TOPPER_DECK


BotFactory = Callable[[random.Random], Any]


def panel_text(lines: Any) -> str:
    """Drawn lines (fragments) as plain text, one line each."""
    return "\n".join("".join(fragment[1] for fragment in line) for line in lines)


def seated_model(me: int = 1) -> Any:
    """A screen model of a Topper table with the seats drawn in join order, before the deal."""
    from p2pcards.rules.topper import TopperConfig, TopperState
    from p2pcards.ui.tui.model import ScreenModel, SeatInfo
    model = ScreenModel()
    model.lobby = tuple(SeatInfo(name, f"{i:04x}-0000-0000", False) for i, name in enumerate(NAMES))
    model.seating = (0, 1, 2, 3)
    model.me = me
    model.set_view(TopperState.new(TopperConfig(target_score=5), 0).view(me))
    return model


async def end_box_shown(screen: Any, term: Any, outcome: Any) -> tuple[asyncio.Future[Any], str]:
    """Play a session on ``screen`` that ends with ``outcome`` until its end box is
    drawn: the playing future (a key in the box ends it) and the screen's text then."""
    from p2pcards.net.session_events import SessionResult
    from p2pcards.protocol import events as proto
    from tests.ui.test_tui_harness import drawn, wait_until

    async def session() -> SessionResult:
        screen.on_event(proto.MatchCompleted(outcome))
        return SessionResult(outcome=outcome)
    playing = asyncio.ensure_future(screen.play(session()))
    await wait_until(lambda: screen.end_ready, "the end box", term)
    await drawn(screen, term)
    return playing, term.text
