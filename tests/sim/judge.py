"""The judge of a simulated match: what a finished run owes each honest peer.

Three properties are judged (:func:`judge`):

(a) no honest peer names an honest player, unless for a whole deadline that
    player's messages could not reach it by any path of honest nodes and up
    links (the relay counts when the host is honest). Two cases are counted
    apart rather than as failures: a verdict naming the host because this
    peer's own host link was cut during the wait with no direct link up (the
    project's "link churn names the host", and what follows from it), and a
    *race*: the named player's own table had ended naming a coalition writer
    for lateness, and this peer accepted that writer's message too late to
    reach it (after its window closed, less than two hops before, or with no
    honest path up) — the coalition timed it to the window's end. Any other
    *cascade* (an honest player named because its table ended first: finding
    1) is a failure;
(b) a player that signs an equivocation, an out-of-turn or a rule-breaking
    message is named, with evidence, by every honest peer that received both
    halves of the evidence (for a single bad message, that message when its
    position was next on the history it extends) while its table was open, in
    a ``msg`` frame or in another peer's alert; and
    every verdict with evidence that an honest peer reaches is confirmed by
    :func:`p2pcards.protocol.evidence.check_verdict` on that peer's record
    (replayed as an observer, as ``p2pcards verify`` does: :func:`confirm`);
(c) no honest peer's table meets a message signed with its own key that it did
    not write (only its own key can sign for it): a coalition member's table
    that meets its own other version stops, naming nobody, as PeerSession does.

*Each verdict rule, checked both ways* (is the cheater caught? is no honest
player ever named?). "Caught" is a fixed schedule that asserts the rule and the
evidence; "never honest" is property (a) over the seeded sweeps that make the
message kind, every one of which also judges (b) on the coalition's evidence.

=====================  ===============================================  ==============================
verdict rule           cheater caught (test_*.py in tests/sim)           honest never named (sweeps)
=====================  ===============================================  ==============================
chain.equivocation     simulation: an_equivocation_is_named...;          every sweep (``equivocate``)
                       bluff: an_equivocating_show...
turn                   simulation: a_message_out_of_turn...;             every sweep (``out_of_turn``);
                       hint: a_hint_breach... (hint_out_of_turn)         hint sweeps
crypto                 simulation: a_bad_shuffle_or_bad_shares...;       every sweep (``bad``)
                       bluff: a_cheating_show_or_discard... (show)
rules.<game rule>      simulation: a_rule_breaking_action_in_play...;    every sweep (``bad``)
                       bluff: a_cheating_show_or_discard... (discard)
message.malformed      bluff: a_cheating_show_or_discard... (too few     every sweep (``bad``: a commit
                       shares, rank 1)                                   of the wrong shape)
table.hint             hint: a_hint_breach... (hint_off, hint_twice)     hint: seeded_matches_with_hints
table.away             pause: an_away_with_no_pause_left...              pause: seeded_matches_with_pauses
deadline               simulation: a_crash_that_outlasts_the_deadline;   every sweep (cuts, crashes,
                       sweeps (``silent``)                               ``silent``: the blackout rule)
left                   leave: a_leaver_is_named_left...                  leave: seeded_schedules_with_leaves
                                                                         (forged and replayed leaves)
=====================  ===============================================  ==============================

Names nobody (dropped, judged by (a) and (c)): ``message.signature`` and
``message.session`` (``junk``, fake shuffles: forged_and_replayed_frames_name_nobody,
hundreds_of_fake_shuffles...), ``chain.gap`` / ``chain.fork`` (reordering, forks);
the evening's refusals ``evening.again`` / ``evening.after`` / ``evening.rotation``
are no verdicts (``test_evening_simulation.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from p2pcards.protocol import evidence
from p2pcards.protocol.envelope import SignedMessage
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.verdict import Verdict

from .links import joined
from .peer import Peer
from .schedule import DEADLINE, Schedule, schedule_for
from .simulation import Simulation
from .tables import SimTable


@dataclass
class Outcome:
    schedule: Schedule
    failures: list[str]
    cascades: int
    churn: int
    #: Cascades from a coalition message timed to the end of a window (see _raced).
    races: int
    verdicts: dict[int, Verdict | None]
    events: int
    #: The longest transcript an honest peer reached, and whether one saw the match end.
    reached: int = 0
    over: bool = False
    #: Verdicts with evidence that ``check_verdict`` confirmed on the peer's record.
    confirmed: int = 0


def run_seed(seed: int, stop_at: int | None = None) -> Outcome:
    return judge(Simulation(schedule_for(seed, stop_at)).run())


def run_schedule(schedule: Schedule) -> Outcome:
    return judge(Simulation(schedule).run())


def judge(sim: Simulation) -> Outcome:
    """Properties (a), (b) and (c) of the module docstring, over one finished run."""
    failures: list[str] = []
    cascades = churn = races = confirmed = 0
    honest = [p for p in sim.peers if p.honest]
    churned = {p.player for p in honest if _churn(sim, p)}
    for peer in honest:
        verdict = peer.verdict
        if verdict is None or peer.player in churned:
            churn += peer.player in churned
            continue
        for named in verdict.players:
            if named in sim.schedule.coalition:
                continue
            other = sim.peers[named]
            assert peer.verdict_at is not None
            if blackout(sim, named, peer.player, peer.verdict_at) >= DEADLINE:
                continue
            cascade = other.verdict_at is not None and other.verdict_at <= peer.verdict_at
            if cascade and named in churned:
                churn += 1  # the named player stopped by the link-churn rule
                continue
            if cascade and _raced(sim, peer, other):
                races += 1
                continue
            cascades += cascade
            failures.append(f"(a) player {peer.player} named honest player {named}"
                            f"{' (a cascade)' if cascade else ''}: {verdict.rule} "
                            f"{verdict.detail!r} at {peer.verdict_at:.2f}")
    for kind, player, position, *halves in sim.evidence:
        for peer in honest:
            if not _received_all(peer, halves, position, kind):
                continue
            verdict = peer.verdict
            if verdict is None or player not in verdict.players or not verdict.evidence:
                failures.append(f"(b) player {peer.player} received the {kind} of player "
                                f"{player} at {position} and named {verdict and verdict.players}")
    for peer in honest:
        verdict = peer.verdict
        if verdict is not None and verdict.evidence and verdict.rule != "left":
            refused = confirm(peer.table.transcript(), verdict)
            if refused is not None:
                failures.append(f"(b) player {peer.player}'s verdict {verdict.rule} naming "
                                f"{verdict.players} is refused on its record: {refused}")
            else:
                confirmed += 1
    for peer in honest:
        if peer.stopped:  # only its own key can sign for it
            failures.append(f"(c) honest player {peer.player}'s table met a message signed "
                            f"with its own key that it did not write")
    return Outcome(sim.schedule, failures, cascades, churn, races,
                   {p.player: p.verdict for p in sim.peers}, sim.events,
                   max(p.table.next_position for p in honest) if honest else 0,
                   any(p.over_at is not None for p in honest), confirmed)


def confirm(transcript: list[bytes], verdict: Verdict) -> str | None:
    """Why ``verify`` would refuse ``verdict`` on this record (None: confirmed):
    the record replayed as an observer, then the verdict's evidence re-checked."""
    observer = SimTable(transcript[0])
    try:
        for raw in transcript[1:]:
            observer.receive(raw, saved=True)
        if evidence.check_verdict(observer, verdict) is not True:
            return "not confirmed as provable"
    except ProtocolError as error:
        return str(error)
    return None


# -- reachability: who could have reached whom --------------------------------------

def _joined(sim: Simulation, a: int, b: int, t: float) -> bool:
    honest = {p.player for p in sim.peers if p.honest}
    return joined(a, b, t, sim.cuts, sim.schedule.no_direct, honest)


def blackout(sim: Simulation, a: int, b: int, until: float) -> float:
    """The longest time before ``until`` that no path of honest nodes and up
    links (the schedule's cuts, a crash's) joined players ``a`` and ``b``."""
    marks = sorted({0.0, until, *(t for s, e, _ in sim.cuts for t in (s, e) if t < until)})
    longest, start = 0.0, None
    for left, right in zip(marks, marks[1:], strict=False):
        if _joined(sim, a, b, (left + right) / 2):
            start = None
        else:
            start = left if start is None else start
            longest = max(longest, right - start)
    return longest


def _host_link_cut_near(sim: Simulation, player: int, until: float) -> bool:
    """Whether ``player``'s host link was cut in the last three deadlines before ``until``."""
    return any(link == ("host", player) and s <= until and e >= until - 3 * DEADLINE
               for s, e, link in sim.cuts)


# -- the cases counted apart, and what a peer could judge --------------------------

def _churn(sim: Simulation, peer: Peer) -> bool:
    """Whether ``peer``'s verdict is the link-churn rule's: the host named because
    this peer's own host link was cut during the wait (no direct link up)."""
    verdict = peer.verdict
    return (verdict is not None and peer.verdict_at is not None and verdict.players == (0,)
            and "dropped our link" in verdict.detail
            and _host_link_cut_near(sim, peer.player, peer.verdict_at))


def _raced(sim: Simulation, accuser: Peer, named: Peer) -> bool:
    """Whether ``named`` (honest) ended naming a coalition writer for lateness at
    a position whose message ``accuser`` accepted too late to reach ``named``
    before its window closed (after it, less than two hops before it, or with no
    honest path up from then on): the coalition timed it to the window's end. Inherent in
    any clock: the writer was late for one honest peer and in time for another."""
    verdict = named.verdict
    if verdict is None or verdict.rule != "deadline" or named.verdict_at is None:
        return False
    if not set(verdict.players) <= sim.schedule.coalition:
        return False
    accepted = accuser.accepted_at.get(verdict.position)
    if accepted is None:
        return False
    if named.verdict_at - accepted < 2 * sim.schedule.max_delay + 1e-9:
        return True  # also when it came after the named player's verdict
    return all(not _joined(sim, accuser.player, named.player, t)
               for t in (accepted, (accepted + named.verdict_at) / 2, named.verdict_at))


def _received_all(peer: Peer, halves: list[bytes], position: int, kind: str) -> bool:
    """Whether ``peer``'s open table could judge the evidence: for an equivocation,
    the half it did not keep at ``position`` arrived once it held the other; for
    a single message (out of turn, or breaking a rule), it arrived when
    ``position`` was next and it built on the message this peer holds before it."""
    transcript = peer.table.transcript()
    if kind == "single":
        raw = halves[0]
        if len(transcript) < position:
            return False
        prev = SignedMessage.parse(raw).prev
        if SignedMessage.parse(transcript[position - 1]).digest != prev:
            return False
        return any(r == raw and at == position and not ended for r, at, ended in peer.received)
    if len(transcript) <= position or transcript[position] not in halves:
        return False
    other = halves[1] if transcript[position] == halves[0] else halves[0]
    return any(r == other and at > position and not ended for r, at, ended in peer.received)
