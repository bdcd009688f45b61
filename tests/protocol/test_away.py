"""A host back after the players gave up on it names nobody: the rule, with ``now`` passed in."""

from __future__ import annotations

from p2pcards.protocol.away import ended_while_away


def test_a_host_gone_longer_than_the_window_finds_its_table_ended_and_names_nobody() -> None:
    ended = ended_while_away(now=1000.0, up_at=900.0, reconnect_window=60.0, others=1)
    assert ended is not None and ended.away == 100.0 and ended.others == 1
    sentence = ended.sentence()
    assert "ended while you were away" in sentence and "names nobody" in sentence
    assert "ran out of time" not in sentence and "Seat" not in sentence


def test_a_host_back_within_the_window_finds_its_table_in_play() -> None:
    assert ended_while_away(now=1000.0, up_at=950.0, reconnect_window=60.0, others=2) is None


def test_a_stale_heartbeat_decides_only_beyond_its_precision() -> None:
    # Last heartbeat 63 s ago, beating every 5 s: the host may have been up 58 s ago.
    assert ended_while_away(1000.0, 937.0, 60.0, 1, precision=5.0) is None
    assert ended_while_away(1000.0, 930.0, 60.0, 1, precision=5.0) is not None


def test_a_table_of_this_process_alone_never_ended_while_away() -> None:
    # Only its own bots: they waited for it (they are resumed with it).
    assert ended_while_away(1e9, 0.0, 60.0, others=0) is None


def test_an_unknown_last_moment_up_decides_nothing() -> None:
    assert ended_while_away(1e9, None, 60.0, others=3) is None
