"""The full-screen table's screen and keys with scripted views (no network): what it shows at
80×24 and larger, the action bar, questions, mouse, help, leaving, countdowns, the end."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Coroutine
from typing import Any, TypeVar

import pytest

from p2pcards.cards import Rank
from p2pcards.net.session_events import Decision, LinkDown, LinkUp, LobbyUpdate, SessionResult, TakePause, Waiting
from p2pcards.protocol import events as proto
from p2pcards.protocol.identity import fingerprint
from p2pcards.protocol.verdict import Verdict
from p2pcards.rules.bluff import Discard
from p2pcards.rules.bluff.events import BluffOutcome, Termination
from p2pcards.rules.topper import Play
from p2pcards.ui.plain import PlayerQuit
from tests.support.typed import present
from tests.ui.test_tui_harness import (
    CTRL_C,
    CTRL_U,
    ENTER,
    F1,
    HOME,
    PAGE_UP,
    RIGHT,
    click,
    drawn,
    headless,
    shows,
    wait_until,
)
from tests.ui.ui_scenes import NAMES, bluff_lead, bluff_respond, end_box_shown, topper_bidding, topper_play

KEYS = [bytes([seat + 1]) * 32 for seat in range(4)]
T = TypeVar("T")


def seat_everyone(screen: Any, me: int, bots: tuple[bool, ...] = (False, True, True, True)) -> None:
    """The lobby and the seat draw as the session reports them (player p at seat p)."""
    screen.on_event(LobbyUpdate("bluff", "Test table", {}, tuple(
        (KEYS[p], NAMES[p], bots[p]) for p in range(4))))
    screen.on_event(proto.PlayersSeated((0, 1, 2, 3), 0))
    screen.model.me = me


async def deciding(screen: Any, view: Any, term: Any) -> asyncio.Task[object]:
    task: asyncio.Task[object] = asyncio.ensure_future(screen.decide(view))
    await wait_until(lambda: screen.pending is not None, "a pending decision", term)
    await drawn(screen, term)
    return task


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(asyncio.wait_for(coro, timeout=60))


# --- what the table shows ------------------------------------------------------------------------

def test_bluff_at_80_by_24_shows_seats_board_hand_keys_and_log() -> None:
    async def scene() -> tuple[str, list[str]]:
        async with headless() as (screen, keys, term):
            seat_everyone(screen, 1)
            task = await deciding(screen, bluff_respond().view(1), term)
            text, lines = term.text, term.lines
            task.cancel()
            return text, lines
    text, lines = run(scene())
    assert len(lines) == 24 and all(len(line) == 80 for line in lines)
    for seat, _name in enumerate(NAMES):
        assert f"Seat {seat} · " in text
        if seat != 1:  # this player's own line gives the room to his turn and chips first
            assert fingerprint(KEYS[seat]) in text
    assert "You (Bob)" in text and "(bot)" in text
    assert "Safe box 0" in text and "on the table 20" in text
    assert "Named rank Q" in text and "pile 2 face down" in text
    assert "Last claim: Alice" in text and "2 cards as Q" in text and "stake 20" in text
    assert "stake 20 on table" in text  # by the discarder's seat
    assert "▶ YOUR TURN" in text
    assert " d  discard as Q" in text and " p  pass (10)" in text and " b  Bluff!" in text
    hand_row = next(line for line in lines if "K♥" in line and "2♦" in line)
    assert hand_row.split() == ["2♦", "3♦", "4♦", "5♦", "6♦", "7♦", "8♦", "9♦", "10♦",
                                "J♦", "K♦", "K♥", "K♠"]
    assert "Seats drawn" in text  # the log


def test_the_seats_sit_clockwise_from_this_player_at_the_bottom() -> None:
    async def scene() -> list[str]:
        async with headless() as (screen, keys, term):
            seat_everyone(screen, 2)
            screen.model.set_view(topper_bidding().view(2))
            await drawn(screen, term)
            return term.lines
    lines = run(scene())
    rows = {seat: next(i for i, line in enumerate(lines) if f"Seat {seat} · " in line)
            for seat in range(4)}
    columns = {seat: lines[rows[seat]].index(f"Seat {seat} · ") for seat in range(4)}
    assert rows[0] < rows[3] and rows[3] == rows[1] and rows[1] < rows[2]  # across, sides, me
    assert columns[3] < 5 and columns[1] > 40  # next seat (3) on the left, seat 1 on the right
    assert "You (Carol)" in lines[rows[2]]


def test_suits_are_coloured_and_cards_that_cannot_follow_are_dimmed() -> None:
    async def scene() -> tuple[Any, Any, Any, Any]:
        async with headless() as (screen, keys, term):
            seat_everyone(screen, 1)
            task = await deciding(screen, topper_play().view(1), term)
            row, col = term.find("K♥")
            cursor = term.char(row, col + 1)
            row, col = term.find("9♥")
            heart = term.char(row, col + 1)
            row, col = term.find("Q♣")
            club = term.char(row, col + 1)
            task.cancel()
            return cursor, heart, club, term.text
    cursor, heart, club, text = run(scene())
    assert heart.fg == "d70000" and heart.bg == "ffffff"  # a red suit, on a white card
    assert club.fg == "000000" and club.bg == "808080"  # black suit; cannot follow hearts: dimmed
    assert cursor.fg == "d70000" and cursor.bg == "87d7ff" and cursor.underscore  # the cursor
    assert "Trump " in text and "Big Jack J♥" in text and "Little Jack J♦" in text
    assert "Trick 1:" in text and "Alice J♦" in text


def test_the_trump_jacks_are_marked_under_the_cards() -> None:
    async def scene() -> list[str]:
        async with headless() as (screen, keys, term):
            seat_everyone(screen, 0)
            view = topper_play().view(0)
            screen.model.set_view(view)
            await drawn(screen, term)
            return term.lines
    lines = run(scene())
    faces = next(i for i, line in enumerate(lines) if "J♥" in line and "A♥" in line)
    assert lines[faces].split()[:2] == ["J♥", "A♥"]  # trumps first: Big Jack, then the ace
    marks = lines[faces + 1].split()
    assert marks[0] == "1★" and marks[1] == "2•"


def test_a_larger_window_gives_the_board_and_the_log_the_room() -> None:
    async def scene(columns: int, rows: int) -> tuple[list[str], int]:
        async with headless(columns, rows) as (screen, keys, term):
            seat_everyone(screen, 1)
            for i in range(40):
                screen.note(f"line {i}")
            screen.model.set_view(bluff_respond().view(1))
            await drawn(screen, term)
            return term.lines, sum(1 for line in term.lines if line.strip().startswith("line "))
    small, small_log = run(scene(80, 24))
    large, large_log = run(scene(120, 40))
    assert all(len(line) == 120 for line in large) and len(large) == 40
    assert large_log > small_log >= 3
    assert "line 39" in "\n".join(small) and "line 39" in "\n".join(large)
    board_row = next(line for line in large if "Last claim" in line)
    assert "stake 20" in board_row  # one line at 120 columns


# --- keys ----------------------------------------------------------------------------------------

def test_a_key_with_no_action_now_changes_nothing_and_says_why() -> None:
    async def scene() -> tuple[str, bool]:
        async with headless() as (screen, keys, term):
            seat_everyone(screen, 1)
            screen.model.set_view(bluff_respond().view(1))  # not deciding: no decision pending
            keys.send_text("p")
            await shows(term, "does nothing now")
            return term.text, screen.pending is None
    text, nothing = run(scene())
    assert nothing and "Not accepted: the key 'p' does nothing now" in text


def test_an_illegal_key_in_a_decision_explains_the_rule_and_the_decision_stays_open() -> None:
    async def scene() -> tuple[str, bool, Any]:
        async with headless() as (screen, keys, term):
            seat_everyone(screen, 0)
            view = bluff_lead().view(0)
            before = view.snapshot()
            task = await deciding(screen, view, term)
            keys.send_text("p")
            await shows(term, "you must discard")
            keys.send_text(HOME + (" " + RIGHT) * 5 + "d")
            await shows(term, "discard 1 to 4 cards, not 5")
            open_ = not task.done()
            task.cancel()
            return term.text, open_, view.snapshot() == before
    text, still_open, unchanged = run(scene())
    assert still_open and unchanged
    assert "Not accepted: you lead this round: you must discard" in text
    assert "Not accepted: discard 1 to 4 cards, not 5" in text


def test_leading_a_discard_asks_the_rank_and_the_stake_then_acts() -> None:
    async def scene() -> tuple[Any, str, str]:
        async with headless() as (screen, keys, term):
            seat_everyone(screen, 0)
            view = bluff_lead().view(0)
            task = await deciding(screen, view, term)
            keys.send_text(HOME + RIGHT * 10 + " " + RIGHT + " ")  # labels 11 and 12: QD QH
            keys.send_text("d")
            await shows(term, "claim which rank?")
            asked_rank = term.text
            keys.send_text("x" + ENTER)
            await shows(term, "'x' is not a rank")
            keys.send_text(CTRL_U + "q" + ENTER)
            await shows(term, "stake? (10 to 500)")
            asked_stake = term.text
            keys.send_text(CTRL_U + "30" + ENTER)
            return await asyncio.wait_for(task, 5), asked_rank, asked_stake
    action, asked_rank, asked_stake = run(scene())
    view = bluff_lead().view(0)
    queens = tuple(s for s, f in view.hand(0) if f is not None and f.rank == Rank.QUEEN)[:2]
    assert isinstance(action, Discard)
    assert set(action.slots) <= set(s for s, f in view.hand(0) if f is not None and f.rank == Rank.QUEEN)
    assert len(action.slots) == 2 and action.rank == Rank.QUEEN and action.stake == 30
    assert len(queens) == 2
    assert "Discard 2 cards: claim which rank?" in asked_rank
    assert "Discard 2 cards as Q: stake?" in asked_stake


def test_escape_cancels_the_question_and_keeps_the_selection() -> None:
    async def scene() -> tuple[list[int], str, bool]:
        async with headless() as (screen, keys, term):
            seat_everyone(screen, 1)
            task = await deciding(screen, bluff_respond().view(1), term)
            keys.send_text(" d")
            await shows(term, "stake?")
            keys.send_text("\x1b")
            await wait_until(lambda: screen.flow is None, "the question closed", term,
                             timeout=5)
            await drawn(screen, term)
            selected = list(screen.picker.selected)
            done = task.done()
            task.cancel()
            return selected, term.text, done
    selected, text, done = run(scene())
    assert len(selected) == 1 and not done
    assert "Discard cancelled" in text


def test_a_click_on_a_card_selects_it_and_marks_it() -> None:
    async def scene() -> tuple[list[int], str]:
        async with headless() as (screen, keys, term):
            seat_everyone(screen, 1)
            task = await deciding(screen, bluff_respond().view(1), term)
            row, column = term.find("5♦")
            keys.send_text(click(column, row))
            await wait_until(lambda: screen.picker.selected, "a selected card", term)
            await drawn(screen, term)
            mark_row = term.lines[row - 1]
            selected = list(screen.picker.selected)
            task.cancel()
            return selected, mark_row[column - 1:column + 3]
    selected, mark = run(scene())
    view = bluff_respond().view(1)
    five = next(s for s, f in view.hand(1) if f is not None and f.rank == Rank.FIVE)
    assert selected == [five] and "▼" in mark


def test_a_click_on_an_action_presses_its_key() -> None:
    async def scene() -> Any:
        async with headless() as (screen, keys, term):
            seat_everyone(screen, 1)
            task = await deciding(screen, bluff_respond().view(1), term)
            row, column = term.find(" pass (10)")
            keys.send_text(click(column + 2, row))
            return await asyncio.wait_for(task, 5)
    action = run(scene())
    assert type(action).__name__ == "Pass" and action.seat == 1


def test_topper_keys_bid_and_play_the_card_under_the_cursor() -> None:
    async def scene() -> tuple[Any, Any]:
        async with headless() as (screen, keys, term):
            seat_everyone(screen, 0)
            task = await deciding(screen, topper_bidding().view(0), term)
            keys.send_text("3")
            bid = await asyncio.wait_for(task, 5)
            view = topper_play().view(1)
            task = await deciding(screen, view, term)
            keys.send_text(HOME + RIGHT + ENTER)
            return bid, await asyncio.wait_for(task, 5)
    bid, play = run(scene())
    assert bid.tricks == 3 and bid.seat == 0
    assert isinstance(play, Play) and play.seat == 1


def test_help_shows_the_keys_and_any_key_closes_it() -> None:
    async def scene() -> tuple[str, Any, str]:
        async with headless() as (screen, keys, term):
            seat_everyone(screen, 0)
            screen.model.set_view(topper_bidding().view(0))
            keys.send_text("?")
            await shows(term, "Help")
            shown = term.text
            keys.send_text("x")
            await wait_until(lambda: screen.overlay is None, "help closed", term)
            keys.send_text(F1)
            await wait_until(lambda: screen.overlay == "help", "help again", term)
            overlay = screen.overlay
            keys.send_text(ENTER)
            await wait_until(lambda: screen.overlay is None, "help closed", term)
            await drawn(screen, term)
            return shown, overlay, term.text
    shown, overlay, after = run(scene())
    assert "Topper keys:" in shown and "c d h s" in shown and "bid that many tricks" in shown
    assert "Ctrl-C" in shown
    assert overlay == "help" and "Topper keys:" not in after


def test_the_log_scrolls_back_and_says_how_many_entries_are_newer() -> None:
    async def scene() -> str:
        async with headless() as (screen, keys, term):
            for i in range(30):
                screen.note(f"entry {i}")
            keys.send_text(PAGE_UP)
            await shows(term, "newer entries")
            return term.text
    text = run(scene())
    assert "↓ 5 newer entries" in text and "entry 29" not in text and "entry 24" in text


# --- leaving -------------------------------------------------------------------------------------

def test_q_asks_first_and_n_stays_then_y_leaves_the_decision() -> None:
    async def scene() -> tuple[str, bool, Any]:
        async with headless() as (screen, keys, term):
            seat_everyone(screen, 1)
            task = await deciding(screen, bluff_respond().view(1), term)
            keys.send_text("q")
            await shows(term, "Leave the table?")
            asked = term.text
            keys.send_text("n")
            await wait_until(lambda: screen.overlay is None, "the box closed", term)
            stayed = not task.done()
            keys.send_text("qy")
            with pytest.raises(PlayerQuit):
                await asyncio.wait_for(task, 5)
            return asked, stayed, screen.message
    asked, stayed, message = run(scene())
    assert "The other players are told" in asked and stayed
    assert message is not None and "Leaving" in message[1]


def test_ctrl_c_leaves_a_decision_at_once() -> None:
    async def scene() -> None:
        async with headless() as (screen, keys, term):
            seat_everyone(screen, 1)
            task = await deciding(screen, bluff_respond().view(1), term)
            keys.send_text(CTRL_C)
            with pytest.raises(PlayerQuit):
                await asyncio.wait_for(task, 5)
    run(scene())


class FakeSession:
    """Stands for a peer session: counts leave notices; its table ends when told to leave."""

    def __init__(self) -> None:
        self.left = 0
        self.table = None
        self.spectator = False
        self.replaying = None

    async def leave(self) -> None:
        self.left += 1


def test_leaving_outside_a_decision_sends_the_notice_and_stops_the_session() -> None:
    async def scene() -> tuple[Any, int, bool]:
        session = FakeSession()
        forever = asyncio.Event()
        async with headless(session=lambda: session) as (screen, keys, term):
            running = asyncio.ensure_future(forever.wait())
            playing = asyncio.ensure_future(screen.play(running))
            await drawn(screen, term)
            keys.send_text("q")
            await shows(term, "Leave the table?")
            keys.send_text("y")
            result = await asyncio.wait_for(playing, 5)
            return result, session.left, running.cancelled()
    result, left, cancelled = run(scene())
    assert left == 1 and cancelled
    assert isinstance(result, SessionResult) and result.reason == "left before the table started"


# --- the end of a table --------------------------------------------------------------------------

def _outcome() -> BluffOutcome:
    return BluffOutcome(Termination.DEAL_CAP, (2,), (400, 500, 700, 400), 1)


@pytest.mark.parametrize("again", [True, False])
def test_the_end_of_a_match_shows_the_results_and_offers_a_new_table_only_to_play(again: bool) -> None:
    async def scene() -> tuple[str, bool, str]:
        async with headless(offer_again=again) as (screen, keys, term):
            seat_everyone(screen, 0)
            playing, shown = await end_box_shown(screen, term, _outcome())
            keys.send_text("n")
            if not again:
                await wait_until(lambda: screen.message, "a word on the key", term)
                assert screen.message == ("info", "The table is over: q to leave.")
                keys.send_text("q")
            await asyncio.wait_for(playing, 5)
            return shown, screen.again, term.text
    shown, chose_again, _ = run(scene())
    assert "MATCH OVER" in shown and "Seat 2 (Carol) won" in shown
    assert "Seat 2 · Carol: 700 chips  ★ winner" in shown and "You (Alice): 400 chips" in shown
    assert ("a new table" in shown) == again
    assert chose_again == again


def test_a_verdict_is_shown_loudly_with_who_is_blamed() -> None:
    async def scene() -> tuple[str, Any]:
        async with headless() as (screen, keys, term):
            seat_everyone(screen, 0)
            verdict = Verdict("rules.bluff.reveal-count", (3,), 40, "revealed a card it was not dealt",
                              (b"x",))
            screen.on_event(proto.TableEnded(verdict))
            await shows(term, "TABLE ENDED")
            await drawn(screen, term)
            row, column = term.find("TABLE ENDED")
            return term.text, term.char(row + 1, column)
    text, cell = run(scene())
    assert "Seat 3 (Dave) broke a rule of the game" in text
    assert "revealed a card it was not\n   dealt" in text  # the referee's words, wrapped
    assert cell.bg == "870000"  # the red box


# --- what the session reports --------------------------------------------------------------------

def test_countdowns_for_this_player_and_for_the_seat_being_waited_for() -> None:
    async def scene() -> tuple[str, str]:
        now = [100.0]
        async with headless(clock=lambda: now[0]) as (screen, keys, term):
            seat_everyone(screen, 1)
            screen.model.set_view(bluff_respond().view(1))
            screen.on_event(Waiting(1, 142.0))
            await drawn(screen, term)
            mine = next(line for line in term.lines if "You (Bob)" in line)
            screen.on_event(Waiting(3, 108.0))
            now[0] = 100.5
            await drawn(screen, term)
            other = "\n".join(term.lines)
            return mine, other
    mine, other = run(scene())
    assert "▶ YOUR TURN 0:42" in mine
    assert "… working 0:08" in other


def test_link_state_and_the_shuffle_progress_are_shown() -> None:
    async def scene() -> tuple[str, str, str]:
        async with headless() as (screen, keys, term):
            seat_everyone(screen, 0)
            screen.on_event(LinkUp(False))
            screen.on_event(proto.ShuffleVerified(0, 0, True))
            screen.on_event(proto.ShuffleVerified(1, 0, False))
            await drawn(screen, term)
            shuffling = term.text
            screen.on_event(LinkDown("connection reset"))
            await drawn(screen, term)
            down = term.text
            screen.on_event(LinkUp(True))
            await drawn(screen, term)
            return shuffling, down, term.text
    shuffling, down, up = run(scene())
    assert "Shuffling: seat 2 of 4 verified…" in shuffling and "● connected" in shuffling
    # Two of four shuffles checked: no stage is done, so the folded log has no line yet.
    assert "shuffled deck 0" not in shuffling
    assert "● reconnecting" in down and "Lost the link to the host" in down
    assert "● connected" in up and "Reconnected to the host." in up


def test_the_log_folds_each_stage_of_checks_into_one_line_and_v_shows_every_check() -> None:
    async def scene() -> tuple[str, str]:
        async with headless() as (screen, keys, term):
            seat_everyone(screen, 0)
            for seat in range(4):
                screen.on_event(proto.ShuffleVerified(seat, 3, seat == 0))
            await drawn(screen, term)
            folded = term.text
            keys.send_text("v")
            await shows(term, "every single check")
            await drawn(screen, term)
            return folded, term.text
    folded, detailed = run(scene())
    assert folded.count("✓ Deck 3 shuffled by all four; every shuffle proof verified.") == 1
    assert "Seat 1 (Bob) shuffled deck 3; proof verified." not in folded
    assert "✓ Seat 1 (Bob) shuffled deck 3; proof verified." in detailed
    assert "✓ You shuffled deck 3 and proved the shuffle." in detailed


def test_the_lobby_lists_who_joined_with_fingerprints_and_bots() -> None:
    async def scene() -> str:
        async with headless() as (screen, keys, term):
            screen.on_event(LobbyUpdate("topper", "Friday", {}, (
                (KEYS[0], "Alice", False), (KEYS[1], "Ada", True))))
            await drawn(screen, term)
            return term.text
    text = run(scene())
    assert 'TOPPER · "Friday" · 2 of 4 joined' in text
    assert "1. Alice (host)" in text and "2. Ada (bot)" in text
    assert fingerprint(KEYS[0]) in text and fingerprint(KEYS[1]) in text
    assert "3. waiting for a player…" in text


class TableAtWork:
    """A table whose view must not be read now (a worker thread is changing it)."""

    player_at_seat = (0, 1, 2, 3)
    players = ()
    my_seat = 0
    engine = object()

    def view(self) -> Any:
        raise AssertionError("the table was read outside the session's own events")


def test_the_hosts_relay_events_never_read_the_table() -> None:
    from p2pcards.protocol.lobby import LobbyPlayer
    from p2pcards.protocol.relay import LobbyChanged

    async def scene() -> str:
        session = FakeSession()
        session.table = TableAtWork()  # type: ignore[assignment]
        async with headless(session=lambda: session) as (screen, keys, term):
            screen.on_event(LobbyChanged((LobbyPlayer(KEYS[0], "Alice", False),), 3))
            await drawn(screen, term)
            return term.text
    assert "Connecting to the table" in run(scene())


def test_a_lone_escape_is_not_held_back_half_a_second() -> None:
    from p2pcards.ui.tui.app import ESC_WAIT
    from p2pcards.ui.tui.screen import TableScreen
    screen = TableScreen(lambda: None)
    assert screen.app.ttimeoutlen == ESC_WAIT and screen.app.timeoutlen == ESC_WAIT
    assert ESC_WAIT <= 0.1  # prompt_toolkit's own default is 0.5 s (then 1 s for key chords)


def test_at_a_lan_table_a_deal_summary_counts_down_and_closes_by_itself() -> None:
    from p2pcards.ui.text_summary import Summary

    async def scene() -> tuple[str, Any, Any]:
        # Long enough that a loaded machine still draws the box before it closes.
        async with headless(summary_seconds=3.0) as (screen, keys, term):
            seat_everyone(screen, 0)
            screen.model.summary = Summary("Deal 2 over", ("Seat 1 (Bob) won the deal.",))
            screen.show_summary()
            await shows(term, "Deal 2 over")
            await drawn(screen, term)
            shown = term.text
            # The countdown (3 s) runs out: no key needed (bounded, not a fixed sleep).
            await wait_until(lambda: screen.overlay is None, "the summary closing itself", term)
            return shown, screen.overlay, screen.model.summary
    shown, overlay, summary = run(scene())
    assert "Seat 1 (Bob) won the deal." in shown
    assert re.search(r"the table goes on in [123] s", shown), shown  # counting down from 3
    assert overlay is None and summary is None


def test_at_30_and_10_seconds_left_your_turn_warns_and_rings_the_bell() -> None:
    async def scene() -> tuple[list[str | None], int]:
        now = [100.0]
        async with headless(clock=lambda: now[0]) as (screen, keys, term):
            rings = []
            screen.app.output.bell = lambda: rings.append(now[0])  # type: ignore[method-assign]
            seat_everyone(screen, 1)
            view = bluff_respond().view(1)
            deciding = asyncio.ensure_future(screen.decide(view))
            await wait_until(lambda: screen.pending is not None, "the decision", term)
            screen.on_event(Waiting(1, 160.0))
            seen = []
            for t in (110.0, 130.5, 131.0, 150.5, 151.0):
                now[0] = t
                screen.warn_of_the_clock()
                seen.append(screen.message[1] if screen.message else None)
            deciding.cancel()
            return seen, len(rings)
    seen, rings = run(scene())
    assert seen[0] is None  # 50 s left: nothing to say
    assert present(seen[1]).startswith("30 seconds left to move") and seen[2] == seen[1]
    assert present(seen[3]).startswith("10 seconds left to move") and seen[4] == seen[3]
    assert rings == 2  # once at 30, once at 10


def test_a_steps_away_in_your_turn_where_a_pause_is_left_and_is_refused_where_none_is() -> None:
    async def scene(pauses: int) -> tuple[Any, str]:
        async with headless() as (screen, keys, term):
            seat_everyone(screen, 1)
            loop = asyncio.get_running_loop()
            decision = Decision(7, 1, loop.time() + 90, NAMES, pauses)
            deciding = asyncio.ensure_future(screen.decide(topper_play().view(1), decision))
            await wait_until(lambda: screen.pending is not None, "the decision", term)
            keys.send_text("a")
            # Taken: the decision ends with the message; refused: the message alone.
            await wait_until(lambda: screen.message is not None and (deciding.done() or not pauses),
                             "a", term)
            outcome: Any = None
            if deciding.done():
                outcome = deciding.exception() or deciding.result()
            else:
                deciding.cancel()
            return outcome, screen.message[1] if screen.message else ""
    taken, said = run(scene(2))
    assert isinstance(taken, TakePause) and said.startswith("Away: 5 more minutes")
    refused, said = run(scene(0))
    assert refused is None and "away: no pause left" in said


def test_a_match_that_ends_under_a_deal_summary_shows_the_match_over_box_without_a_key() -> None:
    from p2pcards.ui.text_summary import Summary

    async def scene() -> tuple[str, Any]:
        # A LAN table's summary (a minute to go) is up when the match ends in the next deal.
        async with headless(summary_seconds=60.0) as (screen, keys, term):
            seat_everyone(screen, 0)
            screen.model.summary = Summary("Deal 6 over", ("Seat 1 (Bob) won the deal.",))
            screen.show_summary()
            await shows(term, "Deal 6 over")
            outcome = BluffOutcome(Termination.LAST_WITH_CHIPS, (2,), (0, 0, 2000, 0), 6)
            screen.on_event(proto.MatchCompleted(outcome))
            await shows(term, "MATCH OVER")
            return term.text, screen.overlay
    shown, overlay = run(scene())
    assert overlay is None and "Deal 6 over" not in shown
    assert "Seat 2 (Carol) won" in shown


def test_the_title_at_the_end_of_a_bluff_match_counts_the_deals_as_the_outcome_does() -> None:
    from p2pcards.rules.bluff import BluffConfig, BluffState
    from p2pcards.ui.tui.bars import title_line
    from tests.ui.ui_scenes import seated_model

    model = seated_model(0)
    state = BluffState.new(BluffConfig(deal_cap=20), 0)
    state._deal_number = 7  # the match ended during deal 7, after 6 deals won
    state._outcome = BluffOutcome(Termination.LAST_WITH_CHIPS, (2,), (0, 0, 2000, 0), 6)
    model.set_view(state.view(0))
    title = "".join(fragment[1] for fragment in title_line(model, 100))
    assert "over after 6 deals (cap 20)" in title and "deal 7" not in title


def test_the_title_says_no_clock_at_a_table_whose_lobby_sets_none() -> None:
    from p2pcards.ui.tui.bars import title_line

    def title(config: dict[str, object]) -> str:
        from p2pcards.ui.tui.model import ScreenModel
        model = ScreenModel()
        model.apply(LobbyUpdate("bluff", "Friday", config, ((KEYS[0], "Ann", False),)))
        return "".join(fragment[1] for fragment in title_line(model, 100))

    assert "no clock" in title({"move_time": 0})
    assert "no clock" not in title({"move_time": 120}) and "no clock" not in title({})


@pytest.mark.parametrize("ascii_look", [False, True])
def test_a_refusal_on_the_status_line_writes_cards_as_the_board_does(ascii_look: bool) -> None:
    from p2pcards.ui import console
    from tests.ui.ui_scenes import faces_in

    async def scene() -> str:
        async with headless() as (screen, keys, term):
            seat_everyone(screen, 1)
            task = await deciding(screen, topper_play().view(1), term)
            keys.send_text(HOME + RIGHT * 3 + ENTER)  # QC, off suit: hearts were led
            await shows(term, "you must follow hearts")
            await drawn(screen, term)
            task.cancel()
            return term.text
    console.choose_look(ascii_look)
    try:
        text = run(scene())
    finally:
        console.choose_look(None)
    status = next(line for line in text.split("\n") if "you must follow hearts" in line)
    if ascii_look:  # the ASCII look's stand-ins, cell for cell
        assert "[1] KH (trump)" in status
    else:
        assert "[1] K♥ (trump)" in status and not faces_in(status)


def test_a_window_too_small_shows_why_and_no_key_acts_unseen_but_ctrl_c() -> None:
    async def scene() -> tuple[str, Any, Any, str, bool]:
        async with headless(columns=60, rows=20) as (screen, keys, term):
            seat_everyone(screen, 1)
            task = await deciding(screen, bluff_respond().view(1), term)
            await shows(term, "Window too small for the table")
            small = term.text
            for key in ("q", "y", "p", "b", ENTER):  # leave, pass, call: none may act
                keys.send_text(key)
            await drawn(screen, term)
            await drawn(screen, term)
            acted = (task.done(), screen.overlay)
            # Made larger, the table is back as it was, the decision still open.
            term.columns, term.rows = 80, 24
            term.screen.resize(24, 80)
            await drawn(screen, term)  # a terminal tells a resize (SIGWINCH): a redraw
            await shows(term, "Your turn")
            back = term.text
            term.columns, term.rows = 60, 20
            term.screen.resize(20, 60)
            await drawn(screen, term)
            await shows(term, "Window too small")
            keys.send_text(CTRL_C)  # the way out the notice shows
            await wait_until(lambda: screen.agent.leaving, "Ctrl-C leaving", term)
            return small, acted, task.done(), back, screen.agent.leaving
    small, acted, done, back, leaving = run(scene())
    flat = " ".join(small.split())
    assert "60×20, it needs at least 80×24" in flat and "Ctrl-C leaves the table" in flat
    assert acted == (False, None) and "Leave the table?" not in back
    assert "Window too small" not in back and leaving


def test_away_against_bots_says_the_table_has_no_clock_not_that_no_pause_is_left() -> None:
    import math

    async def scene() -> str:
        async with headless() as (screen, keys, term):
            seat_everyone(screen, 1)
            decision = Decision(7, 1, math.inf, NAMES, 0)  # a table without a clock
            task = asyncio.ensure_future(screen.decide(topper_play().view(1), decision))
            await wait_until(lambda: screen.pending is not None, "the decision", term)
            keys.send_text("a")
            await wait_until(lambda: screen.message is not None, "a word on a", term)
            said = present(screen.message)[1]
            task.cancel()
            return said
    said = run(scene())
    assert "this table has no clock" in said and "no pause left" not in said


def test_a_lan_deal_summary_counts_down_on_screen_without_a_table_clock_running() -> None:
    from p2pcards.ui.text_summary import Summary

    async def scene() -> tuple[str, str]:
        now = [100.0]
        async with headless(summary_seconds=60.0, clock=lambda: now[0]) as (screen, keys, term):
            seat_everyone(screen, 0)  # no Waiting: no table clock ticks the screen
            screen.model.summary = Summary("Deal 6 over", ("Seat 1 (Bob) won the deal.",))
            screen.show_summary()
            await shows(term, "goes on in 60 s")
            first = term.text
            now[0] += 3.0
            await shows(term, "goes on in 57 s")  # redrawn by the screen's own tick
            return first, term.text
    first, later = run(scene())
    assert "Deal 6 over" in first and "Deal 6 over" in later
