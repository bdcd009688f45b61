"""A part of a table that fails is said in words and stops the table at once
(:mod:`p2pcards.net.failing`), in process: the first failure among the parts,
the relay whose record fails, a joiner whose own link set-up fails, and a
direct-link listener that cannot open (the table goes on, and says why)."""

from __future__ import annotations

import asyncio
import dataclasses
import errno
from pathlib import Path

import pytest

from p2pcards.app.hosted import TableOptions, start_hosted_table
from p2pcards.app.insecure_seed import seeded_identity
from p2pcards.app.joined import joining_session
from p2pcards.net import failing
from p2pcards.net.failing import FirstFailure, LocalFailure, in_words, unexpected
from p2pcards.net.journal import Journal
from p2pcards.net.mesh import Mesh
from p2pcards.net.session_events import Degraded, SessionEvent
from p2pcards.net.storage import StorageError
from p2pcards.protocol import game_wire
from p2pcards.rules.topper import TopperConfig
from p2pcards.ui.text_events import describe
from tests.app.hosted import topper_bot
from tests.support.polling import until

#: Seconds a failure may take to stop a table: it never waits for a clock.
BOUND = 10.0


@pytest.mark.parametrize("error, words", [
    (OSError(errno.ENOSPC, "No space left on device", "/x/transcript"),
     "no space left on device (/x/transcript)"),
    (PermissionError(errno.EACCES, "Permission denied"), "permission denied"),
    (StorageError("the lock failed"), "the lock failed"),
    (RuntimeError("boom"), "RuntimeError: boom"),
    (RuntimeError(), "RuntimeError"),
])
def test_an_error_in_words_never_shows_its_errno(error: BaseException, words: str) -> None:
    assert in_words(error) == words
    assert "Errno" not in unexpected(error) and unexpected(error).startswith(f"stopped: {words}; ")


def test_what_to_try_follows_the_kind_of_failure() -> None:
    assert "free some space" in failing.what_to_try(OSError(errno.ENOSPC, "No space"))
    assert "writable" in failing.what_to_try(OSError(errno.EROFS, "Read-only", "/x"))
    assert "-v" in failing.what_to_try(RuntimeError("boom"))


async def _forever() -> str:
    await asyncio.sleep(3600)
    return "never"


async def _fails() -> str:
    raise StorageError("the bot's record cannot be locked")


def test_the_first_failure_of_another_part_ends_the_wait_for_the_own_seat() -> None:
    async def run() -> None:
        failures = FirstFailure(afterwards=lambda: "The table stopped here")
        own = asyncio.create_task(_forever())
        bot = asyncio.create_task(_fails())
        failures.watch(bot, 'the bot seat "Ada"')
        with pytest.raises(LocalFailure) as failed:
            await asyncio.wait_for(failures.result(own, "your seat"), BOUND)
        assert str(failed.value).startswith('the bot seat "Ada" failed: the bot\'s record cannot '
                                            'be locked; ')
        assert str(failed.value).endswith(". The table stopped here")
        assert isinstance(failed.value.__cause__, StorageError)
        assert not own.done()  # stopping it is the table's close, not the wait's
        own.cancel()
    asyncio.run(run())


def test_a_part_that_is_cancelled_or_ends_is_no_failure() -> None:
    async def run() -> None:
        failures = FirstFailure()
        stopped = asyncio.create_task(_forever())
        failures.watch(stopped, "a bot")
        stopped.cancel()
        await asyncio.wait({stopped})
        own = asyncio.create_task(asyncio.sleep(0, result="over"))
        assert await failures.result(own, "your seat") == "over"
        assert failures.failure is None
    asyncio.run(run())


def test_the_own_seats_failure_is_said_as_its_own() -> None:
    async def run() -> None:
        own = asyncio.create_task(_fails())
        with pytest.raises(LocalFailure, match="^your seat failed: the bot's record cannot"):
            await FirstFailure().result(own, "your seat")
    asyncio.run(run())


def test_a_stop_of_the_wait_stops_the_own_seat_as_awaiting_it_would() -> None:
    async def run() -> None:
        failures = FirstFailure()
        own = asyncio.create_task(_forever())
        waiting = asyncio.create_task(failures.result(own, "your seat"))
        await asyncio.sleep(0)
        waiting.cancel()
        await asyncio.wait({waiting})
        assert waiting.cancelled() and own.cancelled()
    asyncio.run(run())


def _options(tmp_path: Path) -> TableOptions:
    config = game_wire.by_name("topper").config_to_wire(TopperConfig(target_score=3))
    return TableOptions(game="topper", config=config, seed=9, deadline=30, journal_root=tmp_path)


def test_a_relay_whose_record_cannot_be_kept_stops_the_table_signing_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claim = Journal.claim

    def refuse_the_relay(journal: Journal) -> None:
        if journal.directory.name == "relay":
            raise StorageError("the relay's record cannot be locked")
        claim(journal)

    monkeypatch.setattr(Journal, "claim", refuse_the_relay)

    async def run() -> None:
        hosted = await start_hosted_table(seeded_identity(9, "me", "Me"), topper_bot(1),
                                          _options(tmp_path), bots=3)
        try:
            with pytest.raises(LocalFailure) as failed:
                await asyncio.wait_for(hosted.result(), BOUND)
            assert str(failed.value).startswith("the table's record (its relay) failed: the "
                                                "relay's record cannot be locked; ")
            assert hosted.host.failure is not None
        finally:
            await asyncio.wait_for(hosted.close(), BOUND)
        assert all(task.done() for task in hosted.tasks)
    asyncio.run(run())
    # The relay relayed nothing it could not keep: no seat ever heard the genesis.
    assert not any(tmp_path.rglob("transcript"))


def test_a_joiner_whose_own_link_set_up_fails_stops_with_why(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def broken_listen(self: Mesh, host: str, mine: object = None) -> list[object]:
        raise RuntimeError("the listener's set-up broke")

    monkeypatch.setattr(Mesh, "listen", broken_listen)

    async def run() -> None:
        hosted = await start_hosted_table(
            seeded_identity(9, "me", "Me"), topper_bot(1),
            dataclasses.replace(_options(tmp_path), tcp_host="127.0.0.1"), bots=2)
        try:
            joiner = joining_session(seeded_identity(9, "joiner", "Jo"), topper_bot(2),
                                     "127.0.0.1", hosted.host.listening_port,
                                     journal_root=tmp_path / "joiner", announce=False)
            with pytest.raises(LocalFailure, match="^setting up your link to the host failed: "
                                                   "RuntimeError: the listener's set-up broke"):
                await asyncio.wait_for(joiner.run(), BOUND)
        finally:
            await hosted.close(grace=0, linger=0)
    asyncio.run(run())


def test_a_direct_listener_that_cannot_open_says_so_and_the_seat_goes_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    async def taken(*args: object, **kwargs: object) -> None:
        raise OSError(errno.EADDRINUSE, "Address already in use")

    monkeypatch.setattr("p2pcards.net.mesh.serve", taken)
    said: list[str] = []

    async def deliver(player: int, data: bytes) -> None:
        return None

    async def run() -> None:
        mesh = Mesh(seeded_identity(9, "me", "Me"), deliver, lambda: {}, on_degraded=said.append)
        assert await mesh.listen("127.0.0.1") == []
        await mesh.close()
    asyncio.run(run())
    assert said == ["Cannot listen for direct links on 127.0.0.1 (address already in use): the "
                    "other players reach you through the host, as with --no-listen; you still "
                    "dial them."]
    event: SessionEvent = Degraded(said[0])
    assert describe(event, [], None) == said[0]  # plain mode and the screen's log say it


def test_a_new_announcement_that_fails_is_said_and_the_table_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from p2pcards.net.discovery import TableAdvertiser

    async def announced(self: TableAdvertiser) -> None:
        return None  # the first announcement went out (nothing on the wire here)

    async def refused(self: TableAdvertiser, **changes: object) -> None:
        raise OSError(errno.ENETDOWN, "Network is down")

    monkeypatch.setattr(TableAdvertiser, "start", announced)
    monkeypatch.setattr(TableAdvertiser, "update", refused)
    seen: list[SessionEvent] = []

    async def run() -> None:
        options = dataclasses.replace(_options(tmp_path), tcp_host="127.0.0.1", advertise=True)
        hosted = await start_hosted_table(seeded_identity(9, "me", "Me"), topper_bot(1), options,
                                          bots=1, on_host_event=seen.append)
        try:
            await until(lambda: any(isinstance(e, Degraded) for e in seen), BOUND)
            assert not any(task.done() for task in hosted.tasks)  # the table goes on
        finally:
            await hosted.close(grace=0, linger=0)
    asyncio.run(run())
    said = next(e.reason for e in seen if isinstance(e, Degraded))
    assert said == ("Cannot announce the table's free seats on the LAN (mDNS: network is down): "
                    "p2pcards tables may show an older count.")
