"""The end box as rules (sans-IO): a joiner's ``EndBox`` ends only by time and by the
host's word (presence, peers, pings and junk are free and end nothing; only choice
and fill frames cost a budget), the host's ``EndLobby`` frees the seat of a player
away past the grace and closes in time, the count of a seat freed by absence, and a
rematch's clock that never names a writer with nothing in it (``evening.unopened``,
which ``verify`` confirms only where it holds)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from p2pcards.protocol import frames
from p2pcards.protocol.again import AGAIN, LEAVE, AgainCount, Choice, sign_choice
from p2pcards.protocol.end_box import (
    CHOICE_FRAMES_PER_LINK,
    END_BOX_GRACE,
    END_BOX_SLACK,
    END_BOX_WAIT,
    LEAVE_ACK_WAIT,
    ChoiceHeard,
    EndBox,
    Ending,
    EndStated,
    Over,
    SendFrame,
    statement,
)
from p2pcards.protocol.end_box_host import Closed, EndLobby, Returned, Vacated
from p2pcards.protocol.errors import UnopenedInconsistent
from p2pcards.protocol.evidence import check_verdict
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.rematch_genesis import FinishedMatch
from p2pcards.protocol.seat_fill import fill_of
from p2pcards.protocol.session import Send, SessionRules
from p2pcards.protocol.table import Table
from p2pcards.protocol.verdict import Verdict

ROOT = Path(__file__).resolve().parents[2]
IDS = [Identity.generate(f"p{i}") for i in range(4)]
KEYS = tuple(i.public_key for i in IDS)
FINISHED = FinishedMatch(bytes(range(32)), bytes(32), KEYS)


def again(player: int, choice: str = AGAIN) -> bytes:
    return frames.encode("again", sign_choice(IDS[player], FINISHED, player, choice).raw)


def mine(player: int, choice: str) -> Choice:
    return Choice.parse(sign_choice(IDS[player], FINISHED, player, choice).raw)


def presence(linked: list[int]) -> bytes:
    return frames.encode("presence", {"linked": linked})


def test_presence_peers_pings_and_junk_never_end_an_end_box_nor_cost_its_budget() -> None:
    box = EndBox(FINISHED, KEYS, now=0.0)
    box.linked(0.0)
    box.choose(mine(1, AGAIN), 0.0)
    flood = [presence([1, 1, i % 2, 1]) for i in range(5000)]
    flood += [frames.encode("peers", {"players": []}), frames.encode("ping", {"n": 1}),
              b"\x93junk", b""] * 100
    for n, frame in enumerate(flood):
        assert box.frame(frame, n * 0.01) == []
    assert not box.done and box.budget == CHOICE_FRAMES_PER_LINK
    # The leave that follows the flood is heard, and counted.
    out = box.frame(again(2, AGAIN), 60.0) + box.frame(again(2, LEAVE), 61.0)
    assert [o.chosen.choice for o in out if isinstance(o, ChoiceHeard)] == [AGAIN, LEAVE]
    assert box.count.choices[2] == LEAVE


def test_choice_frames_beyond_the_budget_are_dropped_unread_and_the_box_listens_on() -> None:
    box = EndBox(FINISHED, KEYS, now=0.0)
    box.linked(0.0)
    for _ in range(CHOICE_FRAMES_PER_LINK):
        box.frame(again(2, AGAIN), 1.0)
    assert box.budget == 0 and box.frame(again(3, AGAIN), 1.0) == [] and 3 not in box.count.choices
    assert box.frame(statement(0, Ending.REMATCH), 2.0) == [Over(Ending.REMATCH)]
    # A new link (a redial) reads choices again: the relay shows it every choice kept.
    fresh = EndBox(FINISHED, KEYS, now=0.0)
    fresh.linked(0.0)
    fresh.unlinked(1.0)
    fresh.linked(2.0)
    assert fresh.budget == CHOICE_FRAMES_PER_LINK


def test_an_end_box_ends_on_the_hosts_word_or_its_own_clock_never_later() -> None:
    box = EndBox(FINISHED, KEYS, now=100.0)
    assert box.wake_at() == 100.0 + END_BOX_WAIT + END_BOX_SLACK
    assert box.frame(statement(30.0), 110.0) == [EndStated(140.0)]
    assert box.tick(140.0 + END_BOX_SLACK - 1) == []
    assert box.tick(140.0 + END_BOX_SLACK) == [Over(Ending.NO_WORD)]
    # A host that says "3600 s left" cannot hold it past its own wait.
    held = EndBox(FINISHED, KEYS, now=0.0)
    held.frame(statement(3600.0), 1.0)
    assert held.shown_end == END_BOX_WAIT and held.closes_at == END_BOX_WAIT + END_BOX_SLACK
    for word, ending in ((Ending.TIMED_OUT, Ending.TIMED_OUT), (Ending.HOST_LEFT, Ending.HOST_LEFT)):
        other = EndBox(FINISHED, KEYS, now=0.0)
        assert other.frame(statement(0, word), 5.0) == [Over(ending)]
    refused = EndBox(FINISHED, KEYS, now=0.0)
    reason = "your seat at this table's end box went to someone else"
    assert refused.frame(frames.encode("reject", {"reason": reason}), 5.0) == \
        [Over(Ending.REFUSED, reason)]


def test_a_choice_is_sent_on_every_new_link_and_a_leave_ends_once_it_comes_back() -> None:
    box = EndBox(FINISHED, KEYS, now=0.0)
    out = box.choose(mine(1, LEAVE), 0.0)  # chosen before any link: sent on the first
    assert not any(isinstance(o, SendFrame) for o in out) and box.wake_at() > LEAVE_ACK_WAIT
    sent = box.linked(1.0)
    assert sent == [SendFrame(again(1, LEAVE))] and box.wake_at() == 1.0 + LEAVE_ACK_WAIT
    box.unlinked(2.0)
    assert box.linked(3.0) == [SendFrame(again(1, LEAVE))]  # again on the next link
    assert box.frame(again(1, LEAVE), 3.5) == [Over(Ending.LEFT)]  # the relay's receipt
    lost = EndBox(FINISHED, KEYS, now=0.0)
    lost.choose(mine(1, LEAVE), 0.0)
    assert lost.unreachable(2.0) == [Over(Ending.LEFT, "the host could not be reached")]
    gone = EndBox(FINISHED, KEYS, now=0.0)
    assert gone.unreachable(2.0) == [Over(Ending.HOST_GONE)]


def _lobby(local: tuple[int, ...] = (0,)) -> tuple[AgainCount, EndLobby]:
    count = AgainCount(FINISHED, KEYS)
    for player in local:
        count.receive(sign_choice(IDS[player], FINISHED, player, AGAIN).raw)
    return count, EndLobby(count, opened_at=0.0, local=local)


def test_the_host_frees_an_undecided_players_seat_after_the_grace_and_gives_it_back() -> None:
    count, lobby = _lobby()
    lobby.present([1, 1, 1, 0], 0.0)  # player 3 never came to the end box
    count.receive(sign_choice(IDS[1], FINISHED, 1, AGAIN).raw)
    assert lobby.tick(END_BOX_GRACE - 0.1) == [] and not count.free
    assert lobby.tick(END_BOX_GRACE) == [Vacated(3)] and list(count.free) == [3]
    # Back before anyone took it: its own again; its choice then counts.
    assert lobby.present([1, 1, 1, 1], 11.0) == [Returned(3)] and not count.free
    # Player 2 goes away undecided: freed after the grace; player 1 chose: never freed.
    lobby.present([1, 0, 0, 1], 12.0)
    assert lobby.tick(12.0 + END_BOX_GRACE) == [Vacated(2)]
    made = count.fill(2, Identity.generate("bot").public_key, "Dee")
    assert made.player == 2 and lobby.present([1, 1, 1, 1], 30.0) == []  # taken: not its own
    count.receive(sign_choice(IDS[3], FINISHED, 3, AGAIN).raw)
    assert lobby.tick(31.0) == [Closed(Ending.REMATCH)] and count.ready


def test_the_hosts_end_box_times_out_and_a_host_that_leaves_ends_it() -> None:
    count, lobby = _lobby()
    lobby.present([1, 1, 1, 1], 0.0)
    assert lobby.wake_at() == END_BOX_WAIT
    assert lobby.tick(END_BOX_WAIT) == [Closed(Ending.TIMED_OUT)] and lobby.done
    _count, leaving = _lobby()
    assert leaving.host_left(5.0) == [Closed(Ending.HOST_LEFT)]


def test_a_seat_freed_by_absence_is_counted_alike_by_the_host_and_every_end_box() -> None:
    host = AgainCount(FINISHED, KEYS)
    assert host.vacate(3) and not host.vacate(3)
    bot = Identity.generate("bot")
    made = host.fill(3, bot.public_key, "Dee")
    box = AgainCount(FINISHED, KEYS)
    assert box.hear_fill(made) and 3 in box.vacated and box.filled[3][0] == bot.public_key
    # Its player's choice after the seat went to someone else counts nowhere.
    late = sign_choice(IDS[3], FINISHED, 3, AGAIN).raw
    assert host.receive(late) is None and box.receive(late) is None
    assert 3 not in host.choices and 3 not in box.choices
    # A fill of a seat whose player this end box holds an again of is refused.
    other = AgainCount(FINISHED, KEYS)
    other.receive(sign_choice(IDS[2], FINISHED, 2, AGAIN).raw)
    with pytest.raises(Exception, match="has not left"):
        other.hear_fill(fill_of(FINISHED, KEYS, 2, bot.public_key, "Dee", True))


def _rematch_opening() -> tuple[list[bytes], Table]:
    """The evening vector's rematch: its genesis and first message (the host's commit);
    an observer's table at position 2, whose writer has written nothing in it."""
    vector = json.loads((ROOT / "protocol" / "vectors" / "evening.json").read_text())
    messages = [bytes.fromhex(m) for m in vector["messages"][:2]]
    table = Table(messages[0])
    table.receive(messages[1], saved=True)
    return messages, table


def test_a_rematchs_clock_never_names_a_writer_with_nothing_in_it() -> None:
    messages, table = _rematch_opening()
    assert table.after is not None and table.unopened and table.writer != 0
    rules = SessionRules(deadline=10.0)
    rules.host_link_up(len(messages))
    rules.start(table, 0.0)
    pings = [o for o in rules.tick(10.0)
             if isinstance(o, Send) and frames.decode(o.frame).kind == "ping"]
    assert pings  # the hand-over first (PROTOCOL.md §8); the host answers
    rules.pong(None, rules.probe or 0)
    rules.tick(30.0)
    verdict = table.verdict
    assert verdict is not None and verdict.rule == "evening.unopened" and verdict.players == ()
    # verify confirms it where it holds (a rematch, its writer with nothing in it) ...
    observer = Table(messages[0])
    observer.receive(messages[1], saved=True)
    assert check_verdict(observer, verdict) is None
    # ... and refuses it elsewhere: naming someone, or where the writer due had written.
    for wrong in (Verdict(verdict.rule, (1,), verdict.position, verdict.detail),
                  Verdict(verdict.rule, (), verdict.position + 1, verdict.detail)):
        with pytest.raises(UnopenedInconsistent):
            check_verdict(observer, wrong)
    host_due = Table(messages[0])  # position 1: the host, which wrote the genesis
    with pytest.raises(UnopenedInconsistent):
        check_verdict(host_due, Verdict(verdict.rule, (), 1, verdict.detail))
    first = json.loads((ROOT / "protocol" / "vectors" / "table-topper.json").read_text())
    plain = Table(bytes.fromhex(first["messages"][0]))  # a first match: no rematch at all
    plain.receive(bytes.fromhex(first["messages"][1]), saved=True)
    with pytest.raises(UnopenedInconsistent, match="no rematch"):
        check_verdict(plain, Verdict(verdict.rule, (), 2, verdict.detail))
