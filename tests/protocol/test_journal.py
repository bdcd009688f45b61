"""Saved table state: torn tails, modes, the verdict beside the transcript."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from p2pcards.net.journal import Journal, read_records


def test_transcript_records_round_trip_in_order(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "t")
    for i in range(5):
        journal.append(bytes([i]) * (i + 1), sync=(i == 2))
    journal.close()
    assert read_records(journal.transcript_path) == [bytes([i]) * (i + 1) for i in range(5)]


def test_a_torn_last_record_is_dropped_and_the_rest_kept(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "t")
    journal.append(b"first")
    journal.append(b"second")
    journal.close()
    data = journal.transcript_path.read_bytes()
    journal.transcript_path.write_bytes(data[:-3])
    assert Journal(tmp_path / "t").read_messages() == [b"first"]


def test_meta_holding_secrets_is_private_to_its_owner(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "t")
    journal.write_meta({"secrets": {"key": b"k" * 32}})
    mode = stat.S_IMODE(os.stat(journal.meta_path).st_mode)
    assert mode == 0o600
    assert journal.read_meta() == {"secrets": {"key": b"k" * 32}}


def test_rewrite_replaces_the_transcript(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "t")
    journal.append(b"a")
    journal.append(b"b")
    journal.rewrite([b"a"])
    journal.append(b"c")
    journal.close()
    assert journal.read_messages() == [b"a", b"c"]


def test_verdict_is_kept_beside_the_transcript(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "t")
    assert journal.read_verdict() is None
    journal.write_verdict({"rule": "turn", "players": [2]})
    assert journal.read_verdict() == {"rule": "turn", "players": [2]}


def test_notices_are_kept_apart_from_the_transcript(tmp_path: Path) -> None:
    """The relay's kept notices have their own file: they never enter the chain."""
    journal = Journal(tmp_path / "relay")
    journal.append(b"message")
    journal.append_notice(b"alert one")
    journal.append_notice(b"leave")
    journal.close()
    again = Journal(tmp_path / "relay")
    assert again.read_messages() == [b"message"]
    assert again.read_notices() == [b"alert one", b"leave"]
