"""The Topper search's fast play-out: card facts as small integers, one hand played
to its end with every card known, and each seat's odds of winning the match.

:mod:`topper_search` imagines deals and plays each out many times a decision;
these are its inner loops, on deck indices instead of :class:`Card` arithmetic.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from p2pcards.bots.topper_counter import WEIGHTS
from p2pcards.cards import Card, Rank, Suit
from p2pcards.rules.topper.order import effective_suit, trick_power

#: Trump choices indexed like the tables below: ``None`` (no trump yet) then the suits.
TRUMPS: tuple[Suit | None, ...] = (None,) + tuple(Suit)


class CardTables:
    """Card facts by deck index, per trump: effective suit, and power per led suit.

    Simulations run on small integers; these lookups replace the Card
    arithmetic of :mod:`topper_order` in the inner loops.
    """

    def __init__(self, deck: Sequence[Card]) -> None:
        self.deck = tuple(deck)
        self.index = {card: i for i, card in enumerate(self.deck)}
        self.suit: dict[Suit | None, list[int]] = {}
        self.power: dict[Suit | None, list[list[int]]] = {}
        self.own: dict[Suit | None, list[int]] = {}
        for trump in TRUMPS:
            suits = [int(effective_suit(c, trump)) for c in self.deck]
            self.suit[trump] = suits
            self.power[trump] = [[trick_power(c, trump, led) for c in self.deck] for led in Suit]
            # A card's power when it is led: what it is worth as a winner.
            self.own[trump] = [self.power[trump][suits[i]][i] for i in range(len(self.deck))]
        # The counter's fitted evaluation (topper_counter.features) by card: the weight of
        # each trump's place (Big Jack, Little Jack, A K Q 10 9), or None for a plain card.
        order = {Rank.ACE: 2, Rank.KING: 3, Rank.QUEEN: 4, Rank.TEN: 5, Rank.NINE: 6}
        self.trump_weight: dict[Suit, list[float | None]] = {}
        for trump in Suit:
            weights: list[float | None] = []
            for card in self.deck:
                if effective_suit(card, trump) != trump:
                    weights.append(None)
                elif card.rank == Rank.JACK:
                    weights.append(WEIGHTS[1] if card.suit == trump else WEIGHTS[2])
                else:
                    weights.append(WEIGHTS[1 + order[card.rank]])
            self.trump_weight[trump] = weights
        self.ace = [c.rank == Rank.ACE for c in self.deck]
        self.king = [c.rank == Rank.KING for c in self.deck]

    def evaluate(self, hand: Sequence[int], trump: Suit) -> float:
        """``topper_counter.evaluate`` on deck indices, fast (it runs inside determinisations)."""
        w = WEIGHTS
        value = w[0]
        weights = self.trump_weight[trump]
        suits = self.suit[trump]
        trumps = 0
        counts = [0, 0, 0, 0]
        aces = kings = 0
        for i in hand:
            tw = weights[i]
            if tw is not None:
                value += tw
                trumps += 1
                continue
            g = suits[i]
            counts[g] += 1
            if self.ace[i]:
                aces |= 1 << g
            elif self.king[i]:
                kings |= 1 << g
        if trumps > 3:
            value += w[8] * (trumps - 3)
        for g in range(4):
            if g == trump:
                continue
            if not counts[g]:
                value += w[12]
            if aces >> g & 1:
                value += w[9]
                if kings >> g & 1:
                    value += w[10]
            elif kings >> g & 1 and counts[g] >= 2:
                value += w[11]
        return value

    def best(self, hand: Sequence[int]) -> tuple[Suit, float]:
        """The trump of highest evaluation for ``hand`` (deck indices), and its evaluation."""
        return max(((t, self.evaluate(hand, t)) for t in Suit), key=lambda pair: (pair[1], -pair[0]))


_CACHE: dict[tuple[Card, ...], CardTables] = {}


def card_tables(deck: Sequence[Card]) -> CardTables:
    key = tuple(deck)
    if key not in _CACHE:
        _CACHE[key] = CardTables(key)
    return _CACHE[key]


_SUITS = len(Suit)  # (len() of an enum is a Python call: too dear for the inner loop)
#: By number of seats, :attr:`HandSim._others`.
_OTHERS: dict[int, list[list[int]]] = {}


class HandSim:
    """The rest of one hand with every card known: what a determinisation plays out."""

    __slots__ = ("hands", "trick", "to_act", "taken", "n", "suit", "power", "own", "trump", "_others")

    def __init__(self, hands: list[list[int]], trick: list[tuple[int, int]], to_act: int,
                 taken: list[int], tables: CardTables, trump: Suit | None) -> None:
        self.hands = hands
        self.trick = trick
        self.to_act = to_act
        self.taken = taken
        self.n = len(hands)
        self.suit = tables.suit[trump]
        self.power = tables.power[trump]
        self.own = tables.own[trump]
        #: The effective suit of trump, or -1 without one.
        self.trump = -1 if trump is None else int(trump)
        #: By seat: the other seats in the order they play after it.
        self._others = _OTHERS.get(self.n) or _OTHERS.setdefault(
            self.n, [[(s + k) % self.n for k in range(1, self.n)] for s in range(self.n)])

    def over(self) -> bool:
        return not self.trick and not self.hands[self.to_act]

    def legal(self) -> list[int]:
        hand = self.hands[self.to_act]
        if not self.trick:
            return hand
        led = self.suit[self.trick[0][1]]
        suit = self.suit
        follow = [c for c in hand if suit[c] == led]
        return follow or hand

    def play(self, card: int) -> None:
        seat = self.to_act
        self.hands[seat].remove(card)
        trick = self.trick
        trick.append((seat, card))
        if len(trick) < self.n:
            self.to_act = (seat + 1) % self.n
            return
        power = self.power[self.suit[trick[0][1]]]
        winner, top = trick[0][0], -1
        for s, c in trick:  # the first of the highest, as max() would
            if power[c] > top:
                winner, top = s, power[c]
        self.taken[winner] += 1
        self.trick = []
        self.to_act = winner

    def _threats(self, seats: Sequence[int]) -> list[int]:
        """By led suit, the highest power with which any of ``seats`` can answer a trick led
        in it: its best card of that suit, or when it has none its best trump (else 0).

        A card's power in its own suit (``own``) is its power in any trick it follows or
        ruffs, so one pass over each hand gives every led suit's answer at once.
        """
        suit, own, hands, trump = self.suit, self.own, self.hands, self.trump
        threats = [0] * _SUITS
        for s in seats:
            best = [0] * _SUITS  # by suit: the hand's best card of it (cards have power > 0)
            for x in hands[s]:
                if own[x] > best[suit[x]]:
                    best[suit[x]] = own[x]
            ruff = best[trump] if trump >= 0 else 0
            for g, top in enumerate(best):
                answer = top or ruff
                if answer > threats[g]:
                    threats[g] = answer
        return threats

    def policy(self, rng: random.Random, explore: float = 0.05) -> int:
        """A quick, sensible move that reads the imagined hands: lead a card no other hand can
        beat (the highest such), else the lowest; follow with the cheapest card that no later
        hand can beat, else throw the lowest. Now and then (``explore``) a random legal card."""
        legal = self.legal()
        if len(legal) == 1:
            return legal[0]
        trick = self.trick
        if not trick:
            return self._choose(legal, rng, self.to_act, -1, 0, 0, explore)
        led = self.suit[trick[0][1]]
        power = self.power[led]
        return self._choose(legal, rng, self.to_act, led, max(power[c] for _, c in trick), len(trick),
                            explore)

    def _choose(self, legal: list[int], rng: random.Random, me: int, led: int, top: int, played: int,
                explore: float = 0.05) -> int:
        """:meth:`policy` for seat ``me`` among ``legal`` (more than one card), in a trick led in
        ``led`` (-1 when ``me`` leads) whose best card so far has power ``top`` after ``played``
        cards: what it needs of the trick, so that :meth:`play_out` can keep it in locals."""
        if rng.random() < explore:
            return rng.choice(legal)
        own = self.own
        if led < 0:
            suit = self.suit
            threats = self._threats(self._others[me])
            best = -1
            for c in legal:
                # Safe when no other hand can beat it; among the safe, the first highest.
                if own[c] >= threats[suit[c]] and (best < 0 or own[c] > own[best]):
                    best = c
            return best if best >= 0 else min(legal, key=own.__getitem__)
        power = self.power[led]
        winners = [c for c in legal if power[c] > top]
        if winners:
            threat = self._threats(self._others[me][:self.n - 1 - played])[led]
            sure = [c for c in winners if power[c] > threat]
            if sure:
                return min(sure, key=power.__getitem__)
        return min(legal, key=own.__getitem__)

    def play_out(self, rng: random.Random) -> list[int]:
        """Play the hand to its end by :meth:`policy`; the tricks each seat has taken.

        :meth:`play` and :meth:`policy` inline, the trick kept as its led suit, best
        power and winner so far: this loop is most of a search's time.
        """
        hands, suit, powers, own, n, taken = self.hands, self.suit, self.power, self.own, self.n, self.taken
        seat, played = self.to_act, len(self.trick)
        led = top = winner = -1
        if played:
            led = suit[self.trick[0][1]]
            for s, c in self.trick:
                if powers[led][c] > top:
                    top, winner = powers[led][c], s
        while True:
            hand = hands[seat]
            if played:
                legal = [c for c in hand if suit[c] == led] or hand
            elif hand:
                legal = hand
            else:
                break
            card = legal[0] if len(legal) == 1 else self._choose(legal, rng, seat, led if played else -1,
                                                                 top, played)
            hand.remove(card)
            if not played:
                led, top, winner = suit[card], own[card], seat
            elif powers[led][card] > top:  # the first of the highest takes the trick
                top, winner = powers[led][card], seat
            played += 1
            if played < n:
                seat = (seat + 1) % n
            else:
                taken[winner] += 1
                seat, played = winner, 0
        self.to_act, self.trick = seat, []
        return taken


def hand_score(taken: Sequence[int], bidder: int | None, bid: int) -> list[int]:
    """Each seat's score change for the hand (the bidder short of his bid loses it)."""
    changes = list(taken)
    if bidder is not None and taken[bidder] < bid:
        changes[bidder] = -bid
    return changes


def reward(changes: Sequence[int], seat: int) -> float:
    """How good a hand's result is for ``seat``: its gain against the others' mean, in 0..1."""
    others = (sum(changes) - changes[seat]) / (len(changes) - 1)
    return 0.5 + (changes[seat] - others) / 24


class MatchOdds:
    """Each seat's chance of winning the match once a hand's score changes are added.

    A hand that ends the match is judged by the rules (the highest score at
    or above the target wins; a tie goes to the bidder among the leaders,
    else it plays on). Otherwise the race to the target is estimated: each
    seat's chance grows like ``exp(score / temperature)``, where the
    temperature shrinks as the leader nears the target (fewer hands remain
    for the others to catch up: it goes like the square root of the points
    the leader still needs). ``spread`` and ``offset`` were fitted to who
    won in recorded matches between search bots.
    """

    def __init__(self, scores: Sequence[int], target: int, spread: float = 1.0,
                 offset: float = 4.0) -> None:
        self.scores = tuple(scores)
        self.target = target
        self.spread = spread
        self.offset = offset
        self._cache: dict[tuple[tuple[int, ...], int | None], list[float]] = {}

    def after(self, changes: Sequence[int], bidder: int | None) -> list[float]:
        key = (tuple(changes), bidder)
        odds = self._cache.get(key)
        if odds is None:
            odds = self._cache[key] = self.odds([s + c for s, c in zip(self.scores, changes, strict=True)],
                                                bidder)
        return odds

    def odds(self, scores: Sequence[int], bidder: int | None) -> list[float]:
        n = len(scores)
        top = max(scores)
        if top >= self.target:
            leaders = [s for s in range(n) if scores[s] == top]
            if len(leaders) == 1 or bidder in leaders:
                winner = leaders[0] if len(leaders) == 1 else bidder
                return [1.0 if s == winner else 0.0 for s in range(n)]
        temperature = self.spread * math.sqrt(max(0, self.target - top) + self.offset)
        weights = [math.exp((v - top) / temperature) for v in scores]
        total = sum(weights)
        return [w / total for w in weights]
