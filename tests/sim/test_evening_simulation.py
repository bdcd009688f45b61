"""The evening after a simulated match, checked by seeded evenings (see
``tests/sim/evening.py``): every honest end box is the sans-IO ``EndBox`` linked to
the host's relay over links the schedule cuts and dials again; the host frees,
fills and closes by its ``EndLobby``; then each honest again-chooser checks the
genesis and the rematch's opening runs every peer's clock. A coalition
equivocates its choices, replays honest players' choices from other matches,
forges choices for honest seats, floods the host with choices about other ends,
churns its link at the end box (a presence frame to every end box each time) and
leaves late, a leave that may reach some end boxes only; a host in it withholds
frames and writes a forged rematch genesis. Every honest count agrees with what
each honest seat chose, no honest end box ends before the host's end box closed,
an honest player never joins a forged rematch (the precise refusal) and never
refuses an honest host's unless its count missed a leave, and no honest player
(an again-chooser that refused above all) is named in the rematch. A failing
evening is printed with its plan (``evening_plan(seed)`` replays it;
``scripts/simulate.py --evenings N`` sweeps more)."""

from __future__ import annotations

import functools
import math

import pytest

from p2pcards.protocol import relay_end_box as relay
from p2pcards.protocol.again import AGAIN, LEAVE, check_rematch
from p2pcards.protocol.end_box import EndBox, Ending
from p2pcards.protocol.rematch_genesis import DroppedPlayer, NotTheMatchBefore, WrongRotation
from p2pcards.protocol.table import Table
from p2pcards.protocol.verdict import Verdict

from . import evening
from .evening import CHURN, FORGERIES, EveningOutcome, EveningPlan, evening_plan, run_evening
from .schedule import Schedule
from .simulation import Simulation

#: Seeded evenings after each finished match in the default run (about 0.1 s each).
EVENING_SEEDS = 12
#: The slow sweep: 500 evenings after each of the four matches, 2,000 in all.
SLOW_EVENING_SEEDS = 500
#: The finished matches an evening may follow: Topper, Bluff, Topper with hints,
#: and a match a coalition played with forged and replayed frames.
MATCHES = {
    "topper": Schedule(seed=7),
    "bluff": Schedule(seed=7, game="bluff"),
    "hints": Schedule(seed=7, hints=True),
    "junk": Schedule(seed=404, coalition=frozenset({2}), attacks=frozenset({"junk", "replay"})),
}


@functools.cache
def _match(name: str) -> Simulation:
    return Simulation(MATCHES[name]).run()


def _failures(outcomes: list[EveningOutcome], match: str) -> list[str]:
    return [f"match={match} {o.plan.describe()}: {f}" for o in outcomes for f in o.failures]


def _plan(seed: int, coalition: set[int], **changes: object) -> EveningPlan:
    """A fixed evening: ``seed``'s plan with no link churn, every honest player choosing
    at once, no partial delivery, then ``changes``."""
    plan = evening_plan(seed, frozenset(coalition))
    plan.link_churn, plan.partial, plan.choose_at = 0.0, None, {}
    for name, value in changes.items():
        setattr(plan, name, value)
    return plan


@pytest.mark.parametrize("match", sorted(MATCHES))
def test_seeded_evenings_keep_their_promises(match: str) -> None:
    sim = _match(match)
    start = 1000 * sorted(MATCHES).index(match)
    outcomes = [run_evening(sim, evening_plan(seed)) for seed in range(start, start + EVENING_SEEDS)]
    assert not _failures(outcomes, match), "\n".join(_failures(outcomes, match)[:20])
    # Both ends: honest rematches joined, forged ones refused.
    assert any(any(o.joined.values()) for o in outcomes)
    assert any(o.refusals for o in outcomes)


@pytest.mark.slow
def test_two_thousand_seeded_evenings_keep_their_promises() -> None:
    for match in sorted(MATCHES):
        sim = _match(match)
        outcomes = [run_evening(sim, evening_plan(seed))
                    for seed in range(50_000, 50_000 + SLOW_EVENING_SEEDS)]
        assert not _failures(outcomes, match), "\n".join(_failures(outcomes, match)[:20])


def test_an_honest_evening_counts_every_choice_and_everyone_joins_one_seat_on() -> None:
    sim = _match("topper")
    plan = _plan(1, set(), choices=dict.fromkeys(range(4), AGAIN))
    outcome = run_evening(sim, plan)
    assert outcome.failures == []
    for count in outcome.counts.values():
        assert count.choices == dict.fromkeys(range(4), AGAIN) and count.ready
    assert outcome.genesis is not None and outcome.joined == {1: True, 2: True, 3: True}


def test_a_leaver_is_counted_as_leaving_and_its_seat_goes_to_a_bot() -> None:
    sim = _match("topper")
    plan = _plan(2, set(), choices={0: AGAIN, 1: AGAIN, 2: LEAVE, 3: AGAIN})
    outcome = run_evening(sim, plan)
    assert outcome.failures == []
    for player in (0, 1, 3):
        assert outcome.counts[player].choices == plan.choices
    assert outcome.joined == {1: True, 3: True}


def test_equivocated_choices_count_as_leave_at_every_honest_end_box() -> None:
    """Player 2 signs again, then leave (or leave, then again: a leave is final):
    every honest count says it left, whatever order it heard them in."""
    sim = _match("topper")
    for first in (AGAIN, LEAVE):
        plan = _plan(3, {2}, choices={0: AGAIN, 1: AGAIN, 2: first, 3: AGAIN},
                     attacks=frozenset({"equivocate"}))
        outcome = run_evening(sim, plan)
        assert outcome.failures == []
        for player in (0, 1, 3):
            assert outcome.counts[player].choices[2] == LEAVE, (first, player)


def test_replayed_and_forged_choices_change_no_honest_seat() -> None:
    """A host in the coalition writes to every end box the choices honest players
    signed about other matches (the other way from their choice here) and choices
    for their seats signed with its own key: each count refuses them (blaming
    nobody) and keeps what each honest seat chose."""
    sim = _match("topper")
    plan = _plan(4, {0}, choices=dict.fromkeys(range(4), AGAIN),
                 attacks=frozenset({"replay", "forge"}), withhold=0.0, forgery=None)
    outcome = run_evening(sim, plan)
    assert outcome.failures == []
    assert outcome.refused_frames >= 3 * 3 * 2  # each of 3 kinds, 3 victims, 2 end boxes
    for player in (1, 2, 3):
        assert all(outcome.counts[player].choices[seat] == AGAIN for seat in (1, 2, 3))
    assert outcome.joined == {1: True, 2: True, 3: True}


@pytest.mark.parametrize("forgery", sorted(FORGERIES))
def test_a_forged_rematch_genesis_is_refused_by_every_honest_player(forgery: str) -> None:
    """A host that chains the rematch to another match or end (or to none) is
    refused with ``evening.after``; one that names the right match but another
    seating (two seats swapped, or the seating already rotated) with
    ``evening.rotation``: before anyone signs anything."""
    sim = _match("topper")
    plan = _plan(5, {0}, choices=dict.fromkeys(range(4), AGAIN), forgery=forgery, withhold=0.0)
    outcome = run_evening(sim, plan)
    assert outcome.failures == []
    assert outcome.joined == {1: False, 2: False, 3: False}
    rule = FORGERIES[forgery].rule
    assert rule in (NotTheMatchBefore.rule, WrongRotation.rule, DroppedPlayer.rule)
    assert all(r.rule == rule for r in outcome.refusals.values())


def test_a_host_that_drops_an_honest_again_chooser_is_refused_by_every_honest_joiner() -> None:
    """The genesis links rightly but gives player 1's seat (it chose again) to the
    host's bot: every honest joiner holds player 1's signed again (the host showed it
    at every end box), so each refuses with ``evening.dropped``, naming the seat."""
    sim = _match("topper")
    plan = _plan(8, {0}, choices=dict.fromkeys(range(4), AGAIN), forgery="drop", withhold=0.0,
                 attacks=frozenset())
    outcome = run_evening(sim, plan)
    assert outcome.failures == []
    assert outcome.joined == {1: False, 2: False, 3: False}
    assert all(isinstance(r, DroppedPlayer) and r.player == 1 for r in outcome.refusals.values())
    seat = (sim.peers[1].table.finished().seats.index(sim.identities[1].public_key) + 1) % 4
    assert all(f"seat {seat} " in str(r) for r in outcome.refusals.values())


def test_a_dropped_player_refuses_even_when_the_host_withheld_its_again_from_the_others(
        ) -> None:
    """A host that drops player 1 and shows its again to no other end box: player 1
    holds its own again and refuses; the others hold nothing of it and cannot know
    (the limit PROTOCOL.md §14 states); the judge owes each exactly what it holds."""
    sim = _match("topper")
    plan = _plan(8, {0}, choices=dict.fromkeys(range(4), AGAIN), forgery="drop", withhold=1.0,
                 attacks=frozenset())
    outcome = run_evening(sim, plan)
    assert outcome.failures == []
    assert outcome.joined[1] is False and isinstance(outcome.refusals[1], DroppedPlayer)


def test_without_the_count_check_a_dropping_host_is_joined_and_the_judge_says_so(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The judge is not blind: with the joiner's check ignoring its count (as before
    the fix), the honest joiners join the dropping host's rematch and fail the judge."""
    monkeypatch.setattr(evening, "check_rematch",
                        lambda genesis, previous, held=None: check_rematch(genesis, previous))
    sim = _match("topper")
    plan = _plan(8, {0}, choices=dict.fromkeys(range(4), AGAIN), forgery="drop", withhold=0.0,
                 attacks=frozenset())
    outcome = run_evening(sim, plan)
    assert any("joined a forged rematch (drop" in f for f in outcome.failures), outcome.failures


def test_a_flood_of_choices_about_other_ends_crowds_out_no_honest_choice() -> None:
    """Player 1 signs eight choices about other ends of this session before the
    others choose: the relay keeps two of them at most, so every honest choice
    is still kept, counted by the host and shown at every end box."""
    sim = _match("topper")
    plan = _plan(6, {1}, choices=dict.fromkeys(range(4), AGAIN),
                 attacks=frozenset({"flood"}), coalition_first=True)
    outcome = run_evening(sim, plan)
    assert outcome.failures == []
    for player in (0, 2, 3):
        assert all(outcome.counts[player].choices.get(seat) == AGAIN for seat in (0, 2, 3))


def test_without_the_per_player_cap_the_flood_fails_the_judge(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The judge is not blind: with the relay keeping any player's choices up to
    its whole store (as before the fix), the flood crowds out the honest choices
    and the host's count never hears them."""
    monkeypatch.setattr(relay, "MAX_CHOICES_PER_PLAYER", relay.MAX_CHOICES)
    sim = _match("topper")
    plan = _plan(6, {1}, choices=dict.fromkeys(range(4), AGAIN),
                 attacks=frozenset({"flood"}), coalition_first=True)
    outcome = run_evening(sim, plan)
    assert any("never heard honest player" in f for f in outcome.failures), outcome.failures


def _attack_plan(**changes: object) -> EveningPlan:
    """Issue 37: player 2 signs again, churns its link at the end box ``CHURN`` times
    (a presence frame to every end box each time), then leaves; player 1 chose again
    at once, player 3 (the one the host still waits for) chooses late."""
    plan = _plan(37, {2}, choices=dict.fromkeys(range(4), AGAIN),
                 attacks=frozenset({"churn", "late_leave"}), link_churn=0.0, partial=None,
                 forgery=None, withhold=0.0, coalition_first=False,
                 choose_at={1: 0.0, 3: CHURN * 0.5 + 20})
    for name, value in changes.items():
        setattr(plan, name, value)
    return plan


def test_a_presence_flood_ends_no_end_box_early_and_the_late_leave_is_heard() -> None:
    sim = _match("topper")
    outcome = run_evening(sim, _attack_plan())
    assert outcome.failures == []
    assert outcome.presence_frames >= 2 * CHURN  # the churn reached the honest end boxes
    for player in (1, 3):
        assert outcome.endings[player][0] is Ending.REMATCH
        assert outcome.counts[player].choices[2] == LEAVE  # the leave after the flood, heard
    assert outcome.joined == {1: True, 3: True}
    assert all(v is None for v in outcome.verdicts.values())  # the rematch opened


def test_an_end_box_that_stops_on_a_count_of_frames_fails_the_judge(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The judge is not blind: an end box that stops after 256 frames of any kind (the
    network loop before issue 37) ends during the flood, before the host's end box
    closed, and the judge says so."""
    class Counting(EndBox):
        frames_read = 0

        def frame(self, data: bytes, now: float) -> list[object]:  # type: ignore[override]
            self.frames_read += 1
            if self.frames_read > 256 and not self.done:
                return self._over(Ending.NO_WORD)  # type: ignore[return-value]
            return super().frame(data, now)  # type: ignore[return-value]
    monkeypatch.setattr(evening, "EndBox", Counting)
    outcome = run_evening(_match("topper"), _attack_plan())
    assert any("before the host's end box closed" in f for f in outcome.failures), \
        outcome.failures


def test_a_leave_heard_by_one_end_box_only_gets_nobody_named() -> None:
    """Player 2 chose again, then leaves; only player 3's end box hears it (player 1's
    link is down until the finished table is gone). Player 3 chooses, the host fills
    the seat and opens the rematch; player 1, holding 2's again, refuses its genesis
    (``evening.dropped``) and writes nothing in it: the rematch ends unopened, naming
    nobody (PROTOCOL.md §14)."""
    sim = _match("topper")
    plan = _attack_plan(attacks=frozenset({"late_leave"}), partial=3, choose_at={1: 0.0, 3: math.inf})
    outcome = run_evening(sim, plan)
    assert outcome.failures == []
    assert outcome.counts[3].choices[2] == LEAVE and outcome.counts[1].choices[2] == AGAIN
    assert isinstance(outcome.refusals[1], DroppedPlayer) and outcome.joined[3] is True
    ended = [v for v in outcome.verdicts.values() if isinstance(v, Verdict)]
    assert ended and all(v.rule == "evening.unopened" and v.players == () for v in ended)


def test_without_the_unopened_rule_the_refusing_again_chooser_is_named(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The judge is not blind: with a rematch's clock naming a writer that wrote
    nothing in it (as before issue 37), the honest player that refused is named."""
    monkeypatch.setattr(Table, "unopened", property(lambda table: False))
    plan = _attack_plan(attacks=frozenset({"late_leave"}), partial=3, choose_at={1: 0.0, 3: math.inf})
    outcome = run_evening(_match("topper"), plan)
    assert any("an again-chooser" in f for f in outcome.failures), outcome.failures
