"""``p2pcards resume`` of a joined table whose host cannot be reached: one sentence
naming the table, the host (name, address and port) and why in words, never an
OSError's ``[Errno …]``; and the table is kept in play, nobody blamed."""

from __future__ import annotations

import asyncio
import json
import socket
from pathlib import Path
from typing import Any

import pytest

from p2pcards.cli import main
from p2pcards.net.host_link import why_unreached
from p2pcards.net.peer import PeerSession
from p2pcards.net.storage import load_or_create_identity, tables_dir
from p2pcards.protocol.identity import Identity
from tests.app.hosted import hosted_topper, topper_bot


def _free_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def _sit_and_crash(identity: Identity, port: int, root: Path, host_root: Path) -> None:
    """Join a table as ``identity`` (its meta saying the host is at ``port``), play
    until the deal, then stop as a crash does: nothing signed, the table in play."""
    async with hosted_topper(host_root, seed=4) as hosted:
        session = PeerSession(identity, topper_bot(3), hosted.host.local_connector(identity),
                              journal_root=root, deadline=30, direct=False, listen=False,
                              meta={"host": "127.0.0.1", "port": port, "pin": ""})
        session.leave_when_stopped = False  # a crash: no signed leave
        run = asyncio.create_task(session.run())
        for _ in range(1200):  # bounded: the deal comes within a few seconds
            if session.table is not None and len(session.table.messages) > 12 or run.done():
                break
            await asyncio.sleep(0.05)
        assert not run.done(), run.result()
        run.cancel()
        await asyncio.wait({run})


@pytest.fixture
def crashed_seat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    """A home whose one saved table is in play; the port its host was at (nothing there now)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    identity = load_or_create_identity("Ivo")
    port = _free_port()
    root = tables_dir()
    root.mkdir(parents=True)
    asyncio.run(_sit_and_crash(identity, port, root, tmp_path / "host"))
    return port


def _saved(capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    assert main(["saved", "--json"]) == 0
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


def test_a_resume_that_reaches_no_host_names_it_says_why_and_keeps_the_table(
        crashed_seat: int, capsys: pytest.CaptureFixture[str]) -> None:
    (before,) = _saved(capsys)
    assert before["in_play"]
    code = main(["resume", "--plain", "--bot", "heuristic", "--no-direct"])
    said = capsys.readouterr()
    assert code == 2
    assert "Errno" not in said.out + said.err and "Traceback" not in said.err
    err = " ".join(said.err.split())
    assert err.startswith('p2pcards: could not reach the host of your table "table" (topper), '
                          f"Me at 127.0.0.1:{crashed_seat} (refused: nothing accepts connections "
                          f"on that port). Is the host's laptop on and on this network"), err
    assert "Your table is kept, still in play: " in err
    assert f"p2pcards resume {before['session'][:12]} tries again" in err
    assert "p2pcards saved lists your tables" in err
    # Nobody was blamed: the table is still in play, resumable when the host is back.
    (after,) = _saved(capsys)
    assert after["in_play"] and after["status"] == before["status"]


@pytest.mark.parametrize(("error", "words"), [
    (ConnectionRefusedError(111, "Connection refused"), "refused"),
    (OSError(113, "No route to host"), "unreachable"),
    (OSError(101, "Network is unreachable"), "unreachable"),
    (TimeoutError(), "timed out"),
    (socket.gaierror(-2, "Name or service not known"), "unknown address"),
])
def test_why_a_dial_failed_is_said_in_words(error: OSError, words: str) -> None:
    said = why_unreached(error)
    assert said.startswith(words) and "Errno" not in said and "[" not in said


async def _host_and_crash(identity: Identity, root: Path) -> int:
    """Host a table on loopback TCP as ``identity`` with three bots, play into the
    deal, then stop as a crash does; the port it listened on."""
    from p2pcards.app.hosted import TableOptions, start_hosted_table
    from p2pcards.protocol import game_wire
    from p2pcards.rules.topper import TopperConfig
    config = game_wire.by_name("topper").config_to_wire(TopperConfig(target_score=50))
    options = TableOptions(game="topper", config=config, seed=4, deadline=30, journal_root=root,
                           tcp_host="127.0.0.1", pace=0.2)
    hosted = await start_hosted_table(identity, topper_bot(1), options, bots=3)
    own = hosted.sessions[0]
    own.leave_when_stopped = False  # a crash: no signed leave
    try:
        for _ in range(1200):  # bounded: the deal comes within a few seconds
            if own.table is not None and len(own.table.messages) > 12:
                break
            await asyncio.sleep(0.05)
        assert own.table is not None and not all(task.done() for task in hosted.tasks)
        return int(hosted.host.tcp_port or 0)
    finally:
        await hosted.close(grace=0, linger=0)


def test_a_host_whose_port_is_taken_says_so_and_keeps_the_table(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    identity = load_or_create_identity("Hana")
    root = tables_dir()
    root.mkdir(parents=True)
    port = asyncio.run(_host_and_crash(identity, root))
    (before,) = _saved(capsys)
    assert before["in_play"]
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", port))
        taken.listen()
        code = main(["resume", "--plain", "--bot", "heuristic"])
    said = capsys.readouterr()
    assert code == 2
    assert "Errno" not in said.out + said.err and "Traceback" not in said.err
    err = " ".join(said.err.split())
    assert err.startswith(f"p2pcards: cannot host your table again on 127.0.0.1:{port}: another "
                          f"program holds that port now"), err
    assert "close that program, then run " in err
    assert f"p2pcards resume {before['session'][:12]} again" in err
    (after,) = _saved(capsys)
    assert after["in_play"] and after["status"] == before["status"]


@pytest.mark.parametrize(("error", "words"), [
    (ConnectionRefusedError(111, "Connection refused"), "nothing accepts connections there"),
    (OSError(113, "No route to host"), "no route to that address from this network"),
    (socket.gaierror(-2, "Name or service not known"), "that name could not be looked up"),
    (TimeoutError(), "no answer"),
])
def test_a_join_that_reached_no_host_says_why_in_words(error: OSError, words: str) -> None:
    from p2pcards.commands.joining import nobody_answered
    said = nobody_answered("nowhere:7", f"cannot reach the host ({why_unreached(error)})")
    assert said.startswith(f"no table answered at nowhere:7 ({words}): ")
