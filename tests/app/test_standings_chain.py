"""The standings of a chained evening: a rematch counts in the evening of the match its
genesis names, whatever its day or players, and only when the link holds."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from p2pcards.app._direct import DirectTable
from p2pcards.app.insecure_seed import randomness_for
from p2pcards.bots.registry import make_bot_factory
from p2pcards.evening.standings import collect, evening_of
from p2pcards.protocol.again import AGAIN, LEAVE, rematch_genesis
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.rematch_genesis import After
from p2pcards.protocol.table import Table
from tests.protocol.played_match import GAME, NAMES, config, heard_count, played_match
from tests.support.typed import present

DAY = 24 * 3600


def _save(root: Path, table: Table, when: float) -> Path:
    """A seat's record as a player saves it: ``<root>/<session>/<fingerprint>/transcript``."""
    folder = root / table.session.hex() / present(table.me).fingerprint
    folder.mkdir(parents=True)
    transcript = folder / "transcript"
    transcript.write_bytes(b"".join(len(r).to_bytes(4, "big") + r for r in table.transcript()))
    os.utime(transcript, (when, when))
    return folder


@pytest.fixture(scope="module")
def chain(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    """Three chained matches (the third with a bot in a leaver's seat, a day later) and a
    match whose link is forged, two days later."""
    root = tmp_path_factory.mktemp("tables")
    start = 1_800_000_000.0
    first = played_match(81)
    second = played_match(82, before=first)
    record = second.tables[0].finished()
    count = heard_count(second, {0: AGAIN, 1: AGAIN, 2: AGAIN, 3: LEAVE}, closes_at=None)
    bot = Identity.generate("Bot")
    count.fill(3, bot.public_key, "Bot")
    genesis = rematch_genesis(first.identities[0], count, NAMES, GAME, config(), "test table")
    third = _played(genesis.raw, [*first.identities[:3], bot], seed=83)
    forged = played_match(84, before=first, after=After(record.session, bytes(32), record.seats))
    folders = [_save(root, first.tables[0], start), _save(root, second.tables[0], start + 60),
               _save(root, third, start + DAY), _save(root, forged.tables[0], start + 2 * DAY)]
    return root, folders


def _played(genesis: bytes, identities: list[Identity], seed: int) -> Table:
    """Play a match from ``genesis`` with bots, as the direct tables do; player 0's table."""
    tables = [Table(genesis, identity, randomness=randomness_for(seed, f"p{i}"))
              for i, identity in enumerate(identities)]
    factory = make_bot_factory("topper", "heuristic")
    direct = DirectTable("topper", identities, tables, Table(genesis), genesis,
                         [factory(random.Random(seed * 10 + s)) for s in range(4)])
    direct.run()
    return tables[0]


def test_a_chained_evening_is_one_evening_across_days_and_a_bot_in_a_freed_seat(chain: tuple[Path, list[Path]]) -> None:
    _, folders = chain
    standings = collect(folders)
    assert standings.not_counted == []
    by_size = sorted(standings.evenings, key=lambda e: len(e.matches))
    assert [len(e.matches) for e in by_size] == [1, 3]
    night = by_size[1]
    assert [m.path for m in night.matches] == folders[:3]
    assert not any(s.name == "Bot" for s in night.matches[0].seats)
    assert any(s.name == "Bot" for s in night.matches[2].seats)


def test_a_forged_link_starts_no_chain(chain: tuple[Path, list[Path]]) -> None:
    _, folders = chain
    alone = [e for e in collect(folders).evenings if len(e.matches) == 1][0]
    assert alone.matches[0].path == folders[3]


def test_saved_gives_a_rematch_the_evening_of_the_chain_s_first_match(chain: tuple[Path, list[Path]]) -> None:
    _, folders = chain
    first = evening_of(folders[0])
    assert first is not None
    assert evening_of(folders[1]) == first and evening_of(folders[2]) == first
    assert evening_of(folders[3]) != first
