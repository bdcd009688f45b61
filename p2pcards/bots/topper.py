"""Topper bots: a random legal player and a heuristic one. Both see only their seat's view.

The heuristic bot plays like a careful beginner: it bids only what its best
trump suit and its Aces can make (a bidder who falls short loses his bid),
names that suit, draws trumps with the top trump, cashes cards no unseen card
can beat, wins a trick as cheaply as it can, and throws its lowest card
when it cannot win. It counts the cards played to know which are still out.
Only the seat's view is used, so the bot is also a fair opponent over the
network.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from p2pcards.cards import Card, Rank, Suit
from p2pcards.rules.topper import Bid, NameTrump, PassBid, Phase, Play, TopperAction, TopperState
from p2pcards.rules.topper.order import effective_suit, is_trump, trick_power


class RandomTopperBot:
    """Plays a uniformly random legal action: the baseline every other bot must beat."""

    name = "random"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: TopperState) -> TopperAction:
        actions = tuple(view.legal_actions())
        if not actions:
            raise ValueError("no seat is to act in this view")
        return self.rng.choice(actions)


#: Expected share of a trick from each trump, best first (Big Jack, Little Jack, A, K, Q, 10, 9).
_TRUMP_VALUE = (1.0, 0.9, 0.8, 0.6, 0.45, 0.35, 0.3)
#: Extra tricks from a long trump suit: each trump past the third tends to win.
_LENGTH_BONUS = 0.35
_SIDE_ACE = 0.7
_SIDE_KING_WITH_ACE = 0.35


def _trump_order(card: Card, trump: Suit) -> int:
    """0 for the Big Jack, 1 for the Little Jack, then A K Q 10 9."""
    if card.rank == Rank.JACK:
        return 0 if card.suit == trump else 1
    return {Rank.ACE: 2, Rank.KING: 3, Rank.QUEEN: 4, Rank.TEN: 5, Rank.NINE: 6}.get(card.rank, 6)


def estimate_tricks(hand: Sequence[Card], trump: Suit) -> float:
    """A rough count of the tricks ``hand`` takes with ``trump``, leading first."""
    trumps = [c for c in hand if is_trump(c, trump)]
    value = sum(_TRUMP_VALUE[_trump_order(c, trump)] for c in trumps)
    value += _LENGTH_BONUS * max(0, len(trumps) - 3)
    plain = [c for c in hand if not is_trump(c, trump)]
    for card in plain:
        if card.rank == Rank.ACE:
            value += _SIDE_ACE
        elif card.rank == Rank.KING and Card(Rank.ACE, card.suit) in plain:
            value += _SIDE_KING_WITH_ACE
    return value


def best_trump(hand: Sequence[Card]) -> tuple[Suit, float]:
    """The suit that makes ``hand`` strongest as trump, and its trick estimate."""
    return max(((s, estimate_tricks(hand, s)) for s in Suit), key=lambda pair: (pair[1], -pair[0]))


class RuleTopperBot:
    """A bot that decides by rules from its own view: checks the seat, then asks the
    subclass to bid, name trump or play. The heuristic and the counter share this."""

    name = "rules"

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choose(self, view: TopperState) -> TopperAction:
        seat = view.to_act
        if seat is None or (view.viewer is not None and seat != view.viewer):
            raise ValueError("this view's seat is not the one to act")
        hand = [c for _, c in view.hand(seat) if c is not None]
        if view.phase is Phase.BIDDING:
            return self._bid(view, seat, hand)
        if view.phase is Phase.TRUMP:
            return NameTrump(seat, self._trump(hand))
        return self._play(view, seat)

    def _bid(self, view: TopperState, seat: int, hand: Sequence[Card]) -> TopperAction:
        raise NotImplementedError

    def _trump(self, hand: Sequence[Card]) -> Suit:
        raise NotImplementedError

    def _play(self, view: TopperState, seat: int) -> TopperAction:
        raise NotImplementedError


class HeuristicTopperBot(RuleTopperBot):
    """Bids its hand's strength, names its best suit, and plays sound tricks."""

    name = "heuristic"

    def __init__(self, rng: random.Random, margin: float = 0.0) -> None:
        super().__init__(rng)
        #: Tricks the estimate must exceed the bid by before the bot bids.
        self.margin = margin

    def _trump(self, hand: Sequence[Card]) -> Suit:
        return best_trump(hand)[0]

    def _bid(self, view: TopperState, seat: int, hand: Sequence[Card]) -> TopperAction:
        need = (view.high_bid or 0) + 1
        cfg = view.config
        need = max(need, cfg.min_bid)
        _, estimate = best_trump(hand)
        if need <= cfg.max_bid and estimate >= need + self.margin:
            return Bid(seat, need)
        return PassBid(seat)

    def _play(self, view: TopperState, seat: int) -> TopperAction:
        legal = [a for a in view.legal_actions() if isinstance(a, Play)]
        trump = view.trump
        held = [c for _, c in view.hand(seat) if c is not None]
        seen = set(held) | set(view.played_cards)
        unseen = [c for c in view.config.deck if c not in seen]
        trick = view.current_trick
        pick = self._lead(held, unseen, trump) if not trick else self._follow(
            view, [a.card for a in legal], unseen, trump)
        return next(a for a in legal if a.card == pick)

    @staticmethod
    def _strength(card: Card, trump: Suit | None) -> int:
        return trick_power(card, trump, effective_suit(card, trump))

    def _is_boss(self, card: Card, unseen: Iterable[Card], trump: Suit | None) -> bool:
        """No unseen card of the same effective suit beats ``card``."""
        suit = effective_suit(card, trump)
        mine = self._strength(card, trump)
        return all(effective_suit(c, trump) != suit or self._strength(c, trump) < mine for c in unseen)

    def _lead(self, held: list[Card], unseen: list[Card], trump: Suit | None) -> Card:
        trumps = sorted((c for c in held if is_trump(c, trump)), key=lambda c: -self._strength(c, trump))
        trumps_out = [c for c in unseen if is_trump(c, trump)]
        if trumps and trumps_out and self._is_boss(trumps[0], unseen, trump):
            return trumps[0]
        plain = [c for c in held if not is_trump(c, trump)]
        bosses = [c for c in plain if self._is_boss(c, unseen, trump)]
        if bosses:
            return max(bosses, key=lambda c: c.rank)
        if trumps and not trumps_out:
            return trumps[0]
        if plain:
            return min(plain, key=lambda c: (c.rank, self._suit_length(c, held, trump)))
        return trumps[-1]

    @staticmethod
    def _suit_length(card: Card, held: list[Card], trump: Suit | None) -> int:
        suit = effective_suit(card, trump)
        return sum(1 for c in held if effective_suit(c, trump) == suit)

    def _follow(self, view: TopperState, options: list[Card], unseen: list[Card],
                trump: Suit | None) -> Card:
        trick = view.current_trick
        led = effective_suit(trick[0][1], trump)
        best = max(trick_power(c, trump, led) for _, c in trick)
        last = len(trick) == view.config.seats - 1
        power = {c: trick_power(c, trump, led) for c in options}
        winners = sorted((c for c in options if power[c] > best), key=power.__getitem__)
        if winners:
            if last:
                return winners[0]
            sure = [c for c in winners if all(
                trick_power(u, trump, led) < power[c] for u in unseen)]
            return sure[0] if sure else winners[0]
        # Cannot win: throw the cheapest card, keeping trumps.
        return min(options, key=lambda c: (is_trump(c, trump), power[c], c.rank,
                                           self._suit_length(c, options, trump)))
