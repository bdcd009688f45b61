"""An evening of four real processes on loopback: a short match, every end box
chooses again, and the rematch starts on the same port without any joining or
discovery, seats rotated; the evening verifies whole. And a player who leaves at
the end box: the others are told, the host fills the seat with a bot, the
rematch plays."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from p2pcards.commands.finding import connect_address
from p2pcards.net.journal import read_records
from p2pcards.protocol.verify import verify_transcript
from p2pcards.protocol.verify_rematches import Link, link_of
from tests.support.loopback import needs_loopback_v6
from tests.support.typed import present

from .harness import Home, PeerProcess, ProcessTable, TablePlan

EVENING_TIMEOUT = 300.0


#: The loopback of each family: an evening runs the same over IPv4 and IPv6.
LOOPBACKS = [pytest.param("127.0.0.1", id="ipv4"),
             pytest.param("::1", id="ipv6", marks=needs_loopback_v6)]


def _player_transcripts(home: Home) -> list[Path]:
    """This player's own transcripts (not a host's relay copies nor its bots' seats),
    in the evening's order."""
    me = home.run("whoami", timeout=30).stdout.split()[-1]
    own = [p for p in home.transcripts() if p.parent.name == me]
    return sorted(own, key=lambda p: p.stat().st_mtime)


def _links(paths: list[Path]) -> list[Link]:
    out = []
    for path in paths:
        messages = list(read_records(path))
        out.append(present(link_of(messages, verify_transcript(messages)), f"the chain fields of {path}"))
    return out


def _said(process: PeerProcess, prefix: str) -> bool:
    return any(line.startswith(prefix) for line in process.lines)


def _start(table: ProcessTable, plan: TablePlan, host_extra: list[str],
           joiner_extra: list[list[str]]) -> None:
    table.start_host(args=[*plan.host_args(), *host_extra])
    for index in range(1, 4):
        table.add_joiner(index, [*plan.join_args(connect_address(plan.bind, table.port)),
                                 *joiner_extra[index - 1]])


@pytest.mark.slow
@pytest.mark.parametrize("loopback", LOOPBACKS)
def test_all_four_choose_again_and_the_rematch_starts_rotated_without_joining(
    fresh_homes: Callable[[str], list[Home]], tables: list[ProcessTable], loopback: str,
) -> None:
    plan = TablePlan.short("bluff", bind=loopback)
    table = ProcessTable(plan, fresh_homes("again"))
    tables.append(table)
    _start(table, plan, ["--again", "1"], [["--again", "1"]] * 3)
    codes = table.wait(EVENING_TIMEOUT)
    assert codes == [0, 0, 0, 0], [p.stderr() for p in table.processes]
    joiners = table.processes[1:]
    # Nobody discovered or joined anything by hand: each joiner dialled the same address.
    assert all(_said(p, "Rematch 1: joining the host again.") for p in joiners)
    assert all(_said(p, "End box: ") for p in table.processes)
    for home in table.homes:
        paths = _player_transcripts(home)
        assert len(paths) == 2, paths
        first, second = _links(paths)
        assert first.finished is not None and second.after is not None
        assert second.after.session == first.session
        # The player at seat s of the first match sits at seat s + 1 in the second.
        assert second.finished is not None
        assert all(second.finished.seats[(s + 1) % 4] == first.finished.seats[s]
                   for s in range(4))
        done = home.run("verify", *map(str, paths), timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.slow
def test_a_leaver_frees_the_seat_the_others_are_told_and_a_bot_fills_it(
    fresh_homes: Callable[[str], list[Home]], tables: list[ProcessTable],
) -> None:
    plan = TablePlan.short("bluff")
    table = ProcessTable(plan, fresh_homes("leave"))
    tables.append(table)
    # The third player leaves at the end box (--again 0: a leave at once).
    _start(table, plan, ["--again", "1", "--fill-with-bots"],
           [["--again", "1"], ["--again", "1"], ["--again", "0"]])
    codes = table.wait(EVENING_TIMEOUT)
    assert codes == [0, 0, 0, 0], [p.stderr() for p in table.processes]
    leaver = table.homes[3]
    leaver_name = "Kai"  # SEAT_NAMES[3]
    assert len(_player_transcripts(leaver)) == 1
    host = table.processes[0]
    assert _said(host, f'End box: "{leaver_name}" left; the seat is free.')
    assert _said(host, f'End box: "{leaver_name}"\'s seat goes to the bot')
    for home in table.homes[:3]:
        paths = _player_transcripts(home)
        assert len(paths) == 2, paths
        done = home.run("verify", *map(str, paths), timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
    # The two who stayed and joined again heard that the leaver left.
    for process in table.processes[1:3]:
        assert _said(process, f'End box: "{leaver_name}" left; the seat is free.'), process.lines


@pytest.mark.slow
def test_a_leaver_frees_the_seat_a_newcomer_joins_it_everyone_is_told_and_the_evening_verifies(
    fresh_homes: Callable[[str], list[Home]], tables: list[ProcessTable], tmp_path: Path,
) -> None:
    plan = TablePlan.short("bluff")
    table = ProcessTable(plan, fresh_homes("newcomer"))
    tables.append(table)
    # The third player leaves at the end box; the host fills nothing itself.
    _start(table, plan, ["--again", "1"], [["--again", "1"], ["--again", "1"], ["--again", "0"]])
    host = table.processes[0]
    leaver_name = "Kai"  # SEAT_NAMES[3]
    host.wait_for(lambda lines: _said(host, f'End box: "{leaver_name}" left; the seat is free.'),
                  EVENING_TIMEOUT, "the leave at the host's end box")
    # A newcomer joins the finished table by the ordinary join path: it takes the seat.
    nia = Home(tmp_path, "newcomer-nia")
    nia.create_identity("Nia")
    newcomer = nia.spawn(*plan.join_args(f"{plan.bind}:{table.port}"), "--again", "0")
    table.history.append(newcomer)
    codes = table.wait(EVENING_TIMEOUT) + [newcomer.wait(EVENING_TIMEOUT)]
    assert codes == [0, 0, 0, 0, 0], [p.stderr() for p in [*table.processes, newcomer]]
    assert newcomer.count_events("SeatFilled") == 1  # its own seat, told by the host
    told = 'End box: "Nia" (bot) takes seat '  # its own word: it plays by --bot
    assert _said(host, told), "\n".join(line for line in host.lines if not line.startswith("{"))
    for process in table.processes[1:3]:  # the two who stayed heard it at their end box
        assert _said(process, told) and any(
            line.startswith(told) and f'("{leaver_name}"\'s)' in line for line in process.lines)
    # The newcomer played the rematch alone of its evening; it verifies, and the two
    # matches of each player who stayed verify as an evening.
    own = _player_transcripts(nia)
    assert len(own) == 1, own
    second = _links(own)[0]
    assert second.after is not None
    for home in table.homes[:3]:
        paths = _player_transcripts(home)
        assert len(paths) == 2, paths
        assert _links(paths)[1].session == second.session
        done = home.run("verify", *map(str, paths), timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
    done = nia.run("verify", *map(str, own), timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
