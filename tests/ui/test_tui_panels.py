"""The full-screen table's panels, drawn without prompt_toolkit running: exact sizes at any
width, whole matches drawn at 80 and 120 columns, no hidden face ever drawn, the log's scroll,
and the model kept from events."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from p2pcards.bots.bluff import HeuristicBluffBot, RandomBluffBot
from p2pcards.bots.topper import HeuristicTopperBot, RandomTopperBot
from p2pcards.cards import Card
from p2pcards.net.session_events import LinkDown, LinkUp, LobbyUpdate, Rejected, Waiting
from p2pcards.protocol import events as proto
from p2pcards.protocol.verdict import Verdict
from p2pcards.rules import bluff as bm
from p2pcards.rules.bluff import BluffConfig, BluffState
from p2pcards.rules.topper import TopperConfig, TopperState
from p2pcards.ui.text import labelled_hand
from p2pcards.ui.tui.board import board_lines
from p2pcards.ui.tui.hand import hand_lines
from p2pcards.ui.tui.lines import Line, Lines, cut, pad, width_of
from p2pcards.ui.tui.logview import LogScroll, log_lines
from p2pcards.ui.tui.model import LogLine, ScreenModel, SeatInfo
from p2pcards.ui.tui.picker import HandPicker
from p2pcards.ui.tui.seats import BOTTOM, LEFT, RIGHT, TOP, seat_panel
from tests.support.typed import present
from tests.ui.ui_scenes import NAMES, full_deck, known_to, walk_match

_SYMBOL_FACE = re.compile(r"(10|[2-9JQKA])([♣♦♥♠])")


def drawn_faces(lines: Lines) -> set[Card]:
    text = "\n".join("".join(fragment[1] for fragment in line) for line in lines)
    return {Card.parse(rank + suit) for rank, suit in _SYMBOL_FACE.findall(text)}


def seated_model(me: int) -> ScreenModel:
    model = ScreenModel()
    model.lobby = tuple(SeatInfo(name, f"{i:04x}-0000-0000", i != me)
                        for i, name in enumerate(NAMES))
    model.seating = (0, 1, 2, 3)
    model.me = me
    return model


def all_panels(model: ScreenModel, columns: int, now: float = 0.0) -> list[Lines]:
    side = max(18, min(30, columns // 4))
    board = columns - 2 * side - 2
    parts = [seat_panel(model, TOP, 46, 3, now), seat_panel(model, LEFT, side, 6, now),
             board_lines(model, board, 6), seat_panel(model, RIGHT, side, 6, now),
             seat_panel(model, BOTTOM, columns, 1, now)]
    view = present(model.view)
    hand = labelled_hand(view, present(model.me)) if view.phase.value not in (
        "deal", "match over") else []
    parts.append(hand_lines(hand, HandPicker(), columns, active=True))
    return parts


# --- sizes ----------------------------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["", "class:x"]), st.text(
    alphabet=st.sampled_from("ab ♥♠10字…"), max_size=12)), max_size=6), st.integers(0, 30))
def test_cut_and_pad_give_exactly_the_width_asked(line: Line, width: int) -> None:
    assert width_of(cut(line, width)) <= width
    assert width_of(pad(line, width)) == width


def test_whole_matches_are_drawn_in_exact_sizes_without_a_hidden_face() -> None:
    for game, seed in (("bluff", 3), ("topper", 4)):
        rng = random.Random(seed)
        if game == "bluff":
            state = BluffState.new(BluffConfig(deal_cap=2), seed % 4)
            bots = [HeuristicBluffBot(random.Random(1)), RandomBluffBot(random.Random(2)),
                    HeuristicBluffBot(random.Random(3)), RandomBluffBot(random.Random(4))]
        else:
            state = TopperState.new(TopperConfig(target_score=5), seed % 4)  # type: ignore[assignment]
            bots = [HeuristicTopperBot(random.Random(1)), RandomTopperBot(random.Random(2)),
                    HeuristicTopperBot(random.Random(3)), RandomTopperBot(random.Random(4))]
        checked = 0
        for step, before in enumerate(walk_match(state, bots, full_deck(game), rng)):
            if step % 3:
                continue
            me = step % 4
            model = seated_model(me)
            model.set_view(before.view(me))
            for columns in (80, 120):
                parts = all_panels(model, columns)
                heights = [len(part) for part in parts]
                assert heights == [3, 6, 6, 6, 1, 3], (game, step, heights)
                for part, width in zip(parts, (46, None, None, None, columns, columns), strict=False):
                    for line in part:
                        assert width is None or width_of(line) == width
                shown = set().union(*(drawn_faces(part) for part in parts))
                assert shown <= known_to(before.view(me)), (game, step, shown)
            checked += 1
        assert checked > 10


# --- the log --------------------------------------------------------------------------------------

def test_the_log_follows_new_entries_and_a_scrolled_view_holds_still() -> None:
    entries = [LogLine(f"entry {i}") for i in range(20)]
    scroll = LogScroll()
    shown = log_lines(entries, scroll, 30, 4)
    assert "entry 19" in "".join(f[1] for f in shown[-1])
    scroll.scroll(5, len(entries))
    held = [line for line in log_lines(entries, scroll, 30, 4)]
    entries += [LogLine("entry 20"), LogLine("entry 21")]
    after = log_lines(entries, scroll, 30, 4)
    assert held[:3] == after[:3] and scroll.back == 7
    assert "7 newer entries" in "".join(f[1] for f in after[-1])
    scroll.scroll(-99, len(entries))
    assert "entry 21" in "".join(f[1] for f in log_lines(entries, scroll, 30, 4)[-1])


def test_long_log_lines_wrap_inside_the_width() -> None:
    lines = log_lines([LogLine("word " * 40, "crypto")], LogScroll(), 40, 10)
    assert len(lines) > 3 and all(width_of(line) == 40 for line in lines)
    assert all(f[0] in ("", "class:log.crypto") for line in lines for f in line)


# --- the model from events --------------------------------------------------------------------

def test_the_model_follows_the_session_link_and_the_waiting_player() -> None:
    model = seated_model(0)
    model.apply(LinkUp(False))
    assert model.link == "connected"
    model.apply(LinkDown("reset"))
    assert model.link == "reconnecting" and model.log[-1].kind == "warn"
    model.apply(Waiting(2, 50.0))
    assert model.waiting_seat == 2 and model.seconds_left(20.0) == 30
    assert model.seconds_left(60.0) == 0
    model.apply(Rejected("table full"))
    assert model.ending is not None
    assert model.ending.kind == "closed" and "table full" in model.ending.text


def test_the_model_counts_verified_steps_and_clears_the_progress_on_the_deal() -> None:
    model = seated_model(1)
    model.apply(proto.Committed(0))
    assert model.progress == "Setting up: 1 of 4 players committed…"
    for seat in range(3):
        model.apply(proto.ShuffleVerified(seat, 2, seat == 1))
    assert model.progress == "Shuffling: seat 3 of 4 verified…"
    model.apply(proto.SharesVerified(0, 2, 13, False))
    assert model.progress == "Dealing: shares of seat 1 of 4 verified…"
    model.apply(proto.HandReceived(2, ()))
    assert model.progress is None
    assert all(line.kind == "crypto" for line in model.log)


def test_the_model_keeps_the_result_of_a_deal_until_the_next_one_is_dealt() -> None:
    model = seated_model(0)
    model.apply(proto.ActionApplied(1, None, (bm.DealWon(1, 120),), 30))  # type: ignore[arg-type]  # read: the results
    assert model.result_line == "Seat 1 (Bob) won the deal and the safe box of 120."
    assert model.progress == "Shuffling: 0 of 4 seats verified…"
    assert model.log[-1].kind == "result"
    model.apply(proto.HandReceived(1, ()))
    assert model.result_line is None


def test_the_model_ends_with_a_verdict_and_a_lobby_brings_names_and_fingerprints() -> None:
    model = ScreenModel()
    model.apply(LobbyUpdate("topper", "T", {}, ((b"\x01" * 32, "Zed\x1b[2J", False),)))
    # No escape sequence from another peer reaches the terminal.
    assert model.game == "topper" and model.lobby[0].name == "Zed [2J"
    assert len(model.lobby[0].fingerprint) == 14
    model.apply(proto.TableEnded(Verdict("deadline", (0,), 9, "no answer in time")))
    assert model.ending is not None
    assert model.ending.title == "TABLE ENDED" and model.ending.kind == "verdict"
    assert model.log[-1].kind == "verdict" and model.log[-1].text == "Table ended: Zed [2J ran out of time."


def test_the_action_bar_never_says_not_your_turn_while_your_own_move_asks_a_question() -> None:
    from p2pcards.ui.tui.bars import action_line
    def text(line: Line) -> str:
        return "".join(fragment[1] for fragment in line)
    asking = text(action_line([], False, 80, asking=True))
    assert "Your move: answer the question above" in asking and "Not your turn" not in asking
    assert "Not your turn." in text(action_line([], False, 80))


def test_seat_panels_and_key_hints_count_one_card_in_the_singular() -> None:
    from p2pcards.ui.tui.seats import _cards
    assert "".join(f[1] for f in _cards(1)) == "1 card"
    assert "".join(f[1] for f in _cards(5)) == "5 cards"
