"""Attacks on the signed, hash-chained transcript itself.

Signatures, sessions, positions, turns and forks: whatever a hostile peer (or
the host relaying for it) does with the envelope, honest peers either drop
the bytes blaming nobody (anyone could have made them) and play on exactly
as before, or end the table with a verdict naming the signer.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from p2pcards.protocol import wire
from p2pcards.protocol.envelope import SignedMessage, seal
from p2pcards.protocol.errors import BadSignature, BrokenChain, MalformedMessage, WrongSession
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.table_errors import Gap
from p2pcards.protocol.table_records import Stage
from tests.support.typed import present

from .harness import (
    Bench,
    Delivery,
    Outgoing,
    Rule,
    Step,
    When,
    alter,
    assert_dropped,
    assert_transcripts_valid,
    assert_untouched,
    assert_verdict,
    corrupt,
    delay,
    drop,
    equivocate,
    mark,
    marks,
    recording,
)


def _shuffle_by_seat(seat: int) -> Callable[[Step], bool]:
    return lambda s: s.stage is Stage.SHUFFLE and s.seat == seat


def _finishes_as_recorded(bench: Bench, game: str, seed: int = 1) -> None:
    """After the rejected bytes the table plays on to the very same end."""
    bench.finish()
    assert bench.reference.transcript() == recording(game, seed).transcript
    assert_transcripts_valid(bench)


def test_forged_signature_is_dropped_blaming_nobody() -> None:
    bench, step = recording("topper").bench_before(_shuffle_by_seat(1))
    honest = bench.produce(step.player).raw
    msg = SignedMessage.parse(honest)
    forged_sig = bytes([msg.signature[0] ^ 1]) + msg.signature[1:]
    before = marks(bench)
    results = bench.deliver(wire.pack([msg.payload, forged_sig]), sender=step.player)
    assert_dropped(bench, results, BadSignature, before)
    assert all(present(results[p].error).player is None for p in bench.honest)  # type: ignore[attr-defined]
    bench.deliver(honest, sender=step.player)
    _finishes_as_recorded(bench, "topper")


def test_altered_payload_under_a_valid_signature_is_dropped() -> None:
    bench, step = recording("topper").bench_before(lambda s: s.type == "bid")
    msg = SignedMessage.parse(bench.produce(step.player).raw)
    body = dict(msg.body, tricks=msg.body["tricks"] + 1)
    payload = wire.pack({"v": 2, "sid": msg.session, "n": msg.position, "prev": msg.prev,
                         "from": msg.player, "type": msg.type, "body": body})
    before = marks(bench)
    results = bench.deliver(wire.pack([payload, msg.signature]), sender=step.player)
    assert_dropped(bench, results, BadSignature, before)


@pytest.mark.parametrize("outer", ["payload only", "empty signature", "zero signature"])
def test_missing_signature_is_dropped_blaming_nobody(outer: str) -> None:
    bench, step = recording("topper").bench_before(_shuffle_by_seat(2))
    honest = bench.produce(step.player).raw
    payload = SignedMessage.parse(honest).payload
    raw = {"payload only": wire.pack([payload]),
           "empty signature": wire.pack([payload, b""]),
           "zero signature": wire.pack([payload, bytes(64)])}[outer]
    before = marks(bench)
    results = bench.deliver(raw, sender=step.player)
    expected = BadSignature if outer == "zero signature" else MalformedMessage
    assert_dropped(bench, results, expected, before)
    bench.deliver(honest, sender=step.player)
    _finishes_as_recorded(bench, "topper")


@pytest.mark.parametrize("claimed", range(4))
def test_message_from_a_key_not_at_the_table_is_dropped(claimed: int) -> None:
    """An outsider signs a well-formed message in any player's name."""
    bench, step = recording("topper").bench_before(lambda s: s.type == "bid")
    outsider = Identity.generate("mallory")
    honest = bench.peek()
    raw = bench.forge(honest.type, honest.body, player=claimed, identity=outsider)
    before = marks(bench)
    results = bench.deliver(raw, sender=None)
    assert_dropped(bench, results, BadSignature, before)


def test_replay_from_another_session_is_dropped() -> None:
    """The same four players at another table: their messages do not carry over."""
    rec = recording("topper")
    other = Bench("topper", seed=1, genesis_nonce=bytes(32))
    other.run(until=lambda b: b.reference.next_position >= 12)
    bench = rec.bench_at(12)
    assert other.reference.session != bench.reference.session
    before = marks(bench)
    for raw in other.reference.transcript()[1:12]:
        results = bench.deliver(raw)
        for who in (*range(4), "observer"):
            assert isinstance(results[who].error, WrongSession)
            assert present(results[who].error).player is None  # type: ignore[attr-defined]
        assert_dropped(bench, results, WrongSession, before)
    _finishes_as_recorded(bench, "topper")


def test_replay_of_an_earlier_position_changes_nothing() -> None:
    rec = recording("bluff")
    bench = rec.bench_at(30)
    before = marks(bench)
    for raw in rec.transcript[1:30]:
        results = bench.deliver(raw)
        assert all(r.events == [] and r.error is None for r in results.values())
    assert marks(bench) == before


def test_gap_from_a_far_future_position_is_parked_not_applied() -> None:
    bench, step = recording("topper").bench_before(lambda s: s.type == "bid")
    honest = bench.peek()
    raw = bench.forge(honest.type, honest.body, position=honest.position + 5)
    before = marks(bench)
    results = bench.deliver(raw, sender=step.player)
    assert_dropped(bench, results, Gap, before)


def test_earlier_message_re_signed_for_the_current_position_is_refused() -> None:
    """A cheater replays its own key-share commitment as its next move."""
    rec = recording("topper")
    bench, step = rec.bench_before(lambda s: s.type == "bid")
    commit = SignedMessage.parse(rec.transcript[1 + step.player])
    assert commit.type == "commit" and commit.player == step.player
    before = marks(bench)
    bench.deliver(bench.forge("commit", commit.body), sender=step.player)
    assert_verdict(bench, "message.malformed", (step.player,), step.position, before)


def test_message_re_signed_for_an_earlier_position_is_equivocation() -> None:
    rec = recording("topper")
    bench, step = rec.bench_before(lambda s: s.type == "bid")
    mine = rec.find(lambda s: s.player == step.player and s.stage is Stage.SHUFFLE)
    old = SignedMessage.parse(rec.transcript[mine.position])
    other_body = dict(old.body, deck=old.body["deck"])
    other_body["cards"] = list(reversed(old.body["cards"]))
    raw = bench.forge("shuffle", other_body, position=old.position, prev=old.prev)
    before = marks(bench)
    bench.deliver(raw, sender=step.player)
    verdict = assert_verdict(bench, "chain.equivocation", (step.player,), old.position, before)
    assert verdict.evidence == (old.raw, raw)


def test_message_for_a_position_another_player_wrote_is_out_of_turn() -> None:
    rec = recording("topper")
    bench, step = rec.bench_before(
        lambda s: s.type == "bid" and rec.steps[s.position - 2].player != s.player)
    theirs = SignedMessage.parse(rec.transcript[step.position - 1])
    assert theirs.player != step.player
    raw = bench.forge(theirs.type, theirs.body, position=theirs.position, prev=theirs.prev)
    before = marks(bench)
    bench.deliver(raw, sender=step.player)
    assert_verdict(bench, "turn", (step.player,), theirs.position, before)


@pytest.mark.parametrize("stage", [Stage.COMMIT, Stage.SHUFFLE, Stage.SHARES, Stage.PLAY])
def test_out_of_turn_message_is_blamed_on_its_signer(stage: Stage) -> None:
    rec = recording("topper")
    step = rec.find(lambda s: s.stage is stage)
    bench = rec.bench_at(step.position)
    intruder = (step.player + 1) % 4
    bench.set_hostile(intruder)
    honest = bench.peek()
    raw = bench.forge(honest.type, honest.body)
    before = marks(bench)
    bench.deliver(raw, sender=intruder)
    assert_verdict(bench, "turn", (intruder,), step.position, before)


def test_out_of_turn_topper_trump_by_a_player_who_did_not_win_the_bidding() -> None:
    rec = recording("topper")
    trump = rec.find(lambda s: s.type == "trump")
    bench = rec.bench_at(trump.position)
    intruder = (trump.player + 2) % 4
    bench.set_hostile(intruder)
    before = marks(bench)
    bench.deliver(bench.forge("trump", {"suit": 0}), sender=intruder)
    assert_verdict(bench, "turn", (intruder,), trump.position, before)


def test_equivocation_two_messages_for_one_position() -> None:
    bench, step = recording("topper").bench_before(lambda s: s.type == "bid")
    first = bench.produce(step.player).raw
    bench.deliver(first, sender=step.player)
    body = SignedMessage.parse(first).body
    second = bench.forge("bid", {"tricks": body["tricks"] + 1}, position=step.position,
                         prev=SignedMessage.parse(first).prev)
    before = marks(bench)
    bench.deliver(second, sender=step.player)
    verdict = assert_verdict(bench, "chain.equivocation", (step.player,), step.position, before)
    assert verdict.evidence == (first, second)


def test_host_equivocation_different_messages_to_different_peers() -> None:
    """The host (player 0) sends one commitment to players 1 and 2 and another
    to player 3. Player 3 sees player 1's next message continue another history:
    it names nobody (player 1 is honest) and asks for the version player 1 built
    on; that version proves the host's equivocation, and player 3's alert proves
    it to everyone."""
    rec = recording("topper")
    bench = rec.bench_at(1)
    other_commit = lambda body, out, b: dict(body, draw=bytes(32))  # noqa: E731
    bench.set_hostile(0, Rule(When(stage=Stage.COMMIT), equivocate(other_commit, to_other=(3,))))
    bench.step()
    assert bench.tables[1].head != bench.tables[3].head
    before = mark(bench.tables[3])
    bench.step()  # player 1 commits on top of the version it holds
    (forked,) = [r for who, r in bench.log if who == 3][-1:]
    assert isinstance(forked.error, BrokenChain) and forked.error.player is None
    assert bench.tables[3].verdict is None and mark(bench.tables[3]) == before
    # What a peer session does on a fork: sync from the position before it.
    position = bench.tables[3].next_position - 1
    bench.deliver(bench.tables[1].transcript()[position], to=(3,))
    assert_verdict(bench, "chain.equivocation", (0,), position, who=(3,))
    bench.send_alerts()
    for who in (1, 2, 3, "observer"):  # each holds the two versions in its own order
        assert_verdict(bench, "chain.equivocation", (0,), position, who=(who,))


def test_host_that_withholds_a_message_from_one_peer_cannot_make_it_accept_another() -> None:
    """Dropping a message to one peer only delays it: the next message is parked
    (a gap) and the peer catches up when the missing one is finally relayed."""
    rec = recording("topper")
    bench = rec.bench_at(1)
    held: list[bytes] = []

    def withhold(out: Outgoing, b: Bench) -> list[Delivery]:
        held.append(out.raw)
        return [Delivery(out.raw, (1, 2, "observer"))]  # type: ignore[arg-type]

    bench.set_hostile(0, Rule(When(stage=Stage.COMMIT), withhold))
    bench.step()
    bench.step()
    assert bench.tables[3].next_position == 1 and bench.parked[3]
    bench.deliver(held[0], to=(3,))
    assert bench.tables[3].next_position == 3
    _finishes_as_recorded(bench, "topper")


def test_reordered_messages_are_applied_in_chain_order() -> None:
    """The hostile bidder sends its trump and first card before its winning bid
    (seed 2: a match whose last bid is followed by its bidder's trump)."""
    rec = recording("topper", 2)
    bid = rec.find(lambda s: s.type == "bid" and s.phase is not None
                   and rec.steps[s.position].type == "trump")
    others = [p for p in range(4) if p != bid.player]
    bench = rec.bench_at(bid.position)
    bench.set_hostile(bid.player, Rule(When(position=bid.position), delay(2)))
    bench.step()
    bench.step()
    assert all(bench.table_of(p).next_position == bid.position for p in others)
    bench.step()
    assert all(bench.table_of(p).next_position == bid.position + 3 for p in others)
    _finishes_as_recorded(bench, "topper", 2)


def test_duplicated_messages_change_nothing() -> None:
    from .harness import duplicate
    rec = recording("topper")
    bench = rec.bench_at(1)
    bench.set_hostile(1, Rule(When(), duplicate(3), once=False))
    _finishes_as_recorded(bench, "topper")
    assert present(bench.hostile).rules[0].fired > 3


def test_message_naming_a_wrong_predecessor_names_nobody() -> None:
    """A writer that names another history: the fork cannot be pinned on one
    player (the previous writer might have equivocated to it, making the writer
    honest), so it is dropped and nobody is named; only the other version of
    the previous message, if it exists, proves anything."""
    bench, step = recording("topper").bench_before(lambda s: s.type == "bid")
    honest = bench.peek()
    raw = bench.forge(honest.type, honest.body, prev=bytes(32))
    before = marks(bench)
    results = bench.deliver(raw, sender=step.player)
    assert all(isinstance(r.error, BrokenChain) and r.error.player is None
               for r in results.values())
    assert_untouched(bench, before)


def test_ended_table_keeps_its_first_verdict() -> None:
    """Once a table has ended, later messages (even proofs of other faults by the
    same cheater) change neither its verdict nor its transcript."""
    rec = recording("topper")
    bench, step = rec.bench_before(lambda s: s.type == "bid")
    bench.deliver(bench.forge("bid", {"tricks": 0}), sender=step.player)
    first = present(bench.reference.verdict)
    assert first.rule == "rules.topper.bid-range"
    before = marks(bench)
    mine = rec.find(lambda s: s.player == step.player and s.stage is Stage.COMMIT)
    old = SignedMessage.parse(rec.transcript[mine.position])
    for raw in (bench.forge("bid", {"tricks": 5}),
                bench.forge("commit", dict(old.body, draw=bytes(32)), position=old.position,
                            prev=old.prev)):
        results = bench.deliver(raw, sender=step.player)
        for who in (*bench.honest, "observer"):
            assert bench.table_of(who).verdict == first
            assert results[who].events == []
    assert marks(bench) == before


def test_signed_header_of_the_wrong_shape_is_dropped() -> None:
    """Fields the envelope cannot parse: nobody can be named, nothing changes."""
    bench, step = recording("topper").bench_before(lambda s: s.type == "bid")
    ident = bench.identities[step.player]
    ref = bench.reference
    for fields in (
        {"v": 3, "sid": ref.session, "n": ref.next_position, "prev": ref.head, "from": step.player,
         "type": "bid", "body": {"tricks": 3}},
        {"v": 2, "sid": ref.session, "n": -1, "prev": ref.head, "from": step.player,
         "type": "bid", "body": {"tricks": 3}},
        {"v": 2, "sid": ref.session, "n": ref.next_position, "prev": ref.head, "from": 4,
         "type": "bid", "body": {"tricks": 3}},
        {"v": 2, "sid": ref.session, "n": ref.next_position, "prev": ref.head,
         "from": step.player, "type": "bid", "body": [3]},
        {"v": 2, "sid": ref.session, "n": ref.next_position, "prev": ref.head,
         "from": step.player, "type": "bid", "body": {"tricks": 3}, "extra": 1},
        {"v": 2, "n": ref.next_position, "prev": ref.head, "from": step.player,
         "type": "bid", "body": {"tricks": 3}},
        {"v": 2, "sid": ref.session, "n": 1.5, "prev": ref.head, "from": step.player,
         "type": "bid", "body": {"tricks": 3}},
    ):
        payload = wire.pack(fields)
        raw = wire.pack([payload, ident.sign(b"p2pcards/msg/v2\x00" + payload)])
        before = marks(bench)
        results = bench.deliver(raw, sender=step.player)
        for who in (*bench.honest, "observer"):
            error = results[who].error
            assert error is not None and error.player is None, (fields, error)  # type: ignore[attr-defined]
            assert bench.table_of(who).stage is not Stage.ENDED
        assert marks(bench) == before


def test_seal_refuses_to_build_a_message_without_a_session() -> None:
    with pytest.raises(ValueError):
        seal(Identity.generate("x"), session=None, position=3, prev=bytes(32), player=0,
             type="bid", body={})


_EVERY_TYPE = [("topper", t) for t in ("commit", "open", "shuffle", "shares", "bid", "pass",
                                         "trump", "play")] + \
              [("bluff", t) for t in ("shuffle", "shares", "discard", "pass", "challenge", "show")]


@pytest.mark.parametrize("game,mtype", _EVERY_TYPE)
def test_field_smuggled_into_any_message_of_either_game_is_blamed(game: str, mtype: str) -> None:
    """The hostile player's own table writes its honest message; on the way out
    a rule (by stage and type) adds a field and signs again. Whatever the stage,
    the signer is named and nothing is applied."""
    rec = recording(game)
    step = rec.find(lambda s: s.type == mtype)
    bench = rec.bench_at(step.position)
    smuggle = alter(lambda body, out, b: dict(body, aside=b"\x01"))
    bench.set_hostile(step.player, Rule(When(stage=step.stage, type=mtype), smuggle))
    before = marks(bench)
    bench.step()
    assert present(bench.hostile).rules[0].fired == 1
    assert_verdict(bench, "message.malformed", (step.player,), step.position, before)


def test_bit_flips_anywhere_in_a_signed_message_are_dropped() -> None:
    """Every byte of a real shuffle message, flipped on the wire in turn: each
    copy is dropped blaming nobody, and the genuine one still goes through."""
    rec = recording("topper")
    step = rec.find(lambda s: s.type == "shuffle" and s.seat == 2)
    bench = rec.bench_at(step.position)
    bench.set_hostile(step.player, Rule(When(position=step.position), corrupt(
        lambda raw: raw[:-1] + bytes([raw[-1] ^ 1]))))
    genuine = rec.transcript[step.position]
    before = marks(bench)
    for offset in range(0, len(genuine), 97):
        flipped = bytearray(genuine)
        flipped[offset] ^= 0x10
        results = bench.deliver(bytes(flipped), sender=step.player)
        for who in (*bench.honest, "observer"):
            error = results[who].error
            assert error is not None and error.player is None, (offset, error)  # type: ignore[attr-defined]
    assert marks(bench) == before
    bench.step()  # the hostile player's own table writes it; the rule flips its last bit
    assert marks(bench) == before
    bench.deliver(genuine, sender=step.player)
    assert bench.reference.next_position == step.position + 1


def test_dropped_message_leaves_the_others_waiting_unchanged() -> None:
    """Silence changes nothing; each honest peer's own clock then names the
    silent writer (unprovably: it is one peer's word)."""
    rec = recording("bluff")
    step = rec.find(lambda s: s.type == "show")
    bench = rec.bench_at(step.position)
    bench.set_hostile(step.player, Rule(When(type="show"), drop))
    before = marks(bench)
    bench.step()
    assert marks(bench) == before and bench.writer == step.player
    for who in (*bench.honest, "observer"):
        bench.table_of(who).declare_deadline_missed()
    assert_verdict(bench, "deadline", (step.player,), step.position, before, provable=False)
