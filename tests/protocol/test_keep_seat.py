"""A host cannot leave an honest player out of the rematch: a joiner checks the
genesis against the signed choices its end box holds (PROTOCOL.md §14), and the
host's count never fills a seat whose player chose again."""

from __future__ import annotations

import pytest

from p2pcards.app._direct import DirectTable
from p2pcards.protocol.again import (
    AGAIN,
    LEAVE,
    check_rematch,
    rematch_genesis,
    sign_choice,
)
from p2pcards.protocol.errors import MalformedMessage
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.rematch_genesis import DroppedPlayer, EveningRefused, KeptLeaver
from p2pcards.protocol.seat_fill import SeatRefused, check_newcomer
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_errors import TableClosed
from p2pcards.protocol.table_records import Stage

from .played_match import GAME, NAMES, config, heard_count, host_genesis, played_match, player_keys


@pytest.fixture(scope="module")
def played() -> DirectTable:
    return played_match(seed=73)


def _genesis(played: DirectTable, keys: list[bytes]) -> bytes:
    """A genesis by the match's host, linked rightly, with these players (join order)."""
    return host_genesis(played.identities[0], [(key, f"N{n}") for n, key in enumerate(keys)],
                        played.tables[0].finished().after)


ALL_AGAIN = dict.fromkeys(range(4), AGAIN)


def test_a_genesis_that_drops_an_again_chooser_for_a_bot_is_refused_naming_the_seat(played: DirectTable) -> None:
    bot = Identity.generate("Bot")
    keys = player_keys(played)
    keys[2] = bot.public_key  # player 2 chose again; the host gives its seat to its bot
    genesis = _genesis(played, keys)
    record = played.tables[3].finished()
    check_rematch(genesis, record)  # raises nothing: the link alone is right, only the count sees it
    held = heard_count(played, ALL_AGAIN)
    with pytest.raises(DroppedPlayer) as refused:
        check_rematch(genesis, record, held)
    seat = (record.seats.index(player_keys(played)[2]) + 1) % 4
    assert refused.value.player == 2 and refused.value.seat == seat
    assert "drops player 2" in str(refused.value) and f"seat {seat} " in str(refused.value)
    assert refused.value.rule == "evening.dropped" and isinstance(refused.value, EveningRefused)


def test_a_genesis_that_drops_an_again_chooser_for_a_newcomer_is_refused(played: DirectTable) -> None:
    """Player 1's again reached this end box but the host said nobody chose for seat
    1: it took a newcomer. The dropped player's own end box refuses as the others'."""
    newcomer = Identity.generate("Nia")
    keys = player_keys(played)
    keys[1] = newcomer.public_key
    genesis = _genesis(played, keys)
    for joiner in (1, 3):
        with pytest.raises(DroppedPlayer, match="drops player 1"):
            check_rematch(genesis, played.tables[joiner].finished(), heard_count(played, ALL_AGAIN))


def test_a_genesis_that_keeps_a_leaver_is_refused(played: DirectTable) -> None:
    genesis = _genesis(played, player_keys(played))  # everyone, as if player 3 chose again
    held = heard_count(played, {0: AGAIN, 1: AGAIN, 2: AGAIN, 3: LEAVE})
    with pytest.raises(KeptLeaver, match="player 3") as refused:
        check_rematch(genesis, played.tables[1].finished(), held)
    assert refused.value.player == 3 and refused.value.rule == "evening.kept"


def test_an_equivocator_seen_leaving_here_is_a_leaver_whatever_the_host_says(played: DirectTable) -> None:
    """Player 3 signs again, then leave: this end box holds both, so it counts a
    leave (final), and a genesis keeping player 3 is refused."""
    held = heard_count(played, {0: AGAIN, 1: AGAIN, 2: AGAIN, 3: AGAIN})
    record = played.tables[0].finished()
    held.receive(sign_choice(played.identities[3], record, 3, LEAVE).raw)
    with pytest.raises(KeptLeaver):
        check_rematch(_genesis(played, player_keys(played)), played.tables[1].finished(), held)


def test_an_honest_rematch_with_a_bot_in_the_leavers_seat_is_accepted(played: DirectTable) -> None:
    choices = {0: AGAIN, 1: AGAIN, 2: LEAVE, 3: AGAIN}
    host, box = heard_count(played, choices), heard_count(played, choices)
    bot = Identity.generate("Bot")
    made = host.fill(2, bot.public_key, "Bot")
    assert box.hear_fill(made)
    genesis = rematch_genesis(played.identities[0], host, NAMES, GAME, config(), "t").raw
    record = played.tables[1].finished()
    assert check_rematch(genesis, record, box) == record.after
    # An end box that never heard the fill (its link dropped) accepts it too.
    assert check_rematch(genesis, record, heard_count(played, choices)) == record.after
    assert Table(genesis, played.identities[1]).after == record.after


def test_an_honest_rematch_with_a_newcomer_is_accepted_by_every_joiner(played: DirectTable) -> None:
    choices = {0: AGAIN, 1: LEAVE, 2: AGAIN, 3: AGAIN}
    host = heard_count(played, choices)
    newcomer = Identity.generate("Nia")
    made = host.take(newcomer.public_key, "Nia", now=5.0)
    genesis = rematch_genesis(played.identities[0], host, NAMES, GAME, config(), "t").raw
    for joiner in (2, 3):
        box = heard_count(played, choices)
        box.hear_fill(made)
        check_rematch(genesis, played.tables[joiner].finished(), box)
    check_newcomer(genesis, played.identities[0].public_key, made)


def test_the_host_never_fills_a_seat_whose_player_chose_again(played: DirectTable) -> None:
    host = heard_count(played, {0: AGAIN, 1: AGAIN})
    bot = Identity.generate("Bot")
    with pytest.raises(MalformedMessage, match="has not left"):
        host.fill(1, bot.public_key, "Bot")
    with pytest.raises(MalformedMessage, match="has not left"):
        host.fill(2, bot.public_key, "Bot")  # undecided: not free either
    with pytest.raises(SeatRefused, match="no seat is free"):
        host.take(bot.public_key, "Bot", now=1.0)
    assert host.filled == {}


def test_an_again_after_the_seat_was_filled_counts_nowhere_and_the_rematch_stands(played: DirectTable) -> None:
    """Player 2 left and its seat was filled; its "again" that arrives later (its end
    box's second thought) is refused by the host's count and every end box's alike, so
    the rematch without it is accepted."""
    record = played.tables[0].finished()
    choices = {0: AGAIN, 1: AGAIN, 2: LEAVE, 3: AGAIN}
    host, box = heard_count(played, choices), heard_count(played, choices)
    bot = Identity.generate("Bot")
    box.hear_fill(host.fill(2, bot.public_key, "Bot"))
    late = sign_choice(played.identities[2], record, 2, AGAIN).raw
    assert host.receive(late) is None and box.receive(late) is None
    assert host.choices[2] == box.choices[2] == LEAVE
    genesis = rematch_genesis(played.identities[0], host, NAMES, GAME, config(), "t").raw
    assert check_rematch(genesis, played.tables[3].finished(), box) == record.after


def test_leaving_a_table_that_is_over_is_refused_and_keeps_it_over(played: DirectTable) -> None:
    table = played.tables[2]
    assert table.stage is Stage.OVER
    with pytest.raises(TableClosed, match="the match is over"):
        table.leave()
    assert table.stage is Stage.OVER and table.verdict is None
    assert table.finished().session == played.tables[0].finished().session
