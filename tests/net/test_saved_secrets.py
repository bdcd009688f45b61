"""A seat's saved secrets are written once and never overwritten: fresh ones
over a saved seat would make it sign a second version of its messages."""

from __future__ import annotations

from pathlib import Path

import pytest

from p2pcards.net.journal import Journal, SeatAlreadySaved


def test_a_meta_file_holding_secrets_is_never_replaced(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "seat")
    journal.write_meta({"v": 1, "player": 2, "secrets": {"key": b"\x01" * 32}})
    saved = journal.meta_path.read_bytes()
    for fresh in ({"v": 1, "player": 2, "secrets": {"key": b"\x02" * 32}},
                  {"v": 1, "player": 2, "secrets": {"key": b"\x01" * 32}},  # a fresh start too
                  {"v": 1, "player": 2}):
        with pytest.raises(SeatAlreadySaved) as refused:
            journal.write_meta(fresh)
        assert refused.value.directory == journal.directory
    assert journal.meta_path.read_bytes() == saved


def test_an_unreadable_meta_file_counts_as_holding_secrets(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "seat")
    journal.directory.mkdir()
    journal.meta_path.write_bytes(b"\xc1 not msgpack")
    with pytest.raises(SeatAlreadySaved):
        journal.write_meta({"v": 1, "secrets": {"key": b"\x02" * 32}})
    assert journal.meta_path.read_bytes() == b"\xc1 not msgpack"


def test_a_meta_without_secrets_may_be_written_again(tmp_path: Path) -> None:
    relay = Journal(tmp_path / "relay")  # the host's relay keeps no secrets
    relay.write_meta({"v": 1, "game": "bluff"})
    relay.write_meta({"v": 1, "game": "bluff", "tcp_port": 4000})
    assert relay.read_meta()["tcp_port"] == 4000
