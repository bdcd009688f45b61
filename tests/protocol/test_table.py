"""The table state machine: a whole match, who may write, what each peer learns."""

from __future__ import annotations

import pytest

from p2pcards.app._direct import DirectTable, direct_table
from p2pcards.cards import FULL_DECK, TOPPER_DECK
from p2pcards.protocol.envelope import seal
from p2pcards.protocol.errors import BadSignature, MalformedMessage, WrongSession
from p2pcards.protocol.events import ActionApplied, HandReceived, MatchCompleted, PlayersSeated
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_errors import Gap, IllegalAction, NotAtThisTable, NotThisPeersTurn
from p2pcards.protocol.table_records import Stage
from p2pcards.rules import bluff, topper


def _bluff(engine: object) -> bluff.BluffState:
    """A peer's engine, known to be Bluff's here (typed ``Engine`` by the table)."""
    assert isinstance(engine, bluff.BluffState)
    return engine


def players_by_seat(table: DirectTable) -> tuple[int, ...]:
    """The player at each seat (drawn by now)."""
    seats = table.tables[0].player_at_seat
    assert seats is not None
    return seats


@pytest.fixture(scope="module")
def topper_match() -> DirectTable:
    table = direct_table("topper", seed=3)
    table.run()
    return table


def test_whole_topper_match_ends_with_the_same_outcome_for_every_peer_and_the_observer(
        topper_match: DirectTable) -> None:
    assert all(t.engine is not None for t in topper_match.tables + [topper_match.observer])
    outcomes = {repr(t.engine.outcome if t.engine is not None else None)
                for t in topper_match.tables + [topper_match.observer]}
    assert len(outcomes) == 1 and topper_match.tables[0].stage is Stage.OVER
    assert all(t.transcript() == topper_match.observer.transcript() for t in topper_match.tables)


def test_every_peer_is_dealt_six_distinct_cards_and_together_they_hold_the_deck(topper_match: DirectTable) -> None:
    first_deals = []
    for events in topper_match.events[:4]:
        dealt = [e for e in events if isinstance(e, HandReceived)]
        assert dealt and all(len(e.hand) == 6 for e in dealt)
        first_deals.append(dealt[0].hand)
    cards = [card for hand in first_deals for _slot, card in hand]
    assert sorted(cards) == sorted(TOPPER_DECK)
    slots = [slot for hand in first_deals for slot, _card in hand]
    assert sorted(slots) == list(range(24))


def test_observer_is_dealt_no_card_and_learns_exactly_the_played_cards() -> None:
    table = direct_table("topper", seed=3)
    plays: list[topper.Play] = []

    def three_played(t: DirectTable) -> bool:
        plays[:] = [e.action for e in t.events[4]
                    if isinstance(e, ActionApplied) and isinstance(e.action, topper.Play)]
        return len(plays) == 3

    table.run_until(three_played)
    observer = table.observer
    assert observer.hand == {}
    assert observer.deal is not None
    assert observer.deal.revealed == {p.slot: p.card.code for p in plays}
    owners = {p.slot: table.tables[players_by_seat(table)[p.seat]] for p in plays}
    assert all(owners[slot].hand[slot].code == code for slot, code in observer.deal.revealed.items())


def test_seats_and_first_dealer_come_from_the_joint_draw_and_agree_everywhere(topper_match: DirectTable) -> None:
    seated = [next(e for e in events if isinstance(e, PlayersSeated))
              for events in topper_match.events]
    assert len({(s.player_at_seat, s.first_seat) for s in seated}) == 1
    assert sorted(seated[0].player_at_seat) == [0, 1, 2, 3]


def test_match_end_event_reaches_every_peer(topper_match: DirectTable) -> None:
    assert all(any(isinstance(e, MatchCompleted) for e in events) for events in topper_match.events)


def test_bluff_deal_gives_each_seat_thirteen_cards_of_one_deck() -> None:
    table = direct_table("bluff", seed=5)
    table.run_until(lambda t: t.tables[0].stage is Stage.PLAY)
    hands = [dict(t.hand) for t in table.tables]
    assert all(len(h) == 13 for h in hands)
    assert sorted(c for h in hands for c in h.values()) == sorted(FULL_DECK)
    for t in table.tables:
        assert all(slot % 4 == t.my_seat for slot in t.hand)


def test_only_the_writer_may_write_and_everyone_agrees_who_it_is() -> None:
    table = direct_table("topper", seed=4)
    for _ in range(30):
        writers = {t.writer for t in table.tables + [table.observer]}
        assert len(writers) == 1
        writer = writers.pop()
        others = [t for i, t in enumerate(table.tables) if i != writer]
        assert writer is not None
        assert table.tables[writer].my_turn and not any(t.my_turn for t in others)
        table.step()


def test_acting_out_of_turn_is_refused_locally_and_sends_nothing() -> None:
    table = direct_table("topper", seed=6)
    table.run_until(lambda t: t.tables[0].stage is Stage.PLAY)
    idle = next(t for t in table.tables if not t.my_turn)
    before = idle.next_position
    with pytest.raises(NotThisPeersTurn):
        assert idle.my_seat is not None
        idle.act(topper.PassBid(idle.my_seat))
    assert idle.next_position == before


def test_own_illegal_action_is_refused_with_the_rule_and_changes_nothing() -> None:
    table = direct_table("topper", seed=6)
    table.run_until(lambda t: t.tables[0].stage is Stage.PLAY)
    assert table.writer is not None
    writer = table.tables[table.writer]
    with pytest.raises(IllegalAction) as caught:
        assert writer.my_seat is not None
        writer.act(topper.Bid(writer.my_seat, 9))
    assert caught.value.error.rule == "topper.bid-range"
    assert writer.next_position == table.observer.next_position


def test_message_from_another_session_is_rejected_and_changes_nothing() -> None:
    first, second = direct_table("topper", seed=7), direct_table("topper", seed=8)
    raw = second.write()
    before = first.tables[1].transcript()
    with pytest.raises(WrongSession):
        first.tables[1].receive(raw)
    assert first.tables[1].transcript() == before


def test_tampered_payload_fails_its_signature() -> None:
    table = direct_table("topper", seed=9)
    raw = bytearray(table.write())
    raw[-70] ^= 0x01  # inside the payload, before the 64-byte signature
    with pytest.raises((BadSignature, MalformedMessage)):
        table.tables[1].receive(bytes(raw))
    assert table.tables[1].next_position == 1


def test_message_ahead_of_the_next_position_asks_for_the_gap() -> None:
    table = direct_table("topper", seed=10)
    first = table.write()
    table.deliver(first, exclude=0)
    second = table.write()
    with pytest.raises(Gap):
        Table(table.genesis).receive(second)


def test_a_stranger_cannot_take_a_seat() -> None:
    table = direct_table("topper", seed=11)
    with pytest.raises(NotAtThisTable):
        Table(table.genesis, Identity.generate("stranger"))


def test_genesis_signed_by_someone_other_than_player_zero_is_refused() -> None:
    table = direct_table("topper", seed=12)
    forged = seal(table.identities[1], session=None, position=0, prev=bytes(32), player=0,
                  type="genesis", body=Table(table.genesis).messages[0].body)
    with pytest.raises(BadSignature):
        Table(forged.raw)


def test_duplicate_delivery_is_ignored() -> None:
    table = direct_table("topper", seed=13)
    raw = table.write()
    table.deliver(raw, exclude=0)
    assert table.tables[1].receive(raw) == []
    assert table.tables[1].next_position == 2


def _bluff_lead() -> tuple[DirectTable, Table, int]:
    """A Bluff table (seed 21) in play whose leader discarded its first slot honestly
    (stake 10), delivered to everyone: the table, the leader, that slot."""
    table = direct_table("bluff", seed=21)
    table.run_until(lambda t: t.tables[0].stage is Stage.PLAY)
    assert table.writer is not None
    leader = table.tables[table.writer]
    slot = sorted(leader.hand)[0]
    assert leader.my_seat is not None and leader.me_player is not None
    lead = leader.act(bluff.Discard(leader.my_seat, (slot,), 10, leader.hand[slot].rank))
    table.deliver(lead.raw, exclude=leader.me_player)
    return table, leader, slot


def test_bluff_challenge_reveals_exactly_the_challenged_cards_to_everyone() -> None:
    # Lead with a discard, then have the next seat challenge it.
    table, leader, slot = _bluff_lead()
    assert table.writer is not None
    challenger = table.tables[table.writer]
    assert challenger.my_seat is not None
    assert challenger.me_player is not None
    table.deliver(challenger.act(bluff.Challenge(challenger.my_seat)).raw,
                  exclude=challenger.me_player)
    assert table.writer == leader.me_player  # the discarder must reveal
    table.step()  # the automatic reveal
    for t in table.tables + [table.observer]:
        assert t.deal is not None
        assert t.deal.revealed == {slot: leader.hand[slot].code}
        assert _bluff(t.engine).face(slot) == leader.hand[slot]


def test_peers_of_one_process_check_each_public_proof_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Four players and an observer in one process: every shuffle, key-share and
    share proof is run once, the other peers find it in the process's record."""
    from p2pcards.crypto import checks

    record = checks.VerifiedChecks()
    monkeypatch.setattr(checks, "PROCESS_CHECKS", record)
    ran: list[bytes] = []
    real_run = checks.Check.run
    monkeypatch.setattr(checks.Check, "run", lambda self: (ran.append(self.key), real_run(self))[1])  # type: ignore[func-returns-value]
    table = direct_table("topper", seed=3)
    table.run_until(lambda t: t.tables[0].stage is Stage.PLAY)
    assert len(ran) == len(set(ran)) == record.runs
    assert record.hits >= 4 * 3  # each shuffle met by three more receivers at least


def test_the_next_deals_first_shuffle_prepared_ahead_is_sent_when_due_and_accepted() -> None:
    table = direct_table("topper", seed=4, config=topper.TopperConfig(target_score=5))
    table.run_until(lambda t: t.tables[0].stage is Stage.PLAY)
    first = table.tables[players_by_seat(table)[0]]
    assert first.ahead.next_shuffle_job() is None  # seeded: reproducible, nothing ahead
    first.ahead._randomness = None
    others = [t for t in table.tables if t is not first]
    assert all(t.ahead.next_shuffle_job() is None for t in others)
    job = first.ahead.next_shuffle_job()
    assert job is not None
    (number, index, _), body = prepared = job()
    assert first.deal is not None
    assert number == first.deal.number + 1 and index == 0 and body["deck"] == number
    first.ahead.offer_shuffle(prepared)
    table.run_until(lambda t: t.tables[0].deal is not None and t.tables[0].deal.number == number
                    and t.tables[0].stage is Stage.PLAY)
    written = [m for m in first.messages if m.type == "shuffle" and m.body["deck"] == number][0]
    assert written.body == body and not table.ended()


def test_a_shuffle_made_while_the_previous_one_is_checked_is_the_same_and_only_used_on_that_deck() -> None:
    plain = direct_table("bluff", seed=6)
    ahead = direct_table("bluff", seed=6)
    plain.run_until(lambda t: t.tables[0].stage is Stage.SHUFFLE and t.tables[0].deal is not None
                    and t.tables[0].deal.shuffles_done == 1)
    ahead.run_until(lambda t: t.tables[0].stage is Stage.SHUFFLE and t.tables[0].writer is not None
                    and t.tables[0].deal is not None and t.tables[0].deal.shuffles_done == 0
                    and t.tables[0].joint_key is not None)
    raw = ahead.write()
    following = ahead.tables[players_by_seat(ahead)[1]]
    job = following.ahead.speculative_job(raw)
    assert job is not None
    offer = job()
    assert all(t.ahead.speculative_job(raw) is None for t in ahead.tables if t is not following)
    ahead.deliver(raw, exclude=players_by_seat(ahead)[0])
    offer()
    prepared = following.match.decks.shuffle_ahead
    assert prepared is not None
    plain.step()
    ahead.step()
    assert ahead.tables[0].transcript() == plain.tables[0].transcript()  # seeded: the same bytes
    # Made on another deck (a forged shuffle that failed its check): never used.
    stale = ((prepared[0][0], prepared[0][1], bytes(32)), prepared[1])
    following.ahead.offer_shuffle(stale)
    assert following.match.decks.shuffle_ahead is stale and following.outgoing() is None


@pytest.mark.parametrize("deck", ["that deck", "another deck"])
def test_shares_made_while_the_last_shuffle_is_checked_are_sent_only_on_that_deck(
        deck: str) -> None:
    plain = direct_table("bluff", seed=6)
    ahead = direct_table("bluff", seed=6)

    def last_shuffle_due(t: DirectTable) -> bool:
        deal = t.tables[0].deal
        return t.tables[0].stage is Stage.SHUFFLE and deal is not None and deal.shuffles_done == 3

    plain.run_until(last_shuffle_due)
    ahead.run_until(last_shuffle_due)
    by_seat = players_by_seat(ahead)
    raw = ahead.write()  # seat 3's shuffle, the deal's last
    jobs = {seat: ahead.tables[by_seat[seat]].ahead.speculative_job(raw) for seat in range(4)}
    assert jobs[3] is None  # its writer holds it already
    offers = {seat: job() for seat, job in jobs.items() if job is not None}
    assert sorted(offers) == [0, 1, 2]  # every other seat makes its shares of that deck
    ahead.deliver(raw, exclude=by_seat[3])
    for offer in offers.values():
        offer()
    plain.run_until(lambda t: t.tables[0].stage is Stage.PLAY)  # each seat's shares at its turn
    at_turn = {m.player: m.body for m in plain.tables[0].messages if m.type == "shares"}
    for seat in (0, 1, 2):
        made = ahead.tables[by_seat[seat]].match.decks.shares_ahead
        assert made is not None
        assert made[1] == at_turn[by_seat[seat]], seat  # seeded: the same bytes as at its turn
    # Offered with a mark: sent as offered on that very deck, never on another.
    first = ahead.tables[by_seat[0]]
    made = first.match.decks.shares_ahead
    assert made is not None
    marked = {**made[1], "shares": made[1]["shares"][::-1]}
    key = made[0] if deck == "that deck" else (made[0][0], bytes(32))
    first.ahead.offer_shares((key, marked))
    assert first.outgoing() is not None
    sent = first.messages[-1]
    assert sent.type == "shares" and sent.body == (marked if deck == "that deck" else at_turn[by_seat[0]])


def test_shares_made_ahead_are_sent_at_their_turn_and_only_on_that_deck() -> None:
    table = direct_table("bluff", seed=8)
    table.run_until(lambda t: t.tables[0].stage is Stage.SHARES)
    by_seat = [table.tables[p] for p in players_by_seat(table)]
    assert by_seat[3].ahead.shares_job() is None  # seeded: reproducible, nothing ahead
    for seat_table in by_seat:
        seat_table.ahead._randomness = None
    assert by_seat[0].ahead.shares_job() is None  # its turn is now: nothing to gain
    shares_job = by_seat[3].ahead.shares_job()
    assert shares_job is not None
    prepared = shares_job()
    (number, _), body = prepared
    assert by_seat[3].deal is not None
    assert number == by_seat[3].deal.number and len(body["shares"]) == 39
    by_seat[3].ahead.offer_shares(prepared)
    stale = ((number, bytes(32)), {"deck": number, "shares": body["shares"][::-1]})
    by_seat[2].ahead.offer_shares(stale)  # made on another deck: never sent
    table.run_until(lambda t: t.tables[0].stage is Stage.PLAY)
    first = table.tables[0]
    sent = {first.seat_of(m.player): m.body for m in first.messages if m.type == "shares"}
    assert sent[3] == body and sent[2] != stale[1] and not table.ended()


@pytest.mark.parametrize("wire_rank", ["none", "the round's"])
def test_a_bluff_responder_may_write_rank_0_or_repeat_the_rounds_rank_on_the_wire(wire_rank: str) -> None:
    """PROTOCOL.md §7 and RULES.md (issue 25 point 7): a responder's signed discard
    naming no rank (0) or the round's own rank is accepted by every peer, and both
    mean the round's rank."""
    table, leader, slot = _bluff_lead()
    named = leader.hand[slot].rank
    after_lead = table.observer.next_position
    assert table.writer is not None
    responder = table.tables[table.writer]
    own = sorted(responder.hand)[0]
    body = {"slots": [own], "stake": 10, "rank": 0 if wire_rank == "none" else int(named)}
    assert responder.me_player is not None
    raw = seal(table.identities[responder.me_player], session=responder.session,
               position=responder.next_position, prev=responder.head,
               player=responder.me_player, type="discard", body=body).raw
    for peer in [t for t in table.tables if t is not responder] + [table.observer]:
        peer.receive(raw)
        assert peer.verdict is None and peer.next_position == after_lead + 1
        assert [c.rank for c in _bluff(peer.engine).claims] == [named, named]
