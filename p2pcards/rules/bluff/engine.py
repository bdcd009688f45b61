"""The Bluff referee: one state machine that every peer runs on its own view.

The state knows the table (stacks, safe box, the stake on the table, the
named rank, who holds which *slots*) in full, and card faces only where its
owner may know them. Every public rule is refereed from slots alone, so a
peer that sees only its own hand checks every other seat's actions; a
``Reveal`` supplies the faces of a challenged discard when the cryptography
opens them. The rules are those of ``RULES.md``.

Why a match always ends. Within one deal, every step either moves at least
one chip into the safe box (a pass, a lost challenge, a caught bluff; the
payer always has a chip, since a seat that has none is out) or takes at
least one card out of a hand for good (a discard, which is never taken back
unless a caught bluff pays for it). Chips outside the safe box only come
back when the deal ends, so a deal lasts at most about ``2 × (53 × total
chips + 52)`` actions. The deal cap (default 20) then bounds the match. With
``deal_cap=None`` each deal is still bounded, but a run of deals in which
nobody ever pays could in principle go on: such a table relies on players
running out of chips, which random play does with probability one.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import cast

from p2pcards.cards import FULL_DECK, Card, Rank
from p2pcards.rules.bluff.actions import Challenge, Discard, Pass, Reveal
from p2pcards.rules.bluff.errors import (
    AlreadyRevealed,
    DiscardCount,
    DuplicateSlots,
    LeaderMustDiscard,
    NothingToChallenge,
    RankRequired,
    RevealCount,
    StakeAboveStack,
    StakeTooLow,
    WrongRank,
)
from p2pcards.rules.bluff.events import (
    BluffOutcome,
    Challenged,
    ChallengeResolved,
    DealWon,
    Discarded,
    Event,
    Passed,
    PlayerOut,
    RoundEnded,
    StakeReturned,
)
from p2pcards.rules.bluff.facts import _HAND, _OUT, _PILE, _UNDEALT, BluffFacts, _is_int, _is_seat, _resolved
from p2pcards.rules.bluff.model import DECK_SIZE, BluffConfig, Claim, Phase
from p2pcards.rules.errors import (
    BadAction,
    BadDeal,
    CardMismatch,
    DealNotAwaited,
    MatchOver,
    NotYourCard,
    NotYourTurn,
    WrongPhase,
)
from p2pcards.rules.referee import Referee
from p2pcards.rules.seats import SEATS
from p2pcards.rules.shared import HandDealt, MatchEnded, Termination, faces_for_hands

_ACTION_TYPES = (Discard, Pass, Challenge, Reveal)


class BluffState(BluffFacts):
    """A Bluff match: the referee and, redacted by :meth:`view`, a seat's knowledge.

    ``apply`` is the only way the game moves; it validates completely before
    it changes anything, so a refused action leaves the state as it was.
    Two states are equal when every field is (a replay gives an equal state).
    """

    DEAL_PHASE = Phase.DEAL
    __slots__ = ()

    # --- construction ---------------------------------------------------------

    @classmethod
    def new(cls, config: BluffConfig | None = None, leader: int = 0) -> BluffState:
        """A match before its first deal; ``leader`` (from a joint draw) opens it."""
        if config is not None and not isinstance(config, BluffConfig):
            raise TypeError(f"a Bluff table needs a BluffConfig, not {type(config).__name__}")
        if not _is_seat(leader):
            raise BadAction(None, f"no seat {leader!r} to lead")
        state = object.__new__(cls)
        Referee.__init__(state, config if config is not None else BluffConfig(), Phase.DEAL)
        state._leader = leader
        state._challenger = None
        state._stacks = [_resolved(state._config.starting_chips)] * SEATS
        state._out = [False] * SEATS
        state._safe_box = 0
        state._table_stake = 0
        state._pending = None
        state._named_rank = None
        state._round_stake = 0
        state._faces = [None] * DECK_SIZE
        state._where = [_UNDEALT] * DECK_SIZE
        state._hands = [()] * SEATS
        state._claims = []
        state._round_start = 0
        state._deal_number = 0
        state._deals_won = 0
        return state

    @classmethod
    def position(cls, config: BluffConfig | None = None, *, first: int = 0,
                 hands: Mapping[int, Sequence[Card]] | Sequence[Sequence[Card]] | None = None,
                 standings: Sequence[int] | None = None, deals: int = 0,
                 safe_box: int = 0) -> BluffState:
        """A match partway through, from chosen facts (for tests and analysis).

        ``standings`` are the chips in front of each seat (a seat with none is
        out of the match); ``safe_box`` the chips in the safe box; ``deals``
        the deals already won; ``first`` the leader. Without ``hands`` the
        deal is awaited; with them (seat → cards, the rest filled in deck
        order, as :func:`~p2pcards.rules.shared.faces_for_hands`) the deck
        is dealt and ``first`` is to lead.
        """
        state: BluffState = cls.new(config, first)
        cfg = state._config
        if standings is not None:
            chips = tuple(standings)
            if len(chips) != SEATS or not all(_is_int(c) and c >= 0 for c in chips):
                raise ValueError(f"standings are {SEATS} counts of chips, not {standings!r}")
            if sum(1 for c in chips if c > 0) < 2:
                raise ValueError("a match in play has at least two players with chips")
            if chips[first] == 0:
                raise ValueError(f"seat {first} has no chips and cannot lead")
            state._stacks = list(chips)
            state._out = [c == 0 for c in chips]
        if not _is_int(safe_box) or safe_box < 0:
            raise ValueError(f"the safe box holds a number of chips, not {safe_box!r}")
        if not _is_int(deals) or deals < 0 or (cfg.deal_cap is not None and deals >= cfg.deal_cap):
            raise ValueError(f"{deals!r} deals won: not a match still in play")
        state._safe_box = safe_box
        state._deal_number = state._deals_won = deals
        if hands is not None:
            state.deal(faces_for_hands(hands, FULL_DECK))
        return state

    def copy(self) -> BluffState:
        state: BluffState = object.__new__(BluffState)
        for name in self.all_slots():
            value = getattr(self, name)
            setattr(state, name, list(value) if isinstance(value, list) else value)
        return state


    def view(self, seat: int) -> BluffState:
        """A copy holding only what ``seat`` may know: its own slots and revealed discards."""
        if not _is_seat(seat):
            raise BadAction(None, f"no seat {seat!r} to view for")
        state: BluffState = self.copy()
        state._viewer = seat
        shown = {slot for slot, _ in self.revealed}
        state._faces = [face if (p % SEATS == seat or p in shown) else None
                        for p, face in enumerate(self._faces)]
        return state

    def determinize(self, rng: random.Random) -> BluffState:
        """A complete state: every unknown face drawn from the cards this state has not seen.

        Nothing but the known faces constrains the others in Bluff: claims
        may be lies, and cards never move between seats.
        """
        state: BluffState = self.copy()
        state._viewer = None
        if self._deal_number == 0:
            return state
        known = set(face for face in self._faces if face is not None)
        unseen = [card for card in FULL_DECK if card not in known]
        rng.shuffle(unseen)
        fill = iter(unseen)
        state._faces = [face if face is not None else next(fill) for face in self._faces]
        return state

    def deal(self, faces: Sequence[Card | None]) -> tuple[Event, ...]:
        """Deal a shuffled deck: ``faces[p]`` (or ``None``, unknown here) goes to seat ``p % 4``.

        Seats already out of the match are dealt too (the deck is always
        dealt whole) and their cards leave play at once, unseen.
        """
        if self._outcome is not None:
            raise MatchOver(None, "the match is over; no more deals")
        if self._phase is not Phase.DEAL:
            raise DealNotAwaited(None, f"a deal is in play ({self._phase.value})")
        try:
            faces = list(faces)
        except TypeError:
            raise BadDeal(None, "the deal must be a sequence of 52 faces") from None
        if len(faces) != DECK_SIZE:
            raise BadDeal(None, f"a deal has {DECK_SIZE} slots, not {len(faces)}")
        if any(face is not None and not isinstance(face, Card) for face in faces):
            raise BadDeal(None, "every face must be a Card or None")
        known = [face for face in faces if face is not None]
        if len(set(known)) != len(known):
            raise BadDeal(None, "a card appears in two slots")

        # A view keeps only its own seat's faces of what it is given, like Topper's.
        viewer = self._viewer
        self._faces = [face if viewer is None or p % SEATS == viewer else None
                       for p, face in enumerate(faces)]
        self._where = [_OUT if self._out[p % SEATS] else _HAND for p in range(DECK_SIZE)]
        self._hands = [() if self._out[s] else tuple(range(s, DECK_SIZE, SEATS))
                       for s in range(SEATS)]
        self._claims = []
        self._deal_number += 1
        self._start_round(self._leader)
        return (HandDealt(self._deal_number, self._leader),)

    # --- actions ------------------------------------------------------------------

    def check(self, action: object) -> None:
        """Raise exactly what :meth:`apply` would for ``action``; change nothing."""
        if not isinstance(action, _ACTION_TYPES):
            raise BadAction(None, f"not a Bluff action: {type(action).__name__}")
        seat = action.seat
        if not _is_seat(seat):
            raise BadAction(None, f"no seat {seat!r}")
        if self._outcome is not None:
            raise MatchOver(seat, "the match is over")
        if self._phase is Phase.DEAL:
            raise WrongPhase(seat, "a deal is awaited; nobody acts")
        if seat != self._to_act:
            raise NotYourTurn(seat, f"seat {self._to_act} is to act")
        if self._phase is Phase.REVEAL:
            if not isinstance(action, Reveal):
                raise WrongPhase(seat, "your discard was challenged: reveal it")
            self._check_reveal(action)
        elif isinstance(action, Discard):
            self._check_discard(action)
        elif isinstance(action, Reveal):
            raise WrongPhase(seat, "nothing was challenged")
        elif self._phase is Phase.LEAD:
            if isinstance(action, Pass):
                raise LeaderMustDiscard(seat, "the leader must discard, not pass")
            raise NothingToChallenge(seat, "no discard is on the table")
        elif isinstance(action, Challenge) and self._claims[-1].revealed:
            raise AlreadyRevealed(seat, "that discard was already shown honest")

    def _check_discard(self, action: Discard) -> None:
        seat, slots = action.seat, action.slots
        if not isinstance(slots, tuple) or not all(_is_int(s) for s in slots):
            raise BadAction(seat, "slots must be a tuple of integers")
        if not 1 <= len(slots) <= self._config.max_discard:
            raise DiscardCount(seat, f"discard 1 to {self._config.max_discard} cards, "
                                     f"not {len(slots)}")
        if len(set(slots)) != len(slots):
            raise DuplicateSlots(seat, "a slot is named twice")
        for slot in slots:
            if not 0 <= slot < DECK_SIZE:
                raise BadAction(seat, f"no slot {slot}")
            if slot % SEATS != seat or self._where[slot] != _HAND:
                raise NotYourCard(seat, f"slot {slot} is not in your hand")
        rank = action.rank
        if rank is not None and not isinstance(rank, Rank):
            raise BadAction(seat, f"not a rank: {rank!r}")
        if self._phase is Phase.LEAD:
            if rank is None:
                raise RankRequired(seat, "the leader must name a rank")
        elif rank is not None and rank != self._named_rank:
            named = self._named_rank.label  # type: ignore[union-attr]
            raise WrongRank(seat, f"the rank of this round is {named}, not {rank.label}")
        stake = action.stake
        if not _is_int(stake):
            raise BadAction(seat, f"a stake is a number of chips, not {stake!r}")
        low = self.min_stake_for(seat)
        if stake < low:
            raise StakeTooLow(seat, f"stake at least {low}, not {stake}")
        if stake > self._stacks[seat]:
            raise StakeAboveStack(seat, f"you have {self._stacks[seat]} chips, "
                                        f"not {stake}")

    def _check_reveal(self, action: Reveal) -> None:
        seat, faces = action.seat, action.faces
        claim = self._claims[-1]
        if not isinstance(faces, tuple) or not all(isinstance(f, Card) for f in faces):
            raise BadAction(seat, "faces must be a tuple of cards")
        if len(faces) != claim.count:
            raise RevealCount(seat, f"the discard has {claim.count} cards, "
                                    f"{len(faces)} shown")
        if len(set(faces)) != len(faces):
            raise CardMismatch(seat, "one card shown for two slots")
        # Messages name slots only: a face we know may be a secret of our own hand.
        for slot, face in zip(claim.slots, faces, strict=False):
            known = self._faces[slot]
            if known is not None:
                if known != face:
                    raise CardMismatch(seat, f"slot {slot} does not hold the card shown")
            elif face in self._faces:
                raise CardMismatch(seat, f"the card shown for slot {slot} is known "
                                         f"to be elsewhere")

    def apply(self, action: object) -> tuple[Event, ...]:
        """Play ``action`` and return what happened; refused actions raise and change nothing."""
        self.check(action)
        events: list[Event] = []
        if isinstance(action, Discard):
            self._discard(action, events)
        elif isinstance(action, Pass):
            self._pass(action.seat, events)
        elif isinstance(action, Challenge):
            self._challenger = action.seat
            self._phase = Phase.REVEAL
            self._to_act = self._pending
            events.append(Challenged(action.seat, self._pending))  # type: ignore[arg-type]
        else:  # check() admits only the four action types
            self._reveal(cast(Reveal, action), events)
        return tuple(events)

    # --- transitions (called only after a successful check) -----------------------

    def _discard(self, action: Discard, events: list[Event]) -> None:
        seat, slots, stake = action.seat, action.slots, action.stake
        lead = self._phase is Phase.LEAD
        if lead:
            self._named_rank = action.rank
        previous = self._pending
        if previous is not None:
            self._return_stake(events)
        self._stacks[seat] -= stake
        self._table_stake = stake
        self._pending = seat
        self._round_stake = max(self._round_stake, stake)
        for slot in slots:
            self._where[slot] = _PILE
        self._hands[seat] = tuple(s for s in self._hands[seat] if s not in slots)
        rank: Rank = self._named_rank  # type: ignore[assignment]
        self._claims.append(Claim(seat, slots, rank, stake))
        events.append(Discarded(seat, slots, rank, stake, lead))
        if previous is not None and not self._hands[previous]:
            # The next player's discard accepted an empty-handed discarder's last cards.
            self._win_deal(previous, events)
        else:
            self._advance(seat, events)

    def _pass(self, seat: int, events: list[Event]) -> None:
        paid = self._pay(seat, _resolved(self._config.pass_price))
        events.append(Passed(seat, paid))
        if self._stacks[seat] == 0 and self._eliminate(seat, events):
            return
        self._advance(seat, events)

    def _reveal(self, action: Reveal, events: list[Event]) -> None:
        claim = self._claims[-1]
        faces = action.faces
        for slot, face in zip(claim.slots, faces, strict=False):
            self._faces[slot] = face
        self._claims[-1] = replace(claim, faces=faces)
        challenger, discarder = self._challenger, self._pending
        if challenger is None or discarder is None:  # pragma: no cover - check() admits no such reveal
            raise RuntimeError("a reveal without a challenged discard")
        self._challenger = None
        if not self._claims[-1].honest:
            paid = self._table_stake
            self._safe_box += paid
            self._table_stake = 0
            self._pending = None
            for slot in claim.slots:
                self._where[slot] = _HAND
            self._hands[discarder] = tuple(sorted(self._hands[discarder] + claim.slots))
            events.append(ChallengeResolved(challenger, discarder, True, faces, discarder, paid))
            if self._stacks[discarder] == 0 and self._eliminate(discarder, events):
                return
            self._start_round(challenger, events)
            return
        paid = self._pay(challenger, claim.stake)
        events.append(ChallengeResolved(challenger, discarder, False, faces, challenger, paid))
        if self._stacks[challenger] == 0 and self._eliminate(challenger, events):
            return
        if not self._hands[discarder]:
            self._win_deal(discarder, events)
        else:
            self._advance(challenger, events)

    def _pay(self, seat: int, amount: int) -> int:
        """Move ``amount`` (or all ``seat`` has, if less) into the safe box."""
        paid = min(amount, self._stacks[seat])
        self._stacks[seat] -= paid
        self._safe_box += paid
        return paid

    def _return_stake(self, events: list[Event]) -> None:
        seat, amount = self._pending, self._table_stake
        self._stacks[seat] += amount  # type: ignore[index]
        self._table_stake = 0
        self._pending = None
        events.append(StakeReturned(seat, amount))  # type: ignore[arg-type]

    def _advance(self, after: int, events: list[Event]) -> None:
        """Give the turn to the next seat in play after ``after``, or end the round
        when the turn comes back to the discarder with nobody discarding since."""
        discarder = self._pending
        for step in range(1, SEATS + 1):
            seat = (after + step) % SEATS
            if seat == discarder:
                break
            if not self._out[seat] and self._hands[seat]:
                self._phase = Phase.RESPOND
                self._to_act = seat
                return
        self._return_stake(events)
        if not self._hands[discarder]:  # type: ignore[index]
            self._win_deal(discarder, events)  # type: ignore[arg-type]
        else:
            self._start_round(discarder, events)  # type: ignore[arg-type]

    def _start_round(self, leader: int, events: list[Event] | None = None) -> None:
        """The pile leaves play unseen and ``leader`` opens a round."""
        gone = 0
        for slot, where in enumerate(self._where):
            if where == _PILE:
                self._where[slot] = _OUT
                gone += 1
        if events is not None:
            events.append(RoundEnded(leader, gone))
        self._round_start = len(self._claims)
        self._named_rank = None
        self._round_stake = 0
        self._leader = leader
        self._phase = Phase.LEAD
        self._to_act = leader

    def _clear_table(self) -> None:
        for slot, where in enumerate(self._where):
            if where in (_HAND, _PILE):
                self._where[slot] = _OUT
        self._hands = [()] * SEATS
        self._named_rank = None
        self._round_stake = 0
        self._challenger = None

    def _win_deal(self, winner: int, events: list[Event]) -> None:
        if self._pending is not None:
            self._return_stake(events)
        box, self._safe_box = self._safe_box, 0
        self._stacks[winner] += box
        events.append(DealWon(winner, box))
        self._deals_won += 1
        self._clear_table()
        cap = self._config.deal_cap
        if cap is not None and self._deals_won >= cap:
            best = max(self._stacks)
            winners = tuple(s for s in range(SEATS) if self._stacks[s] == best)
            self._end_match(Termination.DEAL_CAP, winners, events)
            return
        self._leader = winner
        self._phase = Phase.DEAL
        self._to_act = None

    def _eliminate(self, seat: int, events: list[Event]) -> bool:
        """Put ``seat`` (no chips left) out of the match; True if that ended the match."""
        self._out[seat] = True
        for slot in self._hands[seat]:
            self._where[slot] = _OUT
        self._hands[seat] = ()
        events.append(PlayerOut(seat))
        alive = [s for s in range(SEATS) if not self._out[s]]
        if len(alive) > 1:
            return False
        last = alive[0]
        # The survivor takes the safe box and any stake on the table: chips are conserved.
        self._stacks[last] += self._safe_box + self._table_stake
        self._safe_box = self._table_stake = 0
        self._pending = None
        self._clear_table()
        self._end_match(Termination.LAST_WITH_CHIPS, (last,), events)
        return True

    def _end_match(self, termination: Termination, winners: tuple[int, ...],
                   events: list[Event]) -> None:
        self._outcome = BluffOutcome(termination, winners, tuple(self._stacks), self._deals_won)
        self._phase = Phase.MATCH_OVER
        self._to_act = None
        events.append(MatchEnded(self._outcome))
