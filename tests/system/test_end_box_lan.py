"""Issue 32 on real processes over loopback: an end box that cannot be held hostage.

A table of one person (the host, in plain mode: his end-box lines come from stdin,
his moves from a bot, ``scripted_person.py``), a bot, and two ``join --autoplay``
clients without ``--again``. At the match's end both clients leave, signed, and
exit; their seats show free (``*``) in ``tables`` (discovery on loopback) well
within the grace; a newcomer takes one by ``join NAME``, the host types ``fill``
for the other, the rematch starts and the evening verifies. A variant: a client
killed (SIGKILL) at its end box before it chose is away past the grace, its seat
shows free, and it comes back with ``join NAME``, chooses again and plays the
rematch. Every screen says how the evening ended.
"""

from __future__ import annotations

import json
import signal
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from p2pcards.protocol.end_box import END_BOX_GRACE
from tests.support.polling import eventually

from .harness import STARTUP_TIMEOUT, Home, PeerProcess, ProcessTable, TablePlan
from .test_rematch_lan import EVENING_TIMEOUT, _player_transcripts, _said

HERE = Path(__file__).resolve().parent
LOOPBACK = "127.0.0.1"


def _tables(home: Home, name: str) -> dict[str, object] | None:
    """This test's table as ``tables --json`` lists it on loopback (others ignored)."""
    done = home.run("tables", "--json", "--interface", LOOPBACK, "--timeout", "1.5", timeout=60)
    for line in done.stdout.splitlines():
        if line.startswith("{"):
            row = json.loads(line)
            if row.get("name") == name:
                return dict(row)
    return None


def _free_seats(home: Home, name: str, free: int, timeout: float,
                host: PeerProcess) -> dict[str, object]:
    """Wait until ``tables`` shows the table between matches with ``free`` seats (a
    failure says what each ``tables`` showed of it, and the host's last lines)."""
    began = time.monotonic()
    seen: list[str] = []

    def shown() -> dict[str, object] | None:
        row = _tables(home, name)
        seen.append(f"at {time.monotonic() - began:.1f} s: "
                    + ("not listed" if row is None else f"free {row['free']}, between {row['between']}"))
        return row if row is not None and row["free"] == free and row["between"] else None

    def describe() -> str:
        return "\n".join(["tables showed:", *seen[-10:], "the host's last lines:", *host.lines[-10:]])
    return eventually(shown, timeout, what=f"{free} free seat(s) of {name!r} in tables",
                      interval=0.2, describe=describe)


def _person(home: Home, *args: str) -> PeerProcess:
    process = PeerProcess(home, [sys.executable, str(HERE / "scripted_person.py"), *args],
                          home.root / "stderr-person.txt", stdin=True)
    return process


def _ended_line(process: PeerProcess) -> str | None:
    """The line that says how this screen's evening (or its part in it) ended."""
    endings = ("End box: every seat is taken", "End box: the wait ran out",
               "End box: the host left", "End box: you left", "End box: you leave",
               "End box: the host is gone", "End box: the host refused")
    return next((line for line in process.lines if line.startswith(endings)), None)


def _host(home: Home, plan: TablePlan, name: str) -> tuple[PeerProcess, int]:
    host = _person(home, "host", plan.game, *plan.settings, "--plain", "--bots", "1",
                   "--bind", LOOPBACK, "--interface", LOOPBACK, "--table", name,
                   "--seed", "1", *plan.clock_args())
    line = host.wait_for(lambda lines: next((s for s in lines if "Hosting" in s), None),
                         STARTUP_TIMEOUT, "the hosting line")
    port = int(line.split(f"--connect {LOOPBACK}:")[1].split(")")[0].split()[0])
    return host, port


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_clients_that_exit_at_the_end_box_free_their_seats_for_a_newcomer_and_a_bot(
    fresh_homes: Callable[[str], list[Home]], tables: list[ProcessTable], tmp_path: Path,
) -> None:
    plan = TablePlan.short("bluff")
    homes = fresh_homes("hostage")
    name = f"endbox-{uuid.uuid4().hex[:6]}"  # this test's own table among any others
    table = ProcessTable(plan, homes)
    tables.append(table)
    host, port = _host(homes[0], plan, name)
    table.history.append(host)
    table.processes = [host]
    clients = [table.add_joiner(index, plan.join_args(f"{LOOPBACK}:{port}")) for index in (1, 2)]
    host.wait_for(lambda lines: any("The match is over" in s for s in lines), EVENING_TIMEOUT,
                  "the end box's question")
    host.type_line("again")
    # Both clients leave, signed, and exit: their seats are free at once (no grace needed).
    assert [c.wait(EVENING_TIMEOUT) for c in clients] == [0, 0], [c.stderr() for c in clients]
    row = _free_seats(homes[3], name, 2, timeout=END_BOX_GRACE + 20, host=host)
    assert row["between"] is True
    listed = homes[3].run("tables", "--interface", LOOPBACK, "--timeout", "1.5", timeout=60)
    assert any(name in s and " 2* " in s for s in listed.stdout.splitlines()), listed.stdout
    # A newcomer takes one seat by the ordinary join; the host gives the other to a bot.
    nia = Home(tmp_path, "newcomer-nia")
    nia.create_identity("Nia")
    newcomer = nia.spawn("join", name, "--interface", LOOPBACK, "--timeout", "1.5",
                         *plan.seat_args())
    table.history.append(newcomer)
    host.wait_for(lambda lines: any('"Nia" (bot) takes seat' in s for s in lines),
                  EVENING_TIMEOUT, "the newcomer in a freed seat")
    host.type_line("fill")
    host.wait_for(lambda lines: sum("The match is over" in s for s in lines) >= 2,
                  EVENING_TIMEOUT, "the rematch's end box")
    host.type_line("leave")
    assert host.wait(EVENING_TIMEOUT) == 0, host.stderr()[-2000:]
    assert newcomer.wait(EVENING_TIMEOUT) == 0, newcomer.stderr()[-2000:]
    assert _said(host, "End box: every seat is taken: the rematch starts.")
    assert _said(host, 'End box: "Ivo" left; the seat is free.')
    assert any(s.startswith('End box: "') and "'s seat goes to the bot" in s for s in host.lines)
    # Every screen says how the evening (or its part of it) ended, in words.
    for process in (host, *clients, newcomer):
        assert _ended_line(process) is not None, (process, process.lines[-15:])
    paths = _player_transcripts(homes[0])
    assert len(paths) == 2, paths
    done = homes[0].run("verify", *map(str, paths), timeout=120)
    assert done.returncode == 0 and "The evening verifies" in done.stdout, done.stdout


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_client_killed_at_the_end_box_comes_back_with_join_and_chooses_again(
    fresh_homes: Callable[[str], list[Home]], tables: list[ProcessTable], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("P2PCARDS_TEST_CHOOSE_WHEN", str(tmp_path / "never"))
    plan = TablePlan.short("bluff")
    homes = fresh_homes("killed")
    name = f"endbox-{uuid.uuid4().hex[:6]}"
    table = ProcessTable(plan, homes)
    tables.append(table)
    host = homes[0].spawn("host", plan.game, *plan.settings, "--bind", LOOPBACK, "--interface",
                          LOOPBACK, "--table", name, "--bots", "1", "--again", "1",
                          *plan.seat_args(), *plan.clock_args())
    table.history.append(host)
    line = host.wait_for(lambda lines: next((s for s in lines if '"listening"' in s), None),
                         STARTUP_TIMEOUT, "listening line")
    port = json.loads(line)["listening"]
    table.processes = [host]
    stays = table.add_joiner(1, [*plan.join_args(f"{LOOPBACK}:{port}"), "--again", "1"])
    # Kai chooses only when told (never): it is killed at its end box, undecided.
    kai_home = homes[2]
    kai = PeerProcess(kai_home, [sys.executable, str(HERE / "hostile_peer.py"), "late-again",
                                 *plan.join_args(f"{LOOPBACK}:{port}"), "--again", "1"],
                      kai_home.root / "stderr-late.txt")
    table.history.append(kai)
    kai.wait_event("LobbyUpdate", STARTUP_TIMEOUT)
    kai.wait_event("MatchCompleted", EVENING_TIMEOUT)  # at its end box, undecided
    # ...and the match is over for the table too: Kai may have made the last move, and
    # its end box opens before that move has reached the host. Killed then, it dies in
    # its turn, and the host's clock rightly names it (no end box for anyone).
    host.wait_event("MatchCompleted", EVENING_TIMEOUT)
    kai.signal(signal.SIGKILL)
    kai.wait(30)
    # Away past the grace without a choice: its seat shows free.
    _free_seats(homes[3], name, 1, timeout=END_BOX_GRACE + 30, host=host)
    back = kai_home.spawn("join", name, "--interface", LOOPBACK, "--timeout", "1.5",
                          *plan.seat_args(), "--again", "1")
    table.history.append(back)
    assert back.wait(EVENING_TIMEOUT) == 0, back.stderr()[-2000:]
    assert host.wait(EVENING_TIMEOUT) == 0 and stays.wait(EVENING_TIMEOUT) == 0
    assert _said(back, "Back at the end box of")
    assert _said(host, 'End box: "Juno" is back; the seat is theirs again.')
    for process in (host, stays, back):
        assert _ended_line(process) is not None, (process, process.lines[-15:])
    paths = _player_transcripts(kai_home)
    assert len(paths) == 2, paths  # the match before the kill, and the rematch
    done = kai_home.run("verify", *map(str, paths), timeout=120)
    assert done.returncode == 0 and "The evening verifies" in done.stdout, done.stdout

