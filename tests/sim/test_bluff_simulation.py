"""The promise, checked by deterministic simulation of Bluff (see ``tests/sim/simulation.py``).

The same four session machines, relay and seeded adversary as for Topper, over
a short Bluff match (``tables.BLUFF_CONFIG``: one deal, two chips a seat,
discards of at most two cards; the deck is always the 52 cards). Honest
players choose a kind of legal action, then one, seeded by the position, so
challenges happen and each makes its discarder *show* the face-down cards (the
shares of a ``show``). Among the coalition's moves, beside those of Topper:
a show whose shares are on the wrong cards or whose proof fails, a show with
too few shares, and a discard that breaks a rule (rank 1, a stake above the
stack, one slot twice). Properties (a), (b) (every verdict with evidence
re-checked by ``evidence.check_verdict`` on the naming peer's record) and (c)
are asserted over every seed. A failing seed replays with
``python scripts/simulate.py --game bluff --seed N``."""

from __future__ import annotations

import functools
from collections.abc import Sequence

import pytest

from p2pcards.protocol.dealing import DeckDeal
from p2pcards.protocol.envelope import SignedMessage
from p2pcards.protocol.errors import BadProof, MalformedMessage, RuleViolation
from p2pcards.protocol.table_records import Stage
from p2pcards.protocol.verify import verify_transcript
from p2pcards.rules.bluff import BluffState
from p2pcards.wiremap import WireValue

from .judge import Outcome, judge, run_schedule
from .schedule import SEATED, Schedule, schedule_for
from .simulation import Simulation
from .sweeps import assert_kept

#: Seeded Bluff schedules the suite runs (about 25 a second on one idle core).
BLUFF_SEEDS = 60
CHUNKS = 2
#: Marked slow: many more.
SLOW_BLUFF_SEEDS = 200


def _bluff(view: object) -> BluffState:
    """A referee's view, known to be Bluff's here (typed ``Engine`` by the table)."""
    assert isinstance(view, BluffState)
    return view


def _run(seed: int) -> Outcome:
    return run_schedule(schedule_for(seed, game="bluff"))


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_seeded_bluff_matches_keep_the_three_properties(chunk: int) -> None:
    size = BLUFF_SEEDS // CHUNKS
    start = 300_000 + chunk * size
    outcomes = [_run(seed) for seed in range(start, start + size)]
    assert_kept(outcomes)
    # Both ends: matches played to their end, and verdicts whose evidence the
    # naming peer's record confirms.
    assert any(o.over for o in outcomes)
    assert any(o.confirmed for o in outcomes)
    # Bluff's own cheats were among the schedules.
    assert any(o.schedule.bad_type is not None for o in outcomes)


@pytest.mark.slow
def test_many_more_seeded_bluff_matches_keep_the_three_properties() -> None:
    assert_kept([_run(seed) for seed in range(400_000, 400_000 + SLOW_BLUFF_SEEDS)])


def test_a_bluff_seed_replays_the_same_run() -> None:
    for seed in (3, 11):
        first, again = _run(seed), _run(seed)
        assert first.events == again.events
        assert first.verdicts == again.verdicts


@functools.cache
def _undisturbed() -> tuple[tuple[int, str, int], ...]:
    """(position, type, writer) of each message of the undisturbed Bluff match."""
    sim = Simulation(Schedule(seed=1, game="bluff")).run()
    return tuple((m.position, m.type, m.player) for m in
                 (SignedMessage.parse(raw) for raw in sim.peers[0].table.transcript()[1:]))


def test_an_undisturbed_bluff_match_shows_challenged_discards_and_names_nobody() -> None:
    sim = Simulation(Schedule(seed=1, game="bluff")).run()
    assert judge(sim).failures == []
    assert len({tuple(p.table.transcript()) for p in sim.peers}) == 1  # one history
    for peer in sim.peers:
        assert peer.verdict is None and peer.table.stage is Stage.OVER, peer.player
    types = [t for _, t, _ in _undisturbed()]
    assert types[SEATED - 1:SEATED + 7] == ["shuffle"] * 4 + ["shares"] * 4
    assert "challenge" in types and "show" in types
    # Every seat's referee learnt the faces of each shown discard, the same ones.
    shown = {tuple(c.faces for c in _bluff(p.table.view()).claims if c.faces is not None)
             for p in sim.peers}
    assert len(shown) == 1 and next(iter(shown))


def _position(mtype: str, parity: int, modulus: int) -> tuple[int, int]:
    """(position, writer) of the undisturbed match's first ``mtype`` message at a
    position ``parity`` modulo ``modulus`` (``adversary.broken`` picks the cheat
    by the position)."""
    for position, t, player in _undisturbed():
        if t == mtype and position % modulus == parity:
            return position, player
    raise AssertionError(f"no {mtype} at {parity} mod {modulus}")


@pytest.mark.parametrize("mtype, parity, modulus, rule", [
    ("show", 1, 2, MalformedMessage.rule),                  # too few shares
    ("show", 0, 2, BadProof.rule),                          # shares on the wrong cards
    ("discard", 0, 3, MalformedMessage.rule),               # rank 1
    ("discard", 1, 3, RuleViolation.rule + ".bluff."),      # a stake above the stack
    ("discard", 2, 3, RuleViolation.rule + ".bluff.duplicate-slots"),
])
def test_a_cheating_show_or_discard_gets_its_writer_named_and_verify_agrees(
        mtype: str, parity: int, modulus: int, rule: str) -> None:
    """A coalition member sends, instead of its show or discard, one that breaks a
    rule: every honest peer names it, each one that received it while it was
    next with that message as evidence under the expected rule, confirmed by
    ``check_verdict`` on its record and by ``verify_transcript`` from cold."""
    position, cheat = _position(mtype, parity, modulus)
    schedule = Schedule(seed=909, game="bluff", coalition=frozenset({cheat}),
                        attacks=frozenset({"bad"}), bad_at=position)
    sim = Simulation(schedule).run()
    outcome = judge(sim)
    assert outcome.failures == []
    assert [e[:3] for e in sim.evidence] == [("single", cheat, position)]
    proven = [p for p in sim.peers if p.honest and p.verdict is not None and p.verdict.evidence]
    for peer in sim.peers:
        if peer.honest:
            assert peer.verdict is not None and peer.verdict.players == (cheat,), peer.player
    assert proven and outcome.confirmed == len(proven)
    for peer in proven:
        assert peer.verdict is not None
        assert peer.verdict.rule.startswith(rule), peer.verdict.rule
        assert peer.verdict.evidence == (sim.evidence[0][3],)
    report = verify_transcript(proven[0].table.transcript(), proven[0].verdict, workers=1)
    assert report.verdict_confirmed is True, report.verdict_refused


def test_an_equivocating_show_is_named_with_evidence_by_every_honest_peer() -> None:
    """The first show's discarder sends a second version of it (the shares swapped
    onto the other card) beside the first: each honest peer names it, by the two
    versions or, if the bad one reached it first, by that one's failed proof."""
    position, cheat = _position("show", 0, 1)
    schedule = Schedule(seed=203, game="bluff", coalition=frozenset({cheat}),
                        attacks=frozenset({"equivocate"}), equivocate_at=position)
    sim = Simulation(schedule).run()
    outcome = judge(sim)
    assert outcome.failures == []
    assert [e[:3] for e in sim.evidence] == [("equivocation", cheat, position)]
    # The judge asserted (b) for each honest peer that got both versions while
    # open; those that did name the cheat, and nobody names anyone else.
    named = [p.verdict for p in sim.peers if p.honest]
    assert all(v is not None and v.players == (cheat,) and v.evidence for v in named)
    assert {v.rule for v in named if v is not None} <= {"chain.equivocation", BadProof.rule}
    assert any(v is not None and v.rule == "chain.equivocation" for v in named)
    assert outcome.confirmed == len(named)


def test_the_judge_is_not_blind_to_an_unnamed_bluff_cheat(monkeypatch: pytest.MonkeyPatch) -> None:
    """With neither the deck nor the referee counting a show's shares, a show with
    too few shares is accepted, nobody names its writer, and property (b) fails."""
    check = DeckDeal.check_reveal

    def lenient(self: DeckDeal, seat: int, slots: Sequence[int], items: Sequence[WireValue]) -> list[int]:
        return check(self, seat, slots[:len(items)], items)
    monkeypatch.setattr(DeckDeal, "check_reveal", lenient)
    monkeypatch.setattr(BluffState, "_check_reveal", lambda self, action: None)
    position, cheat = _position("show", 1, 2)
    outcome = run_schedule(Schedule(seed=909, game="bluff", coalition=frozenset({cheat}),
                                    attacks=frozenset({"bad"}), bad_at=position))
    assert any(f.startswith("(b)") and "single" in f for f in outcome.failures), outcome.failures
