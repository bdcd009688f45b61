"""Coach's hints at a LAN table (``hint``, genesis ``config.hints``): accepted and
counted by every peer where the host allowed them, a provable breach of its
writer where it did not; a hint changes neither the game nor the writer."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Awaitable
from pathlib import Path

import pytest

from p2pcards.app._direct import SHORT, DirectTable
from p2pcards.app.insecure_seed import randomness_for, seeded_identity
from p2pcards.bots.registry import make_bot_factory
from p2pcards.protocol import game_wire
from p2pcards.protocol.envelope import seal
from p2pcards.protocol.errors import HintNotAllowed, MalformedMessage
from p2pcards.protocol.events import HintTaken, TableEnded
from p2pcards.protocol.lobby import Lobby
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_errors import HintsOffHere, NotThisPeersTurn
from p2pcards.protocol.table_records import HINT, Stage, Written
from p2pcards.protocol.table_settings import HINTS
from p2pcards.protocol.verify import verify_transcript


def _hint(table: Table) -> bytes:
    """The hint ``table`` writes now (one is due)."""
    written = table.take_hint()
    assert written is not None
    return written.raw


def _table(game: str = "topper", seed: int = 12, hints: int | None = 1) -> DirectTable:
    """Four seeded players and an observer at a table whose genesis sets ``hints``."""
    rules = game_wire.by_name(game)
    identities = [seeded_identity(seed, f"p{i}", f"P{i}") for i in range(4)]
    config = rules.config_to_wire(SHORT[game])
    if hints is not None:
        config[HINTS] = hints
    lobby = Lobby(identities[0], game, config, "hints table")
    for identity in identities[1:]:
        lobby.join(identity.public_key, identity.name)
    genesis = lobby.genesis(nonce=bytes([seed]) * 32).raw
    tables = [Table(genesis, identity, randomness=randomness_for(seed, f"p{i}"))
              for i, identity in enumerate(identities)]
    factory = make_bot_factory(game, "heuristic")
    bots = [factory(random.Random(seed * 10 + s)) for s in range(4)]
    direct = DirectTable(game, identities, tables, Table(genesis), genesis, bots)
    direct.run_until(lambda d: d.tables[0].stage is Stage.PLAY and d.writer is not None
                     and d.tables[d.writer].awaiting_my_action)
    return direct


def _state(engine: object) -> list[str]:
    """Every field of a rules engine, as text (its classes keep them in slots)."""
    return [repr(getattr(engine, name, None)) for cls in type(engine).__mro__
            for name in getattr(cls, "__slots__", ())]


def _forged_hint(direct: DirectTable, player: int) -> bytes:
    """A ``hint`` signed by ``player`` for the next position, past any local refusal."""
    table = direct.tables[player]
    return seal(direct.identities[player], session=table.session, position=table.next_position,
                prev=table.head, player=player, type=HINT, body={}).raw


def test_a_hint_where_the_host_allowed_them_is_counted_by_every_peer_and_changes_nothing() -> None:
    direct = _table(hints=1)
    writer = direct.writer
    assert writer is not None
    engine = direct.observer.engine
    before = _state(engine)
    written = direct.tables[writer].take_hint()
    assert written is not None
    assert [e for e in written.events if isinstance(e, HintTaken)] == [HintTaken(writer, 1)]
    direct.deliver(written.raw, exclude=writer)
    for i, table in enumerate(direct.tables + [direct.observer]):
        assert table.hints_used == [1 if p == writer else 0 for p in range(4)]
        assert table.writer == writer and table.stage is Stage.PLAY
        if i != writer:
            assert HintTaken(writer, 1) in direct.events[i]
    assert direct.observer.engine is engine and _state(engine) == before  # the game is unchanged
    assert direct.tables[writer].awaiting_my_action  # the same decision is still due


def test_asked_again_for_the_same_move_nothing_more_is_written() -> None:
    direct = _table(hints=1)
    writer = direct.writer
    assert writer is not None
    direct.deliver(_hint(direct.tables[writer]), exclude=writer)
    assert direct.tables[writer].hint_taken
    assert direct.tables[writer].take_hint() is None
    direct.step()  # the move itself
    direct.run_until(lambda d: d.writer is not None and d.tables[d.writer].awaiting_my_action)
    assert direct.writer is not None
    assert not direct.tables[direct.writer].hint_taken


def test_a_hinted_match_plays_out_and_verifies_with_the_counts() -> None:
    direct = _table(hints=1)
    taken = 0
    for _ in range(3000):
        writer = direct.writer
        if writer is None or direct.ended():
            break
        table = direct.tables[writer]
        if taken < 3 and table.awaiting_my_action and not table.hint_taken:
            direct.deliver(_hint(table), exclude=writer)
            taken += 1
        direct.step()
    assert direct.observer.stage is Stage.OVER and not direct.ended()
    report = verify_transcript(direct.observer.transcript())
    assert report.ok, report.problem
    assert report.hints is True and sum(report.coached) == 3
    assert report.coached == direct.observer.hints_used


@pytest.mark.parametrize("hints", [None, 0])
def test_a_hint_where_the_host_did_not_allow_them_names_its_writer_provably(hints: int | None) -> None:
    direct = _table(hints=hints)
    writer = direct.writer
    assert writer is not None
    with pytest.raises(HintsOffHere):
        direct.tables[writer].take_hint()
    assert direct.tables[writer].next_position == direct.observer.next_position  # nothing written
    forged = _forged_hint(direct, writer)
    others = [t for i, t in enumerate(direct.tables) if i != writer] + [direct.observer]
    ended = [[e for e in t.receive(forged) if isinstance(e, TableEnded)] for t in others]
    verdicts = [found[0].verdict for found in ended]
    assert all(v.rule == HintNotAllowed.rule == "table.hint" and v.players == (writer,)
               for v in verdicts)
    report = verify_transcript(direct.observer.transcript(), verdicts[0])
    assert report.verdict_confirmed is True and report.ok


def test_two_hints_in_a_row_are_a_breach_of_their_writer() -> None:
    direct = _table(hints=1)
    writer = direct.writer
    assert writer is not None
    direct.deliver(_hint(direct.tables[writer]), exclude=writer)
    forged = _forged_hint(direct, writer)
    ended = [e for e in direct.observer.receive(forged) if isinstance(e, TableEnded)]
    assert ended and ended[0].verdict.rule == "table.hint"
    assert ended[0].verdict.players == (writer,)
    assert verify_transcript(direct.observer.transcript(), ended[0].verdict).verdict_confirmed


def test_nobody_can_take_a_hint_out_of_turn() -> None:
    direct = _table(hints=1)
    assert direct.writer is not None
    other = (direct.writer + 1) % 4
    with pytest.raises(NotThisPeersTurn):
        direct.tables[other].take_hint()
    forged = _forged_hint(direct, other)
    ended = [e for e in direct.observer.receive(forged) if isinstance(e, TableEnded)]
    assert ended and ended[0].verdict.rule == "turn" and ended[0].verdict.players == (other,)


def test_a_genesis_with_hints_other_than_0_or_1_is_malformed() -> None:
    rules = game_wire.by_name("bluff")
    me = seeded_identity(1, "p0", "P0")
    lobby = Lobby(me, "bluff", {**rules.config_to_wire(SHORT["bluff"]), HINTS: 2}, "t")
    for i in range(1, 4):
        other = seeded_identity(1, f"p{i}", f"P{i}")
        lobby.join(other.public_key, other.name)
    with pytest.raises(MalformedMessage):
        Table(lobby.genesis(nonce=bytes(32)).raw)


def test_the_settings_vector_names_a_hint_where_the_genesis_allows_none() -> None:
    """verdicts.json's 'settings' case, read as another implementation would."""
    root = Path(__file__).resolve().parents[2] / "protocol" / "vectors"
    case = json.loads((root / "verdicts.json").read_text())["settings"][0]
    messages = [bytes.fromhex(m) for m in json.loads(
        (root / "table-bluff.json").read_text())["messages"]]
    table = Table(messages[0])
    for raw in messages[1:case["after_messages"]]:
        table.receive(raw)
    assert table.hints is False
    table.receive(bytes.fromhex(case["message"]))
    verdict = table.verdict
    assert verdict is not None and case["rule"] == "table.hint"
    assert (verdict.rule, list(verdict.players), verdict.position) == \
        (case["rule"], case["players"], case["position"])


def test_a_replayed_hint_is_a_step_and_names_the_coached_seat() -> None:
    """``replay`` of such a table: the hint is a step of its own, and its line names the
    coached seat as the live screens do."""
    from p2pcards.ui.replay_steps import plain_lines, replay

    direct = _table(hints=1)
    writer = direct.writer
    assert writer is not None
    direct.deliver(_hint(direct.tables[writer]), exclude=writer)
    seat = direct.observer.seat_of(writer)
    record = replay(direct.observer.transcript())
    steps = [s for s in record.steps if any(isinstance(e, HintTaken) for e in s.events)]
    assert len(steps) == 1 and steps[0].is_move
    lines = [line for _, line in plain_lines(record) if "coach" in line]
    assert lines == [f"Seat {seat} (P{writer}) asks the coach for a hint (coached 1 time)."]


def test_the_coach_tells_the_table_only_for_the_move_it_advised_on() -> None:
    """telling_coach signs the hint for the decision it advised on: asked again it sends
    nothing more; once that move is made, a late answer is refused and sends nothing."""
    from p2pcards.app.front import telling_coach
    from p2pcards.net.seat_writing import write_hint

    direct = _table(hints=1)
    writer = direct.writer
    assert writer is not None
    table = direct.tables[writer]
    sent: list[bytes] = []

    async def publish(written: Written) -> None:
        sent.append(written.raw)

    coach = telling_coach(lambda position: write_hint(table, publish, position))
    assert table.player_at_seat is not None
    names = [table.players[p].name for p in table.player_at_seat]
    position = table.next_position

    async def ask() -> list[str]:
        view = table.view()
        first = await coach(view, names, position, False)
        again = await coach(view, names, position, False)
        return [first, again]

    first, again = asyncio.run(ask())
    assert first.startswith("Coach: ") and again == first and len(sent) == 1
    assert table.hints_used[writer] == 1
    late = asyncio.run(_awaited(coach(table.view(), names, position - 1, False)))
    assert late.startswith("Coach: ") and len(sent) == 1  # this move's hint is on record
    direct.deliver(sent[0], exclude=writer)
    direct.step()  # the move is made
    direct.run_until(lambda d: d.tables[writer].awaiting_my_action)
    stale = asyncio.run(_awaited(coach(table.view(), names, position, False)))
    assert stale.startswith("Not accepted: ") and "over" in stale and len(sent) == 1


async def _awaited(line: Awaitable[str]) -> str:
    """The coach's answer, awaited inside a running loop."""
    return await line
