"""A Topper card counter: the benchmark a search must beat (issue 26). No search, only counting.

It plays the way a strong player who counts does, from its seat's view alone:

- **Bidding** from a hand evaluation fitted by simulation
  (``scripts/fit_counter.py``): the expected tricks of the hand as bidder
  under a trump (a linear model of the trumps held, Big and Little Jack
  first, trump length, side Aces and Kings, void side suits), and the spread
  of the simulated tricks around it. A bid's value is its expected score
  (the tricks, or minus the bid when short); it bids when that beats what a
  defender takes, and bids higher while seats still to speak could top it
  and the higher bid costs little.
- **Trump** is the suit of highest evaluation (strength and length).
- **Play** counts every card seen and every void shown: each other seat may
  hold only unseen cards of suits it has not shown void in, so the chance
  that a later seat beats a card is a count of the cards that could. It
  draws trumps with the top trump, cashes cards likely to hold, wins a
  trick with the cheapest card likely to hold it, and otherwise throws its
  cheapest card, keeping trumps and winners. The Little Jack is a trump
  under its own trump (``effective_suit``) in every count.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb

from p2pcards.bots.topper import RuleTopperBot
from p2pcards.cards import Card, Rank, Suit
from p2pcards.rules.topper import Bid, PassBid, Play, TopperAction, TopperState
from p2pcards.rules.topper.order import effective_suit, is_trump, trick_power

# --- the fitted hand evaluation --------------------------------------------------------
# Fitted by `.venv/bin/python scripts/fit_counter.py --deals 3000 --seed 26` (least
# squares of the tricks the bidder took, leading, with all four seats playing this
# bot's card play, over simulated deals; see the script's docstring).

#: Intercept, then one weight per feature of :func:`features`, in its order.
#: (8,000 hands from 4,000 deals, R² 0.728, mean bidder's tricks 1.88.)
WEIGHTS: tuple[float, ...] = (
    -0.864,
    1.712, 1.275, 0.996, 0.773, 0.699, 0.690, 0.689,  # trumps held: Big Jack, Little Jack, A K Q 10 9
    0.189,                                            # trumps beyond the third
    0.609, 0.093, 0.167,                              # side Aces, side Kings with their Ace, bare Kings
    0.278,                                            # void side suits
)
#: Deciles (5 %, 15 %, ..., 95 %) of the simulated tricks minus the fitted estimate.
RESIDUALS: tuple[float, ...] = (-1.15, -0.71, -0.49, -0.28, -0.10, 0.08, 0.25, 0.46, 0.73, 1.21)
#: Mean tricks a seat takes when another seat bids and names its best suit (the value of passing).
DEFEND_TRICKS = 1.141

#: Order of trumps, best first: the two Jacks then A K Q 10 9.
_TRUMP_RANKS = (Rank.ACE, Rank.KING, Rank.QUEEN, Rank.TEN, Rank.NINE)


def features(hand: Sequence[Card], trump: Suit) -> list[float]:
    """The counts the evaluation weighs (see :data:`WEIGHTS`); ``hand`` as dealt."""
    held = set(hand)
    trumps = [c for c in hand if is_trump(c, trump)]
    row = [1.0 if Card(Rank.JACK, trump) in held else 0.0,
           1.0 if Card(Rank.JACK, trump.partner) in held else 0.0]
    row += [1.0 if Card(r, trump) in held else 0.0 for r in _TRUMP_RANKS]
    row.append(float(max(0, len(trumps) - 3)))
    aces = kings_guarded = kings_bare = voids = 0
    for suit in Suit:
        if suit == trump:
            continue
        mine = [c for c in hand if effective_suit(c, trump) == suit]
        if not mine:
            voids += 1
        ace = Card(Rank.ACE, suit) in held
        aces += ace
        if Card(Rank.KING, suit) in held:
            if ace:
                kings_guarded += 1
            elif len(mine) >= 2:
                kings_bare += 1
    row += [float(aces), float(kings_guarded), float(kings_bare), float(voids)]
    return row


def evaluate(hand: Sequence[Card], trump: Suit) -> float:
    """Expected tricks of ``hand`` as the bidder with ``trump``, leading the first trick."""
    return WEIGHTS[0] + sum(w * x for w, x in zip(WEIGHTS[1:], features(hand, trump), strict=True))


def best_suit(hand: Sequence[Card]) -> tuple[Suit, float]:
    """The trump of highest evaluation, and that evaluation."""
    return max(((s, evaluate(hand, s)) for s in Suit), key=lambda pair: (pair[1], -pair[0]))


def bid_value(estimate: float, bid: int, tricks: int = 6) -> float:
    """Expected score of bidding ``bid`` with a hand evaluated at ``estimate`` tricks."""
    total = 0.0
    for r in RESIDUALS:
        taken = min(tricks, max(0, round(estimate + r)))
        total += taken if taken >= bid else -bid
    return total / len(RESIDUALS)


# --- counting ----------------------------------------------------------------------------

def _at_least_one(wanted: int, pool: int, draws: int) -> float:
    """Chance that ``draws`` cards dealt from ``pool`` include one of ``wanted`` given ones."""
    if wanted <= 0 or draws <= 0:
        return 0.0
    if pool <= 0 or wanted >= pool or draws > pool - wanted:
        return 1.0
    return 1.0 - comb(pool - wanted, draws) / comb(pool, draws)


class Count:
    """What the seat can know of the others' cards: unseen cards, and who may hold which."""

    def __init__(self, view: TopperState, seat: int) -> None:
        self.seat = seat
        self.n = view.config.seats
        self.trump = view.trump
        self.held = [c for _, c in view.hand(seat) if c is not None]
        seen = set(self.held) | set(view.played_cards)
        self.unseen = [c for c in view.config.deck if c not in seen]
        self.sizes = view.hand_sizes
        #: For each other seat, the unseen cards it may hold (none of a suit it showed void in).
        self.possible: dict[int, list[Card]] = {}
        for s in range(self.n):
            if s == seat:
                continue
            voids = view.voids(s)
            self.possible[s] = [c for c in self.unseen if effective_suit(c, self.trump) not in voids]

    def suit(self, card: Card) -> Suit:
        return effective_suit(card, self.trump)

    def holds_any(self, s: int, cards: Sequence[Card]) -> float:
        """Chance seat ``s`` holds at least one of ``cards`` (among those it may hold)."""
        pool = self.possible[s]
        wanted = sum(1 for c in cards if c in pool)
        return _at_least_one(wanted, len(pool), self.sizes[s])

    def beaten_by(self, s: int, best: Card, led: Suit) -> float:
        """Chance seat ``s`` plays a card above ``best`` in a trick of ``led`` (it may
        follow with a higher card, or trump it when it holds none of ``led``)."""
        pool = self.possible[s]
        if not pool or self.sizes[s] == 0:
            return 0.0
        trump = self.trump
        top = trick_power(best, trump, led)
        same = [c for c in pool if self.suit(c) == led]
        higher = [c for c in same if trick_power(c, trump, led) > top]
        p_high = self.holds_any(s, higher)
        if trump is None or led == trump:
            return p_high
        p_none = 1.0 - self.holds_any(s, same)
        over = [c for c in pool if is_trump(c, trump) and trick_power(c, trump, led) > top]
        return min(1.0, p_high + p_none * self.holds_any(s, over))

    def holds(self, card: Card, later: Sequence[int], led: Suit) -> float:
        """Chance ``card``, best in the trick so far, still wins once ``later`` seats play."""
        p = 1.0
        for s in later:
            p *= 1.0 - self.beaten_by(s, card, led)
        return p

    def trumps_out(self) -> bool:
        """Whether some other seat may still hold a trump."""
        trump = self.trump
        return trump is not None and any(is_trump(c, trump) for pool in self.possible.values()
                                         for c in pool)


class CounterTopperBot(RuleTopperBot):
    """Bids by the fitted evaluation and plays by counting. See the module docstring."""

    name = "counter"

    #: A card is led or played to win when it holds at least this often.
    confident = 0.6
    #: How much expected score a higher bid may cost before shutting others out is not worth it.
    jump_cost = 0.6

    def _trump(self, hand: Sequence[Card]) -> Suit:
        return best_suit(hand)[0]

    def _play(self, view: TopperState, seat: int) -> TopperAction:
        legal = [a for a in view.legal_actions() if isinstance(a, Play)]
        if len(legal) == 1:
            return legal[0]
        count = Count(view, seat)
        trick = view.current_trick
        cards = [a.card for a in legal]
        pick = self._lead(count, cards) if not trick else self._follow(view, count, cards)
        return next(a for a in legal if a.card == pick)

    # --- bidding -----------------------------------------------------------------

    def _bid(self, view: TopperState, seat: int, hand: Sequence[Card]) -> TopperAction:
        cfg = view.config
        need = max((view.high_bid or 0) + 1, cfg.min_bid)
        if need > cfg.max_bid:
            return PassBid(seat)
        _, estimate = best_suit(hand)
        best = bid_value(estimate, need, cfg.hand_size)
        if best <= DEFEND_TRICKS:
            return PassBid(seat)
        bid = need
        if len(view.bids) < cfg.seats - 1:  # others still to speak: shut them out if cheap
            for higher in range(need + 1, cfg.max_bid + 1):
                if bid_value(estimate, higher, cfg.hand_size) < best - self.jump_cost:
                    break
                bid = higher
        return Bid(seat, bid)

    # --- play --------------------------------------------------------------------

    @staticmethod
    def _power(card: Card, trump: Suit | None) -> int:
        return trick_power(card, trump, effective_suit(card, trump))

    def _others_after(self, count: Count, played: int) -> list[int]:
        """The seats still to play after this one, in a trick where ``played`` cards are down."""
        return [(count.seat + k) % count.n for k in range(1, count.n - played)]

    def _lead(self, count: Count, cards: list[Card]) -> Card:
        trump = count.trump
        later = self._others_after(count, 0)
        trumps = sorted((c for c in cards if is_trump(c, trump)), key=lambda c: -self._power(c, trump))
        out = count.trumps_out()
        if trumps and out and count.holds(trumps[0], later, count.suit(trumps[0])) >= 0.999:
            return trumps[0]  # the top trump: draw theirs
        plain = [c for c in cards if not is_trump(c, trump)]
        odds = {c: count.holds(c, later, count.suit(c)) for c in plain}
        if odds:
            sure = max(plain, key=lambda c: (odds[c], c.rank))
            if odds[sure] >= self.confident:
                return sure
        if trumps and not out:
            return trumps[0]  # every trump left is ours: each one wins
        if plain:
            return min(plain, key=lambda c: (c.rank, self._length(c, count.held, trump)))
        return trumps[-1]

    @staticmethod
    def _length(card: Card, held: Sequence[Card], trump: Suit | None) -> int:
        suit = effective_suit(card, trump)
        return sum(1 for c in held if effective_suit(c, trump) == suit)

    def _follow(self, view: TopperState, count: Count, cards: list[Card]) -> Card:
        trump = count.trump
        trick = view.current_trick
        led = effective_suit(trick[0][1], trump)
        top = max(trick_power(c, trump, led) for _, c in trick)
        later = self._others_after(count, len(trick))
        power = {c: trick_power(c, trump, led) for c in cards}
        winners = [c for c in cards if power[c] > top]
        if winners:
            odds = {c: count.holds(c, later, led) for c in winners}
            best = max(odds.values())
            if best >= self.confident or (not later and best > 0):
                good = [c for c in winners if odds[c] >= best - 0.1]
                return min(good, key=power.__getitem__)
        # Not worth winning: throw the cheapest card, keeping trumps and likely winners.
        return min(cards, key=lambda c: (is_trump(c, trump), self._keeps(count, c),
                                         power[c], c.rank, self._length(c, cards, trump)))

    def _keeps(self, count: Count, card: Card) -> bool:
        """Whether ``card`` would win a later lead of its suit (no unseen card of it beats it)."""
        suit = count.suit(card)
        mine = self._power(card, count.trump)
        return all(count.suit(c) != suit or self._power(c, count.trump) < mine for c in count.unseen)


__all__ = ["CounterTopperBot", "Count", "best_suit", "bid_value", "evaluate", "features"]
