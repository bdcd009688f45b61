"""What one seat can know of a Bluff deal, counted: the belief the counter, the search and the coach share.

A careful player counts, for each rank, the cards he holds, the ones he has
discarded himself, the ones calls have shown, and the cards the others have
claimed this deal (accepted or still on the table). Four of each rank exist,
so of the cards claimed as a rank at most as many can be true as remain
unseen, and a claim that needs more than that is a certain lie.

Beyond the count, what the players did says something about what they hold:

- a **claim** of a rank is likelier true when its maker could have held the
  cards (the unseen cards of that rank are shared out among the seats'
  unseen slots, hypergeometrically), and more so for a leader, who chose the
  rank; one who lacked them bluffs only now and then (his *habit*, less
  often the more cards he claims);
- a **stake** above the least the claim could stake is a sign of confidence;
- a **pass** on a rank suggests the passer held none of it (one who holds it
  would rather discard it, which is free);
- the cards a seat discarded as another rank are, most likely, not of this one.

:class:`TableBelief` weighs all of it by Bayes, exactly: for one rank it
sums over how many of its unseen cards each seat was dealt, and over which of
each seat's claims of the rank were true, every combination the count allows.
It reads only a seat's view (``BluffState.view``): the seat's own cards, the
cards calls showed, and the public record of claims, stakes and turns.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from math import comb

from p2pcards.bots.bluff_record import TableRecord, table_record
from p2pcards.cards import Card, Rank
from p2pcards.rules.bluff import SEATS, BluffState, Claim

#: Cards of each rank in the deck.
OF_A_RANK = 4


@dataclass(frozen=True)
class RankCount:
    """The four cards of one rank as a seat can account for them this deal."""

    rank: Rank
    in_hand: int
    """In the seat's own hand now."""
    discarded: int
    """The seat's own discards of this rank (whatever they were claimed as), face down or gone."""
    shown: int
    """Other seats' cards of this rank that calls showed."""
    claimed: int
    """Cards the other seats claimed as this rank this deal and nobody has seen (the claim on
    the table included)."""

    @property
    def unseen(self) -> int:
        """Cards of the rank the seat has not seen: the most of ``claimed`` that can be true."""
        return OF_A_RANK - self.in_hand - self.discarded - self.shown

    @property
    def at_most_true(self) -> int:
        return min(self.claimed, self.unseen)

    @property
    def certain_lies(self) -> int:
        """Claimed cards beyond the unseen ones: that many, at least, were not of the rank."""
        return max(0, self.claimed - self.unseen)


@dataclass(frozen=True)
class Habits:
    """How players are believed to act, as likelihoods relative to a true claim."""

    #: How often a player who lacks the cards discards anyway (a one-card claim).
    bluff: float = 0.08
    #: Factor on a bluff's likelihood for each card claimed beyond the first.
    more: float = 0.5
    #: The same for a leader (who could have named any rank he holds).
    lead_bluff: float = 0.08
    #: How much likelier a claim staked above the least it could stake is true.
    raised: float = 1.5
    #: A pass by a player who holds the round's rank, relative to one who holds none of it.
    pass_holding: float = 0.3
    #: A bluff by a player who held enough cards to tell the truth, relative to one who did not.
    able_bluff: float = 0.3
    #: Most a leader's choice of rank can weigh for a claim (against its chance by the count).
    lead_cap: float = 12.0


@dataclass(frozen=True)
class _Act:
    """One act of a seat that bears on a rank: a claim of it (``count`` > 0) or a pass on it."""

    order: float
    count: int = 0
    #: Weight of the claim being true.
    honest: float = 1.0
    #: Weight of one card of it being false (each further false card: times ``more``).
    lie: float = 1.0
    more: float = 1.0
    #: Per true cards among it, how much likelier the maker chose this rank (a leader
    #: names a rank he holds); ones for an answer, whose rank was named for him.
    chose: tuple[float, ...] = ()


#: Per number of the rank a seat holds among its unseen slots: (weight, true claims as a
#: bit mask over its claims of the rank, cards of the rank still in its hand).
_Outcomes = list[list[tuple[float, int, int]]]


@dataclass
class _RankTable:
    """One rank's unseen cards, each seat's slots that can hold it, and its acts about it."""

    unseen: int
    sizes: list[int]
    #: Each seat's unseen cards in hand now.
    in_hand: list[int]
    acts: list[list[_Act]]
    #: Per seat with room for the rank: its outcomes, and their weights (all; holding the rank).
    outcomes: dict[int, _Outcomes] = field(default_factory=dict)
    totals: dict[int, list[float]] = field(default_factory=dict)
    #: The weights of the seats not skipped, by the seats skipped.
    rest: dict[tuple[int, ...], list[float]] = field(default_factory=dict)


@dataclass
class TableBelief:
    """The count and the Bayes belief of one seat (``judge``), or of an onlooker who knows
    only what calls showed (``judge=None``: how the table judges a seat's claims)."""

    view: BluffState
    judge: int | None
    #: How players act: one for all, or one per seat (what the search learns of each).
    habits: Habits | Sequence[Habits] = field(default_factory=Habits)
    #: Slots to judge as unseen although the view shows them (to judge a claim as it was
    #: judged before a call showed it).
    hide: Collection[int] = ()
    #: The view's record, if already worked out (else it is, here).
    record: TableRecord | None = None
    _by_seat: tuple[Habits, ...] = field(init=False, repr=False)
    _known: list[Card | None] = field(init=False, repr=False)
    #: Per claim of the deal, its cards this belief has not seen.
    _unknowns: list[int] = field(init=False, repr=False)
    #: Per seat: its slots this belief has not seen, and of those the ones in its claims.
    _slots: list[int] = field(init=False, repr=False)
    _in_claims: list[int] = field(init=False, repr=False)
    _believed: dict[tuple[int | None, int, Rank, int, bool, bool], list[float]] = field(
        init=False, repr=False, default_factory=dict)
    _ranks: dict[Rank, _RankTable] = field(init=False, repr=False, default_factory=dict)
    _plans: dict[tuple[int, Rank, int, bool, bool], tuple[list[float], list[float]]] = field(
        init=False, repr=False, default_factory=dict)
    _held: dict[tuple[int, Rank], dict[tuple[int, int], float]] = field(
        init=False, repr=False, default_factory=dict)

    def __post_init__(self) -> None:
        view = self.view
        habits = self.habits
        self._by_seat = (habits,) * SEATS if isinstance(habits, Habits) else tuple(habits)
        self._known = [None] * 52
        for slot, card in view.revealed:
            self._known[slot] = card
        if self.judge is not None:
            for slot in range(self.judge, 52, SEATS):
                self._known[slot] = view.face(slot)
        for slot in self.hide:
            self._known[slot] = None
        if self.record is None:
            self.record = table_record(view)
        known = self._known
        self._unknowns = [sum(1 for slot in claim.slots if known[slot] is None)
                          for claim in view.claims]
        self._slots = [sum(1 for slot in range(s, 52, SEATS) if known[slot] is None)
                       for s in range(SEATS)]
        self._in_claims = [0] * SEATS
        for claim, unknown in zip(view.claims, self._unknowns, strict=True):
            self._in_claims[claim.seat] += unknown

    @property
    def raised(self) -> tuple[bool, ...]:
        """Per claim of the deal, whether its stake was above the least it could stake."""
        assert self.record is not None  # set once built
        return self.record.raised

    # --- the count --------------------------------------------------------------------

    def count(self, rank: Rank) -> RankCount:
        """``rank``'s four cards as the judge accounts for them."""
        judge, view = self.judge, self.view
        mine = {slot for slot, _ in view.hand(judge)} if judge is not None else set()
        in_hand = discarded = shown = 0
        for slot, face in enumerate(self._known):
            if face is None or face.rank != rank:
                continue
            if slot in mine:
                in_hand += 1
            elif judge is not None and slot % SEATS == judge:
                discarded += 1
            else:
                shown += 1
        claimed = sum(self._unknown(claim) for claim in view.claims
                      if claim.rank == rank and claim.seat != judge)
        return RankCount(rank, in_hand, discarded, shown, claimed)

    def _unknown(self, claim: Claim) -> int:
        return sum(1 for slot in claim.slots if self._known[slot] is None)

    # --- beliefs ----------------------------------------------------------------------

    def chance_true(self, claim: Claim) -> float:
        """How likely every card of ``claim`` (one of the view's claims) is of its rank."""
        known = [self._known[slot] for slot in claim.slots]
        if any(face is not None and face.rank != claim.rank for face in known):
            return 0.0
        if all(face is not None for face in known):
            return 1.0
        index = self.view.claims.index(claim)
        table = self._table(claim.rank)
        if self._unknown(claim) > table.unseen or claim.seat not in table.outcomes:
            return 0.0
        bit = self._bit(claim.rank, claim.seat, index)
        rows, size = table.outcomes[claim.seat], table.sizes[claim.seat]
        rest = self._rest(table, (claim.seat,))
        total = _dot(table.totals[claim.seat], rest, table.unseen)
        return _dot(_weights(rows, size, bit), rest, table.unseen) / total if total > 0 else 0.0

    def chance_holds(self, seat: int, rank: Rank) -> float:
        """How likely ``seat`` holds at least one card of ``rank`` in its hand now."""
        return 1.0 - self.holding(seat, rank)[0]

    def holding(self, seat: int, rank: Rank) -> list[float]:
        """The chances that ``seat`` holds 0, 1, ... 4 cards of ``rank`` in its hand now."""
        out = [0.0] * (OF_A_RANK + 1)
        for (_, left), chance in self.dealt_and_held(seat, rank).items():
            out[left] += chance
        return out

    def dealt_and_held(self, seat: int, rank: Rank) -> dict[tuple[int, int], float]:
        """The chances of (cards of ``rank`` ``seat`` was dealt among the slots this belief
        has not seen, of those the ones still in its hand): all the rank it knows of that we
        do not, and what it could shed of it now."""
        key = (seat, rank)
        found = self._held.get(key)
        if found is not None:
            return found
        out: dict[tuple[int, int], float] = {}
        table = self._table(rank)
        if seat == self.judge:
            held = sum(1 for _, face in self.view.hand(seat) if face is not None and face.rank == rank)
            out[(0, held)] = 1.0
        elif seat not in table.outcomes:
            out[(0, 0)] = 1.0
        else:
            rest = self._rest(table, (seat,))
            size = table.sizes[seat]
            for dealt, rows in enumerate(table.outcomes[seat]):
                others = rest[table.unseen - dealt] if dealt <= table.unseen else 0.0
                if others == 0.0:
                    continue
                for weight, _, left in rows:
                    out[(dealt, left)] = out.get((dealt, left), 0.0) + comb(size, dealt) * weight * others
            total = sum(out.values())
            out = {k: w / total for k, w in out.items()} if total > 0 else {(0, 0): 1.0}
        self._held[key] = out
        return out

    def chance_believed(self, judge: int | None, knows: int, seat: int, rank: Rank, count: int,
                        lead: bool, raised: bool = False) -> float:
        """How likely ``judge``, who knows ``knows`` cards of ``rank`` this belief has not
        seen (in his hand or his discards) and no more than it otherwise, finds true a claim
        of ``count`` × ``rank`` that ``seat`` would make now. ``judge=None``: as this belief
        itself judges it."""
        chances = self.chances_believed(judge, seat, rank, count, lead, raised)
        return chances[knows] if knows < len(chances) else 0.0

    def chances_believed(self, judge: int | None, seat: int, rank: Rank, count: int, lead: bool,
                         raised: bool = False) -> list[float]:
        """:meth:`chance_believed` for every ``knows`` from 0 to the cards of the rank this
        belief has not seen, at once."""
        memo = (judge, seat, rank, count, lead, raised)
        found = self._believed.get(memo)
        if found is None:
            found = self._believe(judge, seat, rank, count, lead, raised)
            self._believed[memo] = found
        return found

    def _believe(self, judge: int | None, seat: int, rank: Rank, count: int, lead: bool,
                 raised: bool) -> list[float]:
        table = self._table(rank)
        if table.sizes[seat] <= 0:
            return [0.0] * (table.unseen + 1)
        key = (seat, rank, count, lead, raised)
        plan = self._plans.get(key)
        if plan is None:
            act = self._claim_act(len(self.view.claims), seat, count, lead, raised)
            bit = 1 << sum(1 for a in table.acts[seat] if a.count)
            rows = _plan_rows(table.outcomes[seat], act, self._by_seat[seat], bit,
                              max(0, table.in_hand[seat] - count))
            size = table.sizes[seat]
            plan = (_weights(rows, size, None), _weights(rows, size, bit))
            self._plans[key] = plan
        every, true = plan
        rest = self._rest(table, (seat,) if judge is None else (seat, judge))
        out: list[float] = []
        for knows in range(table.unseen + 1):
            unseen = table.unseen - knows
            total = kept = 0.0
            if count <= unseen:
                for dealt in range(min(unseen, len(every) - 1) + 1):
                    others = rest[unseen - dealt]
                    total += every[dealt] * others
                    kept += true[dealt] * others
            out.append(kept / total if total > 0 else 0.0)
        return out

    def _rest(self, table: _RankTable, skip: tuple[int, ...]) -> list[float]:
        """The weights of sharing 0..unseen cards of the rank among the seats not in ``skip``."""
        found = table.rest.get(skip)
        if found is None:
            found = _convolve_all([v for s, v in table.totals.items() if s not in skip],
                                  table.unseen)
            table.rest[skip] = found
        return found

    def _bit(self, rank: Rank, seat: int, index: int) -> int:
        """The bit of claim ``index`` among ``seat``'s unseen claims of ``rank``, in order."""
        before = sum(1 for c in self.view.claims[:index]
                     if c.seat == seat and c.rank == rank and self._unknown(c))
        return 1 << before

    def _table(self, rank: Rank) -> _RankTable:
        """For ``rank``: the unseen cards, each seat's unseen slots that can hold it (its
        discards claimed as other ranks excluded), and what each seat did about it."""
        table = self._ranks.get(rank)
        if table is not None:
            return table
        view, known = self.view, self._known
        unseen = OF_A_RANK - sum(1 for face in known if face is not None and face.rank == rank)
        slots = self._slots
        other = [0] * SEATS
        for claim, unknown in zip(view.claims, self._unknowns, strict=True):
            if claim.rank != rank:
                other[claim.seat] += unknown
        sizes = [slots[s] - other[s] for s in range(SEATS)]
        if sum(sizes) < unseen:  # more of the rank than fit outside other claims: some lied
            sizes = list(slots)
        # A seat's unseen cards outside its claims: its hand (or, out of the match, the hand
        # that left play unseen).
        in_hand = [slots[s] - self._in_claims[s] for s in range(SEATS)]
        table = _RankTable(unseen, sizes, in_hand, self._acts(rank))
        for s in range(SEATS):
            if sizes[s] > 0:
                rows = _seat_outcomes(table.acts[s], min(unseen, sizes[s]), self._by_seat[s],
                                      in_hand[s])
                table.outcomes[s] = rows
                table.totals[s] = _weights(rows, sizes[s], None)
        self._ranks[rank] = table
        return table

    def _acts(self, rank: Rank) -> list[list[_Act]]:
        """Each seat's unseen claims of ``rank`` and its passes on it, in order, weighed."""
        record = self.record
        assert record is not None  # set once built
        acts: list[list[_Act]] = [[] for _ in range(SEATS)]
        for index, claim in enumerate(self.view.claims):
            count = self._unknowns[index]
            if claim.rank != rank or count == 0:
                continue
            acts[claim.seat].append(self._claim_act(index, claim.seat, count, index in record.leads,
                                                    record.raised[index]))
        for order, seat, passed in record.passes:
            if passed == rank and seat != self.judge:
                acts[seat].append(_Act(order))
        for seat_acts in acts:
            seat_acts.sort(key=lambda act: act.order)
        return acts

    def _claim_act(self, index: int, seat: int, count: int, lead: bool, raised: bool) -> _Act:
        habits = self._by_seat[seat]
        if lead:
            held = _hand_at(self.view, seat, index)
            chose = tuple(_chose(true, held, habits.lead_cap) for true in range(count + 1))
            lie = habits.lead_bluff
        else:
            chose = (1.0,) * (count + 1)
            lie = habits.bluff
        honest = (habits.raised if raised else 1.0) * chose[count]
        return _Act(index, count, honest, lie, habits.more, chose)


@lru_cache(maxsize=4096)
def _chose(true: int, held: int, cap: float) -> float:
    """How much likelier a leader of ``held`` cards names a rank he holds ``true`` of than
    any rank: the rarer such a group, the likelier he led it because he had it."""
    if true == 0:
        return 1.0
    could = _at_least(true, 52, OF_A_RANK, held)
    return min(cap, 1 / could) if could > 0 else cap


def _hand_at(view: BluffState, seat: int, index: int) -> int:
    """Cards ``seat`` held when claim ``index`` was made (13 less its discards that stayed down)."""
    gone = sum(c.count for c in view.claims[:index] if c.seat == seat and c.honest is not False)
    return max(1, 13 - gone)


def _seat_outcomes(acts: Sequence[_Act], most: int, habits: Habits, in_hand: int) -> _Outcomes:
    """For 0..``most`` cards of the rank dealt to a seat, every way its claims could have been
    true or not (each weighed by how likely the seat was to act so), with the cards left in
    its hand (at most ``in_hand``).

    A claim that is not true holds as many true cards as the seat could spare (at most one
    fewer than it claims: padding), the rest false; holding enough to tell the truth and
    lying anyway is rare (``able_bluff``)."""
    table: _Outcomes = [[(1.0, 0, dealt)] for dealt in range(most + 1)]
    bit = 1
    for act in acts:
        table = [_extend(rows, act, habits, bit) for rows in table]
        if act.count:
            bit <<= 1
    return [[row for row in rows if row[2] <= in_hand] for rows in table]


def _extend(rows: list[tuple[float, int, int]], act: _Act, habits: Habits, bit: int
            ) -> list[tuple[float, int, int]]:
    """``rows`` (weight, true claims, cards left in hand) followed by ``act``: a pass, or a
    claim (bit ``bit``) either true or not."""
    out: list[tuple[float, int, int]] = []
    count = act.count
    for weight, mask, left in rows:
        if count == 0:
            out.append((weight * habits.pass_holding if left > 0 else weight, mask, left))
            continue
        if left >= count:
            out.append((weight * act.honest, mask | bit, left - count))
        true = min(left, count - 1)
        lie = weight * act.lie * act.more ** (count - true - 1) * act.chose[true]
        out.append((lie * habits.able_bluff if left >= count else lie, mask, left - true))
    return out


def _plan_rows(rows: _Outcomes, act: _Act, habits: Habits, bit: int, in_hand: int) -> _Outcomes:
    """A seat's outcomes ``rows`` followed by one more claim ``act`` (bit ``bit``), with at
    most ``in_hand`` cards of the rank left in its hand after it."""
    return [[row for row in _extend(table, act, habits, bit) if row[2] <= in_hand] for table in rows]


def _weights(rows: _Outcomes, size: int, bit: int | None, held: int | None = None) -> list[float]:
    """Per cards dealt: its prior count of deals times the weight of the outcomes kept (those
    with claim ``bit`` true, or with ``held`` cards of the rank left in hand)."""
    out: list[float] = []
    for dealt, table in enumerate(rows):
        kept = 0.0
        for weight, mask, left in table:
            if (bit is None or mask & bit) and (held is None or left == held):
                kept += weight
        out.append(comb(size, dealt) * kept if kept else 0.0)
    return out


def _dot(weights: Sequence[float], rest: Sequence[float], total: int) -> float:
    """The weight of sharing ``total`` cards: some to one seat (``weights``), the rest to the
    others (``rest``)."""
    return sum(w * rest[total - dealt] for dealt, w in enumerate(weights[:total + 1]))


def _convolve_all(vectors: Sequence[Sequence[float]], total: int) -> list[float]:
    """The weight of every way to share out 0..``total`` cards, one vector per seat."""
    acc = [1.0] + [0.0] * total
    for vector in vectors:
        nxt = [0.0] * (total + 1)
        for have, w in enumerate(acc):
            if w == 0.0:
                continue
            for dealt, v in enumerate(vector):
                if have + dealt > total:
                    break
                nxt[have + dealt] += w * v
        acc = nxt
    return acc


@lru_cache(maxsize=4096)
def _at_least(k: int, population: int, successes: int, draws: int) -> float:
    """P(X >= k) for X hypergeometric: ``draws`` from ``population`` holding ``successes``."""
    total = comb(population, draws)
    if total == 0:
        return 0.0
    return sum(comb(successes, i) * comb(population - successes, draws - i)
               for i in range(k, min(successes, draws) + 1)) / total


__all__ = ["Habits", "RankCount", "TableBelief", "OF_A_RANK"]
