"""protocol/vectors/verdicts.json, read as another implementation would read it.

Each malformed case, fed after its prefix of table-bluff.json, gets exactly its
rule id, player and position; each verdict a player writes parses from its
saved bytes, its notice is signed by that player in the notice domain and
carries it, and ``verify`` checks it against the same prefix; each saved verdict
beside a longer transcript is judged by ``verify`` as the vector says.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from p2pcards.protocol import wire
from p2pcards.protocol.envelope import SignedNotice
from p2pcards.protocol.schema import validate
from p2pcards.protocol.table import Table
from p2pcards.protocol.verdict import VERDICT_SHAPE, Verdict
from p2pcards.protocol.verify import verify_transcript

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors"
VERDICTS = json.loads((VECTORS / "verdicts.json").read_text())
TABLE = json.loads((VECTORS / "table-bluff.json").read_text())
MESSAGES = [bytes.fromhex(m) for m in TABLE["messages"]]


def _observer(count: int) -> Table:
    table = Table(MESSAGES[0])
    for raw in MESSAGES[1:count]:
        table.receive(raw)
    return table


def _assert_verdict_as_in_vector(case: dict[str, Any]) -> None:
    """The case's message, fed after its messages, ends the table as the vector says."""
    table = _observer(case["after_messages"])
    table.receive(bytes.fromhex(case["message"]))
    verdict = table.verdict
    assert verdict is not None
    assert (verdict.rule, list(verdict.players), verdict.position) == \
        (case["rule"], case["players"], case["position"])


@pytest.mark.parametrize("case", VERDICTS["malformed"], ids=lambda c: c["case"])
def test_each_malformed_case_gets_its_one_rule_id(case: dict[str, Any]) -> None:
    _assert_verdict_as_in_vector(case)
    assert case["rule"] == "message.malformed"  # one id for every value outside its field


#: The rule PROTOCOL.md §8's order and RULES.md's "Which rule when several are broken"
#: give each message of verdicts.json's 'several' list: the vectors may not drift from it.
SEVERAL = {
    "discard of 5 cards (most 4), no rank, stake 0": "rules.bluff.discard-count",
    "discard naming one card twice, no rank, stake 0": "rules.bluff.duplicate-slots",
    "discard of another seat's card, no rank, stake 0": "rules.card.not-held",
    "leader's discard naming no rank, stake 0": "rules.bluff.rank-required",
    "response naming another rank than the round's, stake 0": "rules.bluff.wrong-rank",
    "show with nothing challenged (the last discard is another seat's)": "rules.card.not-held",
    # No discard on the table: the show reveals no slot, so the engine decides, whatever
    # shares it carries (§8 (b)-(d) pass over it).
    "show with no discard on the table (the leader's turn)": "rules.phase",
}


@pytest.mark.parametrize("case", VERDICTS["several"], ids=lambda c: c["case"])
def test_a_message_breaking_several_rules_gets_the_first_in_the_documented_order(case: dict[str, Any]) -> None:
    _assert_verdict_as_in_vector(case)
    assert case["rule"] == SEVERAL[case["case"]]


def test_every_documented_order_case_is_in_the_vectors() -> None:
    assert {case["case"] for case in VERDICTS["several"]} == set(SEVERAL)


@pytest.mark.parametrize("case", VERDICTS["written"], ids=lambda c: c["case"])
def test_each_verdict_a_player_writes_parses_is_signed_and_checks(case: dict[str, Any]) -> None:
    verdict = Verdict.from_wire(wire.unpack(bytes.fromhex(case["verdict_file"])))
    assert (verdict.rule, list(verdict.players), verdict.position) == \
        (case["rule"], case["players"], case["position"])
    notice = SignedNotice.parse(bytes.fromhex(case["notice"]))
    notice.verify(bytes.fromhex(TABLE["player_public_keys"][case["writer"]]))
    assert notice.player == case["writer"] and notice.position == case["after_messages"]
    if verdict.rule == "left":
        assert notice.type == "leave" and verdict.evidence == (notice.raw,)
    else:
        assert notice.type == "alert" and Verdict.from_wire(notice.body) == verdict
    assert verdict.position == case["after_messages"]  # the transcript's end, as §8 says
    report = verify_transcript(MESSAGES[:case["after_messages"]], verdict, workers=1)
    assert report.ok and report.verdict_confirmed is None and report.verdict_refused is None


@pytest.mark.parametrize("case", VERDICTS["malformed"] + VERDICTS["several"],
                         ids=lambda c: c["case"])
def test_each_provable_vector_verdict_is_confirmed_only_under_its_exact_rule_id(case: dict[str, Any]) -> None:
    table = _observer(case["after_messages"])
    table.receive(bytes.fromhex(case["message"]))
    verdict = table.verdict
    assert verdict is not None
    saved = wire.unpack(wire.pack(verdict.to_wire()))
    assert Verdict.from_wire(validate(VERDICT_SHAPE, saved, "verdict")) == verdict
    prefix = MESSAGES[:case["after_messages"]]
    assert verify_transcript(prefix, verdict, workers=1).verdict_confirmed is True
    other = "rules.phase" if verdict.rule != "rules.phase" else "message.malformed"
    renamed = Verdict(other, verdict.players, verdict.position, verdict.detail, verdict.evidence)
    report = verify_transcript(prefix, renamed, workers=1)
    assert report.verdict_confirmed is False and report.verdict_refused


#: What PROTOCOL.md §8 says ``verify`` makes of each verdict of verdicts.json's 'saved'
#: list: a leave's verdict stands at the transcript's end, whatever the notice's own
#: position; evidence is fed after the whole transcript beside it, never one cut at
#: the verdict's position.
SAVED = {
    "a leave signed before the transcript's end (the others wrote on), named at the end": "checks",
    "that leave named at the notice's own position": "verdict.leave",
    "a leave dated past the transcript's end (the leaver was ahead), named at the end": "checks",
    "an equivocation below the transcript's end, the other version the transcript's own":
        "confirmed",
    "that message named for the rule it breaks where a transcript is cut at its position":
        "verdict.evidence.unproven",
    "the same verdict beside the transcript cut at its position": "confirmed",
}


def _endorsement(messages: list[bytes], verdict: Verdict) -> str:
    report = verify_transcript(messages, verdict, workers=1)
    assert report.problem is None, report.problem  # the transcript itself checks
    if report.verdict_confirmed is True:
        return "confirmed"
    if report.verdict_confirmed is None:
        assert report.ok
        return "checks"
    assert report.verdict_refused is not None
    return report.verdict_refused.rsplit("[", 1)[1].rstrip("]")


@pytest.mark.parametrize("case", VERDICTS["saved"], ids=lambda c: c["case"])
def test_each_saved_verdict_beside_a_longer_transcript_is_judged_as_section_8_says(
        case: dict[str, Any]) -> None:
    verdict = Verdict.from_wire(wire.unpack(bytes.fromhex(case["verdict_file"])))
    assert (verdict.rule, list(verdict.players), verdict.position) == \
        (case["rule"], case["players"], case["position"])
    assert case["endorsed"] == SAVED[case["case"]]
    assert _endorsement(MESSAGES[:case["after_messages"]], verdict) == case["endorsed"]


def test_every_documented_saved_case_is_in_the_vectors() -> None:
    assert {case["case"] for case in VERDICTS["saved"]} == set(SAVED)
