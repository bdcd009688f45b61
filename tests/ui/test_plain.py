"""The line-based front end: a typed whole match against bots, its commands, the printer."""

from __future__ import annotations

import asyncio
import io
import random
from typing import Any

import pytest

from p2pcards.bots.base import shuffled_faces
from p2pcards.bots.bluff import HeuristicBluffBot, RandomBluffBot
from p2pcards.bots.topper import HeuristicTopperBot, RandomTopperBot
from p2pcards.cards import FULL_DECK, TOPPER_DECK, Card
from p2pcards.net.session_events import Decision, SessionEvent, TakePause, Waiting
from p2pcards.protocol import events as proto
from p2pcards.protocol.verdict import Verdict
from p2pcards.rules import bluff as bm
from p2pcards.rules.bluff import BluffState, Challenge, Discard, Pass, Reveal
from p2pcards.rules.games import GameEvent
from p2pcards.rules.topper import Bid, NameTrump, PassBid, Play, TopperState
from p2pcards.rules.topper import events as te
from p2pcards.ui.plain import NothingToDecide, PlainAgent, PlainPrinter, PlayerQuit, StdinLines
from p2pcards.ui.text import labelled_hand
from tests.support.typed import present
from tests.ui.ui_scenes import (
    NAMES,
    bluff_lead,
    bluff_respond,
    bluff_reveal,
    c,
    faces_in,
    topper_bidding,
    topper_play,
)

#: Lines that no state accepts; each must be answered with an error.
BAD_LINES = ["dance", "d 99 as Q", "bid 99", "", "play 77", "stake 5", "   ", "c c c"]


def command_for(view: Any, action: Any, turn: int) -> str:
    """What a person would type for ``action``: labels on even turns, faces on odd ones."""
    hand = {e.slot: e for e in labelled_hand(view, view.viewer)}

    def card(slot: int) -> str:
        entry = hand[slot]
        return str(entry.label) if turn % 2 == 0 else present(entry.card).ascii.lower()

    if isinstance(action, Reveal):
        return "reveal"  # never read: the agent reveals without asking
    if isinstance(action, Pass):
        return "pass" if turn % 2 else "P"
    if isinstance(action, Challenge):
        return ("bluff", "challenge", "c")[turn % 3]
    if isinstance(action, Discard):
        rank = f" as {action.rank.label}" if action.rank is not None else ""
        return f"discard {' '.join(card(s) for s in action.slots)}{rank} stake {action.stake}"
    if isinstance(action, Bid):
        return f"bid {action.tricks}" if turn % 2 else f"B {action.tricks}"
    if isinstance(action, PassBid):
        return "pass"
    if isinstance(action, NameTrump):
        return f"trump {action.suit.name.lower()}" if turn % 2 else f"t {action.suit.letter}"
    if isinstance(action, Play):
        return f"play {card(action.slot)}" if turn % 3 else card(action.slot)
    raise AssertionError(f"no command for {action!r}")


class Typist:
    """Scripted input: the lines queued for the current decision, then EOF."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.read = 0

    async def read_line(self) -> str:
        if not self.lines:
            raise EOFError
        self.read += 1
        return self.lines.pop(0)


def play_typed_match(game: str, seed: int) -> tuple[Any, list[str], int, int, int]:
    """Seat 0 is a PlainAgent fed typed commands (a bad line first each turn) against bots."""
    bots: list[Any]
    if game == "bluff":
        state: Any = BluffState.new(None, seed % 4)
        deck, helper = FULL_DECK, HeuristicBluffBot(random.Random(seed))
        bots = [None, RandomBluffBot(random.Random(1)), HeuristicBluffBot(random.Random(2)),
                RandomBluffBot(random.Random(3))]
    else:
        state = TopperState.new(None, seed % 4)
        deck, helper = TOPPER_DECK, HeuristicTopperBot(random.Random(seed))  # type: ignore[assignment]
        bots = [None, HeuristicTopperBot(random.Random(1)), RandomTopperBot(random.Random(2)),
                HeuristicTopperBot(random.Random(3))]
    rng = random.Random(seed)
    out: list[str] = []
    typist = Typist()
    agent = PlainAgent(typist.read_line, out.append, names=NAMES)
    turns = bad = 0
    for _ in range(20_000):
        if state.outcome is not None:
            return state, out, turns, bad, typist.read
        if state.awaiting_deal:
            state.deal(shuffled_faces(deck, rng))
            continue
        seat = state.to_act
        view = state.view(seat)
        if seat != 0:
            state.apply(bots[seat].choose(view))
            continue
        wanted = helper.choose(view)
        typist.lines = [BAD_LINES[turns % len(BAD_LINES)], command_for(view, wanted, turns)]
        asked = typist.read
        action = asyncio.run(agent.decide(view))
        if not isinstance(action, Reveal):
            assert typist.read - asked == 2 and not typist.lines
            bad += 1
        assert action == wanted
        turns += 1
        state.apply(action)
    raise AssertionError("the typed match did not end")


@pytest.mark.parametrize("game, seed", [("bluff", 5), ("bluff", 6), ("topper", 5)])
def test_a_whole_match_typed_line_by_line_ends_and_bad_lines_are_answered(game: str, seed: int) -> None:
    state, out, turns, bad, reads = play_typed_match(game, seed)
    assert state.outcome is not None
    assert turns > 5
    refusals = [line for line in out if line.startswith("Not accepted: ")]
    assert len(refusals) == bad
    assert any("no card labelled 99" in line or "unknown command 'dance'" in line
               for line in refusals)
    assert sum(line.startswith("Your command") for line in out) == reads == 2 * bad


def _run(agent: PlainAgent, view: Any, decision: Any = None) -> Any:
    return asyncio.run(agent.decide(view, decision))


def _agent(lines: list[str]) -> tuple[PlainAgent, list[str]]:
    typist = Typist()
    typist.lines = list(lines)
    out: list[str] = []
    return PlainAgent(typist.read_line, out.append, names=NAMES), out


def test_help_prints_the_rules_and_the_commands_then_asks_again() -> None:
    agent, out = _agent(["help", "pass"])
    assert _run(agent, bluff_respond().view(1)) == Pass(1)
    text = "\n".join(out)
    assert "BLUFF: get rid of all your cards" in text
    assert text.count("Your choices:") == 2  # once with the table, once after help


def test_table_reprints_the_table() -> None:
    agent, out = _agent(["table", "p"])
    _run(agent, bluff_respond().view(1))
    assert sum("Last claim:" in block for block in out) == 2


def test_quit_and_end_of_input_raise_player_quit() -> None:
    agent, _ = _agent(["QUIT"])
    with pytest.raises(PlayerQuit):
        _run(agent, bluff_lead().view(0))
    agent, out = _agent(["dance"])
    with pytest.raises(PlayerQuit):
        _run(agent, bluff_lead().view(0))
    assert any(line.startswith("Not accepted: unknown command") for line in out)


def test_a_called_discard_is_revealed_without_asking() -> None:
    agent, out = _agent([])
    action = _run(agent, bluff_reveal().view(0))
    assert isinstance(action, Reveal) and action.seat == 0
    assert out == ["Your discard was called: revealing it."]


def test_decide_refuses_a_view_where_another_seat_acts() -> None:
    agent, _ = _agent(["pass"])
    with pytest.raises(NothingToDecide):
        _run(agent, bluff_respond().view(2))


def test_the_session_decision_gives_names_and_the_time_left() -> None:
    agent, out = _agent(["play 1"])

    async def decide() -> Any:
        deadline = asyncio.get_running_loop().time() + 90
        decision = Decision(7, 1, deadline, ("Ann", "Ben", "Cat", "Dan"))
        return await agent.decide(topper_play().view(1), decision)

    action = asyncio.run(decide())
    assert isinstance(action, Play) and action.seat == 1
    text = "\n".join(out)
    assert "Ben (you)" in text and "Alice" not in text
    assert any(line.startswith("You have about 8") for line in out)  # 89 or 90 seconds


def test_stdin_lines_reads_a_stream_then_reports_its_end() -> None:
    reader = StdinLines(io.StringIO("bid 3\r\npass\n"))

    async def read_all() -> list[Any]:
        got: list[Any] = [await reader(), await reader()]
        for _ in range(2):
            try:
                await reader()
            except EOFError:
                got.append("EOF")
        return got

    assert asyncio.run(read_all()) == ["bid 3", "pass", "EOF", "EOF"]


# --- the printer -------------------------------------------------------------------------

def protocol_events_of_a_bluff_match(seed: int, me: int) -> tuple[list[Any], set[Card]]:
    """The events a peer at seat ``me`` would get, built from a local match, and the faces
    it may know (its own hands and every revealed discard)."""
    state = BluffState.new(None, 0)
    bots = [HeuristicBluffBot(random.Random(seed + s)) for s in range(4)]
    rng = random.Random(seed)
    events: list[Any] = [proto.PlayersSeated((0, 1, 2, 3), 0)]
    allowed: set[Card] = set()
    deck = 0
    position = 1
    for _ in range(20_000):
        if state.outcome is not None:
            events.append(proto.MatchCompleted(state.outcome))
            return events, allowed
        if state.awaiting_deal:
            state.deal(shuffled_faces(FULL_DECK, rng))
            for seat in range(4):
                events.append(proto.ShuffleVerified(seat, deck, seat == me))
            hand = tuple((slot, present(face)) for slot, face in state.hand(me))
            allowed |= {card for _, card in hand}
            events.append(proto.HandReceived(deck, hand))
            deck += 1
            continue
        seat = present(state.to_act)
        action = bots[seat].choose(state.view(seat))
        if isinstance(action, Reveal):
            slots = present(state.last_claim).slots
            events.append(proto.CardsRevealed(seat, tuple(zip(slots, action.faces, strict=False))))
            allowed |= set(action.faces)
        events.append(proto.ActionApplied(seat, action, state.apply(action), position))
        position += 1
    raise AssertionError("the match did not end")


def test_printer_prints_only_what_this_peer_may_know() -> None:
    events, allowed = protocol_events_of_a_bluff_match(seed=21, me=2)
    out: list[str] = []
    printer = PlainPrinter(out.append, lambda: NAMES, verbose=True)
    for event in events:
        printer.on_event(event)
    text = "\n".join(out)
    assert faces_in(text) <= allowed
    assert "Your hand:" in text and "Match over: deal cap reached" in text
    assert "You (seat 2)" in text  # learnt from this peer's own shuffle
    assert "called BLUFF" in text and "opened" in text


def test_printer_leaves_out_repeated_checks_unless_verbose() -> None:
    events: list[SessionEvent] = [proto.CardsRevealed(1, ()), Waiting(1, 5.0), proto.ShuffleVerified(1, 0, False)]
    quiet: list[str] = []
    loud: list[str] = []
    for event in events:
        PlainPrinter(quiet.append, NAMES).on_event(event)
        PlainPrinter(loud.append, NAMES, verbose=True).on_event(event)
    assert quiet == []  # one shuffle of four: no stage done yet
    assert len(loud) == 3


def test_printer_folds_each_stage_of_checks_into_one_line() -> None:
    quiet: list[str] = []
    printer = PlainPrinter(quiet.append, NAMES)
    for seat in range(4):
        printer.on_event(proto.ShuffleVerified(seat, 2, False))
        printer.on_event(proto.ShuffleVerified(seat, 2, False))  # a repeat counts once
    for player in range(4):
        printer.on_event(proto.Committed(player))
    assert quiet == ["✓ Deck 2 shuffled by all four; every shuffle proof verified.",
                     "✓ All four players committed to their key shares and draw nonces."]


def test_printer_names_the_blamed_player_once_seats_are_drawn() -> None:
    out: list[str] = []
    printer = PlainPrinter(out.append, lambda: NAMES, me_provider=lambda: 0)
    printer.on_event(proto.PlayersSeated((3, 1, 0, 2), 1))
    printer(proto.TableEnded(Verdict("crypto", (0,), 12, "bad shuffle proof", (b"e",))))
    assert out[-1] == ("Table ended: Seat 2 (Carol) sent a cryptographic proof that fails "
                       "(bad shuffle proof), proven by their signed message.")


def applied(result: GameEvent) -> proto.ActionApplied:
    """A referee event as the session delivers it: in the ``ActionApplied`` of its action."""
    return proto.ActionApplied(0, None, (result,), 0)  # type: ignore[arg-type]  # the printer reads only the results


def test_printer_says_a_deals_summary_with_revealed_cards_and_bluffs_caught() -> None:
    out: list[str] = []
    printer = PlainPrinter(out.append, NAMES, me_provider=lambda: 0)
    printer.on_event(applied(bm.HandDealt(2, 1)))
    printer.on_event(applied(bm.ChallengeResolved(0, 2, True, (c("QH"), c("4S")), 2, 20)))
    printer.on_event(applied(bm.DealWon(1, 80)))
    summary = out[-1].splitlines()
    assert summary[0] == "— Deal over —"
    assert "Seat 1 (Bob) won the deal and the safe box of 80." in summary
    assert "Cards revealed by calls: QH 4S." in summary
    assert "Bluffs caught: seat 2 (Carol) (2 cards)." in summary
    printer.on_event(applied(te.HandScored(5, 2, 3, (1, 1, 2, 2), False, (1, 1, -3, 2), (10, 11, 4, 12))))
    topper = out[-1].splitlines()
    assert topper[0] == "— Hand 5 scored —"
    assert topper[1] == "Seat 2 (Carol) bid 3 but took only 2 tricks: 3 points lost."
    assert topper[3] == "Scores: Alice 10 (+1), Bob 11 (+1), Carol 4 (-3), Dave 12 (+2)"
    printer.on_event(applied(te.HandScored(6, 0, 2, (3, 1, 1, 1), True, (2, 1, 1, 1), (12, 12, 5, 13))))
    assert out[-1].splitlines()[1] == "You (seat 0) bid 2 and took 3 tricks: made it (+2)."


def test_the_history_command_shows_the_scoreboard_and_this_hands_tricks() -> None:
    printer = PlainPrinter(lambda line: None, NAMES, me_provider=lambda: 0)
    printer.on_event(applied(te.HandDealt(1, first=1, dealer=0)))
    printer.on_event(applied(te.TrickWon(0, 2, ((1, c("QS")), (2, c("AS")), (3, c("9S")), (0, c("10S"))))))
    printer.on_event(applied(te.HandScored(1, 2, 3, (1, 1, 2, 2), False, (1, 1, -3, 2), (1, 1, -3, 2))))
    printer.on_event(applied(te.HandDealt(2, first=2, dealer=1)))
    printer.on_event(applied(te.TrickWon(0, 3, ((2, c("KH")), (3, c("AH")), (0, c("9H")), (1, c("JH"))))))
    written: list[str] = []
    lines = iter(["history", "pass"])

    async def read_line() -> str:
        return next(lines)

    agent = PlainAgent(read_line, written.append, names=NAMES, history=printer.history_lines)
    asyncio.run(agent.decide(topper_bidding().view(0)))
    text = next(block for block in written if block.startswith("Scoreboard"))
    assert "Scoreboard: score after each hand" in text
    assert "Carol (bid 3, set)" in text and "-3" in text
    assert "Trick 1: Carol KH Dave AH Alice 9H Bob JH → Seat 3 (Dave)" in text
    assert "QS" not in text  # the last hand's tricks are gone with it


def test_plain_mode_warns_at_10_seconds_left_with_the_bell_while_the_person_types() -> None:
    written: list[str] = []

    async def scene() -> None:
        loop = asyncio.get_running_loop()
        answer = asyncio.Event()

        async def read_line() -> str:
            await answer.wait()
            return "pass"

        agent = PlainAgent(read_line, written.append, names=NAMES, bell=True)
        decision = Decision(1, 0, loop.time() + 10.2, list(NAMES))  # type: ignore[arg-type]
        deciding = asyncio.ensure_future(agent.decide(topper_bidding().view(0), decision))
        # The 30 s mark is long past; the 10 s mark comes at 0.2 s (bounded wait, not a sleep).
        for _ in range(500):
            if any("seconds left to move" in line for line in written):
                break
            await asyncio.sleep(0.02)
        answer.set()
        await deciding

    asyncio.run(scene())
    warnings = [line for line in written if "seconds left to move" in line]
    assert warnings == ["\a10 seconds left to move: after that the others end the table naming you."]


def test_away_takes_a_pause_only_where_one_is_left() -> None:
    async def decide(pauses: int) -> tuple[Any, list[str]]:
        agent, out = _agent(["away", "play 1"])
        deadline = asyncio.get_running_loop().time() + 90
        decision = Decision(7, 1, deadline, ("Ann", "Ben", "Cat", "Dan"), pauses)
        try:
            return await agent.decide(topper_play().view(1), decision), out
        except TakePause as pause:
            return pause, out

    taken, out = asyncio.run(decide(2))
    assert isinstance(taken, TakePause)
    assert any("type away for 5 more minutes on this move; 2 pauses left" in line for line in out)
    refused, out = asyncio.run(decide(0))
    assert isinstance(refused, Play)  # no pause left: refused, then the next command plays
    assert "Not accepted: away: no pause left at this table." in out


def test_away_at_a_table_without_a_clock_says_there_is_none_to_pause() -> None:
    import math

    async def decide(decision: Any) -> list[str]:
        agent, out = _agent(["away", "play 1"])
        await agent.decide(topper_play().view(1), decision)
        return out

    for decision in (None, Decision(7, 1, math.inf, ("Ann", "Ben", "Cat", "Dan"), 0)):
        out = asyncio.run(decide(decision))
        refusal = next(line for line in out if line.startswith("Not accepted: away"))
        assert "this table has no clock" in refusal and "no pause left" not in refusal


def test_the_choices_list_history_always_and_away_while_a_pause_is_left() -> None:
    async def choices(pauses: int) -> str:
        agent, out = _agent(["play 1"])
        deadline = asyncio.get_running_loop().time() + 90
        await agent.decide(topper_play().view(1),
                           Decision(7, 1, deadline, ("Ann", "Ben", "Cat", "Dan"), pauses))
        text = "\n".join(out)
        return text[text.index("Your choices:"):]
    with_pause, without = asyncio.run(choices(2)), asyncio.run(choices(0))
    assert "help, table, history, quit" in with_pause and "help, table, history, quit" in without
    assert "away (pause)" in with_pause and "5 more minutes on this move" in with_pause
    assert "(2 pauses left)" in with_pause and "away" not in without.split("Your command")[0]
# --- table talk -----------------------------------------------------------------------------

class Listener:
    """Stands for the session's ``say``: records each line, or refuses with a reason."""

    def __init__(self, refuse: str = "") -> None:
        self.said: list[str] = []
        self.refuse = refuse

    def __call__(self, text: str) -> None:
        from p2pcards.protocol.talk import TalkRefused
        if self.refuse:
            raise TalkRefused(self.refuse)
        self.said.append(text)


def test_say_talks_to_the_table_during_a_decision_and_is_no_move() -> None:
    from p2pcards.protocol.talk import REACTIONS
    agent, out = _agent(["say good luck all", "say 4", "say", "pass"])
    agent.talk = listener = Listener()
    assert _run(agent, bluff_respond().view(1)) == Pass(1)
    assert listener.said == ["good luck all", REACTIONS[3]]
    assert any(line.startswith("Say what?") for line in out)
    assert not any(line.startswith("Not accepted") for line in out)


def test_a_refused_say_says_why() -> None:
    agent, out = _agent(["say hi", "p"])
    agent.talk = Listener(refuse="at most 5 lines in 10 seconds; wait a moment")
    _run(agent, bluff_respond().view(1))
    assert "Not sent: at most 5 lines in 10 seconds; wait a moment" in out


def test_say_goes_out_between_turns_and_other_lines_wait_for_the_turn() -> None:
    typist = Typist()
    typist.lines = ["say gg", "pass"]
    out: list[str] = []
    listener = Listener()
    agent = PlainAgent(typist.read_line, out.append, names=NAMES, talk=listener)

    async def scene() -> tuple[list[str], Any]:
        agent.listen()
        for _ in range(100):  # bounded: the reader takes both lines at once
            if typist.read == 2:
                break
            await asyncio.sleep(0.01)
        said_before_the_turn = list(listener.said)
        action = await agent.decide(bluff_respond().view(1))
        await agent.stop_listening()
        return said_before_the_turn, action
    said, action = asyncio.run(scene())
    assert said == ["gg"]  # nobody's turn was needed to talk
    assert action == Pass(1)  # the other line waited for the turn


def test_printer_prints_another_players_line_cleaned() -> None:
    from p2pcards.protocol.talk import TalkLine
    out: list[str] = []
    printer = PlainPrinter(out.append, lambda: NAMES, me_provider=lambda: 0)
    printer.on_event(proto.PlayersSeated((0, 1, 2, 3), 1))
    printer(TalkLine(2, "well\u202e played\x1b[0m"))
    printer(TalkLine(0, "thanks", own=True))
    assert out[-2] == "Seat 2 (Carol): well played [0m"
    assert out[-1] == "You (seat 0): thanks"
