"""The promise, checked by deterministic simulation (see ``tests/sim/simulation.py``):
over thousands of seeded schedules — delays, cuts, a coalition of up to three
players that drops, holds back, duplicates, replays, equivocates, writes out of
turn and sends on chosen paths only — (a) no honest peer names an honest player
unless a whole deadline cut that player off from it, and (b) a signed
equivocation or out-of-turn message gets its signer named, with evidence, by
every honest peer that received it. A failing seed is printed and replays with
``python scripts/simulate.py --seed N``. The judge tells two inherent cases
apart instead of failing them (``simulation.judge``): the link-churn rule, and
a cascade from a coalition message timed to reach one honest peer just after
another's window closed."""

from __future__ import annotations

import logging

import pytest

from p2pcards.protocol import frames
from p2pcards.protocol.session import HOST, Send, SessionRules

from .simulation import STOP_AT, Outcome, Schedule, Simulation, judge, run_schedule, run_seed

#: Seeded schedules the suite runs (scripts/simulate.py runs as many as asked).
SEEDS = 2000
CHUNKS = 4


@pytest.fixture(autouse=True)
def _quiet(caplog: pytest.LogCaptureFixture) -> None:
    """The peers log every frame they drop; thousands of runs need not keep them."""
    caplog.set_level(logging.ERROR)


def _failures(outcomes: list[Outcome]) -> list[str]:
    return [f"{o.schedule.describe()}: {f}" for o in outcomes for f in o.failures]


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_seeded_schedules_keep_both_properties(chunk: int) -> None:
    size = SEEDS // CHUNKS
    outcomes = [run_seed(seed) for seed in range(chunk * size, (chunk + 1) * size)]
    assert not _failures(outcomes), "\n".join(_failures(outcomes)[:20])
    # The schedules did reach both ends: some tables were seated, some ended by a verdict.
    assert any(all(v is None for v in o.verdicts.values()) for o in outcomes)
    assert any(any(v is not None for v in o.verdicts.values()) for o in outcomes)


def test_a_seed_replays_the_same_run() -> None:
    for seed in (3, 11, 42):
        first, again = run_seed(seed), run_seed(seed)
        assert first.events == again.events
        assert first.verdicts == again.verdicts


def _only_direct(writer: int) -> Schedule:
    """Finding 1: ``writer`` (the coalition) sends its messages to the players it
    links to directly, never to the host; seat 0 (the host's own) has no direct link.
    Player 3's commit is the one before the host seat's open: nobody else's
    message would make the relay ask for it."""
    others = frozenset(p for p in range(1, 4) if p != writer)
    return Schedule(seed=101, coalition=frozenset({writer}), paths={writer: others})


def test_a_writer_that_sends_only_on_direct_links_starves_nobody() -> None:
    sim = Simulation(_only_direct(3)).run()
    outcome = judge(sim)
    assert outcome.failures == []
    for peer in sim.peers:
        assert peer.verdict is None, f"player {peer.player}: {peer.verdict}"
        assert peer.table.next_position == STOP_AT
    assert 0 in sim.schedule.no_direct  # the host's seat heard it only through the host


def test_without_passing_messages_on_to_the_host_that_writer_gets_the_honest_host_named(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The judge is not blind: the same schedule, with messages no longer passed on
    to the host (neither when accepted from a direct link nor at a deadline), fails
    property (a) as finding 1 described: the host's seat names the writer, and the
    others then name the host's seat for not writing after it."""
    checked, tick = SessionRules.checked, SessionRules.tick

    def not_to_host(outs: list) -> list:
        return [o for o in outs if not (isinstance(o, Send) and o.path is HOST
                                        and frames.decode(o.frame).kind == "msg")]

    def checked_no_host(self, check, events, error, now):  # type: ignore[no-untyped-def]
        outs = checked(self, check, events, error, now)
        return outs if check.source is HOST else not_to_host(outs)

    def tick_no_host(self, now):  # type: ignore[no-untyped-def]
        return not_to_host(tick(self, now))
    monkeypatch.setattr(SessionRules, "checked", checked_no_host)
    monkeypatch.setattr(SessionRules, "tick", tick_no_host)
    outcome = run_schedule(_only_direct(3))
    assert any("(a)" in f and "named honest player 0" in f for f in outcome.failures), outcome


def test_an_equivocation_is_named_with_evidence_by_every_honest_peer() -> None:
    schedule = Schedule(seed=202, coalition=frozenset({3}), attacks=frozenset({"equivocate"}),
                        equivocate_at=4)  # player 3's commit
    sim = Simulation(schedule).run()
    assert judge(sim).failures == []
    assert [e[0] for e in sim.evidence] == ["equivocation"]
    for peer in sim.peers[:3]:
        verdict = peer.verdict
        assert verdict is not None and verdict.rule == "chain.equivocation", peer.player
        assert verdict.players == (3,) and len(verdict.evidence) == 2


def test_a_message_out_of_turn_is_named_with_evidence_by_every_honest_peer() -> None:
    schedule = Schedule(seed=303, coalition=frozenset({1}), attacks=frozenset({"out_of_turn"}))
    sim = Simulation(schedule).run()
    assert judge(sim).failures == []
    for peer in sim.peers:
        if peer.honest:
            verdict = peer.verdict
            assert verdict is not None and verdict.players == (1,), peer.player
            assert verdict.evidence


def test_forged_and_replayed_frames_name_nobody() -> None:
    """Frames signed by the wrong key and copies of old messages: dropped, the
    seating completes, nobody is named."""
    schedule = Schedule(seed=404, coalition=frozenset({2}), attacks=frozenset({"junk", "replay"}))
    sim = Simulation(schedule).run()
    assert judge(sim).failures == []
    assert all(p.verdict is None and p.table.next_position == STOP_AT for p in sim.peers)
