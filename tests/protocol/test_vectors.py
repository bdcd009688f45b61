"""protocol/schemas.json and the table vectors are what the code checks and produces."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from p2pcards.crypto.keys import KeyShare
from p2pcards.protocol.table import Table
from p2pcards.protocol.verify import verify_transcript

ROOT = Path(__file__).resolve().parents[2]


def test_schemas_and_table_vectors_match_the_code() -> None:
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_protocol.py"), "--check"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("name", ["table-topper.json", "table-bluff.json"])
def test_table_vector_verifies_offline_with_its_outcome(name: str) -> None:
    vector = json.loads((ROOT / "protocol" / "vectors" / name).read_text())
    messages = [bytes.fromhex(m) for m in vector["messages"]]
    report = verify_transcript(messages)
    assert report.ok and repr(report.outcome) == vector["outcome"]
    observer = Table(messages[0])
    assert observer.session.hex() == vector["session_id"]


def test_table_vector_key_shares_open_exactly_each_seats_cards() -> None:
    vector = json.loads((ROOT / "protocol" / "vectors" / "table-topper.json").read_text())
    observer = Table(bytes.fromhex(vector["messages"][0]))
    for raw in vector["messages"][1:]:
        observer.receive(bytes.fromhex(raw))
    deal = observer.deal  # the last hand, every card of which was played face up
    for seat, player in enumerate(vector["player_at_seat"]):
        share = KeyShare.from_secret_bytes(bytes.fromhex(vector["player_key_shares"][player]))
        assert deal is not None
        hand = deal.private_hand(seat, share)
        assert sorted(hand) == deal.slots_of(seat)
        assert hand == {slot: deal.revealed[slot] for slot in hand}


def test_the_evening_vector_is_a_rematch_of_the_topper_vector_that_verifies_as_a_chain() -> None:
    from p2pcards.protocol.again import AGAIN, Choice
    from p2pcards.protocol.verify_rematches import verify_evening

    first = json.loads((ROOT / "protocol" / "vectors" / "table-topper.json").read_text())
    vector = json.loads((ROOT / "protocol" / "vectors" / "evening.json").read_text())
    before = [bytes.fromhex(m) for m in first["messages"]]
    after = [bytes.fromhex(m) for m in vector["messages"]]
    report = verify_evening([before, after])
    assert report.ok, report.problem
    assert repr(report.reports[1].outcome) == vector["outcome"]
    assert vector["after"]["sid"] == first["session_id"]
    rotated = [vector["player_at_seat"][(s + 1) % 4] for s in range(4)]
    assert rotated == first["player_at_seat"]  # the same four, in the same join order
    keys = [bytes.fromhex(k) for k in first["player_public_keys"]]
    for player, raw in enumerate(vector["again_choices"]):
        choice = Choice.parse(bytes.fromhex(raw))
        choice.verify(keys[player])
        assert choice.choice == AGAIN and choice.session.hex() == first["session_id"]
