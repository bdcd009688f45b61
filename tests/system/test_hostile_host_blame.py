"""A hostile host process against real ``p2pcards join`` processes over loopback:
whatever it does with the players' signed notices or their links, no honest
player gets named (issue 10, findings 2 and 3).

The host is ``hostile_host.py`` (a real TableHost with its own bot seat, in
its own process); players 1..3 are the real command. Each test also asks the
other question: the player who did leave, or did go silent, is the one named.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from .harness import REPO_ROOT, STARTUP_TIMEOUT, Home, PeerProcess, TablePlan

HOST = 0
LOOPBACK = "127.0.0.1"


class _HostileHost:
    """``hostile_host.py`` in its own process; ``report()`` is its last JSON line."""

    def __init__(self, *args: str) -> None:
        code = ("import asyncio; "
                "from tests.system.hostile_host import main; "
                f"asyncio.run(main({['--bind', LOOPBACK, *args]!r}))")
        self.popen = subprocess.Popen([sys.executable, "-c", code], cwd=REPO_ROOT, text=True,
                                      stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE)
        assert self.popen.stdout is not None
        line = self.popen.stdout.readline()
        if not line.startswith("{"):
            self.stop()
            raise AssertionError(f"the hostile host did not start: {line!r}")
        self.port = json.loads(line)["listening"]

    def report(self, timeout: float) -> dict[str, Any]:
        out, _ = self.popen.communicate(timeout=timeout)
        report: dict[str, Any] = json.loads([line for line in out.splitlines() if line.startswith("{")][-1])
        return report

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
        self.popen.communicate(timeout=10)


@pytest.fixture
def started() -> Iterator[list[Any]]:
    """Processes a test starts; every one is stopped afterwards."""
    running: list[Any] = []
    yield running
    for process in running:
        process.stop()


def _join(home: Home, port: int, plan: TablePlan, *extra: str) -> PeerProcess:
    joiner = home.spawn("join", "--connect", f"{LOOPBACK}:{port}", *plan.seat_args(), *extra)
    joiner.wait_event("LobbyUpdate", STARTUP_TIMEOUT)
    return joiner


def _table(mode: str, homes: list[Home], started: list[Any], plan: TablePlan,
           *host_args: str, join_args: tuple[str, ...] = ()) -> tuple[_HostileHost, list[PeerProcess]]:
    # The host sets the match's length (joiners take none): the plan's, so a test
    # that cuts links every 0.5 s has a match long enough to cut them in.
    host = _HostileHost("--mode", mode, "--game", plan.game, "--deadline", str(plan.deadline),
                        *plan.settings, *host_args)
    started.append(host)
    joiners = []
    for index in (1, 2, 3):
        joiners.append(_join(homes[index], host.port, plan, *join_args))
        started.append(joiners[-1])
    return host, joiners


def _actions(count: int) -> Callable[[list[str]], Any]:
    return lambda lines: sum('"ActionApplied"' in line for line in lines) >= count or None


def _silence_then_wait(host: _HostileHost, joiners: list[PeerProcess], silent: int) -> dict[str, Any]:
    """Stop player ``silent`` (SIGSTOP: its sockets stay open) after three actions;
    the host's report once the other two players' processes ended."""
    joiners[silent - 1].wait_for(_actions(3), STARTUP_TIMEOUT, "three actions")
    joiners[silent - 1].signal(signal.SIGSTOP)
    try:
        for index, joiner in enumerate(joiners, start=1):
            if index != silent:
                joiner.wait(90)
        return host.report(timeout=60)
    finally:
        joiners[silent - 1].signal(signal.SIGCONT)


def _own_records_verify(homes: list[Home], indices: list[int]) -> None:
    for index in indices:
        checks = [homes[index].verify(path) for path in homes[index].transcripts()]
        assert checks and all(check.ok for check in checks), [c.stdout for c in checks]


@pytest.mark.slow
def test_a_host_resending_a_leave_as_a_message_gets_the_leaver_named_only_for_leaving(
    fresh_homes: Callable[[str], list[Home]], started: list[Any],
) -> None:
    plan = TablePlan("topper", seed=None, deadline=30, settings=("--target", "21"))
    homes = fresh_homes("resend-leave")
    host, joiners = _table("resend-notices", homes, started, plan)
    leaver = 2
    joiners[leaver - 1].wait_for(_actions(3), STARTUP_TIMEOUT, "three actions")
    joiners[leaver - 1].signal(signal.SIGINT)  # Ctrl-C: a signed leave, then the process ends
    for joiner in joiners:
        joiner.wait(60)
    report = host.report(timeout=60)
    assert report["withheld"] > 0, "the host should have re-sent the leave notice as a message"
    # The leaver is named for what it signed, its leave, and for nothing provable.
    assert report["blamed"] == [leaver]
    for index in (1, 3):
        ended = joiners[index - 1].table_ended()
        assert ended is not None and ended["rule"] == "left", (index, ended)
        assert ended["blamed"] == [leaver], (index, ended)
    _own_records_verify(homes, [1, 2, 3])


@pytest.mark.slow
def test_a_host_resending_the_alerts_of_a_silent_players_victims_names_only_the_silent_one(
    fresh_homes: Callable[[str], list[Home]], started: list[Any],
) -> None:
    """Player 3 stops (SIGSTOP); each other player's clock names it and each sends
    its verdict as an alert, which the host re-sends as a message of its signer:
    no reporter is named for its alert."""
    plan = TablePlan("topper", seed=None, deadline=4, settings=("--target", "21"),
                     reconnect_window=5)
    homes = fresh_homes("resend-alert")
    host, joiners = _table("resend-notices", homes, started, plan, "--reconnect-window", "5")
    silent = 3
    report = _silence_then_wait(host, joiners, silent)
    assert report["withheld"] > 0, "the host should have re-sent the alerts as messages"
    assert report["blamed"] == [silent]
    for index in (1, 2):
        ended = joiners[index - 1].table_ended()
        assert ended is not None and ended["rule"] == "deadline", (index, ended)
        assert ended["blamed"] == [silent], (index, ended)
    _own_records_verify(homes, [1, 2])


@pytest.mark.slow
def test_a_host_cutting_every_link_more_often_than_a_deadline_is_named_never_an_honest_player(
    fresh_homes: Callable[[str], list[Home]], started: list[Any],
) -> None:
    """The host closes every player's link every 0.5 s with a 4 s deadline, and the
    players cannot link directly (``--no-direct``): a table that cannot move ends
    naming the host, or it plays on to its end; an honest player is never named."""
    plan = TablePlan("topper", seed=None, deadline=4, settings=("--target", "21"),
                     reconnect_window=10)
    homes = fresh_homes("churn")
    host, joiners = _table("churn", homes, started, plan, "--churn", "0.5",
                           "--reconnect-window", "10", join_args=("--no-direct",))
    for joiner in joiners:
        joiner.wait(150)
    report = host.report(timeout=60)
    assert report["withheld"] > 0, "the host should have cut the links"
    for index, joiner in zip((1, 2, 3), joiners, strict=False):
        ended = joiner.table_ended()
        if ended is None:
            assert (joiner.summary or "").startswith("Match over:"), (index, joiner.summary)
        else:
            assert ended["blamed"] == [HOST], (index, ended, joiner.summary)


@pytest.mark.slow
def test_a_host_cutting_links_while_a_player_is_silent_never_gets_an_honest_player_named(
    fresh_homes: Callable[[str], list[Home]], started: list[Any],
) -> None:
    """As above, and player 3 stops (SIGSTOP): every reconnect used to restart the
    others' clocks, so the table stalled until an honest player gave up and was
    named. Now each clock runs from progress: the table ends, naming the silent
    player or the host that cut the links, never players 1 or 2."""
    plan = TablePlan("topper", seed=None, deadline=4, settings=("--target", "21"),
                     reconnect_window=10)
    homes = fresh_homes("churn-silent")
    host, joiners = _table("churn", homes, started, plan, "--churn", "1.5",
                           "--reconnect-window", "10", join_args=("--no-direct",))
    silent = 3
    report = _silence_then_wait(host, joiners, silent)
    assert report["withheld"] > 0, "the host should have cut the links"
    assert report["blamed"] == [silent]  # the host's own seat, never cut off, saw the silence
    for index in (1, 2):
        ended = joiners[index - 1].table_ended()
        assert ended is not None, (index, joiners[index - 1].summary)
        assert ended["blamed"] in ([silent], [HOST]), (index, ended)


@pytest.mark.slow
def test_a_host_whose_bad_share_is_reported_is_named_never_the_reporter(
    fresh_homes: Callable[[str], list[Home]], started: list[Any],
) -> None:
    """The host hands the players a bad decryption share for one player's card and
    re-sends that player's alert as its message: every player names the host,
    provably, and each one's record proves it offline."""
    plan = TablePlan("topper", seed=None, deadline=30, settings=("--target", "21"))
    homes = fresh_homes("bad-share")
    host, joiners = _table("bad-share", homes, started, plan)
    for joiner in joiners:
        joiner.wait(90)
    report = host.report(timeout=60)
    assert report["withheld"] == 1, "the host should have sent its bad share once"
    for index, joiner in zip((1, 2, 3), joiners, strict=False):
        ended = joiner.table_ended()
        assert ended is not None and ended["blamed"] == [HOST], (index, ended, joiner.summary)
        assert ended["rule"] in ("crypto", "chain.equivocation"), (index, ended)
    _own_records_verify(homes, [1, 2, 3])
