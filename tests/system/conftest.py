"""Fixtures for the system tests: four identities, fresh homes per run, fault-free baselines."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from .harness import Home, ProcessTable, make_homes
from .scenarios import SEAT_NAMES, MatchRecord, play_recorded, standard_plan


@pytest.fixture(scope="session")
def identities(tmp_path_factory: pytest.TempPathFactory) -> list[Home]:
    """Four players' identities, made once with ``p2pcards whoami`` and copied into every run,
    so seeded runs with and without a fault seat the same players and deal the same cards."""
    return make_homes(tmp_path_factory.mktemp("identities"), SEAT_NAMES)


@pytest.fixture
def fresh_homes(tmp_path: Path, identities: list[Home]) -> Callable[[str], list[Home]]:
    """``fresh_homes(tag)``: four new homes (empty saved state) holding the four identities."""
    def make(tag: str) -> list[Home]:
        return make_homes(tmp_path, SEAT_NAMES, identities=identities, tag=f"{tag}-")
    return make


@pytest.fixture(scope="session")
def baseline(tmp_path_factory: pytest.TempPathFactory,
             identities: list[Home]) -> Callable[[str], MatchRecord]:
    """``baseline(game)``: the fault-free standard match of ``game`` (seed 1), played once."""
    cache: dict[str, MatchRecord] = {}

    def get(game: str) -> MatchRecord:
        if game not in cache:
            homes = make_homes(tmp_path_factory.mktemp(f"baseline-{game}"), SEAT_NAMES,
                               identities=identities)
            cache[game] = play_recorded(standard_plan(game), homes)
        return cache[game]
    return get


@pytest.fixture
def tables() -> Iterator[list[ProcessTable]]:
    """Tables a test starts itself; every process of them is stopped afterwards."""
    started: list[ProcessTable] = []
    yield started
    for table in started:
        table.stop()
