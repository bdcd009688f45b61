"""A saved verdict is endorsed only with the evidence its kind needs (issue 20, finding 4).

Each forged ``left`` verdict from the issue is refused with its reason, by the
function and by the real ``p2pcards verify`` command; a genuine leave, a
genuine deadline and an unreachable host still check; a provable rule with no
evidence, or with evidence for another position, is refused.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from p2pcards.app._direct import DirectTable, direct_table
from p2pcards.protocol import wire
from p2pcards.protocol.envelope import SIGN_TAG, SignedMessage, SignedNotice, seal, seal_notice
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.verdict import Verdict
from p2pcards.protocol.verify import Report, verify_transcript

LEAVER = 3


@pytest.fixture(scope="module")
def left() -> tuple[DirectTable, list[bytes], Verdict]:
    """A table where player 3 left after 20 messages, as player 0 saved it."""
    table = direct_table("topper", seed=51)
    for _ in range(20):
        table.step()
    notice = table.tables[LEAVER].leave()
    table.tables[0].receive_alert(notice)
    verdict = table.tables[0].verdict
    assert verdict is not None and (verdict.rule, verdict.players) == ("left", (LEAVER,))
    return table, table.tables[0].transcript(), verdict


def _notice(table: DirectTable, transcript: list[bytes], signer: int, **change: object) -> bytes:
    """A leave notice as player ``LEAVER`` would sign it, with ``change``s to its fields."""
    fields: dict[str, Any] = {"session": table.tables[0].session, "position": len(transcript),
                              "prev": table.tables[0].head, "player": LEAVER, "type": "leave", "body": {}}
    fields.update(change)
    return seal_notice(table.identities[signer], **fields).raw


def _in_message_domain(table: DirectTable, transcript: list[bytes]) -> bytes:
    """The leave's payload signed under the transcript-message tag, not the notice tag."""
    notice = SignedNotice.parse(_notice(table, transcript, LEAVER))
    signature = table.identities[LEAVER].sign(SIGN_TAG + notice.payload)
    return wire.pack([notice.payload, signature])


def _corrupted(raw: bytes) -> bytes:
    data = bytearray(raw)
    data[-5] ^= 0x21
    return bytes(data)


Forge = Callable[[DirectTable, list[bytes], Verdict], Verdict]

FORGERIES: dict[str, tuple[Forge, str]] = {
    "missing notice": (
        lambda t, m, v: Verdict("left", (LEAVER,), v.position, "left", ()),
        "carries exactly one leave notice"),
    "message domain": (
        lambda t, m, v: Verdict("left", (LEAVER,), v.position, "left", (_in_message_domain(t, m),)),
        "signed in the transcript-message domain"),
    "another player's key": (
        lambda t, m, v: Verdict("left", (LEAVER,), v.position, "left", (_notice(t, m, 1),)),
        "names player 3 but is signed by player 1"),
    "a stranger's key": (
        lambda t, m, v: Verdict("left", (LEAVER,), v.position, "left", (seal_notice(
            Identity.generate("Mallory"), session=t.tables[0].session, position=len(m),
            prev=t.tables[0].head, player=LEAVER, type="leave", body={}).raw,)),
        "signed by no player of this table"),
    "another session": (
        lambda t, m, v: Verdict("left", (LEAVER,), v.position, "left",
                                (_notice(t, m, LEAVER, session=bytes(range(32))),)),
        "signed for another session"),
    "corrupted": (
        lambda t, m, v: Verdict("left", (LEAVER,), v.position, "left", (_corrupted(v.evidence[0]),)),
        "leave notice"),
    "naming someone else": (
        lambda t, m, v: Verdict("left", (1,), v.position, "left", v.evidence),
        "it names player 1, but the leave notice is player 3's"),
    "an alert, not a leave": (
        lambda t, m, v: Verdict("left", (LEAVER,), v.position, "left",
                                (_notice(t, m, LEAVER, type="alert", body=Verdict(
                                    "deadline", (2,), len(m), "x").to_wire()),)),
        "an 'alert' notice, not a leave"),
    "another history": (
        lambda t, m, v: Verdict("left", (LEAVER,), v.position, "left",
                                (_notice(t, m, LEAVER, prev=bytes(32)),)),
        "another history"),
    "another position": (
        lambda t, m, v: Verdict("left", (LEAVER,), v.position - 3, "left", v.evidence),
        "a leave ends the table at the transcript's end"),
}


def _refused(report: Report, says: str) -> None:
    assert report.verdict_confirmed is False and not report.ok, report
    assert report.verdict_refused is not None and says in report.verdict_refused, report.verdict_refused
    assert report.problem is None  # the transcript itself checks


def test_a_genuine_leave_is_confirmed_as_its_signers_word(left: tuple[DirectTable, list[bytes], Verdict]) -> None:
    _, transcript, verdict = left
    report = verify_transcript(transcript, verdict, workers=1)
    assert report.ok and report.verdict_confirmed is None and report.verdict_refused is None


def test_a_leave_signed_by_a_player_ahead_of_this_record_is_confirmed() -> None:
    """The leaver held a message the naming peer had not received yet."""
    table = direct_table("topper", seed=54)
    for _ in range(20):
        table.step()
    table.run_until(lambda t: t.writer != 0)
    raw = table.write()
    for seat in table.tables[1:]:  # every seat but player 0's has it
        seat.receive(raw)
    writer = SignedMessage.parse(raw).player
    leaver = next(p for p in (1, 2, 3) if p != writer)
    notice = table.tables[leaver].leave()
    behind = table.tables[0]
    behind.receive_alert(notice)
    assert behind.verdict is not None and behind.verdict.players == (leaver,)
    assert SignedNotice.parse(notice).position == behind.next_position + 1
    report = verify_transcript(behind.transcript(), behind.verdict, workers=1)
    assert report.ok and report.verdict_refused is None


@pytest.mark.parametrize("name", list(FORGERIES))
def test_a_forged_leave_verdict_is_refused_with_its_reason(
        left: tuple[DirectTable, list[bytes], Verdict], name: str) -> None:
    table, transcript, verdict = left
    forge, says = FORGERIES[name]
    _refused(verify_transcript(transcript, forge(table, transcript, verdict), workers=1), says)


# -- deadlines, the unreachable host, and rules that need evidence ---------------------------


@pytest.fixture(scope="module")
def midway() -> tuple[DirectTable, list[bytes]]:
    table = direct_table("topper", seed=52)
    for _ in range(25):
        table.step()
    return table, table.tables[0].transcript()


def test_a_genuine_deadline_and_an_unreachable_host_check_as_far_as_a_clock_can(
        midway: tuple[DirectTable, list[bytes]]) -> None:
    table, transcript = midway
    writer = table.writer
    assert writer is not None
    for blamed in (writer, 0):
        verdict = Verdict("deadline", (blamed,), len(transcript), "did not write before the deadline")
        report = verify_transcript(transcript, verdict, workers=1)
        assert report.ok and report.verdict_confirmed is None and report.verdict_refused is None


@pytest.mark.parametrize("change, says", [
    ({"evidence": (b"\x01",)}, "carries no evidence"),
    ({"players": (1, 2)}, "names exactly one player"),
    ({"position": 3}, "at the transcript's end"),
    ({"players": "not the writer"}, "was to write"),
])
def test_a_deadline_that_cannot_be_a_clock_here_is_refused(
        midway: tuple[DirectTable, list[bytes]], change: dict[str, Any], says: str) -> None:
    table, transcript = midway
    writer = table.writer
    assert writer not in (None, 0), "the fixture's writer must not be the host"
    fields = {"rule": "deadline", "players": (writer,), "position": len(transcript),
              "detail": "late", "evidence": ()}
    if change.get("players") == "not the writer":
        change = {"players": (next(p for p in (1, 2, 3) if p != writer),)}
    fields.update(change)
    _refused(verify_transcript(transcript, Verdict(**fields), workers=1), says)  # type: ignore[arg-type]


@pytest.mark.parametrize("rule", ["crypto", "chain.equivocation", "turn", "rules.bid", "made.up"])
def test_a_provable_rule_without_evidence_is_refused(midway: tuple[DirectTable, list[bytes]], rule: str) -> None:
    _, transcript = midway
    _refused(verify_transcript(transcript, Verdict(rule, (2,), len(transcript), "x"), workers=1),
             "carries none")


@pytest.fixture(scope="module")
def equivocated() -> tuple[list[bytes], Verdict]:
    table = direct_table("topper", seed=53)
    table.run_until(lambda t: t.writer == 2)
    writer = table.tables[2]
    versions = [seal(table.identities[2], session=writer.session, position=writer.next_position,
                     prev=writer.head, player=2, type="commit",
                     body={"key": bytes([k]) * 32, "draw": bytes([k]) * 32}).raw for k in (1, 2)]
    seen = table.tables[0]
    seen.receive(versions[0])
    seen.receive(versions[1])
    assert seen.verdict is not None and seen.verdict.rule == "chain.equivocation"
    return seen.transcript(), seen.verdict


def test_a_genuine_equivocation_is_proven(equivocated: tuple[list[bytes], Verdict]) -> None:
    transcript, verdict = equivocated
    report = verify_transcript(transcript, verdict, workers=1)
    assert report.ok and report.verdict_confirmed is True


@pytest.mark.parametrize("change, says", [
    ({"position": 1}, "at position"),
    ({"players": (1,)}, "blames player 2, not player 1"),
    ({"rule": "turn"}, "breaks rule 'chain.equivocation', not 'turn'"),
])
def test_equivocation_evidence_for_another_claim_is_refused(
        equivocated: tuple[list[bytes], Verdict], change: dict[str, Any], says: str) -> None:
    transcript, verdict = equivocated
    fields: dict[str, Any] = {"rule": verdict.rule, "players": verdict.players, "position": verdict.position,
                              "detail": verdict.detail, "evidence": verdict.evidence}
    fields.update(change)
    _refused(verify_transcript(transcript, Verdict(**fields), workers=1), says)


def test_a_verdict_beside_a_finished_match_is_refused() -> None:
    table = direct_table("topper", seed=41)
    table.run()
    transcript = table.tables[0].transcript()
    verdict = Verdict("deadline", (1,), len(transcript), "late")
    report = verify_transcript(transcript, verdict, workers=1)
    assert report.outcome is not None and report.verdict_confirmed is False and not report.ok
    assert "ended normally" in (report.verdict_refused or "")


# -- through the real command -----------------------------------------------------------------


def _save(folder: Path, transcript: list[bytes], verdict: Verdict) -> Path:
    folder.mkdir(parents=True)
    (folder / "transcript").write_bytes(b"".join(struct.pack(">I", len(r)) + r for r in transcript))
    (folder / "verdict").write_bytes(wire.pack(verdict.to_wire()))
    return folder


def _verify_cli(folder: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(folder / "config"),
           "XDG_STATE_HOME": str(folder / "state")}
    return subprocess.run([sys.executable, "-m", "p2pcards", "verify", *extra, str(folder)],
                          env=env, capture_output=True, text=True, timeout=120)


def test_the_verify_command_refuses_each_forged_leave_and_confirms_the_genuine_one(
        left: tuple[DirectTable, list[bytes], Verdict], tmp_path: Path) -> None:
    table, transcript, verdict = left
    genuine = _verify_cli(_save(tmp_path / "genuine", transcript, verdict))
    assert genuine.returncode == 0, genuine.stdout + genuine.stderr
    assert "OK: every signature, proof and rule checks." in genuine.stdout
    for index, (name, (forge, says)) in enumerate(FORGERIES.items()):
        folder = _save(tmp_path / f"forged{index}", transcript, forge(table, transcript, verdict))
        checked = _verify_cli(folder)
        assert checked.returncode == 1, (name, checked.stdout, checked.stderr)
        assert "FAILED: the saved verdict is refused:" in checked.stdout, (name, checked.stdout)
        assert "OK:" not in checked.stdout and "Traceback" not in checked.stderr, name
        if name == "naming someone else":
            report = json.loads(_verify_cli(folder, "--json").stdout)
            assert report["ok"] is False and report["verdict"]["confirmed"] is False
            assert says in report["verdict"]["refused"]


def test_replay_refuses_a_forged_leave_and_shows_a_genuine_one(left: tuple[DirectTable, list[bytes], Verdict]) -> None:
    from p2pcards.ui.replay_steps import ReplayError, replay
    table, transcript, verdict = left
    assert replay(transcript, verdict=verdict).verdict == verdict
    forged = FORGERIES["naming someone else"][0](table, transcript, verdict)
    with pytest.raises(ReplayError, match="the saved verdict is refused: it names player 1"):
        replay(transcript, verdict=forged)


def test_the_words_of_a_refused_verdict_state_a_claim_not_a_fact(
        left: tuple[DirectTable, list[bytes], Verdict]) -> None:
    from p2pcards.ui.text_verify import report_lines
    table, transcript, verdict = left
    forged = FORGERIES["naming someone else"][0](table, transcript, verdict)
    lines = report_lines(verify_transcript(transcript, forged, workers=1))
    assert any(line.startswith("The saved verdict claims: ") for line in lines)
    assert not any(line.startswith("Table ended at deal") for line in lines)
    assert lines[-1].startswith("FAILED: the saved verdict is refused: it names player 1")
