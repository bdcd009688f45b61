"""The browser seat takes a choice from the page as the full screen takes a key: the referee
checks it, an illegal one changes nothing and says why; the page's data offers only what
the rules allow now. Scripted tables (tests.ui.ui_scenes), no session, no browser."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest

from p2pcards.rules.bluff import Challenge, Discard, Pass
from p2pcards.rules.contract import Engine
from p2pcards.rules.topper import Bid, PassBid, Play
from p2pcards.ui.web import WebSeat
from p2pcards.ui.web.messages import BadMessage
from tests.support.typed import present
from tests.ui.ui_scenes import (
    bluff_lead,
    bluff_respond,
    c,
    seated_model,
    slots_of,
    topper_bidding,
    topper_lead,
    topper_play,
    topper_trump,
)


def deciding(view: Engine, check: Callable[[WebSeat, asyncio.Future[object]], Any]) -> Any:
    """Open a decision on ``view`` in a seat with no session, run ``check`` on it."""
    async def run() -> Any:
        seat = WebSeat(open_browser=False, echo=lambda text: None)
        asked = asyncio.ensure_future(seat.decide(view))
        await asyncio.sleep(0)
        try:
            return check(seat, asked)
        finally:
            if not asked.done():
                asked.cancel()
                await asyncio.wait({asked})
    return asyncio.run(run())


def key(key: str, *slots: int, **more: str) -> dict[str, Any]:
    return {"type": "key", "key": key, "slots": list(slots), **more}


def answer(seat: WebSeat, message: dict[str, Any]) -> object | None:
    """Send ``message`` from the page; the action the seat's decision took (None: none)."""
    pending = present(seat.agent.waiting)
    seat.receive(message)
    return pending.future.result() if pending.future.done() else None


def test_a_pass_and_a_call_from_the_page_are_the_referees_actions() -> None:
    assert deciding(bluff_respond().view(1), lambda seat, _: answer(seat, key("b"))) == Challenge(1)
    assert deciding(bluff_respond().view(1), lambda seat, _: answer(seat, key("p"))) == Pass(1)


def test_a_lead_discard_takes_its_cards_rank_and_stake_from_the_page() -> None:
    state = bluff_lead()
    slots = slots_of(state, 0, [c("QH"), c("QS")])

    action = deciding(state.view(0), lambda seat, _: answer(seat, key("d", *slots, rank="Q",
                                                                        stake="30")))
    assert isinstance(action, Discard)
    assert set(action.slots) == set(slots) and action.stake == 30 and action.rank == c("QH").rank


@pytest.mark.parametrize(("message", "why"), [
    (key("d", rank="Q", stake="10"), "select the cards to discard first"),
    (key("d", 0, 1, 2, 3, 4, rank="Q", stake="10"), "1 to 4"),
    (key("x"), "does nothing here"),
])
def test_an_illegal_choice_changes_nothing_and_says_why(message: dict[str, Any], why: str) -> None:
    state = bluff_lead()
    hand = [slot for slot, _ in state.hand(0)]
    message = {**message, "slots": [hand[i] for i in message["slots"]]}

    def check(seat: WebSeat, asked: asyncio.Future[object]) -> tuple[bool, str]:
        seat.receive(message)
        kind, text = present(seat.message)
        return asked.done(), f"{kind}: {text}"
    done, said = deciding(state.view(0), check)
    assert not done
    assert said.startswith("error: Not accepted:") and why in said


def test_a_stake_beyond_the_stack_or_a_rank_that_is_none_is_refused_by_the_rules() -> None:
    state = bluff_lead()
    slot = slots_of(state, 0, [c("QH")])[0]
    for more, why in (({"rank": "Q", "stake": "100000"}, "stake"), ({"rank": "Z", "stake": "10"},
                                                                     "is not a rank")):
        def check(seat: WebSeat, asked: asyncio.Future[object], more: dict[str, str] = more) -> str:
            seat.receive(key("d", slot, **more))
            assert not asked.done()
            return present(seat.message)[1]
        assert why in deciding(state.view(0), check)


def test_a_card_that_does_not_follow_suit_is_refused_and_the_page_dims_it() -> None:
    view = topper_play().view(1)  # hearts trump, a trump led: seat 1 must follow hearts

    def check(seat: WebSeat, asked: asyncio.Future[object]) -> tuple[dict[str, Any], str, bool]:
        hand = {card["face"]: card for card in seat.parts()["table"]["hand"]["cards"]}  # type: ignore[index]
        assert answer(seat, key("enter", hand["QC"]["slot"])) is None
        refused = present(seat.message)[1]
        played = answer(seat, key("enter", hand["KH"]["slot"]))
        return hand, refused, played == Play(1, hand["KH"]["slot"], c("KH"))
    hand, refused, played = deciding(view, check)
    assert {face for face, card in hand.items() if card["playable"]} == {"KH", "9H"}
    assert "Not accepted" in refused and "follow" in refused
    assert played


def test_the_page_offers_only_the_legal_bids_and_the_trump_suits() -> None:
    def controls(view: Engine) -> dict[str, Any]:
        def check(seat: WebSeat, asked: asyncio.Future[object]) -> dict[str, Any]:
            return seat.parts()["table"]["controls"]  # type: ignore[index, no-any-return]
        return deciding(view, check)  # type: ignore[no-any-return]

    state = topper_bidding()
    state.apply(Bid(0, 3))
    bidding = controls(state.view(1))
    assert bidding["bids"] == [4, 5, 6] and bidding["can_pass"] and bidding["bidding"]
    assert [s["key"] for s in controls(topper_trump().view(0))["suits"]] == ["c", "d", "h", "s"]
    lead = controls(topper_lead().view(0))
    assert lead["select"] == "one" and len(lead["playable"]) == 6
    respond = controls(bluff_respond().view(1))
    assert respond["discard"]["rank"] == "Q" and not respond["discard"]["lead"]
    assert {k["key"] for k in respond["keys"]} == {"d", "p", "b"}
    assert controls(bluff_lead().view(0))["discard"]["ranks"][-1] == "A"


def test_a_bid_from_the_page() -> None:
    assert deciding(topper_bidding().view(0), lambda seat, _: answer(seat, key("4"))) == Bid(0, 4)
    assert deciding(topper_bidding().view(0), lambda seat, _: answer(seat, key("p"))) == PassBid(0)


def test_a_choice_when_it_is_not_your_turn_is_refused() -> None:
    seat = WebSeat(open_browser=False, echo=lambda text: None)
    seat.receive(key("p"))
    assert present(seat.message)[1] == "Not accepted: it is not your turn: nothing was played"


@pytest.mark.parametrize("message", [
    {"type": "key", "key": "p", "slots": "all"}, {"type": "key", "key": "p", "slots": [True]},
    {"type": "key", "key": ["p"]}, {"type": "end", "choice": "again"}, {"type": "dance"},
    {"type": "key", "key": "p", "slots": list(range(100))},
])
def test_a_message_the_table_does_not_take_is_a_precise_error(message: dict[str, Any]) -> None:
    seat = WebSeat(open_browser=False, echo=lambda text: None)
    with pytest.raises(BadMessage):
        seat.receive(message)


def test_the_seats_are_placed_around_this_player_clockwise() -> None:
    seat = WebSeat(open_browser=False, echo=lambda text: None)
    seat.model = seated_model(me=1)
    table = seat.parts()["table"]
    placed = [(s["place"], s["seat"]) for s in table["seats"]]  # type: ignore[index]
    assert placed == [("bottom", 1), ("left", 2), ("top", 3), ("right", 0)]
    assert table["seats"][0]["name"] == "You (Bob)"  # type: ignore[index]


def test_the_help_and_the_reactions_come_with_the_page() -> None:
    seat = WebSeat(open_browser=False, echo=lambda text: None)
    help_part = seat.parts()["help"]
    assert len(help_part["rules"]) == 2  # type: ignore[index]  # both games before one is known
    assert help_part["reactions"][0] == "gg"  # type: ignore[index]
    assert any(row[0] == "q" for row in help_part["keys"])  # type: ignore[index]
    json.dumps(seat.parts())  # all of it is JSON


class Filler:
    """The host's end box count: one seat free until a bot takes it."""

    def __init__(self) -> None:
        self.seat_free = True

    def fill_free_seat(self) -> str | None:
        self.seat_free = False
        return 'End box: "Kai"\'s seat goes to the bot "Dee".'


def test_the_end_box_shows_the_results_takes_again_and_lets_the_host_fill_a_seat() -> None:
    from p2pcards.net.session_events import SessionResult
    from p2pcards.protocol import events as proto
    from tests.ui.test_tui_screen import _outcome, seat_everyone

    async def run() -> tuple[Any, Any, list[str], bool]:
        said: list[str] = []
        seat = WebSeat(offer_again=True, again_label="again (a rematch, seats rotated)",
                       open_browser=False, echo=said.append)
        await seat.start()
        try:
            seat_everyone(seat, 0)

            async def session() -> SessionResult:
                seat.on_event(proto.MatchCompleted(_outcome()))
                return SessionResult(outcome=_outcome())
            playing = asyncio.ensure_future(seat.play(session()))
            while not seat.end_ready:
                await asyncio.sleep(0.01)
            seat.filler = Filler()
            seat.waiting('End box: waiting for "Kai" to choose (at most 120 s, then the '
                         'evening ends).')
            before = seat.parts()["table"]
            seat.receive({"type": "fill"})
            after = seat.parts()["table"]
            seat.receive({"type": "end", "choice": "again"})
            await asyncio.wait_for(playing, 5)
            return before, after, said, seat.again
        finally:
            await seat.stop()
    before, after, said, again = asyncio.run(run())
    ending = before["ending"]
    assert ending["title"] == "MATCH OVER" and ending["ready"] and ending["fill"]
    assert ending["again"] == "again (a rematch, seats rotated)"
    assert [row["winner"] for row in ending["results"]] == [False, False, True, False]
    assert ending["results"][0]["name"].startswith("You (")
    assert before["status"]["text"].startswith('End box: waiting for "Kai"')
    assert not after["ending"]["fill"]
    assert 'End box: "Kai"\'s seat goes to the bot "Dee".' in said
    assert again
