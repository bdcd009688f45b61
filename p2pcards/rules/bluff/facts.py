"""What a Bluff state knows and lets its seat do, read-only: the facts half of the referee.

:class:`BluffFacts` holds the state's fields and answers every question
about them (stacks, claims, hands by slot, the public record, the choices of
the seat to act) without changing anything; :class:`~.engine.BluffState`
adds the moves (``deal``, ``check``, ``apply``) on top. Kept apart so each
half stays small enough to read at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import combinations
from typing import TypeGuard

from p2pcards.cards import Card, Rank
from p2pcards.rules.bluff.actions import Action, Challenge, Discard, Pass, Reveal
from p2pcards.rules.bluff.errors import FacesUnknown
from p2pcards.rules.bluff.events import BluffOutcome
from p2pcards.rules.bluff.model import DECK_SIZE, BluffConfig, BluffOptions, BluffPublic, Claim, Phase
from p2pcards.rules.referee import Referee
from p2pcards.rules.seats import SEATS
from p2pcards.rules.shared import Held

# Where a slot of the current deal is. Public knowledge: actions name slots.
_UNDEALT, _HAND, _PILE, _OUT = 0, 1, 2, 3


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _resolved(value: int | None) -> int:
    """A config number ``BluffConfig`` resolved from its default (never None once built)."""
    if value is None:  # pragma: no cover - BluffConfig.__post_init__ resolves every default
        raise ValueError("an unresolved Bluff setting")
    return value


def _is_seat(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < SEATS


class BluffFacts(Referee[BluffConfig, Phase, BluffOutcome]):
    """The fields of a Bluff state and everything read from them (base of ``BluffState``)."""

    __slots__ = (
        "_leader", "_challenger",
        "_stacks", "_out", "_safe_box", "_table_stake", "_pending", "_named_rank", "_round_stake",
        "_faces", "_where", "_hands", "_claims", "_round_start", "_deal_number", "_deals_won",
    )
    _leader: int
    _challenger: int | None
    _stacks: list[int]
    _out: list[bool]
    _safe_box: int
    _table_stake: int
    _pending: int | None
    _named_rank: Rank | None
    _round_stake: int
    _faces: list[Card | None]
    _where: list[int]
    _hands: list[tuple[int, ...]]
    _claims: list[Claim]
    _round_start: int
    _deal_number: int
    _deals_won: int

    # --- public information ---------------------------------------------------

    @property
    def leader(self) -> int:
        """Who leads the current round (or, while a deal is awaited, the next deal)."""
        return self._leader

    @property
    def challenger(self) -> int | None:
        """Who called the discard now being revealed."""
        return self._challenger

    @property
    def safe_box(self) -> int:
        return self._safe_box

    @property
    def table_stake(self) -> int:
        """The stake of the discard awaiting acceptance (0 when none is)."""
        return self._table_stake

    @property
    def named_rank(self) -> Rank | None:
        """The rank every discard of this round claims (``None`` before the lead)."""
        return self._named_rank

    @property
    def round_stake(self) -> int:
        """The largest stake of this round."""
        return self._round_stake

    @property
    def deal_number(self) -> int:
        """How many deals were dealt in this match."""
        return self._deal_number

    @property
    def deals_won(self) -> int:
        return self._deals_won

    @property
    def stacks(self) -> tuple[int, ...]:
        """Chips in front of each seat (a stake on the table is not counted)."""
        return tuple(self._stacks)

    @property
    def out(self) -> tuple[bool, ...]:
        """Which seats are out of the match."""
        return tuple(self._out)

    @property
    def discarder(self) -> int | None:
        """The seat whose discard awaits acceptance (its stake is on the table)."""
        return self._pending

    @property
    def last_claim(self) -> Claim | None:
        """The discard on the table (the only one that can be challenged)."""
        return self._claims[-1] if self._pending is not None else None

    @property
    def claims(self) -> tuple[Claim, ...]:
        """Every discard of this deal, in order, with the faces of those revealed."""
        return tuple(self._claims)

    @property
    def round_claims(self) -> tuple[Claim, ...]:
        return tuple(self._claims[self._round_start:])

    def hand(self, seat: int) -> tuple[Held, ...]:
        """``(slot, face)`` of ``seat``'s cards; the face is None where unknown here.

        The slots are public (every action names slots); the faces are this
        engine's knowledge.
        """
        if not _is_seat(seat):
            raise IndexError(f"no seat {seat!r}")
        return tuple(Held(p, self._faces[p]) for p in self._hands[seat])

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        return tuple(len(h) for h in self._hands)

    @property
    def pile(self) -> tuple[int, ...]:
        """Slots face down on the table this round."""
        return tuple(p for p, w in enumerate(self._where) if w == _PILE)

    @property
    def out_of_play(self) -> tuple[int, ...]:
        """Slots that left play unseen or seen: old piles, hands of seats out."""
        return tuple(p for p, w in enumerate(self._where) if w == _OUT)

    def face(self, slot: int) -> Card | None:
        """The card at ``slot`` if this state knows it, else ``None``."""
        if not isinstance(slot, int) or isinstance(slot, bool) or not 0 <= slot < DECK_SIZE:
            raise IndexError(f"no slot {slot!r}")
        return self._faces[slot]

    @property
    def revealed(self) -> tuple[tuple[int, Card], ...]:
        """(slot, card) of every discard a challenge opened this deal."""
        return tuple(pair for claim in self._claims if claim.faces is not None
                     for pair in zip(claim.slots, claim.faces, strict=False))

    def min_stake_for(self, seat: int) -> int:
        """The least stake ``seat`` may put on a discard now.

        The leader owes the table minimum, or his whole stack if he has less;
        a responder owes at least the table minimum and the round's stake.
        """
        if self._phase is Phase.LEAD:
            return min(_resolved(self._config.min_stake), self._stacks[seat])
        return max(_resolved(self._config.min_stake), self._round_stake)

    def snapshot(self) -> tuple[object, ...]:
        """Everything the state holds, as a comparable value."""
        return (self.public(), tuple(self._faces), self._viewer, self._config)

    def public(self) -> BluffPublic:
        """Everything every seat knows: what two honest referees must agree on."""
        return BluffPublic(
            phase=self._phase, to_act=self._to_act, outcome=self._outcome,
            leader=self._leader, challenger=self._challenger, stacks=self.stacks,
            out=self.out, safe_box=self._safe_box, table_stake=self._table_stake,
            discarder=self._pending, named_rank=self._named_rank,
            round_stake=self._round_stake, hands=tuple(self._hands), pile=self.pile,
            out_of_play=self.out_of_play, claims=self.claims, round_start=self._round_start,
            deal_number=self._deal_number, deals_won=self._deals_won)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BluffFacts):
            return NotImplemented
        return self.snapshot() == other.snapshot()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        # No faces here: a repr ends up in logs.
        return (f"BluffState(phase={self._phase.name}, to_act={self._to_act}, "
                f"stacks={self._stacks}, safe_box={self._safe_box}, "
                f"table_stake={self._table_stake}, viewer={self._viewer})")

    # --- views ----------------------------------------------------------------

    # --- the seat to act ------------------------------------------------------

    def options(self) -> BluffOptions | None:
        """The choices of ``to_act``, or ``None`` when nobody is to act."""
        seat = self._to_act
        if seat is None:
            return None
        hand = self._hands[seat]
        if self._phase is Phase.REVEAL:
            return BluffOptions(seat, self._phase, hand, False, False, False, False, True,
                                self._named_rank, 0, 0, self._config.max_discard,
                                self._claims[-1].slots)
        lead = self._phase is Phase.LEAD
        low, high = self.min_stake_for(seat), self._stacks[seat]
        return BluffOptions(
            seat, self._phase, hand,
            can_pass=not lead,
            can_challenge=not lead and not self._claims[-1].revealed,
            can_discard=bool(hand) and low <= high,
            must_lead=lead, must_reveal=False, rank=self._named_rank,
            min_stake=low, max_stake=high, max_discard=self._config.max_discard)

    def forced_action(self) -> Action | None:
        """The action the rules leave ``to_act`` no choice about, if any: revealing a
        called discard. A front end plays it without asking; a referee that does not
        know the faces raises :class:`FacesUnknown`."""
        opts = self.options()
        if opts is None or not opts.must_reveal:
            return None
        return next(self.legal_actions())

    def legal_actions(self, stakes: Iterable[int] | None = None) -> Iterator[Action]:
        """Every legal action of ``to_act``, lazily; discards at each of ``stakes``.

        ``stakes=None`` means the minimum stake only (the space of stakes is
        large and the minimum is what most choices differ by). A reveal needs
        the discarder's faces: asking an engine that lacks them raises
        :class:`FacesUnknown`.
        """
        opts = self.options()
        if opts is None:
            return
        seat = opts.seat
        if opts.must_reveal:
            faces = tuple(self._faces[slot] for slot in opts.reveal_slots)
            if any(face is None for face in faces):
                raise FacesUnknown(seat, "challenged discard")
            yield Reveal(seat, faces)  # type: ignore[arg-type]
            return
        if opts.can_pass:
            yield Pass(seat)
        if opts.can_challenge:
            yield Challenge(seat)
        if not opts.can_discard:
            return
        if stakes is None:
            values = [opts.min_stake]
        else:
            values = [s for s in dict.fromkeys(stakes)
                      if _is_int(s) and opts.min_stake <= s <= opts.max_stake]
        ranks = list(Rank) if opts.must_lead else [opts.rank]
        for count in range(1, min(opts.max_discard, len(opts.hand)) + 1):
            for slots in combinations(opts.hand, count):
                for rank in ranks:
                    for stake in values:
                        yield Discard(seat, slots, stake, rank)

    # --- the deal ---------------------------------------------------------------
