"""Issue 37 on four real processes over loopback: a player's churn at the end box
gets no honest again-chooser left out or named.

Player 2 (``hostile_peer.py end-box-churn``) plays its match, signs again at the end
box, closes its end-box link and connects and disconnects about twice a second
(140 times, at the admission limit of its own address): each time the host sends
every end box a ``presence`` frame. Then it signs leave. Player 1 chose again at
once; player 3 (``late-again``) chooses again only once the leave is out, so the
host's end box is still waiting. The host (``--fill-with-bots``) gives the leaver's
seat to a bot and opens the rematch. Player 1's end box must hear the leave (an end
box that stopped after a count of frames missed it, and then either left the
evening or refused the rematch and was named by its clock), nobody honest is named
in any record, and the rematch plays and verifies with player 1 in it.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.polling import eventually

from .harness import STARTUP_TIMEOUT, HarnessError, Home, PeerProcess, ProcessTable, TablePlan
from .test_rematch_lan import EVENING_TIMEOUT, _player_transcripts, _said

HOSTILE_PEER = Path(__file__).resolve().parent / "hostile_peer.py"
VICTIM, CHURNER, LATE = 1, 2, 3
#: Seconds the churn takes at most (125 links about twice a second, on a loaded machine).
CHURN_TIMEOUT = 240.0


def _spawn(table: ProcessTable, index: int, mode: str, args: list[str]) -> PeerProcess:
    home: Home = table.homes[index]
    process = PeerProcess(home, [sys.executable, str(HOSTILE_PEER), mode, *args],
                          home.root / f"stderr-{mode}.txt")
    table.history.append(process)
    table.processes.append(process)
    process.wait_event("LobbyUpdate", STARTUP_TIMEOUT)
    return process


@pytest.mark.slow
@pytest.mark.timeout(900)  # two matches and a churn of about 70 s, on a loaded machine
def test_a_players_churn_at_the_end_box_gets_no_honest_again_chooser_named(
    fresh_homes: Callable[[str], list[Home]], tables: list[ProcessTable], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    marker = tmp_path / "choose-now"
    monkeypatch.setenv("P2PCARDS_TEST_CHOOSE_WHEN", str(marker))  # read by player 3 only
    plan = TablePlan.short("bluff")
    table = ProcessTable(plan, fresh_homes("churn"))
    tables.append(table)
    table.start_host(args=[*plan.host_args(), "--again", "1", "--fill-with-bots"])
    address = f"{plan.bind}:{table.port}"
    for index in (VICTIM, CHURNER, LATE):
        args = [*plan.join_args(address), "--again", "1"]
        if index == VICTIM:
            table.add_joiner(index, args)
        else:
            _spawn(table, index, "end-box-churn" if index == CHURNER else "late-again", args)
    churner = table.processes[CHURNER]
    eventually(lambda: "signed leave" in churner.stderr(), CHURN_TIMEOUT,
               describe=lambda: f"the churner's leave: {churner.stderr()[-500:]}")
    marker.touch()  # now the last player chooses: the host closes on the leave
    churned = next(line for line in churner.stderr().splitlines() if line.startswith("churned"))
    assert int(churned.split()[1]) >= 100, churned  # the flood reached the host
    victim, late, host = table.processes[VICTIM], table.processes[LATE], table.processes[0]
    leaver = "Juno"  # SEAT_NAMES[CHURNER]
    heard = f'End box: "{leaver}" left; the seat is free.'
    with contextlib.suppress(HarnessError):  # it ended without hearing it: said below
        victim.wait_for(lambda lines: heard in lines, EVENING_TIMEOUT, "the leave")
    assert _said(victim, heard), [line for line in victim.lines if not line.startswith("{")]
    codes = table.wait(EVENING_TIMEOUT)
    assert [codes[0], codes[VICTIM], codes[LATE]] == [0, 0, 0], \
        [p.stderr()[-2000:] for p in (host, victim, late)]
    # Every honest record verifies and names nobody honest; the rematch was played by
    # the again-chooser, with the leaver's seat given to a bot.
    for index in (0, VICTIM, LATE):
        home = table.homes[index]
        paths = _player_transcripts(home)
        assert len(paths) == 2, (home.label, paths)
        for path in paths:
            checked = home.verify(path)
            assert checked.ok and checked.verdict is None, (path, checked.stdout)
        done = home.run("verify", *map(str, paths), timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
    assert _said(victim, "Rematch 1: joining the host again.")
    assert _said(host, f'End box: "{leaver}"\'s seat goes to the bot')
