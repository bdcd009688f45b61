"""A short match of four played to its end, and the evening's pieces built on it.

The evening's tests (``test_keep_seat.py``, ``test_seat_fill.py``, and the
chained records of ``tests/app``) start from a finished match, or a chain of
them, and build on it what an end box holds (a count that heard some signed
choices) and what a host may write (a genesis seating whom it likes, linked to
the match it names); these are those pieces, made one way.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2pcards.app._direct import SHORT, DirectTable, direct_table
from p2pcards.protocol import game_wire
from p2pcards.protocol.again import AgainCount, sign_choice
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.lobby import Lobby
from p2pcards.protocol.rematch_genesis import After

GAME = "topper"
NAMES = ("P0", "P1", "P2", "P3")


def played_match(seed: int, before: DirectTable | None = None, after: After | None = None
                 ) -> DirectTable:
    """One short match of four, ended normally; with ``before``, its rematch: the same
    four, linked to the match ``before`` played (or to ``after``: a forged link)."""
    if before is None:
        played = direct_table(GAME, seed=seed)
    else:
        link = after if after is not None else before.tables[0].finished().after
        played = direct_table(GAME, seed=seed, identities=before.identities, after=link)
    played.run()
    return played


def config() -> dict[str, int]:
    """The short match's settings, as a genesis carries them."""
    return game_wire.by_name(GAME).config_to_wire(SHORT[GAME])


def player_keys(played: DirectTable) -> list[bytes]:
    """The match's players' keys, in join order."""
    return [p.public_key for p in played.tables[0].players]


def heard_count(played: DirectTable, choices: dict[int, str],
                closes_at: float | None = 100.0) -> AgainCount:
    """A count (the host's, or an end box's) that heard ``choices``, signed, in order."""
    record = played.tables[0].finished()
    count = AgainCount(record, tuple(player_keys(played)), closes_at)
    for player, choice in choices.items():
        count.receive(sign_choice(played.identities[player], record, player, choice).raw)
    return count


def host_genesis(host: Identity, players: Sequence[tuple[bytes, str]], after: After) -> bytes:
    """A genesis by ``host`` seating ``players`` (join order, the host's own first),
    linked to the match ``after`` names."""
    lobby = Lobby(host, GAME, config(), "t")
    for key, name in players[1:]:
        lobby.join(key, name)
    return lobby.genesis(after=after).raw
