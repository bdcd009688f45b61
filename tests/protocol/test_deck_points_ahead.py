"""Every game's deck points are made before a table is known (issue 36): the card
points, the shuffle generators, their sum and ``H`` otherwise fall on the first
shuffle's path (a table's last key message, the first shuffle, every first check)."""

from __future__ import annotations

import pytest

from p2pcards.crypto import elgamal, generators
from p2pcards.crypto.group import OPS
from p2pcards.protocol import table_ahead
from p2pcards.protocol.game_wire import GAMES
from p2pcards.protocol.table_ahead import precompute_decks


def _forget_points() -> None:
    """This process's cached points gone, as in a fresh process."""
    for cached in (elgamal.card_point, generators.chain_base, generators._generator,
                   generators.generators_sum):
        cached.cache_clear()


def _first_decks_points() -> None:
    """What each game's first deal computes before its first shuffle and check."""
    for game in GAMES.values():
        elgamal.initial_deck(game.deck_codes)
        generators.generators_sum(len(game.deck_codes))
        generators.chain_base()


def test_after_precompute_decks_no_games_first_deal_hashes_to_the_curve(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Made here first, so no session of an earlier test is still making them meanwhile.
    precompute_decks()
    _forget_points()
    OPS.reset()
    _first_decks_points()
    cold = OPS.from_uniform
    assert cold == 52 + 52 + 1  # every card, every generator h_i, and H: once each

    _forget_points()
    monkeypatch.setattr(table_ahead, "_decks_done", False)
    precompute_decks()
    OPS.reset()
    _first_decks_points()
    assert (OPS.from_uniform, OPS.add) == (0, 0)
    precompute_decks()  # once per process: a second session's call makes nothing
    assert OPS.from_uniform == 0
