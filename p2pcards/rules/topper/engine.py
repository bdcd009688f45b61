"""The Topper referee: one state machine that every peer runs, knowing only what it may know.

The same class is the full simulation (every face known), a seat's view (its
own faces and the cards played) and a peer's referee (which *is* its view,
kept up to date by ``apply``). Cards are named by deal slot, so an engine
that does not know a face still referees bidding, turns, trick winners and
scores. What it cannot see it checks as soon as the cards prove it: a seat
that fails to follow is remembered as void in the led suit, and a later card
of that suit from the same seat is a :class:`Renege`.

Why a match ends, and within how many steps
    One deal takes at most ``config.max_steps_per_deal`` steps (30 in the
    default game: the deal, four bidding turns, trump, 24 cards). The rules
    of the table do not force an end by themselves: four seats that always
    pass throw in for ever, and a bidder who falls short *loses* his bid,
    so reckless bidders drive every score down (four uniformly random
    players drift to minus hundreds: over seeded matches about one in five
    passes 100 deals, and one in ten has not ended after 1000). Players who
    bid what they can make push scores up, since the non-bidders keep every
    trick they take; such matches take about eleven hands. So the match
    also ends after ``config.deal_limit`` deals (100 by default, thrown-in
    ones included, far beyond any real match), which bounds every match at
    ``deal_limit * max_steps_per_deal`` steps (3000). With
    ``deal_limit=None`` the rules are the table's to the letter, a match
    ends with probability one only if the players' scores climb, and the
    caller must bound its loop.
"""

from __future__ import annotations

import enum
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeGuard

from p2pcards.cards import TOPPER_DECK, Card, Suit
from p2pcards.errors import P2PCardsError
from p2pcards.rules.contract import Held, faces_for_hands
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
from p2pcards.rules.topper_actions import Bid, NameTrump, PassBid, Play, TopperAction
from p2pcards.rules.topper_determinize import InconsistentView, assign_hidden
from p2pcards.rules.topper_errors import (
    BadTrumpSuit,
    BidNotHigher,
    BidOutOfRange,
    CardNotInDeck,
    FacesUnknown,
    FollowSuit,
    NotTheBidder,
    Renege,
)
from p2pcards.rules.topper_events import (
    BiddingWon,
    BidMade,
    BidPassed,
    CardPlayed,
    HandDealt,
    HandScored,
    MatchEnded,
    ShowedVoid,
    Termination,
    ThrownIn,
    TieContinues,
    TopperEvent,
    TopperOutcome,
    TrickWon,
    TrumpNamed,
)
from p2pcards.rules.topper_order import effective_suit, little_jack, trick_winner_index

__all__ = [
    "TopperConfig", "ConfigError", "Phase", "TopperState", "TopperPublic", "TopperOptions",
    "Held", "faces_for_hands",
    "Bid", "PassBid", "NameTrump", "Play", "TopperAction",
    "BidOutOfRange", "BidNotHigher", "NotTheBidder", "BadTrumpSuit", "CardNotInDeck",
    "BadDeal", "FollowSuit", "Renege", "FacesUnknown", "InconsistentView",
    "HandDealt", "BidMade", "BidPassed", "BiddingWon", "ThrownIn", "TrumpNamed",
    "CardPlayed", "ShowedVoid", "TrickWon", "HandScored", "TieContinues", "MatchEnded",
    "Termination", "TopperOutcome", "TopperEvent",
]


class ConfigError(P2PCardsError, ValueError):
    """A :class:`TopperConfig` whose values do not make a playable game."""


@dataclass(frozen=True)
class TopperConfig:
    """Every number of the game, with the defaults of the project's rules."""

    #: A seat at or above this score at the end of a hand can win.
    target_score: int = 21
    seats: int = SEATS
    #: Cards dealt to each seat; also the number of tricks in a hand.
    hand_size: int = 6
    #: The cards in play; ``seats * hand_size`` of them, all dealt.
    deck: tuple[Card, ...] = TOPPER_DECK
    min_bid: int = 1
    max_bid: int = 6
    #: Deals (thrown-in ones included) after which the match ends even if no
    #: one has won by the target; None plays on without limit.
    deal_limit: int | None = 100

    def __post_init__(self) -> None:
        if not _is_int(self.seats) or self.seats < 2:
            raise ConfigError(f"seats must be an integer of at least 2, not {self.seats!r}")
        if not _is_int(self.hand_size) or self.hand_size < 1:
            raise ConfigError(f"hand_size must be a positive integer, not {self.hand_size!r}")
        deck = tuple(self.deck)
        if not all(isinstance(c, Card) for c in deck) or len(set(deck)) != len(deck):
            raise ConfigError("the deck must hold distinct cards")
        if len(deck) != self.seats * self.hand_size:
            raise ConfigError(
                f"{len(deck)} cards cannot be dealt {self.hand_size} each to {self.seats} seats")
        object.__setattr__(self, "deck", deck)
        if not (_is_int(self.min_bid) and _is_int(self.max_bid)
                and 1 <= self.min_bid <= self.max_bid <= self.hand_size):
            raise ConfigError(
                f"bids must satisfy 1 <= min_bid <= max_bid <= hand_size, "
                f"not {self.min_bid!r}..{self.max_bid!r}")
        if not _is_int(self.target_score) or self.target_score < 1:
            raise ConfigError(f"target_score must be a positive integer, not {self.target_score!r}")
        if self.deal_limit is not None and (not _is_int(self.deal_limit) or self.deal_limit < 1):
            raise ConfigError(f"deal_limit must be a positive integer or None, not {self.deal_limit!r}")

    @property
    def max_steps_per_deal(self) -> int:
        """Deal, one bidding round, trump, every card: the longest a deal can take."""
        return 1 + self.seats + 1 + self.seats * self.hand_size


class Phase(enum.Enum):
    """Where a match stands; each action belongs to exactly one phase."""

    #: Awaiting a shuffle and deal (before each hand, after a throw-in).
    DEAL = "deal"
    #: One round of bids, starting left of the dealer.
    BIDDING = "bidding"
    #: The highest bidder must name trump.
    TRUMP = "trump"
    #: Tricks are being played.
    PLAY = "play"
    #: Someone won; nothing more happens.
    MATCH_OVER = "match-over"


_PHASE_OF_ACTION: dict[type, Phase] = {
    Bid: Phase.BIDDING,
    PassBid: Phase.BIDDING,
    NameTrump: Phase.TRUMP,
    Play: Phase.PLAY,
}


@dataclass(frozen=True)
class TopperOptions:
    """The choices of the seat to act, compact enough for a menu or a bot.

    In BIDDING the seat passes or bids ``min_bid..max_bid`` (``can_bid``
    false when nothing is left to top); in TRUMP it names one of ``suits``;
    in PLAY it plays one of ``playable`` (slots of ``hand`` that may follow).
    """

    seat: int
    phase: Phase
    #: The slots of the seat's hand.
    hand: tuple[int, ...]
    can_pass: bool
    can_bid: bool
    min_bid: int
    max_bid: int
    suits: tuple[Suit, ...]
    playable: tuple[int, ...]


@dataclass(frozen=True)
class TopperPublic:
    """Everything every seat may know, as one comparable value (for UIs, logs and tests)."""

    phase: Phase
    dealer: int
    to_act: int | None
    hand_number: int
    hands_scored: int
    scores: tuple[int, ...]
    #: ``(seat, tricks)`` in bidding order this hand; ``tricks`` is None for a pass.
    bids: tuple[tuple[int, int | None], ...]
    bidder: int | None
    high_bid: int | None
    trump: Suit | None
    #: ``(seat, card)`` of the trick in progress, lead first.
    current_trick: tuple[tuple[int, Card], ...]
    tricks: tuple[TrickWon, ...]
    tricks_taken: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    #: Per seat, the effective suits it has shown it lacks this hand.
    voids: tuple[frozenset[Suit], ...]
    outcome: TopperOutcome | None


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


class TopperState(Referee[TopperConfig, Phase, TopperOutcome]):
    """A Topper match: the full simulation, a seat's view, or a peer's referee.

    Build one with :meth:`new`; then alternate :meth:`deal` (when
    ``awaiting_deal``) and :meth:`apply` (for the seat ``to_act``).
    """

    DEAL_PHASE = Phase.DEAL
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

    # ----------------------------------------------------------------- making

    @classmethod
    def new(cls, config: TopperConfig | None = None, dealer: int = 0) -> TopperState:
        """A match before its first deal; ``dealer`` comes from a fair joint draw outside."""
        config = TopperConfig() if config is None else config
        if not isinstance(config, TopperConfig):
            raise ConfigError(f"not a TopperConfig: {config!r}")
        if not _is_int(dealer) or not 0 <= dealer < config.seats:
            raise ConfigError(f"no seat {dealer!r} to deal")
        self = cls.__new__(cls)
        n, size = config.seats, len(config.deck)
        Referee.__init__(self, config, Phase.DEAL)
        self._deck_set = frozenset(config.deck)
        self._dealer = dealer
        self._hand_number = 0
        self._hands_scored = 0
        self._scores = [0] * n
        self._faces = [None] * size
        self._in_hand = [False] * size
        self._reset_hand()
        return self

    @classmethod
    def position(cls, config: TopperConfig | None = None, *, first: int = 0,
                 hands: Mapping[int, Sequence[Card]] | Sequence[Sequence[Card]] | None = None,
                 standings: Sequence[int] | None = None, deals: int = 0,
                 scored: int | None = None, bidder: int | None = None, bid: int | None = None,
                 trump: Suit | None = None) -> TopperState:
        """A match partway through, from chosen facts (for tests and analysis).

        ``standings`` are the scores; ``deals`` the deals made before this
        one (``scored`` of them scored, all by default); ``first`` the dealer.
        Without ``hands`` the deal is awaited; with them (seat → cards, the
        rest filled in deck order, as
        :func:`~p2pcards.rules.contract.faces_for_hands`) the deck is dealt
        and bidding opens. ``bidder`` and ``bid`` then close the bidding
        (every other seat passed): ``bidder`` names trump, or, with
        ``trump`` given too, leads the first trick.
        """
        state = cls.new(config, first)
        cfg = state.config
        if standings is not None:
            scores = tuple(standings)
            if len(scores) != cfg.seats or not all(_is_int(v) for v in scores):
                raise ValueError(f"standings are {cfg.seats} scores, not {standings!r}")
            state._scores = list(scores)
        if scored is None:
            scored = deals
        if not (_is_int(deals) and _is_int(scored) and 0 <= scored <= deals
                and (cfg.deal_limit is None or deals < cfg.deal_limit)):
            raise ValueError(f"{deals!r} deals ({scored!r} scored): not a match still in play")
        state._hand_number, state._hands_scored = deals, scored
        if hands is None:
            if bidder is not None or bid is not None or trump is not None:
                raise ValueError("a bid or trump needs the hands dealt")
            return state
        state.deal(faces_for_hands(hands, cfg.deck, cfg.seats))
        if bidder is None and bid is None and trump is None:
            return state
        if bidder is None or bid is None:
            raise ValueError("the bidding closes with both a bidder and a bid")
        state._require_seat(bidder)
        if not _is_int(bid) or not cfg.min_bid <= bid <= cfg.max_bid:
            raise ValueError(f"a bid is {cfg.min_bid} to {cfg.max_bid} tricks, not {bid!r}")
        n = cfg.seats
        order = [(first + 1 + i) % n for i in range(n)]
        state._bids = [(s, bid if s == bidder else None) for s in order]
        state._bidder, state._high_bid = bidder, bid
        state._phase, state._to_act = Phase.TRUMP, bidder
        if trump is not None:
            if not isinstance(trump, Suit):
                raise ValueError(f"trump is a suit, not {trump!r}")
            state._trump = trump
            state._phase = Phase.PLAY
        return state

    def _reset_hand(self) -> None:
        n = self.config.seats
        self._bids = []
        self._bidder = None
        self._high_bid = 0
        self._trump = None
        self._trick = []
        self._tricks = []
        self._taken = [0] * n
        self._voids = [{} for _ in range(n)]

    def copy(self) -> TopperState:
        """An independent copy (same knowledge, same viewer)."""
        other = TopperState.__new__(TopperState)
        other._config = self._config
        other._deck_set = self._deck_set
        other._phase = self._phase
        other._dealer = self._dealer
        other._hand_number = self._hand_number
        other._hands_scored = self._hands_scored
        other._scores = list(self._scores)
        other._faces = list(self._faces)
        other._in_hand = list(self._in_hand)
        other._bids = list(self._bids)
        other._bidder = self._bidder
        other._high_bid = self._high_bid
        other._trump = self._trump
        other._trick = list(self._trick)
        other._tricks = list(self._tricks)
        other._taken = list(self._taken)
        other._voids = [dict(v) for v in self._voids]
        other._to_act = self._to_act
        other._outcome = self._outcome
        other._viewer = self._viewer
        return other

    def view(self, seat: int) -> TopperState:
        """A copy holding only what ``seat`` may know: its own faces and the cards played."""
        self._require_seat(seat)
        other = self.copy()
        n = self.config.seats
        other._faces = [
            face if (p % n == seat or not self._in_hand[p]) else None
            for p, face in enumerate(self._faces)
        ]
        other._viewer = seat
        return other

    def determinize(self, rng: random.Random) -> TopperState:
        """A complete state drawn at random among those consistent with what this engine knows.

        Every hidden face gets an unseen card, never one of a suit its seat
        has shown void in. The result knows every face (it is no one's view).
        """
        other = self.copy()
        other._viewer = None
        if self._phase not in (Phase.BIDDING, Phase.TRUMP, Phase.PLAY):
            return other
        n = self.config.seats
        hidden = {
            s: [p for p in range(s, len(self._faces), n) if self._in_hand[p] and self._faces[p] is None]
            for s in range(n)
        }
        known = {f for f in self._faces if f is not None}
        unseen = [c for c in self.config.deck if c not in known]
        voids = {s: set(self._voids[s]) for s in range(n)}
        for slot, card in assign_hidden(hidden, unseen, voids, self._trump, rng).items():
            other._faces[slot] = card
        return other

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
        if not isinstance(other, TopperState):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        whose = "full" if self._viewer is None else f"view of seat {self._viewer}"
        return (f"<TopperState {whose} {self._phase.value} hand {self._hand_number} "
                f"dealer {self._dealer} to_act {self._to_act} scores {self._scores}>")

    # ------------------------------------------------------------------ dealing

    def deal(self, faces: Sequence[Card | None]) -> tuple[TopperEvent, ...]:
        """Deal a fresh deck: slot ``p`` to seat ``p % seats``; None where the face is unknown.

        A view keeps only its own seat's faces of what it is given.
        """
        if self._phase is Phase.MATCH_OVER:
            raise MatchOver(None, "the match is over: no more deals")
        if self._phase is not Phase.DEAL:
            raise DealNotAwaited(None, f"a deal is not awaited during {self._phase.value}")
        size, n = len(self.config.deck), self.config.seats
        if isinstance(faces, (str, bytes)) or not isinstance(faces, Sequence) or len(faces) != size:
            raise BadDeal(None, f"a deal is a sequence of {size} faces (a card or None each)")
        seen: set[Card] = set()
        for p, face in enumerate(faces):
            if face is None:
                continue
            if not isinstance(face, Card):
                raise BadDeal(None, f"slot {p} holds neither a card nor None")
            if face not in self._deck_set:
                raise BadDeal(None, f"slot {p} holds a card that is not in the Topper deck")
            if face in seen:
                raise BadDeal(None, f"slot {p} repeats a card dealt to an earlier slot")
            seen.add(face)
        self._faces = [
            face if self._viewer is None or p % n == self._viewer else None
            for p, face in enumerate(faces)
        ]
        self._in_hand = [True] * size
        self._reset_hand()
        self._hand_number += 1
        self._phase = Phase.BIDDING
        self._to_act = (self._dealer + 1) % n
        return (HandDealt(self._hand_number, self._to_act, self._dealer),)

    # ---------------------------------------------------------------- refereeing

    def check(self, action: TopperAction) -> None:
        """Raise exactly the :class:`RuleError` that ``apply(action)`` would; else return."""
        seat = getattr(action, "seat", None)
        if type(action) not in _PHASE_OF_ACTION:
            raise BadAction(seat if _is_int(seat) else None,
                            f"not a Topper action: {type(action).__name__}")
        if not _is_int(seat) or not 0 <= seat < self.config.seats:
            raise BadAction(None, f"no seat {seat!r} at this table")
        if self._phase is Phase.MATCH_OVER:
            raise MatchOver(seat, "the match is over")
        wanted = _PHASE_OF_ACTION[type(action)]
        if self._phase is not wanted:
            raise WrongPhase(seat, f"{type(action).__name__} belongs to {wanted.value}, "
                                   f"not {self._phase.value}")
        if seat != self._to_act:
            if isinstance(action, NameTrump):
                raise NotTheBidder(seat, f"only seat {self._bidder}, the highest bidder, names trump")
            raise NotYourTurn(seat, f"seat {self._to_act} is to act")
        if isinstance(action, Bid):
            self._check_bid(action)
        elif isinstance(action, NameTrump):
            if not isinstance(action.suit, Suit):
                raise BadTrumpSuit(seat, f"trump must be one of the four suits, not {action.suit!r}")
        elif isinstance(action, Play):
            self._check_play(action)

    def _check_bid(self, action: Bid) -> None:
        cfg = self.config
        t = action.tricks
        if not _is_int(t) or not cfg.min_bid <= t <= cfg.max_bid:
            raise BidOutOfRange(action.seat, f"a bid is {cfg.min_bid} to {cfg.max_bid} tricks, not {t!r}")
        if t <= self._high_bid:
            raise BidNotHigher(action.seat, f"a bid must top {self._high_bid} (seat {self._bidder}), "
                                            f"not {t}")

    def _check_play(self, action: Play) -> None:
        seat, slot, card = action.seat, action.slot, action.card
        n = self.config.seats
        if not isinstance(card, Card):
            raise BadAction(seat, f"the face played must be a card, not {card!r}")
        if (not _is_int(slot) or not 0 <= slot < len(self._faces) or slot % n != seat
                or not self._in_hand[slot]):
            raise NotYourCard(seat, f"slot {slot!r} is not a card in this seat's hand")
        if card not in self._deck_set:
            raise CardNotInDeck(seat, f"{card} is not a Topper card")
        known = self._faces[slot]
        if known is not None and known != card:
            raise CardMismatch(seat, f"slot {slot} does not hold {card}")
        for p, face in enumerate(self._faces):
            if face == card and p != slot:
                where = "was already played" if not self._in_hand[p] else "is known to be elsewhere"
                raise CardMismatch(seat, f"{card} {where}; it cannot be at slot {slot}")
        trump = self._trump
        suit = effective_suit(card, trump)
        shown = self._voids[seat].get(suit)
        if shown is not None:
            trick, void_card = shown
            raise Renege(seat, suit, trick, void_card, card)
        led = self.led_suit
        if led is not None and suit != led:
            for p in range(seat, len(self._faces), n):
                face = self._faces[p]
                if (p != slot and self._in_hand[p] and face is not None
                        and effective_suit(face, trump) == led):
                    raise FollowSuit(seat, card, led)

    def apply(self, action: TopperAction) -> tuple[TopperEvent, ...]:
        """Referee ``action`` and return what happened, or raise and change nothing."""
        self.check(action)
        if isinstance(action, Bid):
            self._bids.append((action.seat, action.tricks))
            self._high_bid = action.tricks
            self._bidder = action.seat
            return (BidMade(action.seat, action.tricks),) + self._next_bidder(action.seat)
        if isinstance(action, PassBid):
            self._bids.append((action.seat, None))
            return (BidPassed(action.seat),) + self._next_bidder(action.seat)
        if isinstance(action, NameTrump):
            self._trump = action.suit
            self._phase = Phase.PLAY
            self._to_act = action.seat
            return (TrumpNamed(action.seat, action.suit, little_jack(action.suit)),)
        return self._play(action)  # check() admits only the four action types

    def _next_bidder(self, seat: int) -> tuple[TopperEvent, ...]:
        n = self.config.seats
        if len(self._bids) < n and self._high_bid < self.config.max_bid:
            self._to_act = (seat + 1) % n
            return ()
        if self._bidder is None:
            self._to_act = None
            self._faces = [None] * len(self._faces)
            self._in_hand = [False] * len(self._in_hand)
            thrown = ThrownIn(self._hand_number, self._dealer, (self._dealer + 1) % n)
            return (thrown,) + tuple(self._end_deal(None))
        self._phase = Phase.TRUMP
        self._to_act = self._bidder
        return (BiddingWon(self._bidder, self._high_bid),)

    def _play(self, action: Play) -> tuple[TopperEvent, ...]:
        seat, slot, card = action.seat, action.slot, action.card
        n = self.config.seats
        index = len(self._tricks)
        led = self.led_suit
        self._faces[slot] = card
        self._in_hand[slot] = False
        self._trick.append((seat, slot, card))
        events: list[TopperEvent] = [CardPlayed(seat, slot, card, index)]
        if led is not None and effective_suit(card, self._trump) != led and led not in self._voids[seat]:
            self._voids[seat][led] = (index, card)
            events.append(ShowedVoid(seat, led, index, card))
        if len(self._trick) < n:
            self._to_act = (seat + 1) % n
            return tuple(events)
        plays = tuple((s, c) for s, _, c in self._trick)
        winner = plays[trick_winner_index([c for _, c in plays], self._trump)][0]
        self._taken[winner] += 1
        won = TrickWon(index, winner, plays)
        self._tricks.append(won)
        self._trick = []
        events.append(won)
        if len(self._tricks) < self.config.hand_size:
            self._to_act = winner
            return tuple(events)
        events.extend(self._score_hand())
        return tuple(events)

    def _score_hand(self) -> list[TopperEvent]:
        n = self.config.seats
        bidder, bid = self._bidder, self._high_bid
        if bidder is None:  # pragma: no cover - play only follows a won bidding
            raise RuntimeError("a hand was played without a bidder")
        changes = list(self._taken)
        made = self._taken[bidder] >= bid
        if not made:
            changes[bidder] = -bid
        for s in range(n):
            self._scores[s] += changes[s]
        self._hands_scored += 1
        events: list[TopperEvent] = [HandScored(
            self._hand_number, bidder, bid, tuple(self._taken), made, tuple(changes), self.scores)]
        return events + self._end_deal(bidder)

    def _end_deal(self, bidder: int | None) -> list[TopperEvent]:
        """After a scored hand (``bidder`` set) or a throw-in: a winner, or the next deal."""
        n = self.config.seats
        self._to_act = None
        events: list[TopperEvent] = []
        top = max(self._scores)
        leaders = tuple(s for s in range(n) if self._scores[s] == top)
        if bidder is not None and top >= self.config.target_score:
            if len(leaders) == 1:
                return events + self._finish(Termination.TARGET_REACHED, leaders)
            if bidder in leaders:
                return events + self._finish(Termination.BIDDER_WINS_TIE, (bidder,))
        limit = self.config.deal_limit
        if limit is not None and self._hand_number >= limit:
            winners = (bidder,) if bidder in leaders else leaders
            return events + self._finish(Termination.DEAL_LIMIT, winners)
        if bidder is not None and top >= self.config.target_score:
            events.append(TieContinues(leaders, top))
        self._phase = Phase.DEAL
        self._dealer = (self._dealer + 1) % n
        return events

    def _finish(self, how: Termination, winners: tuple[int, ...]) -> list[TopperEvent]:
        self._outcome = TopperOutcome(how, winners, self.scores, self._hands_scored)
        self._phase = Phase.MATCH_OVER
        return [MatchEnded(self._outcome)]

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
