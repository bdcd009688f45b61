"""What a Topper state knows and lets its seat do, read-only: the facts half of the referee.

:class:`TopperFacts` holds the state's fields and answers every question
about them (scores, bids, tricks, hands by slot, voids, the public record,
the choices of the seat to act) without changing anything;
:class:`~.engine.TopperState` adds the moves (``deal``, ``check``,
``apply``) on top. Kept apart so each half stays small enough to read at once.
"""

from __future__ import annotations

from collections.abc import Iterator

from p2pcards.cards import Card, Suit
from p2pcards.rules.errors import BadAction, FacesUnknown
from p2pcards.rules.referee import Referee
from p2pcards.rules.shared import Held
from p2pcards.rules.topper.actions import Bid, NameTrump, PassBid, Play, TopperAction
from p2pcards.rules.topper.events import TopperOutcome, TrickWon
from p2pcards.rules.topper.model import Phase, TopperConfig, TopperOptions, TopperPublic, _is_int
from p2pcards.rules.topper.order import effective_suit


class TopperFacts(Referee[TopperConfig, Phase, TopperOutcome]):
    """The fields of a Topper state and everything read from them (base of ``TopperState``)."""

    __slots__ = (
        "_dealer", "_hand_number", "_hands_scored", "_scores",
        "_faces", "_in_hand", "_bids", "_bidder", "_high_bid", "_trump", "_trick",
        "_tricks", "_taken", "_voids", "_deck_set",
    )
    _dealer: int
    _hand_number: int
    _hands_scored: int
    _scores: list[int]
    #: Face of each slot of the deal, None where unknown here.
    _faces: list[Card | None]
    #: Whether each slot is still in its seat's hand.
    _in_hand: list[bool]
    #: ``(seat, tricks)`` in bidding order; ``tricks`` None for a pass.
    _bids: list[tuple[int, int | None]]
    _bidder: int | None
    _high_bid: int
    _trump: Suit | None
    #: ``(seat, slot, card)`` of the trick in progress.
    _trick: list[tuple[int, int, Card]]
    _tricks: list[TrickWon]
    _taken: list[int]
    #: Per seat: effective suit shown void -> (trick, card played instead).
    _voids: list[dict[Suit, tuple[int, Card]]]
    _deck_set: frozenset[Card]

    # ------------------------------------------------------------ public facts
    # Read-only, so that no caller can bend a referee's state behind its back.

    @property
    def dealer(self) -> int:
        return self._dealer

    @property
    def hand_number(self) -> int:
        """Deals made so far, thrown-in ones included (1 during the first hand)."""
        return self._hand_number

    @property
    def hands_scored(self) -> int:
        return self._hands_scored

    @property
    def scores(self) -> tuple[int, ...]:
        return tuple(self._scores)

    @property
    def bids(self) -> tuple[tuple[int, int | None], ...]:
        return tuple(self._bids)

    @property
    def bidder(self) -> int | None:
        return self._bidder

    @property
    def high_bid(self) -> int | None:
        return self._high_bid or None

    @property
    def trump(self) -> Suit | None:
        return self._trump

    @property
    def current_trick(self) -> tuple[tuple[int, Card], ...]:
        return tuple((s, c) for s, _, c in self._trick)

    @property
    def led_suit(self) -> Suit | None:
        """The effective suit of the trick in progress, once it is led."""
        return effective_suit(self._trick[0][2], self._trump) if self._trick else None

    @property
    def tricks(self) -> tuple[TrickWon, ...]:
        """The tricks completed this hand (kept until the next deal)."""
        return tuple(self._tricks)

    @property
    def tricks_taken(self) -> tuple[int, ...]:
        return tuple(self._taken)

    @property
    def played_cards(self) -> tuple[Card, ...]:
        """Every card played face up this hand, in order."""
        done = [c for t in self._tricks for _, c in t.plays]
        return tuple(done) + tuple(c for _, _, c in self._trick)

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        n = self.config.seats
        sizes = [0] * n
        for p, held in enumerate(self._in_hand):
            if held:
                sizes[p % n] += 1
        return tuple(sizes)

    def hand(self, seat: int) -> tuple[Held, ...]:
        """``(slot, face)`` of ``seat``'s unplayed cards; the face is None where unknown here."""
        self._require_seat(seat)
        return tuple(
            Held(p, self._faces[p])
            for p in range(seat, len(self._faces), self.config.seats)
            if self._in_hand[p]
        )

    def voids(self, seat: int) -> frozenset[Suit]:
        """The effective suits ``seat`` has shown it lacks this hand."""
        self._require_seat(seat)
        return frozenset(self._voids[seat])

    def public(self) -> TopperPublic:
        """Everything every seat knows: what two honest referees must agree on."""
        return TopperPublic(
            phase=self._phase,
            dealer=self._dealer,
            to_act=self._to_act,
            hand_number=self._hand_number,
            hands_scored=self._hands_scored,
            scores=self.scores,
            bids=self.bids,
            bidder=self._bidder,
            high_bid=self.high_bid,
            trump=self._trump,
            current_trick=self.current_trick,
            tricks=self.tricks,
            tricks_taken=self.tricks_taken,
            hand_sizes=self.hand_sizes,
            voids=tuple(frozenset(v) for v in self._voids),
            outcome=self._outcome,
        )

    def _key(self) -> tuple[object, ...]:
        return (self.config, self.public(), tuple(self._faces), tuple(self._in_hand), self._viewer,
                tuple(tuple(sorted(v.items())) for v in self._voids))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TopperFacts):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        whose = "full" if self._viewer is None else f"view of seat {self._viewer}"
        return (f"<TopperState {whose} {self._phase.value} hand {self._hand_number} "
                f"dealer {self._dealer} to_act {self._to_act} scores {self._scores}>")

    # --------------------------------------------------------------- choices

    def options(self) -> TopperOptions | None:
        """The choices of ``to_act``, or ``None`` when nobody is to act.

        During play this needs the seat's faces (to know which follow): ask
        that seat's view, or the full state; a referee that cannot see them
        raises :class:`FacesUnknown`.
        """
        seat = self._to_act
        if seat is None:
            return None
        cfg = self.config
        hand = self.hand(seat)
        slots = tuple(h.slot for h in hand)
        low = max(self._high_bid + 1, cfg.min_bid)
        bidding = self._phase is Phase.BIDDING
        playable: tuple[int, ...] = ()
        if self._phase is Phase.PLAY:
            playable = tuple(h.slot for h in self._playable(seat, hand))
        return TopperOptions(
            seat=seat, phase=self._phase, hand=slots, can_pass=bidding,
            can_bid=bidding and low <= cfg.max_bid, min_bid=low, max_bid=cfg.max_bid,
            suits=tuple(Suit) if self._phase is Phase.TRUMP else (), playable=playable)

    def _playable(self, seat: int, held: tuple[Held, ...]) -> tuple[Held, ...]:
        if any(h.face is None for h in held):
            raise FacesUnknown(seat)
        led = self.led_suit
        if led is not None:
            following = tuple(h for h in held if effective_suit(h.face, self._trump) == led)  # type: ignore[arg-type]
            if following:
                return following
        return held

    def forced_action(self) -> TopperAction | None:
        """The action the rules leave ``to_act`` no choice about: never, in Topper
        (even a last card is the player's to play)."""
        return None

    def legal_actions(self) -> Iterator[TopperAction]:
        """Every action the seat to act may take, lazily (none while a deal is awaited or after the end).

        During play this needs the seat's faces: ask that seat's view, or
        the full state; a referee that cannot see them raises
        :class:`FacesUnknown`.
        """
        seat = self._to_act
        if seat is None:
            return
        if self._phase is Phase.BIDDING:
            low = max(self._high_bid + 1, self.config.min_bid)
            yield PassBid(seat)
            yield from (Bid(seat, t) for t in range(low, self.config.max_bid + 1))
            return
        if self._phase is Phase.TRUMP:
            yield from (NameTrump(seat, s) for s in Suit)
            return
        for slot, face in self._playable(seat, self.hand(seat)):
            yield Play(seat, slot, face)  # type: ignore[arg-type]

    def _require_seat(self, seat: int) -> None:
        if not _is_int(seat) or not 0 <= seat < self.config.seats:
            raise BadAction(None, f"no seat {seat!r} at this table")
