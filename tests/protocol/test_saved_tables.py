"""Every file and frame of a table, read against protocol/schemas.json, for each way
a table ends (issue 25): a whole Bluff and a whole Topper match, and tables
ended by a deadline, an unreachable host, a leave, a rule breach and an
equivocation.

Why here and so: the written spec must not drift from what the program
writes. Each table is four peer sessions and the host's relay over the
in-process network (the network code of a real table, journals on disk, one
seed), with a spectator watching, and one player's link made hostile as
tests/hostile does. Then every saved folder (each seat's and the relay's) is
read by :mod:`spec_shapes` — plain msgpack and the JSON shapes, not the
program's own — as is every frame the relay, the seats and the spectator
received (a line of table talk included, in the whole matches); the
spectator leaves no folder; and every verdict a seat saved is
confirmed by ``verify`` (in this process for each folder, and once per table
by the ``p2pcards verify`` command itself).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from p2pcards.net.watch import WatchSession
from p2pcards.protocol import frames
from p2pcards.protocol.envelope import seal
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.verdict import Verdict
from p2pcards.protocol.verify import verify_transcript
from tests.hostile.netbench import NetTable, Tampered, on_message

from . import spec_shapes

pytestmark = pytest.mark.asyncio

#: Seconds an honest seat waits for a silent writer (room for a busy machine); only the
#: table that ends at a deadline runs this clock, the others keep NetTable's 30 s.
DEADLINE = 3.0


@dataclass
class Ended:
    """One table after its end: its saved folders (by player; the relay's as None)
    and every frame anyone received."""

    net: NetTable
    folders: dict[int | None, Path]
    frames: list[tuple[str, bytes]] = field(default_factory=list)
    hostile: int | None = None


class _Recording:
    """The spectator's link, keeping every frame it receives."""

    def __init__(self, connection: Any, received: list[bytes]) -> None:
        self.connection, self.received = connection, received

    async def recv(self) -> bytes:
        data: bytes = await self.connection.recv()
        self.received.append(data)
        return data

    def __getattr__(self, name: str) -> Any:
        return getattr(self.connection, name)


async def _table(root: Path, game: str, hostile: Callable[[NetTable, list[int]], Any] | None = None,
                 *, talk: bool = False, **options: Any) -> Ended:
    """Play one table to its end, with a spectator; ``hostile(net, chosen)`` sets the
    policies of players 1..3 (the first to act becomes ``chosen[0]``); with ``talk``
    player 1 says a line of table talk once the table is known."""
    net = NetTable(game, journal_root=root, **options)
    chosen: list[int] = []
    if hostile is not None:
        hostile(net, chosen)
    watched: list[bytes] = []
    sam = Identity.generate("Sam")
    dial = net.host.local_connector(sam)

    async def recording_dial() -> _Recording:
        return _Recording(await dial(), watched)

    await net.start()
    watcher = WatchSession(sam, recording_dial, reconnect_window=1.0)
    watching = asyncio.get_running_loop().create_task(watcher.run())
    try:
        if talk:
            await net._until(lambda: net.seats[1].session.talk is not None, 30)
            net.seats[1].session.say("good luck")
        await net.results(timeout=120)
        # It ends by itself at a match's end or a provable verdict; a deadline it
        # cannot judge, so it is stopped once it holds what the relay stored.
        relay = net.host.relay.messages
        for _ in range(500):
            table = watcher.table
            if watching.done() or (table is not None and len(table.messages) >= len(relay)):
                break
            await asyncio.sleep(0.01)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(watching), 0.5)
    finally:
        if not watching.done():
            await watcher.leave()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(watching, 10)
        await net.close()
    [session] = list(root.iterdir())
    names = {spectator.fingerprint for spectator in [sam]}
    assert not names & {p.name for p in session.iterdir()}, "a spectator saves nothing"
    by_name = {identity.fingerprint: player for player, identity in enumerate(net.identities)}
    folders = {None if p.name == "relay" else by_name[p.name]: p for p in session.iterdir()}
    assert sorted(folders, key=str) == sorted([None, 0, 1, 2, 3], key=str)
    received = [("spectator", f) for f in watched]
    received += [(f"player {seat.player}", f) for seat in net.seats for f in seat.received]
    received += [("relay", f) for _, f in net.host_received]
    return Ended(net, folders, received, chosen[0] if chosen else None)


def _first_bid_of_a_remote_player(
        act: Callable[[NetTable, bytes, Any, Tampered], list[bytes]]) -> Callable[[NetTable, list[int]], None]:
    """Policies for players 1..3: the first of them to bid does ``act`` instead."""
    def setup(net: NetTable, chosen: list[int]) -> None:
        def match(msg: Any) -> bool:
            if msg.type != "bid" or (chosen and chosen[0] != msg.player):
                return False
            chosen[:] = [msg.player]
            return True
        for player in (1, 2, 3):
            net.set_policy(player, on_message(match, lambda f, m, c: act(net, f, m, c)))
    return setup


def _vanish(net: NetTable, frame: bytes, msg: Any, conn: Tampered) -> list[bytes]:
    """The player's bid never leaves, and the host is unreachable from then on."""
    async def unreachable() -> Any:
        raise ConnectionRefusedError("the host is gone")
    net.connectors[msg.player] = unreachable
    conn.inner.close()
    return []


def _leave(net: NetTable, frame: bytes, msg: Any, conn: Tampered) -> list[bytes]:
    session = net.seats[msg.player].session
    conn.tasks.append(asyncio.get_running_loop().create_task(session.leave()))
    return [frame]


def _overbid(net: NetTable, frame: bytes, msg: Any, conn: Tampered) -> list[bytes]:
    cheat = seal(net.identities[msg.player], session=msg.session, position=msg.position,
                 prev=msg.prev, player=msg.player, type="bid", body={"tricks": 9})
    return [frames.encode("msg", cheat.raw)]


def _two_versions(net: NetTable, frame: bytes, msg: Any, conn: Tampered) -> list[bytes]:
    other = seal(net.identities[msg.player], session=msg.session, position=msg.position,
                 prev=msg.prev, player=msg.player, type="pass", body={})
    return [frame, frames.encode("msg", other.raw)]


def _check_files_and_frames(ended: Ended) -> dict[int | None, dict[str, Any]]:
    """Every saved file and every received frame fits schemas.json."""
    read = {owner: spec_shapes.folder(path) for owner, path in ended.folders.items()}
    assert read[None]["relay"] and not any(read[p]["relay"] for p in range(4))
    game, keys = read[None]["game"], read[None]["keys"]
    for owner, what in read.items():
        assert (what["game"], what["keys"]) == (game, keys), f"folder of {owner}: another table"
        if owner is not None:
            assert what["meta"]["player"] == owner
    kinds = {spec_shapes.frame(data, game, keys, f"{who}, frame {i}")
             for i, (who, data) in enumerate(ended.frames)}
    assert {"msg", "hello", "lobby"} <= kinds, kinds
    return read


def _verify_folders(ended: Ended, read: dict[int | None, dict[str, Any]],
                    expect: dict[int, tuple[str, tuple[int, ...]]]) -> None:
    """Each seat's saved verdict is the one expected, and ``verify`` confirms it (a
    provable one with its evidence; a deadline or a leave as far as a clock can)."""
    checked: dict[tuple[bytes, bytes], None] = {}
    for player in range(4):
        path = ended.folders[player]
        saved = read[player]["verdict"]
        if player in expect:
            assert saved is not None, f"player {player} saved no verdict"
            assert (saved["rule"], tuple(saved["players"])) == expect[player], (player, saved)
        key = ((path / "transcript").read_bytes(),
               (path / "verdict").read_bytes() if saved is not None else b"")
        if key in checked:
            continue  # the same record as another seat's: checked once
        checked[key] = None
        verdict = Verdict.from_wire(saved) if saved is not None else None
        report = verify_transcript(spec_shapes.records(path / "transcript"), verdict, workers=1)
        assert report.ok and report.problem is None, (player, report.problem, report.verdict_refused)
        if verdict is not None:
            assert report.verdict_confirmed is (True if verdict.provable else None), player


def _cli_verify(folder: Path) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "p2pcards", "verify", "--json", str(folder)],
                          capture_output=True, text=True, timeout=120)
    assert "Traceback" not in done.stderr, done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


@pytest.mark.parametrize("game", ["bluff", "topper"])
async def test_a_whole_match_writes_only_what_the_spec_describes(tmp_path: Path, game: str) -> None:
    ended = await _table(tmp_path, game, talk=True)
    read = _check_files_and_frames(ended)
    assert any(spec_shapes.unpack(f)[0] == "talk" for who, f in ended.frames if who != "player 1")
    for player in range(4):
        assert read[player]["verdict"] is None
        assert (ended.folders[player] / "result").exists()
    # After a normal end a player signs nothing more: no leave, no alert (§5).
    assert read[None]["notices"] == []
    # Players 1..3 said hello with bot 1: the host copied it into its lobby frames and
    # each seat saved it in its meta (§3, hello.bot), though the genesis does not carry
    # it. The host's own entry is the host's word (its table's own seat: no bot here).
    lobbies = [spec_shapes.unpack(f)[1] for _, f in ended.frames if spec_shapes.unpack(f)[0] == "lobby"]
    assert lobbies and all([bot for _, _, bot in lobby["players"]] == [0, 1, 1, 1][:len(lobby["players"])]
                           for lobby in lobbies)
    assert all(read[p]["meta"]["bots"] == [0, 1, 1, 1] for p in range(4))
    _verify_folders(ended, read, {})
    relay = verify_transcript(spec_shapes.records(ended.folders[None] / "transcript"), workers=1)
    assert relay.ok and relay.outcome is not None
    report = _cli_verify(ended.folders[1])
    assert report["ok"] and report["outcome"] is not None and report["you"] == 1


async def test_a_vanished_player_is_named_at_the_deadline_and_it_names_the_unreachable_host(tmp_path: Path) -> None:
    ended = await _table(tmp_path, "topper", _first_bid_of_a_remote_player(_vanish),
                         deadline=DEADLINE, reconnect_window=0.5)
    read = _check_files_and_frames(ended)
    gone = ended.hostile
    assert gone is not None
    expect = {p: ("deadline", (gone,)) for p in range(4) if p != gone}
    expect[gone] = ("deadline", (0,))  # what it writes when the host is unreachable
    _verify_folders(ended, read, expect)  # type: ignore[arg-type]
    assert "could not be reached" in read[gone]["verdict"]["detail"]
    for player, says in ((gone, (0,)), ((gone % 3) + 1, (gone,))):
        report = _cli_verify(ended.folders[player])
        assert report["ok"] and report["verdict"]["rule"] == "deadline", report
        assert tuple(report["verdict"]["blamed"]) == says and report["verdict"]["confirmed"] is None


async def test_a_leave_is_saved_by_everyone_and_its_notice_by_the_relay(tmp_path: Path) -> None:
    ended = await _table(tmp_path, "topper", _first_bid_of_a_remote_player(_leave))
    read = _check_files_and_frames(ended)
    leaver = ended.hostile
    assert leaver is not None
    _verify_folders(ended, read, {p: ("left", (leaver,)) for p in range(4)})
    assert any(n["type"] == "leave" and n["from"] == leaver for n in read[None]["notices"])
    report = _cli_verify(ended.folders[(leaver % 3) + 1])
    assert report["ok"] and report["verdict"]["rule"] == "left" and report["verdict"]["blamed"] == [leaver]


@pytest.mark.parametrize("cheat, rule", [(_overbid, "rules.topper.bid-range"),
                                         (_two_versions, "chain.equivocation")],
                         ids=["rule breach", "equivocation"])
async def test_a_provable_verdict_is_saved_with_its_evidence_and_confirmed(
        tmp_path: Path, cheat: Callable[[NetTable, bytes, Any, Tampered], list[bytes]], rule: str) -> None:
    # No short clock: the cheater ends too, on its own two versions coming back to it.
    ended = await _table(tmp_path, "topper", _first_bid_of_a_remote_player(cheat))
    read = _check_files_and_frames(ended)
    cheater = ended.hostile
    assert cheater is not None
    honest = [p for p in range(4) if p != cheater]
    _verify_folders(ended, read, {p: (rule, (cheater,)) for p in honest})
    assert all(read[p]["verdict"]["evidence"] for p in honest)
    # The honest seats' alerts reached the relay, signed in the notices' domain.
    assert any(n["type"] == "alert" and n["body"]["rule"] == rule for n in read[None]["notices"])
    # The relay judges no rule: it stored the overbid, one message past the seats'
    # records, and verify of its record (no verdict beside it) says so (§9). Of two
    # versions it stored the first, as the seats did.
    seats = {len(read[p]["messages"]) for p in honest}
    relay = read[None]["messages"]
    assert len(seats) == 1 and len(relay) == seats.pop() + (1 if cheat is _overbid else 0)
    if cheat is _overbid:
        report = verify_transcript(spec_shapes.records(ended.folders[None] / "transcript"), workers=1)
        assert not report.ok and f"message {len(relay)} breaks the rules: {rule}" == report.problem
    report = _cli_verify(ended.folders[honest[-1]])  # type: ignore[assignment]
    assert report["ok"] and report["verdict"]["rule"] == rule and report["verdict"]["confirmed"] is True  # type: ignore[index]
