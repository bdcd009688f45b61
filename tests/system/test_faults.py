"""Faults between real processes: a crashed peer (the host included) resumes, a silent
peer is named, a lost host is named, and no honest peer loses its saved transcript."""

from __future__ import annotations

import signal
from collections.abc import Callable

import pytest

from tests.support.typed import present

from .harness import STARTUP_TIMEOUT, Home, ProcessTable
from .scenarios import (
    MatchRecord,
    after_events,
    record,
    run_with_kill,
    standard_plan,
    transcript_of,
)

VICTIM = 2  # the second joiner: player 2 in join order
VICTIM_NAME = "Juno"
SHORT_DEADLINE = 3.0
SHORT_WINDOW = 2.0


def _messages_checked(stdout: str) -> int:
    line = next(text for text in stdout.splitlines() if text.startswith("Checked "))
    return int(line.split()[1])


def _last_position(lines: list[str]) -> int:
    """The highest transcript position a process traced an action for."""
    positions = [int(line.split('"position": ')[1].split("}")[0].split(",")[0])
                 for line in lines if '"ActionApplied"' in line]
    return max(positions)


@pytest.mark.slow
@pytest.mark.parametrize("game", ["bluff", "topper"])
def test_a_peer_killed_mid_hand_resumes_and_the_match_ends_as_without_the_fault(
    game: str, baseline: Callable[[str], MatchRecord], fresh_homes: Callable[[str], list[Home]],
) -> None:
    clean = baseline(game)
    run = run_with_kill(standard_plan(game), fresh_homes("kill"), VICTIM,
                        after_events("ActionApplied", 3))

    assert run.killed and run.restart_note == "resumed"
    assert run.honest == [0, 1, 2, 3]
    assert [seat.summary for seat in run.record.seats] == [seat.summary for seat in clean.seats]
    assert [seat.returncode for seat in run.record.seats] == [0, 0, 0, 0]
    for seat in range(4):
        check = run.record.seats[seat].player_verification
        assert check is not None and check.ok, check
        assert check.outcome == present(clean.seats[seat].player_verification).outcome
        # Same seed, same players: the transcript is the fault-free one, bit for bit.
        assert run.record.player_transcript_bytes(seat) == clean.player_transcript_bytes(seat)


@pytest.mark.slow
def test_a_silent_peer_is_named_by_every_other_peer_after_its_deadline(
    fresh_homes: Callable[[str], list[Home]], tables: list[ProcessTable],
) -> None:
    plan = standard_plan("bluff", deadline=SHORT_DEADLINE, reconnect_window=SHORT_WINDOW)
    table = ProcessTable(plan, fresh_homes("silent"))
    tables.append(table)
    table.start()
    victim = table.processes[VICTIM]
    victim.wait_for(after_events("ActionApplied", 3), STARTUP_TIMEOUT, "third action")
    victim.signal(signal.SIGSTOP)  # sockets stay open; it just never answers
    others = [p for i, p in enumerate(table.processes) if i != VICTIM]
    for process in others:
        process.wait(60)

    for process in others:
        ended = process.table_ended()
        assert ended is not None, process.lines[-3:]
        assert ended["rule"] == "deadline"
        assert ended["blamed"] == [VICTIM], [q.table_ended() for q in others]
        assert present(process.summary).startswith("Table ended:")
        assert present(process.summary).endswith(f"({VICTIM_NAME}) ran out of time."), process.summary
        assert process.returncode == 3
    checks = table.verify_all([i for i in range(4) if i != VICTIM])
    players = [c for c in checks if c.transcript.parent.name != "relay"]
    relay = [c for c in checks if c.transcript.parent.name == "relay"]
    assert len(players) == 3 and len(relay) == 1, [c.transcript for c in checks]
    # Every record, the host's relay copy included, verifies and names the silent player.
    assert all(c.ok for c in checks), [c.stdout for c in checks]
    assert all(present(c.verdict)["rule"] == "deadline" and present(c.verdict)["blamed"] == [VICTIM]
               for c in checks), [c.verdict for c in checks]
    assert all(f"({VICTIM_NAME}) ran out of time." in c.stdout for c in checks)

    # Woken up, the silent peer first takes in what arrived while it slept, so it never
    # declares late a player whose message was waiting for it: it ends on the others'
    # reports or naming the host it can no longer reach, its transcript intact.
    victim.signal(signal.SIGCONT)
    victim.wait(30)
    ended = victim.table_ended()
    assert ended is not None, victim.lines[-3:]
    assert (ended["rule"] != "deadline" or ended["blamed"] == [VICTIM]
            or "could not be reached (the host)" in present(victim.summary)), victim.summary
    mine = transcript_of(table.homes[VICTIM])
    assert mine is not None and table.homes[VICTIM].verify(mine).ok


@pytest.mark.slow
def test_joiners_that_lose_the_host_name_it_after_their_reconnect_window(
    fresh_homes: Callable[[str], list[Home]], tables: list[ProcessTable],
) -> None:
    plan = standard_plan("bluff", reconnect_window=SHORT_WINDOW)
    table = ProcessTable(plan, fresh_homes("hostlost"))
    tables.append(table)
    table.start()
    table.processes[1].wait_for(after_events("ActionApplied", 3), STARTUP_TIMEOUT, "third action")
    table.processes[0].kill()
    joiners = table.processes[1:]
    for process in joiners:
        process.wait(60)

    run = record(table, [1, 2, 3])
    for index, process in enumerate(joiners, start=1):
        ended = process.table_ended()
        assert ended is not None and (ended["rule"], ended["blamed"]) == ("deadline", [0])
        assert "could not be reached (the host)" in present(process.summary)
        check = run.seats[index].player_verification
        assert check is not None and check.ok, check
        # Nothing it had seen is lost: every position it traced is in its saved transcript.
        assert _messages_checked(check.stdout) > _last_position(process.lines)
    # The killed host's own copies stop mid-match with no verdict: verify says so, plainly.
    for path in table.homes[0].transcripts():
        check = table.homes[0].verify(path)
        assert not check.ok
        assert check.report["unfinished"] and "before the match ends" in check.stdout, check.stdout


@pytest.mark.slow
def test_a_host_killed_mid_hand_is_hosted_again_and_the_match_ends_as_without_the_fault(
    baseline: Callable[[str], MatchRecord], fresh_homes: Callable[[str], list[Home]],
) -> None:
    clean = baseline("bluff")
    run = run_with_kill(standard_plan("bluff"), fresh_homes("hostback"), 0,
                        after_events("ActionApplied", 3))

    assert run.killed and run.restart_note == "resumed"
    assert [seat.summary for seat in run.record.seats] == [seat.summary for seat in clean.seats]
    for seat in range(4):
        check = run.record.seats[seat].player_verification
        assert check is not None and check.ok, check
        assert run.record.player_transcript_bytes(seat) == clean.player_transcript_bytes(seat)


@pytest.mark.slow
def test_a_new_table_on_the_lost_hosts_port_is_refused_by_its_joiners(
    fresh_homes: Callable[[str], list[Home]], tables: list[ProcessTable],
) -> None:
    plan = standard_plan("bluff", reconnect_window=60.0)
    table = ProcessTable(plan, fresh_homes("hostnew"))
    tables.append(table)
    table.start()
    table.processes[1].wait_for(after_events("ActionApplied", 3), STARTUP_TIMEOUT, "third action")
    table.processes[0].kill()
    # Another table on the same port: the joiners redial it and are refused, not seated anew.
    fresh_host = table.homes[0].spawn(*plan.host_args(table.port))
    table.history.append(fresh_host)
    for process in table.processes[1:]:
        process.wait(30)

    for index, process in enumerate(table.processes[1:], start=1):
        ended = process.table_ended()
        assert ended is not None and (ended["rule"], ended["blamed"]) == ("deadline", [0])
        assert "refused to go on (the host)" in present(process.summary)
        mine = transcript_of(table.homes[index])
        assert mine is not None and table.homes[index].verify(mine).ok
    assert fresh_host.poll() is None, "the new host should still wait for players"


@pytest.mark.slow
def test_resume_is_refused_while_the_seat_still_plays_and_the_match_then_ends_cleanly(
    baseline: Callable[[str], MatchRecord], fresh_homes: Callable[[str], list[Home]],
    tables: list[ProcessTable],
) -> None:
    clean = baseline("bluff")
    table = ProcessTable(standard_plan("bluff"), fresh_homes("twice"))
    tables.append(table)
    table.start()
    first = table.processes[VICTIM]
    first.wait_for(after_events("ActionApplied", 3), STARTUP_TIMEOUT, "third action")
    first.signal(signal.SIGSTOP)  # hung, not dead: its saved table is still in use

    second = table.restart(VICTIM)
    assert second.wait(30) != 0
    assert "in use by another p2pcards process" in second.stderr()
    assert "Traceback" not in second.stderr()
    # Two processes for one seat would have signed two different messages for one
    # position; with the second refused, the first plays on as if nothing happened.
    first.signal(signal.SIGCONT)
    table.processes[VICTIM] = first
    table.wait()
    assert [p.summary for p in table.processes] == [s.summary for s in clean.seats]
    run = record(table)
    assert all(run.player_transcript_bytes(i) == clean.player_transcript_bytes(i) for i in range(4))
