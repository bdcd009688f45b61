"""What the match shows of each Bluff opponent: his bluffs and his calls, against what was predicted.

Both the counter and the search keep one :class:`OpponentModel` for the
match. Every claim a call showed is judged again as the bot would have
judged it unseen, and the bluffs found are added up against the bluffs
predicted, by kind of claim; their ratio scales that player's habits in
the belief (:class:`~p2pcards.bots.bluff_belief.Habits`). The search also
records, when it claims, how likely it found that the next player calls,
and the match shows whether he did.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from p2pcards.bots.bluff_belief import Habits, TableBelief
from p2pcards.bots.bluff_record import TableRecord, table_record
from p2pcards.rules.bluff import SEATS, BluffState

#: The kinds of claim whose bluffing habits the model learns apart.
KINDS = ("lead", "one", "more", "raised")


def claim_kind(lead: bool, count: int) -> str:
    return "lead" if lead else "one" if count == 1 else "more"


@dataclass
class _Tally:
    """Observed against predicted: how far one opponent departs from the belief."""

    seen: float = 0.0
    expected: float = 0.0

    def scale(self, prior: float) -> float:
        return (self.seen + prior) / (self.expected + prior)


@dataclass
class OpponentModel:
    """Per opponent, his bluffs and calls against what the bot's belief predicted.

    **Bluffs.** Every claim of an opponent that a call showed (whoever
    called) is judged as the bot would have judged it unseen (its slots
    hidden from the belief, average habits); the bluffs found and the
    chances predicted are added up by kind of claim, and their ratio scales
    that player's habit. Comparing with predictions, not raw rates, keeps
    the model from mistaking credible claims for an honest player.
    **Calls.** When the bot claims, it records the chance it predicted that
    the next player calls; the match then shows whether he did.
    """

    bluffs: dict[tuple[int, str], _Tally] = field(default_factory=dict)
    calls: dict[int, _Tally] = field(default_factory=dict)
    #: Claims already judged, by (deal, index).
    _judged: set[tuple[int, int]] = field(default_factory=set)
    #: (deal, claim index) -> (seat, predicted chance he calls it).
    _call_bets: dict[tuple[int, int], tuple[int, float]] = field(default_factory=dict)
    #: The habits last worked out, and what they were worked out from.
    _habits: tuple[object, tuple[Habits, ...]] | None = None

    #: Pseudo-counts that keep a scale near 1 until the match has shown enough.
    PRIOR = 0.5

    def observe(self, view: BluffState, me: int, habits: Habits,
                record: TableRecord | None = None) -> None:
        """Learn from every claim the view shows that was not judged yet, and settle the
        call predictions the view answers (``record``: the view's, if worked out already)."""
        deal, claims = view.deal_number, view.claims
        if record is None:
            record = table_record(view)
        for index, claim in enumerate(claims):
            key = (deal, index)
            if claim.seat == me or not claim.revealed or key in self._judged:
                continue
            self._judged.add(key)
            unseen = TableBelief(view, me, habits, hide=claim.slots, record=record)
            chance = unseen.chance_true(claim)
            kinds = [claim_kind(index in record.leads, claim.count)]
            if unseen.raised[index]:
                kinds.append("raised")
            for kind in kinds:
                tally = self.bluffs.setdefault((claim.seat, kind), _Tally())
                tally.seen += not claim.honest
                tally.expected += 1 - chance
        for key, (seat, chance) in list(self._call_bets.items()):
            ours = claims[key[1]] if key[0] == deal and key[1] < len(claims) else None
            if key[0] == deal and ours is None:
                continue  # not made yet (we were asked again before it)
            called = ours is not None and (ours.revealed or (
                key[1] == len(claims) - 1 and view.challenger == seat))
            if ours is not None and not called and key[1] == len(claims) - 1 \
                    and view.discarder == ours.seat and view.to_act == seat:
                continue  # still his to answer
            tally = self.calls.setdefault(seat, _Tally())
            tally.seen += called
            tally.expected += chance
            del self._call_bets[key]

    def predict_call(self, view: BluffState, seat: int, chance: float) -> None:
        """The claim we are making now will be called by ``seat`` with ``chance``."""
        self._call_bets[(view.deal_number, len(view.claims))] = (seat, chance)

    def habits(self, base: Habits) -> tuple[Habits, ...]:
        """Each seat's habits: ``base`` with its bluffing scaled by what the match showed."""
        state = (base, tuple((key, t.seen, t.expected) for key, t in self.bluffs.items()))
        if self._habits is not None and self._habits[0] == state:
            return self._habits[1]
        found = self._scaled(base)
        self._habits = (state, found)
        return found

    def _scaled(self, base: Habits) -> tuple[Habits, ...]:
        def scaled(seat: int) -> Habits:
            def of(kind: str) -> float:
                tally = self.bluffs.get((seat, kind))
                return tally.scale(self.PRIOR) if tally is not None else 1.0
            # A raised stake that hides bluffs more often than foreseen is worth less trust.
            raised = min(3.0, max(1 / 3, base.raised / of("raised")))
            return replace(base, lead_bluff=base.lead_bluff * of("lead"), bluff=base.bluff * of("one"),
                           more=min(1.0, base.more * of("more") / of("one")), raised=raised)
        return tuple(scaled(seat) for seat in range(SEATS))

    def call_scale(self, seat: int) -> float:
        """How much more (or less) than predicted ``seat`` calls our claims."""
        tally = self.calls.get(seat)
        return tally.scale(self.PRIOR) if tally is not None else 1.0


__all__ = ["KINDS", "OpponentModel", "claim_kind"]
