"""A LAN rematch end to end in one process: a hosted table on loopback TCP with a
joiner, every seat's choice counted by the host, the rematch's table on the same
port with only the evening's players, rotated seats, and an evening that verifies."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from p2pcards.app.hosted import HostedTable, TableOptions, start_hosted_table
from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.app.joined import joining_session
from p2pcards.bots.agent import BotAgent, make_bot_factory
from p2pcards.evening.host_side import EveningHost, finished_of
from p2pcards.evening.joiner_side import choices_of, rejoining_session
from p2pcards.net.end_box_link import end_box_link
from p2pcards.net.peer import PeerSession
from p2pcards.net.session_events import SessionResult
from p2pcards.protocol import game_wire
from p2pcards.protocol.again import AGAIN, LEAVE, AgainCount, sign_choice
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.rematch_genesis import FinishedMatch
from p2pcards.protocol.verify_rematches import verify_evening
from p2pcards.rules.bluff import BluffConfig
from tests.support.polling import until
from tests.support.typed import present

SEED = 21


def bot(seed: int) -> BotAgent:
    return BotAgent(make_bot_factory("bluff", "heuristic"), seed)


def table_options(tmp_path: Path, bots: int = 2) -> TableOptions:
    return TableOptions(game="bluff", config=game_wire.by_name("bluff").config_to_wire(
        BluffConfig(deal_cap=1)), seed=SEED, deadline=30, journal_root=tmp_path / "host",
        tcp_host="127.0.0.1", tcp_port=0)


async def first_match(tmp_path: Path, joiners: int) -> tuple[
        Identity, TableOptions, HostedTable, int, list[Identity], list[PeerSession]]:
    """A table with ``joiners`` players over TCP (the rest the host's bots), played out."""
    host = seeded_identity(SEED, "host", "Hana")
    options = table_options(tmp_path)
    hosted = await start_hosted_table(host, bot(1), options, bots=3 - joiners)
    port = present(hosted.host.tcp_port)
    people = [seeded_identity(SEED, f"j{i}", f"Jo{i}") for i in range(joiners)]
    sessions = [joining_session(p, bot(10 + i), "127.0.0.1", port, deadline=30, bot=True,
                                seed=SEED, label=f"j{i}", journal_root=tmp_path / f"j{i}",
                                direct=False, announce=False)
                for i, p in enumerate(people)]
    runs = [asyncio.create_task(s.run()) for s in sessions]
    result = await asyncio.wait_for(hosted.result(), 120)
    joined = await asyncio.wait_for(asyncio.gather(*runs), 60)
    assert result.outcome is not None and all(r.outcome is not None for r in joined)
    return host, options, hosted, port, people, sessions


async def second_match(evening: EveningHost, port: int, people: list[Identity], previous: list[FinishedMatch],
                       tmp_path: Path) -> tuple[HostedTable, SessionResult, list[PeerSession], list[SessionResult]]:
    second = await evening.start(bot(2), seed=SEED + 1)
    assert second.host.tcp_port == port  # the same address: nobody discovers anything
    again = [rejoining_session(p, bot(20 + i), "127.0.0.1", port, previous[i], deadline=30,
                               bot=True, seed=SEED + 1, label=f"j{i}",
                               journal_root=tmp_path / f"j{i}", direct=False, announce=False)
             for i, p in enumerate(people)]
    runs = [asyncio.create_task(s.run()) for s in again]
    try:
        result = await asyncio.wait_for(second.result(), 120)
        joined = await asyncio.wait_for(asyncio.gather(*runs), 60)
    finally:
        await second.close(grace=0, linger=0)
    return second, result, again, joined


def index_of(session: PeerSession) -> int:
    keys = [p.public_key for p in present(session.table).players]
    return keys.index(session.identity.public_key)


def test_all_four_choose_again_and_the_rematch_plays_rotated_on_the_same_port(tmp_path: Path) -> None:
    async def run() -> tuple[FinishedMatch, list[bytes], HostedTable, SessionResult, list[SessionResult]]:
        host, options, hosted, port, people, sessions = await first_match(tmp_path, joiners=2)
        evening = EveningHost(host, hosted, options)
        assert not evening.ready  # the host and its bot said again; the joiners not yet
        previous = [finished_of(s) for s in sessions]
        # Each joiner's end box carries its signed choice to the host over a new link.
        boxes = [asyncio.create_task(end_box_link(
            person, "127.0.0.1", port, finished, tuple(p.public_key for p in present(s.table).players),
            present(s.table).next_position, sign_choice(person, finished, index_of(s), AGAIN)))
            for person, s, finished in zip(people, sessions, previous, strict=True)]
        assert await asyncio.wait_for(evening.until_decided(), 60)
        first_transcript = present(hosted.sessions[0].table).transcript()
        await hosted.close(grace=0, linger=0)
        heard = await asyncio.wait_for(asyncio.gather(*boxes), 30)
        # Every end box heard every seat's again (its own, the others', the host's bots').
        assert all(count.ready for count in heard), [c.choices for c in heard]
        second, result, again, joined = await second_match(evening, port, people, previous,
                                                           tmp_path)
        return evening.finished, first_transcript, second, result, joined

    before, first, second, result, joined = asyncio.run(run())
    assert result.outcome is not None and all(r.outcome is not None for r in joined)
    table = present(second.sessions[0].table)
    assert table.after is not None and table.after.session == before.session
    now = table.finished()
    # The player at seat s of the match before sits at seat s + 1 now.
    assert all(now.seats[(s + 1) % 4] == before.seats[s] for s in range(4))
    report = verify_evening([first, table.transcript()])
    assert report.ok, report.problem


def test_a_leaver_frees_the_seat_the_host_fills_it_with_a_bot_and_the_rematch_plays(tmp_path: Path) -> None:
    async def run() -> tuple[
            EveningHost, Identity, list[bytes], HostedTable, SessionResult, list[SessionResult], int]:
        host, options, hosted, port, people, sessions = await first_match(tmp_path, joiners=2)
        evening = EveningHost(host, hosted, options)
        previous = [finished_of(s) for s in sessions]
        stays, leaves = index_of(sessions[0]), index_of(sessions[1])
        evening.receive(choices_of(people[0], previous[0], stays, [AGAIN])[0])
        evening.receive(choices_of(people[1], previous[1], leaves, [LEAVE])[0])
        assert evening.count.free == (leaves,) and not evening.ready
        filler = evening.fill_with_bot(leaves)
        assert evening.ready
        first_transcript = present(hosted.sessions[0].table).transcript()
        await hosted.close(grace=0, linger=0)
        second, result, _again, joined = await second_match(evening, port, people[:1],
                                                            previous[:1], tmp_path)
        return evening, filler, first_transcript, second, result, joined, leaves

    evening, filler, first, second, result, joined, leaves = asyncio.run(run())
    assert result.outcome is not None and joined[0].outcome is not None
    keys = [p.public_key for p in present(second.sessions[0].table).players]
    assert keys[leaves] == filler.public_key  # the filler takes its leaver's place
    assert verify_evening([first, present(second.sessions[0].table).transcript()]).ok


def test_a_joiner_refuses_a_rematch_that_names_another_match(tmp_path: Path) -> None:
    async def run() -> tuple[PeerSession, SessionResult]:
        host, options, hosted, port, people, sessions = await first_match(tmp_path, joiners=1)
        evening = EveningHost(host, hosted, options)
        finished = finished_of(sessions[0])
        evening.receive(choices_of(people[0], finished, index_of(sessions[0]), [AGAIN])[0])
        await hosted.close(grace=0, linger=0)
        second = await evening.start(bot(2), seed=SEED + 1)
        # This joiner's record names another end of the match: the genesis is refused.
        wrong = FinishedMatch(finished.session, bytes(32), finished.seats)
        joiner = rejoining_session(people[0], bot(3), "127.0.0.1", port, wrong, deadline=5,
                                   reconnect_window=2, bot=True, direct=False, announce=False)
        try:
            result = await asyncio.wait_for(joiner.run(), 60)
        finally:
            await second.close(grace=0, linger=0)
        return joiner, result

    joiner, result = asyncio.run(run())
    assert joiner.table is None  # nothing of the rematch was accepted, so nothing signed
    assert "evening.after" in result.reason



def test_the_hosts_end_box_says_who_it_waits_for_until_every_seat_is_taken(tmp_path: Path) -> None:
    async def run() -> list[str | None]:
        host, options, hosted, port, people, sessions = await first_match(tmp_path, joiners=2)
        try:
            loop = asyncio.get_running_loop()
            evening = EveningHost(host, hosted, options, opened_at=loop.time())
            opened = evening.lobby.closes_at - 120
            previous = [finished_of(s) for s in sessions]
            lines = [evening.waiting_line(opened)]
            evening.receive(choices_of(people[0], previous[0], index_of(sessions[0]), [AGAIN])[0])
            lines.append(evening.waiting_line(opened + 30))
            evening.receive(choices_of(people[1], previous[1], index_of(sessions[1]), [LEAVE])[0])
            lines.append(evening.waiting_line(opened + 30))
            assert evening.fill_free_seat() == \
                'End box: "Jo1"\'s seat goes to the bot "Dee".'
            lines.append(evening.waiting_line(opened + 30))
            return lines
        finally:
            await hosted.close(grace=0, linger=0)

    both, one, free, none = asyncio.run(run())
    assert both in {f'End box: waiting for {who} to choose (120 s left, then the evening '
                    'ends).' for who in ('"Jo0", "Jo1"', '"Jo1", "Jo0"')}  # in join order
    assert one == 'End box: waiting for "Jo1" to choose (90 s left, then the evening ends).'
    assert free == "End box: waiting for a player to take the free seat (90 s left, then the " \
                   "evening ends)."
    assert none is None  # every seat taken: the rematch starts


def test_a_player_gone_from_the_end_box_has_its_seat_freed_when_the_grace_ends(
        tmp_path: Path) -> None:
    """The host's clock frees a seat when that player's grace ends, though it went to
    sleep (nobody away) until the end box's close: going away wakes it. Nothing else
    runs here (no ``until_decided``) to look in the meantime."""
    async def run() -> tuple[set[int], int]:
        host, options, hosted, port, people, sessions = await first_match(tmp_path, joiners=2)
        try:
            evening = EveningHost(host, hosted, options, grace=0.5)
            gone = index_of(sessions[1])
            everyone = (1, 1, 1, 1)
            hosted.host.on_linked(everyone)  # every end box linked: the clock sleeps to the close
            await asyncio.sleep(0)
            hosted.host.on_linked(tuple(0 if p == gone else 1 for p in range(4)))
            # Bounded far below the end box's close (120 s), where the clock planned to wake.
            await until(lambda: evening.count.vacated, timeout=30,
                        what="the seat freed at the end of the grace")
            return set(evening.count.vacated), gone
        finally:
            await hosted.close(grace=0, linger=0)

    vacated, gone = asyncio.run(run())
    assert vacated == {gone}


def test_a_newcomer_takes_the_freed_seat_everyone_is_told_and_the_evening_verifies(tmp_path: Path) -> None:
    from p2pcards.net.session_events import SeatFilled
    from p2pcards.protocol.end_box import FillHeard
    from p2pcards.protocol.seat_fill import Fill

    async def run() -> tuple[Any, ...]:
        host, options, hosted, port, people, sessions = await first_match(tmp_path, joiners=2)
        evening = EveningHost(host, hosted, options)
        # What discovery would say (a real advertiser needs mDNS): every change, once.
        advertised: list[tuple[int, bool]] = []

        class Advertiser:
            async def update(self, *, free_seats: int, between: bool) -> None:
                advertised.append((free_seats, between))
        evening.advertiser = Advertiser()  # type: ignore[assignment]
        previous = [finished_of(s) for s in sessions]
        stays, leaves = index_of(sessions[0]), index_of(sessions[1])
        keys = tuple(p.public_key for p in present(sessions[0].table).players)
        told: list[Fill] = []

        def heard_fill(out: object) -> None:
            if isinstance(out, FillHeard):
                told.append(out.fill)
        box = asyncio.create_task(end_box_link(
            people[0], "127.0.0.1", port, previous[0], keys, present(sessions[0].table).next_position,
            sign_choice(people[0], previous[0], stays, AGAIN), on_output=heard_fill))
        await end_box_link(people[1], "127.0.0.1", port, previous[1], keys,
                           present(sessions[1].table).next_position,
                           sign_choice(people[1], previous[1], leaves, LEAVE))
        decided = asyncio.create_task(evening.until_decided())
        for _ in range(600):  # the host counts the leave it was sent
            if evening.count.free == (leaves,):
                break
            await asyncio.sleep(0.05)
        assert evening.count.free == (leaves,)
        # A newcomer joins the finished table by the ordinary join path: its hello
        # takes the freed seat, and it plays the rematch on the same address.
        nia = seeded_identity(SEED, "nia", "Nia")
        heard: list[Fill] = []
        newcomer = joining_session(
            nia, bot(30), "127.0.0.1", port, deadline=30, bot=True, seed=SEED + 1, label="nia",
            journal_root=tmp_path / "nia", direct=False, announce=False,
            on_event=lambda e: heard.append(e.fill) if isinstance(e, SeatFilled) else None)
        plays = asyncio.create_task(newcomer.run())
        assert await asyncio.wait_for(decided, 60)
        first_transcript = present(hosted.sessions[0].table).transcript()
        await hosted.close(grace=0, linger=0)
        box_count = await asyncio.wait_for(box, 30)
        second, result, _again, joined = await second_match(evening, port, people[:1],
                                                            previous[:1], tmp_path)
        theirs = await asyncio.wait_for(plays, 60)
        return (evening, leaves, told, heard, box_count, first_transcript, second, result,
                joined, newcomer, theirs, nia, advertised)

    (evening, leaves, told, heard, box_count, first, second, result, joined, newcomer, theirs,
     nia, advertised) = asyncio.run(run())
    # Discovery said the table was between matches with one freed seat, then no more.
    assert advertised == [(1, True), (0, False)]
    made = evening.fills[0]
    assert made.player == leaves and made.public_key == nia.public_key and made.name == "Nia"
    assert told == [made] and heard == [made]  # the staying joiner's end box, the newcomer
    assert box_count.ready  # the end box counted the fill as the host did
    assert newcomer.links.taken == made
    assert result.outcome is not None and joined[0].outcome is not None
    assert theirs.outcome is not None, theirs.reason
    keys = [p.public_key for p in second.sessions[0].table.players]
    assert keys[leaves] == nia.public_key  # in its leaver's place in the join order
    assert newcomer.table is not None and newcomer.table.session == second.sessions[0].table.session
    assert verify_evening([first, second.sessions[0].table.transcript()]).ok


def test_a_joiner_refuses_a_rematch_that_drops_a_player_whose_again_it_holds(tmp_path: Path) -> None:
    """The joiner's end box saw one of the host's bots choose again; the host then
    counts that bot's leave (never shown here) and gives its seat to a new bot. The
    joiner's session checks the genesis against its own count and refuses it
    (``evening.dropped``) before it signs anything."""
    async def run() -> Any:
        host, options, hosted, port, people, sessions = await first_match(tmp_path, joiners=1)
        evening = EveningHost(host, hosted, options)
        finished = finished_of(sessions[0])
        keys = tuple(p.public_key for p in present(sessions[0].table).players)
        evening.receive(choices_of(people[0], finished, index_of(sessions[0]), [AGAIN])[0])
        bot_player = next(i for i, k in enumerate(keys) if k in evening.bots)
        signer = evening.bots[keys[bot_player]]
        held = AgainCount(finished, keys)
        for raw in [*choices_of(people[0], finished, index_of(sessions[0]), [AGAIN]),
                    *choices_of(signer, finished, bot_player, [AGAIN])]:
            held.receive(raw)
        evening.receive(choices_of(signer, finished, bot_player, [LEAVE])[0])
        evening.fill_with_bot(bot_player)
        assert evening.ready
        await hosted.close(grace=0, linger=0)
        second = await evening.start(bot(2), seed=SEED + 1)
        joiner = rejoining_session(people[0], bot(3), "127.0.0.1", port, finished, held,
                                   deadline=5, reconnect_window=2, bot=True, direct=False,
                                   announce=False)
        try:
            result = await asyncio.wait_for(joiner.run(), 60)
        finally:
            await second.close(grace=0, linger=0)
        return joiner, result, bot_player

    joiner, result, bot_player = asyncio.run(run())
    assert joiner.table is None  # nothing of the rematch was accepted, so nothing signed
    assert "evening.dropped" in result.reason and f"drops player {bot_player}" in result.reason
