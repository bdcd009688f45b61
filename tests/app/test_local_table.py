"""Local tables: the host, its own player and bots as full peers over in-process links."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from p2pcards.app.hosted import TableOptions, play_local, start_hosted_table
from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.bots.agent import BotAgent, make_bot_factory
from p2pcards.net.journal import Journal, read_records
from p2pcards.net.session_events import LobbyUpdate, SessionResult
from p2pcards.protocol import game_wire
from p2pcards.protocol.events import HandReceived, MatchCompleted
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.verdict import Verdict
from p2pcards.protocol.verify import verify_transcript
from p2pcards.rules.bluff import BluffConfig
from p2pcards.rules.topper import TopperConfig
from tests.app.hosted import Silent
from tests.support import until
from tests.support.typed import present

CONFIGS = {"bluff": BluffConfig(deal_cap=1), "topper": TopperConfig(target_score=3)}


def options(game: str, tmp_path: Path, seed: int = 5) -> TableOptions:
    return TableOptions(game=game, config=game_wire.by_name(game).config_to_wire(CONFIGS[game]),
                        seed=seed, deadline=30, journal_root=tmp_path)


async def play(game: str, tmp_path: Path, seed: int = 5) -> tuple[Identity, SessionResult, list[object]]:
    me = seeded_identity(seed, "me", "Me")
    events: list[object] = []
    result = await asyncio.wait_for(play_local(
        me, BotAgent(make_bot_factory(game, "heuristic"), seed), options(game, tmp_path, seed),
        on_event=events.append), timeout=120)
    return me, result, events


@pytest.mark.parametrize("game", ["bluff", "topper"])
def test_whole_local_match_against_three_bots_ends_with_an_outcome(game: str, tmp_path: Path) -> None:
    _me, result, events = asyncio.run(play(game, tmp_path))
    assert result.outcome is not None and result.verdict is None
    assert any(isinstance(e, MatchCompleted) for e in events)
    assert any(isinstance(e, LobbyUpdate) for e in events)
    hands = [e for e in events if isinstance(e, HandReceived)]
    assert hands and len(hands[0].hand) == (13 if game == "bluff" else 6)


def test_every_seat_saves_a_transcript_that_verifies_offline(tmp_path: Path) -> None:
    me, result, _ = asyncio.run(play("topper", tmp_path))
    saved = sorted(tmp_path.glob("*/*/transcript"))
    owners = {p.parent.name for p in saved}
    assert me.fingerprint in owners and "relay" in owners and len(owners) == 5
    transcripts = {tuple(read_records(p)) for p in saved}
    assert len(transcripts) == 1  # every peer and the relay hold the same transcript
    report = verify_transcript(list(transcripts.pop()))
    assert report.ok and repr(report.outcome) == repr(result.outcome)


def test_the_same_seed_replays_the_same_match_bit_for_bit(tmp_path: Path) -> None:
    _, first, _ = asyncio.run(play("topper", tmp_path / "a", seed=9))
    _, second, _ = asyncio.run(play("topper", tmp_path / "b", seed=9))
    assert repr(first.outcome) == repr(second.outcome)
    a = read_records(next((tmp_path / "a").glob("*/relay/transcript")))
    b = read_records(next((tmp_path / "b").glob("*/relay/transcript")))
    assert a == b


def test_meta_keeps_the_secrets_only_in_the_owners_private_file(tmp_path: Path) -> None:
    me, _, _ = asyncio.run(play("topper", tmp_path))
    journal = Journal(next(tmp_path.glob(f"*/{me.fingerprint}")))
    secret = journal.read_meta()["secrets"]["key"]
    for transcript in tmp_path.glob("*/*/transcript"):
        assert secret not in transcript.read_bytes()


def test_bots_fill_seats_in_a_fixed_order_and_the_host_sits_first(tmp_path: Path) -> None:
    async def run() -> list[str]:
        me = seeded_identity(1, "me", "Me")
        hosted = await start_hosted_table(
            me, BotAgent(make_bot_factory("topper", "random"), 1), options("topper", tmp_path, 1), bots=3)
        try:
            await asyncio.wait_for(hosted.result(), 60)
            return [p.name for p in hosted.host.lobby.players]
        finally:
            await hosted.close()
    assert asyncio.run(run()) == ["Me", "Ada", "Bob", "Cy"]


def test_stopping_a_player_mid_match_tells_the_others_with_a_signed_leave(tmp_path: Path) -> None:
    async def run() -> list[Verdict | None]:
        me = seeded_identity(2, "me", "Me")
        agent = Silent()
        hosted = await start_hosted_table(me, agent, options("topper", tmp_path, 2), bots=3)
        try:
            await asyncio.wait_for(agent.asked.wait(), 60)
            hosted.tasks[0].cancel()  # what Ctrl-C does to the command's task
            results = await asyncio.wait_for(asyncio.gather(*hosted.tasks[1:]), 30)
            return [r.verdict for r in results]
        finally:
            await hosted.close()
    verdicts = asyncio.run(run())
    assert all(v is not None and v.rule == "left" and v.players == (0,) for v in verdicts)


@pytest.mark.slow
def test_a_hosted_table_stopped_mid_match_is_hosted_again_and_ends_as_without_the_stop(tmp_path: Path) -> None:
    """The host process dies (every local task stops at once); a new process brings
    back the relay, the host's seat and its bots from their journals."""
    from p2pcards.app.hosted import resume_hosted_table

    async def clean_run() -> SessionResult:
        _, result, _ = await play_async("topper", tmp_path / "clean", seed=6)
        return result

    async def stopped_then_resumed() -> SessionResult:
        me = seeded_identity(6, "me", "Me")
        root = tmp_path / "faulted"
        hosted = await start_hosted_table(
            me, BotAgent(make_bot_factory("topper", "heuristic"), 6), options("topper", root, 6), bots=3)
        await until(lambda: (table := hosted.sessions[0].table) is not None and table.next_position > 40)
        await hosted.host.close()  # the links die first, as in a crash: no leave notice gets out
        for task in hosted.tasks:
            task.cancel()
        await asyncio.gather(*hosted.tasks, return_exceptions=True)
        table_dir = next(root.glob("*/relay")).parent
        again = await resume_hosted_table(
            me, BotAgent(make_bot_factory("topper", "heuristic"), 6), table_dir, seed=6)
        try:
            return await asyncio.wait_for(again.result(), 60)
        finally:
            await again.close()

    clean = asyncio.run(clean_run())
    resumed = asyncio.run(stopped_then_resumed())
    assert resumed.outcome is not None and repr(resumed.outcome) == repr(clean.outcome)
    relay = read_records(next((tmp_path / "faulted").glob("*/relay/transcript")))
    assert relay == read_records(next((tmp_path / "clean").glob("*/relay/transcript")))


def test_a_seat_whose_table_ended_with_a_verdict_does_not_resume_play(tmp_path: Path) -> None:
    async def run() -> tuple[Verdict | None, Verdict | None]:
        me = seeded_identity(2, "me", "Me")
        agent = Silent()
        hosted = await start_hosted_table(me, agent, options("topper", tmp_path, 2), bots=3)
        try:
            await asyncio.wait_for(agent.asked.wait(), 60)
            hosted.tasks[0].cancel()  # Ctrl-C: the others end with a 'left' verdict
            await asyncio.wait_for(asyncio.gather(*hosted.tasks[1:]), 30)
        finally:
            await hosted.close()
        bot = hosted.sessions[1]
        again = type(bot)(bot.identity, bot.agent, bot.connector)
        again.resume_from(Journal(present(bot.journal).directory))
        return present(again.table).verdict, (await asyncio.wait_for(again.run(), 10)).verdict
    saved, after = asyncio.run(run())
    assert saved is not None and saved.rule == "left" and after == saved


async def play_async(game: str, tmp_path: Path, seed: int) -> tuple[Identity, SessionResult, list[object]]:
    return await play(game, tmp_path, seed)


