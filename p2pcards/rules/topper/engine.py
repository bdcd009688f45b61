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

import random
from collections.abc import Mapping, Sequence
from typing import cast

from p2pcards.cards import Card, Suit
from p2pcards.rules.errors import (
    BadAction,
    BadDeal,
    CardMismatch,
    ConfigError,
    DealNotAwaited,
    MatchOver,
    NotYourCard,
    NotYourTurn,
    WrongPhase,
)
from p2pcards.rules.referee import Referee
from p2pcards.rules.shared import faces_for_hands
from p2pcards.rules.topper.actions import Bid, NameTrump, PassBid, Play
from p2pcards.rules.topper.determinize import assign_hidden
from p2pcards.rules.topper.errors import (
    BadTrumpSuit,
    BidNotHigher,
    BidOutOfRange,
    CardNotInDeck,
    FollowSuit,
    NotTheBidder,
    Renege,
)
from p2pcards.rules.topper.events import (
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
from p2pcards.rules.topper.facts import TopperFacts
from p2pcards.rules.topper.model import Phase, TopperConfig, _is_int
from p2pcards.rules.topper.order import effective_suit, little_jack, trick_winner_index

_PHASE_OF_ACTION: dict[type, Phase] = {
    Bid: Phase.BIDDING,
    PassBid: Phase.BIDDING,
    NameTrump: Phase.TRUMP,
    Play: Phase.PLAY,
}


class TopperState(TopperFacts):
    """A Topper match: the full simulation, a seat's view, or a peer's referee.

    Build one with :meth:`new`; then alternate :meth:`deal` (when
    ``awaiting_deal``) and :meth:`apply` (for the seat ``to_act``).
    """

    DEAL_PHASE = Phase.DEAL
    __slots__ = ()

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
        :func:`~p2pcards.rules.shared.faces_for_hands`) the deck is dealt
        and bidding opens. ``bidder`` and ``bid`` then close the bidding
        (every other seat passed): ``bidder`` names trump, or, with
        ``trump`` given too, leads the first trick.
        """
        state: TopperState = cls.new(config, first)
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
        other: TopperState = TopperState.__new__(TopperState)
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
        other: TopperState = self.copy()
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
        other: TopperState = self.copy()
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

    def check(self, action: object) -> None:
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

    def apply(self, action: object) -> tuple[TopperEvent, ...]:
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
        return self._play(cast(Play, action))  # check() admits only the four action types

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
