"""Table talk on whole tables over the network code: a real host, four sessions,
players 1..3 also linked directly over loopback TCP (player 0 is the host's own
seat). A line from one player reaches every other once; a host that forges,
replays or brings in lines of another table gets none of them shown; a flood
is cut at the rate limit; and the match is the recorded one, byte for byte:
chat never touches the transcript or a verdict."""

from __future__ import annotations

import logging

import pytest

from p2pcards.protocol import frames
from p2pcards.protocol.events import PlayersSeated
from p2pcards.protocol.relay import Broadcast
from p2pcards.protocol.table_records import Stage
from p2pcards.protocol.talk import RATE_LINES, SignedTalk, TalkLine, seal_talk
from p2pcards.ui.plain import PlainPrinter

from .harness import recording
from .netbench import NetTable

pytestmark = pytest.mark.asyncio

REMOTE = (1, 2, 3)
DEADLINE = 20.0
BOUND = 20.0  # seconds any wait here may take


def talk_text(frame: bytes) -> str | None:
    """The text of a ``talk`` frame (None for any other frame)."""
    try:
        decoded = frames.decode(frame)
        return SignedTalk.parse(decoded.body).text if decoded.kind == "talk" else None
    except Exception:
        return None


def heard(net: NetTable, player: int, speaker: int) -> list[str]:
    """What ``player``'s front end was told ``speaker`` said, in order."""
    return [e.text for e in net.seats[player].events
            if isinstance(e, TalkLine) and e.player == speaker]


async def table_known(net: NetTable) -> None:
    await net._until(lambda: all(s.session.talk is not None for s in net.seats), BOUND)


async def finish_as_recorded(net: NetTable) -> None:
    """The match ends as the honest recording did, with the very same transcript."""
    try:
        results = await net.results(timeout=90.0)
    finally:
        await net.close()
    rec = recording("topper")
    for player in range(4):
        assert results[player].outcome == rec.outcome, results[player]
        assert net.table(player).stage is Stage.OVER
        assert net.transcript(player) == rec.transcript


async def test_a_line_reaches_every_other_player_once_and_the_match_is_unchanged() -> None:
    net = NetTable("topper", deadline=DEADLINE, direct=REMOTE)
    await net.start()
    await table_known(net)
    line = net.seats[1].session.say("gg \x1b[2J\u202eall")
    assert line == TalkLine(1, "gg [2J all", own=True)
    await net._until(lambda: all(heard(net, p, 1) for p in (0, 2, 3)), BOUND)
    await net._until(lambda: net.table(2).stage is Stage.OVER or len(net.transcript(2)) > 20, 60)
    for player in (0, 2, 3):
        # Players 2 and 3 got it from the host and on their direct links: shown once.
        assert heard(net, player, 1) == ["gg [2J all"]
    assert heard(net, 1, 1) == ["gg [2J all"]  # the speaker's own log says it too
    # As the other players' screens word it: the speaker by seat and name.
    table = net.table(2)
    names = [table.players[p].name for p in table.player_at_seat]
    out: list[str] = []
    printer = PlainPrinter(out.append, names, me_provider=lambda: table.my_seat)
    printer.on_event(PlayersSeated(table.player_at_seat, 0))
    printer(next(e for e in net.seats[2].events if isinstance(e, TalkLine)))
    assert out[-1] == f"Seat {table.seat_of(1)} (p1): gg [2J all"
    # The host's relay never stored it.
    assert all(talk_text(frames.encode("msg", m.raw)) is None for m in net.host.relay.messages)
    await finish_as_recorded(net)


async def test_a_host_cannot_forge_replay_or_import_a_line(caplog: pytest.LogCaptureFixture) -> None:
    """The host signs a line in player 1's name, brings in player 1's line of another
    table, and hands player 0 an old line of player 1 after a newer one: none is shown,
    each drop is logged with its reason, and nobody is blamed."""
    caplog.set_level(logging.WARNING, logger="p2pcards.net.seat_talk")
    net = NetTable("topper", deadline=DEADLINE, direct=REMOTE)
    stash: dict[str, bytes] = {}

    def host_hands_player_0(frame: bytes) -> object:
        text = talk_text(frame)
        if text == "first":
            stash["first"] = frame
            return False  # withheld for now
        if text == "third":
            return stash["first"]  # the old line, handed over as if new
        return True
    net.inbound[0] = host_hands_player_0
    await net.start()
    await table_known(net)
    sid = net.table(1).session
    forged = seal_talk(net.identities[0], session=sid, player=1, counter=2**52, text="I resign")
    elsewhere = seal_talk(net.identities[1], session=bytes(32), player=1, counter=2**52,
                          text="from another table")
    net.host._apply([Broadcast(frames.encode("talk", forged.raw)),
                     Broadcast(frames.encode("talk", elsewhere.raw))])
    speaker = net.seats[1].session
    for text in ("first", "second", "third"):
        speaker.say(text)
    await net._until(lambda: heard(net, 0, 1) == ["second"] and all(
        heard(net, p, 1) == ["first", "second", "third"] for p in (2, 3)), BOUND)
    await net._until(lambda: "replayed or late chat line of player 1" in caplog.text, BOUND)
    assert "signature is not player 1's" in caplog.text
    assert "another table" in caplog.text
    for player in range(4):
        assert "I resign" not in heard(net, player, 1)
        assert "from another table" not in heard(net, player, 1)
    await finish_as_recorded(net)


async def test_a_flood_is_cut_at_the_rate_limit_and_play_goes_on() -> None:
    """Player 1's link sends twice the allowed lines at once (past its own limit): the
    host forwards only the allowed ones and every player shows only those."""
    net = NetTable("topper", deadline=DEADLINE, direct=REMOTE)
    await net.start()
    await table_known(net)
    sid = net.table(1).session
    flood = [seal_talk(net.identities[1], session=sid, player=1, counter=n, text=f"spam {n}")
             for n in range(1, 2 * RATE_LINES + 1)]
    link = net.seats[1].connections[-1]
    for line in flood:
        await link.send(frames.encode("talk", line.raw))
    allowed = [f"spam {n}" for n in range(1, RATE_LINES + 1)]
    await net._until(lambda: all(heard(net, p, 1) == allowed for p in (0, 2, 3)), BOUND)
    await finish_as_recorded(net)
    for player in (0, 2, 3):
        assert heard(net, player, 1) == allowed


async def test_a_line_appears_on_another_players_full_screen() -> None:
    """Player 1 says a line; player 2's full-screen table (headless, fed by its real
    session) shows it in the log, the speaker named by seat."""
    from tests.ui.test_tui_harness import headless, shows

    net = NetTable("topper", deadline=DEADLINE, direct=REMOTE)
    await net.start()
    await table_known(net)
    await net._until(lambda: net.table(2).player_at_seat is not None, BOUND)  # named by seat
    watcher = net.seats[2]
    async with headless(session=lambda: watcher.session) as (screen, keys, term):
        for event in list(watcher.events):  # what the screen would have been told so far
            screen.on_event(event)
        watcher.session.on_event = lambda event: (watcher.events.append(event),  # type: ignore[assignment, func-returns-value]
                                                  screen.on_event(event))  # type: ignore[func-returns-value]
        net.seats[1].session.say("nice hand")
        seat = net.table(2).seat_of(1)
        await shows(term, f"Seat {seat} (p1): nice hand", timeout=BOUND)
        watcher.session.on_event = watcher.events.append  # the screen closes; play goes on
    await finish_as_recorded(net)
