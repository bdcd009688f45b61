"""``p2pcards replay``: a saved table stepped through, forward and back, on the table's own
screen and in plain lines; a player's own folder adds his hand and nothing else."""

from __future__ import annotations

import asyncio
import json
import re
import struct
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.input import DummyInput, create_pipe_input

from p2pcards.app.hosted import TableOptions, play_local
from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.bots.agent import BotAgent, make_bot_factory
from p2pcards.cards import Card
from p2pcards.cli import main
from p2pcards.crypto.keys import KeyShare
from p2pcards.net.journal import Journal
from p2pcards.protocol import game_wire
from p2pcards.protocol.errors import DeadlineMissed
from p2pcards.protocol.events import (
    ActionApplied,
    CardsRevealed,
    HandReceived,
    MatchCompleted,
    TableEnded,
)
from p2pcards.protocol.table_records import SessionSecrets
from p2pcards.protocol.verdict import Verdict
from p2pcards.rules.bluff import BluffConfig
from p2pcards.rules.topper import TopperConfig
from p2pcards.ui.replay_steps import ReplayError, SecretsMismatch, load_saved, plain_lines, replay, replay_saved
from p2pcards.ui.text_common import card_text
from p2pcards.ui.text_summary import Summary
from p2pcards.ui.tui.bars import status_line
from p2pcards.ui.tui.board import board_lines
from p2pcards.ui.tui.dialogs import ending_lines, summary_lines
from p2pcards.ui.tui.replay_model import model_at
from p2pcards.ui.tui.replay_screen import ReplayScreen
from p2pcards.ui.tui.seats import seat_panel
from tests.support.typed import present
from tests.ui.test_tui_harness import LEFT, RIGHT, VirtualTerminal, drawn, shows, wait_until

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ["table-topper.json", "table-bluff.json"]
CONFIGS = {"bluff": BluffConfig(deal_cap=2), "topper": TopperConfig(target_score=5)}
SEED = 5


def vector(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((ROOT / "protocol" / "vectors" / name).read_text())
    return loaded


def messages_of(name: str) -> list[bytes]:
    return [bytes.fromhex(m) for m in vector(name)["messages"]]


@pytest.fixture(scope="module")
def matches(tmp_path_factory: Any) -> dict[str, tuple[Any, Path, Any]]:
    """A fresh Bluff and Topper match against bots, saved: (outcome, table folder, me)."""
    out = {}
    for game in ("bluff", "topper"):
        root = tmp_path_factory.mktemp(game)
        options = TableOptions(game=game, config=game_wire.by_name(game).config_to_wire(CONFIGS[game]),
                               seed=SEED, deadline=30, journal_root=root)
        me = seeded_identity(SEED, "me", "Me")
        result = asyncio.run(asyncio.wait_for(play_local(
            me, BotAgent(make_bot_factory(game, "heuristic"), SEED), options), 120))
        assert result.outcome is not None
        out[game] = (result.outcome, next(root.glob("*")), me)
    return out


def screen_for(record: Any) -> ReplayScreen:
    """A replay screen that is not running: its model and keys' methods only."""
    return ReplayScreen(record, input=DummyInput(), output=VirtualTerminal().output())


def state(screen: ReplayScreen) -> tuple[object, ...]:
    """Everything the screen shows at its step, as a comparable value."""
    m = screen.model
    return (screen.index, screen.overlay, tuple(line.text for line in m.log),
            tuple(line.text for line in m.details),
            m.view, m.summary, m.ending,
            m.last_move, m.seating, m.me, m.progress, m.result_line, repr(m.outcome),
            tuple(m.history.rows), tuple(m.history.tricks), m.names(), tuple(screen.hand()))


def forward_and_back(screen: ReplayScreen) -> list[tuple[object, ...]]:
    """Every move forward to the end, then back to the start; each step seen twice alike."""
    record = screen.record
    seen = {0: state(screen)}
    while not screen.at_end:
        before = screen.index
        screen.next_move()
        assert screen.index > before
        seen[screen.index] = state(screen)
    assert sorted(seen) == record.moves
    while screen.index > 0:
        screen.previous_move()
        assert state(screen) == seen[screen.index], f"step {screen.index} differs on the way back"
    return [seen[i] for i in record.moves]


def every_action_is_a_move(record: Any) -> None:
    acted = [s.index for s in record.steps if any(isinstance(e, ActionApplied) for e in s.events)]
    assert acted and set(acted) <= set(record.moves)


# -- the two vector matches ------------------------------------------------------------------

@pytest.mark.parametrize("name", VECTORS)
def test_a_vector_match_steps_forward_to_its_outcome_and_back(name: str) -> None:
    record = replay(messages_of(name))
    assert repr(record.outcome) == vector(name)["outcome"]
    every_action_is_a_move(record)
    screen = screen_for(record)
    states = forward_and_back(screen)
    # Back at the start nothing is known yet, as when the table began.
    assert screen.model.view is None and screen.model.seating is None
    screen.go_end()
    assert screen.model.ending is not None and screen.model.ending.kind == "result"
    assert repr(screen.model.outcome) == vector(name)["outcome"]
    assert len(states) == len(record.moves)


@pytest.mark.parametrize("name", VECTORS)
def test_a_step_reached_by_a_jump_is_the_step_reached_move_by_move(name: str) -> None:
    record = replay(messages_of(name))
    screen = screen_for(record)
    for index in record.moves:
        screen.go(index)
        walked = state(screen)
        screen.go_home()
        screen.go(index)
        assert state(screen) == walked
        fresh = model_at(record, index)
        assert [line.text for line in fresh.log] == [line.text for line in screen.model.log]


def test_the_vector_replayed_as_a_player_shows_exactly_his_dealt_cards() -> None:
    data = vector("table-topper.json")
    messages = messages_of("table-topper.json")
    for player, share in enumerate(data["player_key_shares"]):
        secrets = SessionSecrets(KeyShare.from_secret_bytes(bytes.fromhex(share)), bytes(32))
        record = replay(messages, secrets=secrets, player=player)
        assert record.me_player == player
        assert record.me_seat == data["player_at_seat"].index(player)
        dealt = [e for s in record.steps for e in s.events if isinstance(e, HandReceived)]
        assert len(dealt) == 1 and len(dealt[0].hand) == 6
        # Every card of that hand was played face up later: the hand is his own.
        played = {slot: card for s in record.steps for e in s.events
                  if isinstance(e, CardsRevealed) and e.seat == record.me_seat for slot, card in e.cards}
        assert dict(dealt[0].hand) == played


def test_secrets_of_another_player_are_refused() -> None:
    data = vector("table-topper.json")
    secrets = SessionSecrets(KeyShare.from_secret_bytes(bytes.fromhex(data["player_key_shares"][1])),
                             bytes(32))
    with pytest.raises(SecretsMismatch, match="not those player 0 opened at message 5"):
        replay(messages_of("table-topper.json"), secrets=secrets, player=0)


# -- a fresh saved match ---------------------------------------------------------------------

@pytest.mark.parametrize("game", ["bluff", "topper"])
def test_a_fresh_saved_match_steps_forward_to_its_outcome_and_back(matches: dict[str, tuple[Any, Path, Any]],
                                                                   game: str) -> None:
    outcome, table_dir, me = matches[game]
    for folder in (table_dir / me.fingerprint, table_dir / "relay"):
        record = replay_saved(load_saved(folder))
        assert repr(record.outcome) == repr(outcome)
        assert record.deals >= 2
        every_action_is_a_move(record)
        screen = screen_for(record)
        forward_and_back(screen)
        screen.go_end()
        assert repr(screen.model.outcome) == repr(outcome)


def hands_by_step(table_dir: Path) -> list[dict[int, set[Card]]]:
    """From every seat's own folder: the cards in each seat's hand after each step."""
    per_seat: dict[int, list[set[Card]]] = {}
    for folder in table_dir.iterdir():
        if folder.name == "relay":
            continue
        record = replay_saved(load_saved(folder))
        seat = present(record.me_seat)
        per_seat[seat] = [in_hands(step.view, seat) for step in record.steps]
    assert sorted(per_seat) == [0, 1, 2, 3]
    return [{seat: per_seat[seat][i] for seat in per_seat} for i in range(len(per_seat[0]))]


def in_hands(view: Any, seat: int) -> set[Card]:
    """The known faces of the cards ``seat`` holds in ``view``."""
    if view is None:
        return set()
    return {card for _, card in view.hand(seat)} - {None}


def revealed_by_step(record: Any) -> list[set[Card]]:
    """The cards the rules revealed to everyone in the deal in play, after each step."""
    out: list[set[Card]] = []
    shown: set[Card] = set()
    for step in record.steps:
        for event in step.events:
            if isinstance(event, HandReceived):
                shown = set()
            elif isinstance(event, CardsRevealed):
                shown |= {card for _, card in event.cards}
        out.append(set(shown))
    return out


def hidden_by_step(table_dir: Path, record: Any, me_seat: Any) -> list[set[Card]]:
    """After each step: the cards in other seats' hands that the rules have not revealed."""
    held, shown = hands_by_step(table_dir), revealed_by_step(record)
    assert len(held) == len(record.steps)
    return [set().union(*(c for seat, c in h.items() if seat != me_seat)) - r
            for h, r in zip(held, shown, strict=True)]


CARD = re.compile(r"(?<!\w)(?:10|[2-9JQKA])[♠♥♦♣CDHS](?!\w)")


def cards_in(text: str) -> set[str]:
    return set(CARD.findall(text))


def texts_of(cards: set[Card], game: str) -> set[str]:
    """How ``cards`` are written (Topper's Jacks aside: naming trump names its two Jacks)."""
    return {card_text(c, symbols) for c in cards for symbols in (False, True)
            if game != "topper" or c.rank.label != "J"}


def drawn_text(screen: ReplayScreen) -> str:
    """Every panel of the screen as text: board, seats, status, hand, summary, end box."""
    model, lines = screen.model, []
    lines += board_lines(model, 40, 8)
    for place in range(4):
        lines += seat_panel(model, place, 30, 3, 0.0)
    lines.append(status_line(model, None, 200))
    lines += summary_lines(model, None, 70, 20) + ending_lines(model, False, True, 70, 20)
    text = "\n".join("".join(fragment[1] for fragment in line) for line in lines)
    return text + "\n" + " ".join(card_text(entry.card, True) for entry in screen.hand()
                                   if entry.card is not None)


def last_move_cards(record: Any) -> list[set[Card]]:
    """After each step: the cards the latest game move revealed (the board's ◆ line says
    that move, and keeps saying it once the next deck is dealt)."""
    out, cards = [], set()
    for step in record.steps:
        if any(isinstance(e, ActionApplied) for e in step.events):
            cards = {c for e in step.events if isinstance(e, CardsRevealed) for _, c in e.cards}
        out.append(cards)
    return out


def check_secrecy(screen: ReplayScreen, hidden: list[set[Card]], game: str) -> None:
    """At every move, no hidden card in the panels or in the log lines it added; and in
    plain mode, none in the lines each step printed."""
    record = screen.record
    latest = last_move_cards(record)
    screen.go_home()
    logged = 0
    for index in record.moves:
        screen.go(index)
        secret = texts_of(hidden[index], game)
        new = " ".join(line.text for line in screen.model.details[logged:])
        logged = len(screen.model.details)
        assert not cards_in(new) & secret, f"step {index}: {new}"
        panels = cards_in(drawn_text(screen)) & texts_of(hidden[index] - latest[index], game)
        assert not panels, f"step {index}: {drawn_text(screen)}"
    for index, line in plain_lines(record, symbols=True):
        assert not cards_in(line) & texts_of(hidden[index], game), f"step {index}: {line}"
    for index, line in plain_lines(record, symbols=False):
        assert not cards_in(line) & texts_of(hidden[index], game), f"step {index}: {line}"


@pytest.mark.parametrize("game", ["bluff", "topper"])
def test_without_the_players_folder_no_hidden_card_is_in_any_view_line_or_screen(
        matches: dict[str, tuple[Any, Path, Any]], game: str) -> None:
    _, table_dir, me = matches[game]
    for folder, own_hand in ((table_dir / "relay", True), (table_dir / me.fingerprint, False)):
        record = replay_saved(load_saved(folder), own_hand=own_hand)
        assert record.me_player is None and record.me_seat is None
        hidden = hidden_by_step(table_dir, record, None)
        assert any(hidden)
        shown = revealed_by_step(record)
        for step in record.steps:  # a card in a hand is a back unless the rules showed it
            for seat in range(4):
                assert in_hands(step.view, seat) <= shown[step.index], f"step {step.index}"
        screen = screen_for(record)
        check_secrecy(screen, hidden, game)
        for index in record.moves:
            screen.go(index)
            assert screen.hand() == []


@pytest.mark.parametrize("game", ["bluff", "topper"])
def test_with_the_players_folder_his_hand_is_shown_and_no_other(matches: dict[str, tuple[Any, Path, Any]],
                                                                game: str) -> None:
    _, table_dir, me = matches[game]
    held = hands_by_step(table_dir)
    record = replay_saved(load_saved(table_dir / me.fingerprint))
    assert record.me_player == 0 and record.players[0].name == "Me"
    screen = screen_for(record)
    shown_some = 0
    for index in record.moves:
        screen.go(index)
        hand = {entry.card for entry in screen.hand()}
        if hand:
            assert hand == held[index][present(record.me_seat)]
            shown_some += 1
    assert shown_some > 10
    check_secrecy(screen, hidden_by_step(table_dir, record, record.me_seat), game)


def test_the_full_screen_shows_the_players_hand_and_a_public_one_none(
        matches: dict[str, tuple[Any, Path, Any]]) -> None:
    _, table_dir, me = matches["bluff"]

    async def run(folder: Path) -> tuple[str, list[str]]:
        record = replay_saved(load_saved(folder))
        term = VirtualTerminal(80, 24)
        with create_pipe_input() as keys:
            screen = ReplayScreen(record, input=keys, output=term.output())
            task = asyncio.ensure_future(screen.run())
            await wait_until(lambda: screen.app.is_running, "the replay screen", term)
            screen.go(record.deal_start(1))
            await drawn(screen, term)  # type: ignore[arg-type]
            text = term.text
            keys.send_text("q")
            await asyncio.wait_for(task, 10)
            hand = [card_text(e.card, True) for e in screen.hand()]
            return text, hand

    text, hand = asyncio.run(run(table_dir / me.fingerprint))
    assert len(hand) == 13 and all(card in text for card in hand)
    assert "no player's hand is shown" not in text
    text, hand = asyncio.run(run(table_dir / "relay"))
    assert hand == [] and "(the public view: no player's hand is shown)" in text


def test_a_table_ended_by_a_saved_verdict_ends_the_replay_with_it() -> None:
    messages = messages_of("table-topper.json")[:30]
    # Player 0 is the writer due at position 30 (a deadline names the writer, or the host).
    verdict = Verdict.from_error(DeadlineMissed("player 0 did not write before the deadline",
                                                player=0, position=30), ())
    record = replay(messages, verdict=verdict)
    assert record.outcome is None and record.verdict == verdict
    assert record.moves[-1] == len(record.steps) - 1 == 30
    assert record.steps[-1].events == (TableEnded(verdict),)
    screen = screen_for(record)
    forward_and_back(screen)
    screen.go_end()
    ending = present(screen.model.ending)
    assert ending.kind == "verdict"
    assert "ran out of time" in ending.text
    lines = [line for _, line in plain_lines(record)]
    assert lines[-1] == "Outcome: no winner. Table ended: Seat 0 (P0) ran out of time."
    # Without the saved verdict the record stops where the transcript does.
    assert list(plain_lines(replay(messages)))[-1] == (
        29, "Outcome: none yet; the saved table was still in play.")


# -- damaged transcripts ---------------------------------------------------------------------

def write_records(path: Path, messages: list[bytes]) -> Path:
    path.write_bytes(b"".join(struct.pack(">I", len(m)) + m for m in messages))
    return path


def test_a_damaged_message_is_named_by_its_position_in_verifys_words() -> None:
    messages = messages_of("table-bluff.json")
    messages[20] = messages[20][:-5] + bytes(5)
    with pytest.raises(ReplayError) as caught:
        replay(messages)
    assert caught.value.position == 20
    assert str(caught.value).startswith("message 20: ")
    assert "signature of a 'pass' message does not verify for player 0" in str(caught.value)


def test_a_missing_or_repeated_message_is_named() -> None:
    messages = messages_of("table-topper.json")
    with pytest.raises(ReplayError, match=r"^message 20: holds position 21: positions 20\.\.20 "
                                           r"are missing$"):
        replay(messages[:20] + messages[21:])
    with pytest.raises(ReplayError, match=r"^message 21: a second copy of position 20"):
        replay(messages[:21] + messages[20:])


def test_the_command_refuses_a_damaged_transcript_with_one_sentence(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    messages = messages_of("table-bluff.json")
    messages[20] = messages[20][:-5] + bytes(5)
    path = write_records(tmp_path / "transcript", messages)
    assert main(["replay", str(path), "--plain"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"p2pcards: {path} cannot be replayed: message 20: ")
    assert main(["replay", str(write_records(tmp_path / "junk", [b"junk"])), "--plain"]) == 2
    assert "is not a p2pcards transcript (its first record is no table's genesis" in \
        capsys.readouterr().err
    assert main(["replay", str(tmp_path / "nothing"), "--plain"]) == 2
    assert "no transcript at" in capsys.readouterr().err


def test_another_players_secrets_in_the_folder_are_refused(matches: dict[str, tuple[Any, Path, Any]],
                                                           tmp_path: Path) -> None:
    _, table_dir, me = matches["topper"]
    folder = tmp_path / "copy"
    folder.mkdir()
    ours, theirs = Journal(table_dir / me.fingerprint), Journal(folder)
    (folder / "transcript").write_bytes(ours.transcript_path.read_bytes())
    meta = ours.read_meta()
    meta["player"] = (meta["player"] + 1) % 4
    theirs.write_meta(meta)
    with pytest.raises(SecretsMismatch, match="the saved secrets are not those player"):
        replay_saved(load_saved(folder))
    assert replay_saved(load_saved(folder), own_hand=False).outcome is not None


# -- plain mode ------------------------------------------------------------------------------

@pytest.mark.parametrize("game", ["bluff", "topper"])
def test_plain_mode_prints_one_summary_line_per_scored_deal_then_the_outcome(
        matches: dict[str, tuple[Any, Path, Any]], game: str, capsys: pytest.CaptureFixture[str]) -> None:
    outcome, table_dir, me = matches[game]
    assert main(["replay", str(table_dir / "relay"), "--plain"]) == 0
    lines = capsys.readouterr().out.splitlines()
    record = replay_saved(load_saved(table_dir / "relay"))
    scored = [r for s in record.steps for e in s.events if isinstance(e, ActionApplied)
              for r in e.results if type(r).__name__ in ("DealWon", "HandScored", "ThrownIn")]
    summaries = [line for line in lines if line.startswith("— ")]
    assert len(summaries) == len(scored) >= 2
    word = "Deal" if game == "bluff" else "Hand"
    assert [s.split(" ")[1:3] for s in summaries] == [[word, str(n + 1)] for n in range(len(scored))]
    assert lines[0].startswith(f"Replay of table 'table' ({game}): ")
    winner = record.names_at(len(record.steps) - 1)[outcome.winners[0]]
    assert lines[-1] == f"Outcome: the match is over; {winner} won."
    assert any(line.startswith("Match over:") for line in lines)


def test_plain_summaries_say_only_their_own_deals_revealed_cards(matches: dict[str, tuple[Any, Path, Any]]) -> None:
    _, table_dir, _ = matches["bluff"]
    record = replay_saved(load_saved(table_dir / "relay"))
    lines = list(plain_lines(record))
    summaries = [(i, line) for i, line in lines if line.startswith("— Deal 2 over")]
    assert summaries
    index, line = summaries[0]
    start = record.deal_start(2)
    revealed = [card for s in record.steps[start:index + 1] for e in s.events
                if isinstance(e, CardsRevealed) for _, card in e.cards]
    said = line.split("Cards revealed by calls: ")[1].split(";")[0].rstrip(".").split()
    assert said == [card_text(c, False) for c in revealed]


def test_plain_lines_follow_the_live_tables_words(matches: dict[str, tuple[Any, Path, Any]]) -> None:
    _, table_dir, me = matches["topper"]
    lines = [line for _, line in plain_lines(replay_saved(load_saved(table_dir / me.fingerprint)))]
    assert "with Me's own hand" in lines[0]
    assert any(line.startswith("Deck 0 dealt. Your hand: ") for line in lines)
    assert any(line.startswith("✓ Deck 0 shuffled by all four") for line in lines)
    ended = [e for s in replay_saved(load_saved(table_dir / "relay")).steps for e in s.events
             if isinstance(e, MatchCompleted)]
    assert len(ended) == 1


# -- the keys, headless ----------------------------------------------------------------------

def test_the_replay_keys_move_play_jump_and_quit(matches: dict[str, tuple[Any, Path, Any]]) -> None:
    _, table_dir, me = matches["bluff"]
    record = replay_saved(load_saved(table_dir / me.fingerprint))

    async def run() -> None:
        term = VirtualTerminal(80, 24)
        with create_pipe_input() as keys:
            screen = ReplayScreen(record, input=keys, output=term.output())
            task = asyncio.ensure_future(screen.run())
            await wait_until(lambda: screen.app.is_running, "the replay screen", term)
            await shows(term, f"move 0/{len(record.moves) - 1}")
            keys.send_text(RIGHT)
            await wait_until(lambda: screen.index == record.moves[1], "→", term)
            keys.send_text("n")
            await wait_until(lambda: screen.index == record.moves[2], "n", term)
            keys.send_text(LEFT)
            await wait_until(lambda: screen.index == record.moves[1], "←", term)
            keys.send_text("p")
            await wait_until(lambda: screen.index == 0, "p", term)
            keys.send_text("]")
            await wait_until(lambda: screen.index == record.deal_start(1), "]", term)
            await shows(term, "deal 1/2")
            keys.send_text("]")
            await wait_until(lambda: screen.index == record.deal_start(2), "] again", term)
            keys.send_text("[")
            await wait_until(lambda: screen.index == record.deal_start(1), "[", term)
            keys.send_text("g")
            await shows(term, "Go to deal (1-2):")
            keys.send_text("2\r")
            await wait_until(lambda: screen.index == record.deal_start(2), "g 2 Enter", term)
            keys.send_text("g")
            await shows(term, "Go to deal (1-2):")
            keys.send_text("7\r")
            await shows(term, "no deal 7: this table dealt 2 (1 to 2)")
            assert screen.index == record.deal_start(2)
            keys.send_text("\x1b[F")  # End
            await wait_until(lambda: screen.at_end, "End", term)
            await shows(term, "MATCH OVER")
            keys.send_text("\x1b[H")  # Home
            await wait_until(lambda: screen.index == 0, "Home", term)
            keys.send_text("x")
            await shows(term, "does nothing in a replay")
            keys.send_text("?")
            await shows(term, "Replay keys:")
            keys.send_text("x")
            await wait_until(lambda: screen.overlay is None, "help closed", term)
            keys.send_text("+")
            await wait_until(lambda: screen.speed == 4.0, "+", term)
            keys.send_text("-")
            keys.send_text("-")
            await wait_until(lambda: screen.speed == 1.0, "- -", term)
            screen.speed = 50.0  # play quickly through the first moves
            keys.send_text(" ")
            await wait_until(lambda: screen.index >= record.moves[3], "playing", term)
            keys.send_text(" ")
            await wait_until(lambda: not screen.playing, "paused", term)
            stopped = screen.index
            beats, tick = [0], screen.tick

            def counted() -> None:
                beats[0] += 1
                tick()
            screen.tick = counted  # type: ignore[method-assign]
            # Paused, the player's beats go on (50 a second) and move nothing.
            await wait_until(lambda: beats[0] >= 5, "five beats while paused", term)
            assert screen.index == stopped
            keys.send_text("q")
            await asyncio.wait_for(task, 10)

    asyncio.run(run())


def test_playing_runs_to_the_end_through_the_deal_summaries_and_stops(matches: dict[str, tuple[Any, Path, Any]],
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from p2pcards.ui.tui import replay_screen as tui_replay
    monkeypatch.setattr(tui_replay, "SUMMARY_PAUSE", 0.05)
    _, table_dir, _ = matches["topper"]
    record = replay_saved(load_saved(table_dir / "relay"))

    async def run() -> list[Summary]:
        term = VirtualTerminal(80, 24)
        summaries: list[Summary] = []
        with create_pipe_input() as keys:
            screen = ReplayScreen(record, speed=50.0, input=keys, output=term.output())
            task = asyncio.ensure_future(screen.run(playing=True))
            await wait_until(lambda: screen.app.is_running, "the replay screen", term)
            while screen.playing:
                if screen.overlay == "summary" and screen.model.summary not in summaries:
                    summaries.append(present(screen.model.summary))
                await asyncio.sleep(0.005)
            assert screen.at_end and screen.model.ending is not None
            keys.send_text("q")
            await asyncio.wait_for(task, 10)
        return summaries

    summaries = asyncio.run(run())
    assert [s.title for s in summaries][:1] == ["Hand 1 scored"]


@pytest.mark.parametrize("name", VECTORS)
def test_replay_counts_the_signed_messages_as_verify_does(name: str) -> None:
    from p2pcards.protocol.verify import verify_transcript
    from p2pcards.ui.replay_steps import heading

    messages = messages_of(name)
    record = replay(messages)
    checked = verify_transcript(messages).messages
    assert record.messages == checked == len(messages)  # the genesis is one of them
    assert f"{checked} signed messages checked" in heading(record)


def test_a_replay_in_a_window_too_small_ignores_its_keys_but_ctrl_c(matches: dict[str, tuple[Any, Path, Any]]) -> None:
    _, table_dir, me = matches["bluff"]
    from tests.ui.test_tui_harness import CTRL_C

    async def run() -> tuple[str, int, bool]:
        record = replay_saved(load_saved(table_dir / me.fingerprint))
        term = VirtualTerminal(70, 20)
        with create_pipe_input() as keys:
            screen = ReplayScreen(record, input=keys, output=term.output())
            task = asyncio.ensure_future(screen.run())
            await shows(term, "Window too small for the table")
            for key in ("q", RIGHT, RIGHT, "]"):
                keys.send_text(key)
            await drawn(screen, term)  # type: ignore[arg-type]
            await drawn(screen, term)  # type: ignore[arg-type]
            index, quit_early, shown = screen.index, task.done(), " ".join(term.text.split())
            keys.send_text(CTRL_C)
            await asyncio.wait_for(task, 10)
            return shown, index, quit_early

    text, index, quit_early = asyncio.run(run())
    assert "70×20, it needs at least 80×24" in text and "Ctrl-C quits the replay" in text
    assert index == 0 and not quit_early
