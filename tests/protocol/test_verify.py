"""Offline verification of saved transcripts, as a third party."""

from __future__ import annotations

from collections.abc import Callable

import nacl.bindings as nb
import pytest

from p2pcards.app._direct import DirectTable, direct_table
from p2pcards.protocol.envelope import SignedMessage, seal
from p2pcards.protocol.verdict import Verdict
from p2pcards.protocol.verify import verify_transcript
from p2pcards.wiremap import WireValue

ORDER_8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")


@pytest.fixture(scope="module")
def finished() -> DirectTable:
    table = direct_table("topper", seed=41)
    table.run()
    return table


def test_a_finished_match_verifies_with_its_outcome(finished: DirectTable) -> None:
    report = verify_transcript(finished.tables[2].transcript())
    assert report.ok and report.problem is None
    assert finished.tables[0].engine is not None
    assert repr(report.outcome) == repr(finished.tables[0].engine.outcome)
    assert report.shuffles == 4 * report.deals and report.messages == len(finished.observer.messages)


def test_a_transcript_with_a_flipped_byte_fails(finished: DirectTable) -> None:
    messages = finished.tables[1].transcript()
    raw = bytearray(messages[10])
    raw[len(raw) // 2] ^= 0x40
    report = verify_transcript(messages[:10] + [bytes(raw)] + messages[11:])
    assert report.problem is not None
    assert not report.ok and report.problem.startswith("message 10")


def test_a_truncated_transcript_is_not_ok(finished: DirectTable) -> None:
    report = verify_transcript(finished.tables[1].transcript()[:30])
    assert not report.ok and report.outcome is None


def test_an_out_of_turn_verdict_is_confirmed_by_its_evidence() -> None:
    table = direct_table("topper", seed=42)
    table.run_until(lambda t: t.writer == 2)
    intruder = table.tables[3]
    last = intruder.messages[-1]
    forged = seal(table.identities[3], session=intruder.session, position=len(intruder.messages),
                  prev=last.digest, player=3, type="commit", body={"key": bytes(32), "draw": bytes(32)})
    table.deliver(forged.raw, exclude=3)
    verdict = table.tables[0].verdict
    assert verdict is not None
    assert verdict.rule == "turn" and verdict.players == (3,)
    report = verify_transcript(table.tables[0].transcript(), verdict)
    assert report.verdict_confirmed is True and report.ok


def test_a_verdict_whose_evidence_breaks_no_rule_is_not_confirmed() -> None:
    table = direct_table("topper", seed=43)
    for _ in range(3):
        table.step()
    honest = table.tables[0].transcript()
    fake = Verdict("turn", (1,), 2, "made up", (honest[2],))
    report = verify_transcript(honest[:2], fake)
    assert report.verdict_confirmed is False and not report.ok
    assert SignedMessage.parse(honest[2]).position == 2


def test_a_transcript_holding_the_message_its_saved_verdict_blames_is_a_confirmed_record() -> None:
    table = direct_table("topper", seed=44)
    table.run_until(lambda t: t.writer == 1)
    intruder = table.tables[3]
    forged = seal(table.identities[3], session=intruder.session, position=intruder.next_position,
                  prev=intruder.messages[-1].digest, player=3, type="commit",
                  body={"key": bytes(32), "draw": bytes(32)})
    transcript = table.tables[0].transcript() + [forged.raw]
    table.deliver(forged.raw, exclude=3)
    saved = table.tables[0].verdict
    with_verdict = verify_transcript(transcript, saved)
    without = verify_transcript(transcript)
    assert with_verdict.ok and with_verdict.verdict_confirmed and with_verdict.problem is None
    assert without.problem is not None
    assert not without.ok and without.problem.startswith(f"message {len(transcript) - 1}")


# -- a saved transcript is exactly the chain ------------------------------------------------


def test_an_exact_duplicate_message_fails_with_its_reason(finished: DirectTable) -> None:
    messages = finished.tables[1].transcript()
    report = verify_transcript(messages[:12] + [messages[11]] + messages[12:])
    assert not report.ok and report.outcome is None
    assert report.problem == ("message 12: a second copy of position 11 "
                              "(a saved transcript is exactly the chain)")


@pytest.mark.parametrize("kind", ["leave", "alert"])
def test_a_transcript_holding_a_notice_fails_and_names_nobody(kind: str) -> None:
    table = direct_table("topper", seed=42)
    for _ in range(20):
        table.step()
    signer = table.tables[2]
    if kind == "leave":
        notice = signer.leave()
    else:
        signer.declare_deadline_missed()
        alert = signer.alert()
        assert alert is not None
        notice = alert
    messages = table.tables[0].transcript()
    report = verify_transcript(messages + [notice])
    assert not report.ok and report.verdict is None
    assert report.problem == (f"message {len(messages)}: a signed {kind!r} notice, "
                              "which is never part of the transcript")


def test_a_message_for_a_later_position_says_what_is_missing(finished: DirectTable) -> None:
    messages = finished.tables[1].transcript()
    report = verify_transcript(messages[:12] + messages[14:])
    assert report.problem is not None
    assert report.problem.startswith("message 12: holds position 14")


def test_a_notice_is_never_evidence_of_a_transcript_fault() -> None:
    """A verdict that blames a player with its leave notice as 'evidence' of a
    turn fault is not confirmed."""
    table = direct_table("topper", seed=43)
    for _ in range(20):
        table.step()
    notice = table.tables[3].leave()
    messages = table.tables[0].transcript()
    report = verify_transcript(messages, Verdict("turn", (3,), len(messages), "x", (notice,)))
    assert report.verdict_confirmed is False and not report.ok


def _with_bad_shuffle(finished: DirectTable, deck: int) -> list[bytes]:
    """The transcript with one shuffle of ``deck`` re-signed by its writer over a
    proof with one response changed (everything after it then breaks the chain)."""
    messages = finished.tables[0].transcript()
    for index, raw in enumerate(messages):
        msg = SignedMessage.parse(raw)
        if msg.type == "shuffle" and msg.body["deck"] == deck:
            body = dict(msg.body)
            proof = list(body["proof"])
            proof[6], proof[7] = proof[7], proof[6]  # s1 and s2 swapped
            body["proof"] = proof
            forged = seal(finished.identities[msg.player], session=msg.session,
                          position=msg.position, prev=msg.prev, player=msg.player,
                          type="shuffle", body=body)
            raws: list[bytes] = messages[:index] + [forged.raw] + messages[index + 1:]
            return raws
    raise AssertionError("no shuffle of that deck")


@pytest.mark.parametrize("workers", [1, 2])
def test_workers_change_nothing_but_the_time(finished: DirectTable, workers: int) -> None:
    good = verify_transcript(finished.tables[1].transcript(), workers=workers)
    assert good.ok and good == verify_transcript(finished.tables[1].transcript(), workers=1)
    bad = _with_bad_shuffle(finished, deck=0)
    one, many = verify_transcript(bad, workers=1), verify_transcript(bad, workers=workers)
    assert many.verdict is not None
    assert one == many and not many.ok and "shuffle proof fails" in many.verdict.detail


def test_progress_is_told_for_the_replay_and_the_proofs(finished: DirectTable) -> None:
    seen: list[tuple[str, int, int]] = []
    verify_transcript(finished.tables[1].transcript(), workers=2,
                      progress=lambda stage, done, total: seen.append((stage, done, total)))
    stages = {stage for stage, _, _ in seen}
    assert stages == {"replay", "proofs", "done"}
    assert all(done == total for stage, done, total in seen[-2:])


def _resigned(finished: DirectTable, which: int, change: Callable[[dict[str, WireValue]], None],
              ) -> tuple[list[bytes], int]:
    """The transcript with shuffle ``which`` of deck 0 changed by ``change`` and
    re-signed by its writer; and that writer."""
    messages = finished.tables[0].transcript()
    shuffles = [i for i, raw in enumerate(messages) if SignedMessage.parse(raw).type == "shuffle"]
    index = shuffles[which]
    msg = SignedMessage.parse(messages[index])
    body = dict(msg.body)
    change(body)
    forged = seal(finished.identities[msg.player], session=msg.session, position=msg.position,
                  prev=msg.prev, player=msg.player, type="shuffle", body=body)
    return messages[:index] + [forged.raw] + messages[index + 1:], msg.player


@pytest.mark.parametrize("workers", [1, 2])
def test_one_bad_shuffle_among_many_is_named_with_its_check(finished: DirectTable, workers: int) -> None:
    """The deal's three shuffles before it went into the same batch: its failure names the one."""
    def swap_responses(body: dict[str, WireValue]) -> None:
        proof = body["proof"]
        assert isinstance(proof, list) and isinstance(proof[10], list)
        body["proof"] = [*proof[:10], proof[10][::-1], *proof[11:]]  # the ŝ_i reordered

    bad, player = _resigned(finished, 3, swap_responses)
    report = verify_transcript(bad, workers=workers)
    assert not report.ok and report.verdict is not None
    assert report.verdict.players == (player,)
    assert "shuffle proof fails" in report.verdict.detail and "t_hat[0]" in report.verdict.detail


def test_a_point_outside_the_group_in_a_shuffle_is_named_as_when_decoded(finished: DirectTable) -> None:
    """Its validation waited for a multiplication, which refused it; the strict
    replay then names the point as decoding it does."""
    def tag_a_card(body: dict[str, WireValue]) -> None:
        cards = body["cards"]
        assert isinstance(cards, list) and isinstance(cards[5], list)
        c1, c2 = cards[5]
        assert isinstance(c2, bytes)
        body["cards"] = [*cards[:5], [c1, nb.crypto_core_ed25519_add(c2, ORDER_8)], *cards[6:]]

    bad, player = _resigned(finished, 1, tag_a_card)
    report = verify_transcript(bad, workers=1)
    assert not report.ok and report.verdict is not None and report.verdict.players == (player,)
    assert "prime-order" in report.verdict.detail
