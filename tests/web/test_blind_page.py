"""Only the seat's own view crosses into the browser: at every step of a seeded match, the
page's data for the person's seat names no card another seat holds or hid.

The seat is played through the page's own messages (what its buttons send), the
choices a seeded bot makes from the seat's pending view. After each event the seat
takes in, the whole page (every part the browser would be sent) is read, and every card
it names — a drawn card's face, a card written in a sentence — must be one this seat
was dealt, or one the rules had shown to every seat by then (a Topper card played, a
called Bluff discard): checked against the public replay of the very transcript, step
by step. The matches are one deal long, so "by then" is exact.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from p2pcards.cards import Card
from p2pcards.net.session_events import SessionEvent
from p2pcards.ui.replay_steps import Replay, load_saved, replay_saved
from p2pcards.ui.web import WebSeat
from tests.support.typed import present
from tests.support.webplay import page_message, seat_table

#: A card as the page draws it (``"face":"QH"``) or writes it (``Q♥``, ``QH``).
_FACE = re.compile(r'"face":"(10|[2-9JQKA])([CDHS])"')
_WRITTEN = re.compile(r"(?<![0-9A-Za-z])(10|[2-9JQKA])([♣♦♥♠])")
#: Topper names the two Jacks of trump once trump is named: a name, not a card's place.
_JACK_NAMES = re.compile(r"(Big|Little) Jack (J[♣♦♥♠])")


def named_cards(page: str) -> set[Card]:
    """Every card the page's JSON names, drawn or written."""
    text = _JACK_NAMES.sub("", page)
    found = {Card.parse(rank + suit) for rank, suit in _FACE.findall(text)}
    found |= {Card.parse(rank + suit) for rank, suit in _WRITTEN.findall(text)}
    return found


def cards_in(value: object) -> set[Card]:
    """The cards inside a view's public facts (claims shown, tricks played)."""
    if isinstance(value, Card):
        return {value}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return set().union(*(cards_in(getattr(value, f.name)) for f in dataclasses.fields(value)))
    if isinstance(value, (tuple, list, frozenset, set)):
        return set().union(*(cards_in(item) for item in value))
    if isinstance(value, dict):
        return cards_in(list(value.values()))
    return set()


def shown_by(record: Replay, position: int) -> set[Card]:
    """The cards the rules had shown every seat once messages ``0..position-1`` were in."""
    shown: set[Card] = set()
    for step in record.steps:
        if step.position < position and step.view is not None:
            shown |= cards_in(step.view.public())
    return shown


def mine_in(record: Replay) -> set[Card]:
    """The cards this seat ever held (its own record, its own secrets)."""
    me = present(record.me_seat)
    held: set[Card] = set()
    for step in record.steps:
        if step.view is not None:
            held |= {face for _, face in step.view.hand(me) if face is not None}
    return held


async def play_through_the_page(game: str, seed: int, root: Path) -> tuple[list[tuple[int, str]], Path]:
    """One seeded match, the seat played by page messages; each page read after each event,
    with the transcript's length then. The seat's saved folder."""
    pages: list[tuple[int, str]] = []
    async with seat_table(game, seed, root, serve=False) as table:
        seat: WebSeat = table.seat
        session = table.hosted.sessions[0]

        def read(event: SessionEvent) -> None:
            seat.on_event(event)
            position = session.table.next_position if session.table is not None else 0
            pages.append((position, json.dumps(seat.parts(), ensure_ascii=False)))

        session.on_event = read
        playing = asyncio.ensure_future(seat.play(table.hosted.result()))
        for _ in range(400):  # bounded: a one-deal match has far fewer decisions
            waiting = asyncio.ensure_future(_decision_or_end(seat, playing))
            await asyncio.wait_for(waiting, 120)
            if playing.done():
                break
            pending = present(seat.agent.waiting)
            seat.receive(page_message(table.chooser.choose(pending.view)))
            assert pending.future.done(), seat.message  # the page's choice was taken
            pages.append((present(session.table).next_position,
                          json.dumps(seat.parts(), ensure_ascii=False)))
        result = await playing
        assert result.outcome is not None, result
        folder = present(session.journal).directory
    return pages, folder


async def _decision_or_end(seat: WebSeat, playing: asyncio.Future[Any]) -> None:
    while seat.agent.waiting is None and not playing.done():
        await asyncio.sleep(0.01)


@pytest.mark.slow
@pytest.mark.parametrize(("game", "seed"), [("bluff", 11), ("topper", 12)])
def test_the_page_names_no_card_this_seat_may_not_know(game: str, seed: int, tmp_path: Path) -> None:
    pages, folder = asyncio.run(play_through_the_page(game, seed, tmp_path))
    own = replay_saved(load_saved(folder), own_hand=True)
    public = replay_saved(load_saved(folder), own_hand=False)
    assert own.deals == 1, "a one-deal match keeps 'shown by then' exact"
    mine = mine_in(own)
    assert len(mine) == (13 if game == "bluff" else 6)
    checked = 0
    for position, page in pages:
        named = named_cards(page)
        unknown = named - mine - shown_by(public, position)
        assert not unknown, f"at message {position} the page names {sorted(map(str, unknown))}"
        checked += bool(named - mine)
    assert len(pages) > 100
    assert checked > 5, "others' cards the rules showed appeared on the page, and were checked"


def test_the_check_sees_a_card_in_a_sentence_and_in_a_drawing() -> None:
    page = json.dumps({"log": ["Seat 1 (Bob) played Q♥."], "hand": [{"face": "10S"}],
                       "board": "Trump ♠ spades · Big Jack J♠ · Little Jack J♣"},
                      ensure_ascii=False, separators=(",", ":"))
    assert named_cards(page) == {Card.parse("QH"), Card.parse("10S")}
