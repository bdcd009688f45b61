"""A Topper bot that searches: Information Set Monte Carlo Tree Search over imagined deals.

The bot sees only its seat's view. To look ahead it *determinises*: it deals
the cards it cannot see to the other seats at random, but only in ways
consistent with what is public (cards played, the suits each seat showed it
lacks, and softly the bidding: by the counter's fitted hand evaluation,
:mod:`topper_counter`, a seat that bid is dealt a hand that could make its
bid and a seat that passed one that would not have topped the bid it
passed, when a few tries find one). Then:

- **Bidding and trump.** For each imagined deal and each trump it plays the
  hand out with a quick policy (itself leading as the bidder) and counts its
  tricks; a bid's value is the mean score it would bring (the tricks, or
  minus the bid when short). It bids when that beats defending, and bids
  higher than it must while other seats are still to speak and the higher
  bid costs little (it shuts them out). It names the trump with the best
  value.
- **Play.** Single-observer IS-MCTS (Cowling, Powley and Whitehouse, 2012):
  one tree over the moves of every seat, built from this seat's information
  set; each iteration deals a fresh determinisation, walks the tree with
  UCB1 counting a move's *availability* (how often it was legal when its
  parent was visited) instead of the parent's visits, adds one node, plays
  the rest of the hand with the quick policy, and credits each node with
  the hand's result for the seat that moved into it. The most visited move
  is played. The quick policy reads the imagined hands: it leads a card no
  other hand can beat, else its lowest, and follows with the cheapest card
  no later hand can beat, else its lowest. The first cards get the whole
  budget; it shrinks as the hand does (:meth:`SearchTopperBot.budget`), and a
  forced card is played at once.

All randomness comes from the ``random.Random`` the bot is given, and the
budgets are counts of simulations, not seconds, so a seeded bot repeats
itself exactly on any machine. Two ceilings only cut a decision short on a
machine too slow for its budget: ``ceiling`` (1 s) of the thinking thread's
own CPU time, which other processes' load does not count (so a seeded bot
repeats itself on a busy machine too), and ``wall_ceiling`` (5 s) by the
clock, a last resort on a machine too loaded to give the thread its time.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence

from p2pcards.bots.topper_counter import DEFEND_TRICKS, bid_value
from p2pcards.bots.topper_playout import CardTables, HandSim, MatchOdds, card_tables, hand_score, reward
from p2pcards.cards import Card, Suit
from p2pcards.rules.topper import Bid, NameTrump, PassBid, Phase, Play, TopperAction, TopperState
from p2pcards.rules.topper.determinize import HiddenDeal, InconsistentView

#: The least evaluation at which a careful player (the counter) bids each number of tricks.
_BID_AT = {b: next(e / 20 for e in range(200) if bid_value(e / 20, b) > DEFEND_TRICKS)
           for b in range(1, 7)}


class _Deadline:
    """When a decision stops thinking, whatever its budget: after ``cpu`` seconds of this
    thread's CPU time, or ``wall`` seconds by the clock."""

    __slots__ = ("cpu_end", "wall_end")

    def __init__(self, cpu: float, wall: float) -> None:
        self.cpu_end = time.thread_time() + cpu
        self.wall_end = time.perf_counter() + wall

    def passed(self) -> bool:
        return time.thread_time() > self.cpu_end or time.perf_counter() > self.wall_end


class _Node:
    __slots__ = ("player", "children", "visits", "reward", "avail")

    def __init__(self, player: int) -> None:
        self.player = player
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.reward = 0.0
        self.avail = 1


class _Knowledge:
    """What the seat knows of the hand, read once from its view: the input of every determinisation."""

    def __init__(self, view: TopperState, seat: int) -> None:
        self.view = view
        self.seat = seat
        self.n = view.config.seats
        self.tables = card_tables(view.config.deck)
        self.trump = view.trump
        self.hidden: dict[int, list[int]] = {}
        self.known: dict[int, list[Card]] = {}
        for s in range(self.n):
            held = view.hand(s)
            self.hidden[s] = [slot for slot, face in held if face is None]
            self.known[s] = [face for _, face in held if face is not None]
        seen = set(view.played_cards)
        for cards in self.known.values():
            seen.update(cards)
        self.unseen = [c for c in view.config.deck if c not in seen]
        self.voids = {s: view.voids(s) for s in range(self.n)}
        played: dict[int, list[Card]] = {s: [] for s in range(self.n)}
        for trick in view.tricks:
            for s, card in trick.plays:
                played[s].append(card)
        for s, card in view.current_trick:
            played[s].append(card)
        self.played = played
        # What each other seat's bidding says of its hand, as (seat, low, high) bounds on its
        # fitted evaluation: a bid of b says at least about what a careful bidder needs for b
        # (less a margin: players bid boldly too), a pass facing b says below what b + 1 needs
        # (plus a margin: players pass good hands too).
        self.bounds: list[tuple[int, float, float]] = []
        high = 0
        for s, b in view.bids:
            if b is not None:
                if s != seat:
                    self.bounds.append((s, _BID_AT[min(6, b)] - 1.0, math.inf))
                high = b
            elif s != seat and high < 6:
                self.bounds.append((s, -math.inf, _BID_AT[high + 1] + 1.0))
        index = self.tables.index
        self.played_index = {s: [index[c] for c in cards] for s, cards in played.items()}
        self._known_index = [[index[c] for c in self.known[s]] for s in range(self.n)]
        self._dealer: HiddenDeal[int] | None = None

    def deal(self, rng: random.Random, tries: int = 4) -> list[list[Card]]:
        """Every seat's unplayed cards in one determinisation, bids believed when a few tries allow."""
        deck = self.tables.deck
        return [[deck[i] for i in hand] for hand in self.deal_indices(rng, tries)]

    def deal_indices(self, rng: random.Random, tries: int = 4) -> list[list[int]]:
        """:meth:`deal` as deck indices, what the play-outs run on (the same draws, the same deal)."""
        if self._dealer is None:  # made at the first deal, which raises what assign_hidden would
            index = self.tables.index
            self._dealer = HiddenDeal({s: len(slots) for s, slots in self.hidden.items()},
                                      [index[c] for c in self.unseen],
                                      self.tables.suit[self.trump].__getitem__, self.voids)
        known = self._known_index
        hands: list[list[int]] = []
        for _attempt in range(tries):
            placed = self._dealer.draw(rng)
            hands = [known[s] + placed[s] for s in range(self.n)]
            if all(low <= self._strength(hands[s], s) <= high for s, low, high in self.bounds):
                break
        return hands

    def _strength(self, held: list[int], seat: int) -> float:
        """The fitted evaluation of ``seat``'s hand as dealt (what it holds and has played, as
        deck indices), under the named trump, else its best suit."""
        dealt = held + self.played_index[seat]
        if self.trump is not None:
            return self.tables.evaluate(dealt, self.trump)
        return self.tables.best(dealt)[1]


def _outbid(strength: dict[int, float], later: Sequence[int], holder: int | None, high: int,
            min_bid: int, max_bid: int) -> tuple[int | None, int]:
    """Who holds the bid, and at what, once ``later`` seats have spoken like careful players:
    each bids one more than the table when its best suit's fitted evaluation (``strength``)
    is enough for that bid (:data:`_BID_AT`)."""
    for s in later:
        ask = max(high + 1, min_bid)
        if ask <= max_bid and strength[s] >= _BID_AT[ask]:
            holder, high = s, ask
    return holder, high


class SearchTopperBot:
    """Bids and names trump from simulated hands; plays by IS-MCTS. See the module docstring."""

    name = "search"

    def __init__(self, rng: random.Random, iterations: int = 600, bid_samples: int = 60,
                 exploration: float = 0.7, match_aware: bool = False,
                 match_bids: bool | None = None, ceiling: float = 1.0,
                 fresh_deals: float = 0.3, wall_ceiling: float = 5.0) -> None:
        self.rng = rng
        #: Share of a card's iterations that deal a fresh determinisation (the rest reuse them).
        self.fresh_deals = fresh_deals
        #: CPU seconds (of the thinking thread) after which a decision stops whatever its
        #: budget: a safety net on slow machines (budgets are counted in work, so below it
        #: seeded runs repeat exactly, however loaded the machine).
        self.ceiling = ceiling
        #: Seconds by the clock after which a decision stops: the last resort.
        self.wall_ceiling = wall_ceiling
        #: Judge a hand by the chances of winning the match it leaves (:class:`MatchOdds`)
        #: rather than by its score alone, and bid against a model of the later bidders.
        self.match_aware = match_aware
        #: Bid for the match too (by default when ``match_aware``).
        self.match_bids = match_aware if match_bids is None else match_bids
        #: IS-MCTS iterations per card played.
        self.iterations = iterations
        #: Imagined deals per bidding or trump decision (each played under every trump).
        self.bid_samples = bid_samples
        self.exploration = exploration
        #: Tricks a seat expects to take when it defends (the value of passing).
        self.defend_value = 1.0
        #: How much expected score a higher bid may cost before it is not worth shutting others out.
        self.jump_cost = 0.35

    def choose(self, view: TopperState) -> TopperAction:
        seat = view.to_act
        if seat is None or (view.viewer is not None and seat != view.viewer):
            raise ValueError("this view's seat is not the one to act")
        if self.match_bids and view.phase in (Phase.BIDDING, Phase.TRUMP):
            return self._bid_for_the_match(view, seat)
        if view.phase is Phase.BIDDING:
            return self._bid(view, seat)
        if view.phase is Phase.TRUMP:
            values = self._trump_values(view, seat)
            bid = view.high_bid or 0
            return NameTrump(seat, max(Suit, key=lambda s: (self._mean_score(values[s], bid), -s)))
        legal = [a for a in view.legal_actions() if isinstance(a, Play)]
        if len(legal) == 1:
            return legal[0]
        card = self._search(view, seat)
        return next(a for a in legal if a.card == card)

    def _deadline(self) -> _Deadline:
        return _Deadline(self.ceiling, self.wall_ceiling)

    # --- bidding ----------------------------------------------------------------

    def _trump_values(self, view: TopperState, seat: int) -> dict[Suit, list[int]]:
        """For each trump, the tricks this seat took in each imagined deal, bidding and leading."""
        know = _Knowledge(view, seat)
        tables = know.tables
        tricks: dict[Suit, list[int]] = {s: [] for s in Suit}
        deadline = self._deadline()
        for done in range(self.bid_samples):
            if done and deadline.passed():
                break
            dealt = know.deal_indices(self.rng)
            for trump in Suit:
                sim = HandSim([list(h) for h in dealt], [], seat, [0] * know.n, tables, trump)
                tricks[trump].append(sim.play_out(self.rng)[seat])
        return tricks

    @staticmethod
    def _mean_score(tricks: Sequence[int], bid: int) -> float:
        return sum(t if t >= bid else -bid for t in tricks) / max(1, len(tricks))

    def _bid(self, view: TopperState, seat: int) -> TopperAction:
        cfg = view.config
        need = max((view.high_bid or 0) + 1, cfg.min_bid)
        if need > cfg.max_bid:
            return PassBid(seat)
        values = self._trump_values(view, seat)

        def value(bid: int) -> float:
            return max(self._mean_score(values[s], bid) for s in Suit)

        best = value(need)
        if best <= self.defend_value:
            return PassBid(seat)
        bid = need
        still_to_speak = len(view.bids) < cfg.seats - 1
        if still_to_speak:
            for higher in range(need + 1, cfg.max_bid + 1):
                if value(higher) < best - self.jump_cost:
                    break
                bid = higher
        return Bid(seat, bid)

    def _bid_for_the_match(self, view: TopperState, seat: int) -> TopperAction:
        """Bid (or name trump) for the best chance of winning the match.

        In each imagined deal the seat plays its hand out as the bidder under
        every trump; the later seats are assumed to bid like a careful player
        (one more than the table when their best suit's estimate reaches it),
        so a bid they top leaves the hand to them. Passing is worth the
        hand the others would then play (or a throw-in). Each choice is
        valued by the seat's chance of winning the match afterwards.
        """
        cfg = view.config
        bidding = view.phase is Phase.BIDDING
        need = max((view.high_bid or 0) + 1, cfg.min_bid) if bidding else (view.high_bid or 0)
        if need > cfg.max_bid:
            return PassBid(seat)
        know = _Knowledge(view, seat)
        tables = know.tables
        n = know.n
        odds = MatchOdds(view.scores, cfg.target_score)
        levels = list(range(need, cfg.max_bid + 1)) if bidding else [need]
        later = [(seat + k) % n for k in range(1, n - len(view.bids))] if bidding else []
        mine = {(t, b): 0.0 for t in Suit for b in levels}
        topped = dict.fromkeys(levels, 0.0)
        passed = 0.0
        samples = 0
        deadline = self._deadline()
        for _ in range(max(1, self.bid_samples)):
            if samples and deadline.passed():
                break
            samples += 1
            dealt = know.deal_indices(self.rng)
            others: dict[tuple[int, int], float] = {}
            kept = []  # the bids no later seat tops in this deal
            strength = {s: tables.best(dealt[s])[1] for s in later}
            for b in levels:
                holder, high = _outbid(strength, later, seat, b, cfg.min_bid, cfg.max_bid)
                if holder == seat:
                    kept.append(b)
                else:
                    topped[b] += self._others_hand(dealt, holder, high, odds, seat, tables, others)
            if kept:
                for trump in Suit:
                    sim = HandSim([list(h) for h in dealt], [], seat, [0] * n, tables, trump)
                    taken = sim.play_out(self.rng)
                    for b in kept:
                        mine[(trump, b)] += odds.after(hand_score(taken, seat, b), seat)[seat]
            if bidding:
                holder, high = _outbid(strength, later, view.bidder, view.high_bid or 0,
                                       cfg.min_bid, cfg.max_bid)
                passed += self._others_hand(dealt, holder, high, odds, seat, tables, others)

        def value(trump: Suit, b: int) -> float:
            return (mine[(trump, b)] + topped[b]) / samples

        trump, bid = max(((t, b) for t in Suit for b in levels), key=lambda tb: (value(*tb), -tb[1], -tb[0]))
        if not bidding:
            return NameTrump(seat, trump)
        if value(trump, bid) <= passed / samples:
            return PassBid(seat)
        return Bid(seat, bid)

    def _others_hand(self, dealt: list[list[int]], holder: int | None, high: int, odds: MatchOdds,
                     seat: int, tables: CardTables, cache: dict[tuple[int, int], float]) -> float:
        """The seat's odds when ``holder`` (None: nobody, a throw-in) bids ``high`` on this deal."""
        key = (-1 if holder is None else holder, high)
        if key not in cache:
            n = len(dealt)
            if holder is None:
                cache[key] = odds.after([0] * n, None)[seat]
            else:
                trump = tables.best(dealt[holder])[0]
                sim = HandSim([list(h) for h in dealt], [], holder, [0] * n, tables, trump)
                changes = hand_score(sim.play_out(self.rng), holder, high)
                cache[key] = odds.after(changes, holder)[seat]
        return cache[key]

    # --- play -------------------------------------------------------------------

    def budget(self, view: TopperState, seat: int) -> int:
        """Iterations for this card: the full budget while the hand is long (the first tricks
        decide it), less as it shortens and the tree of what is left shrinks."""
        cards = len(view.hand(seat))
        size = view.config.hand_size
        return max(1, round(self.iterations * min(1.0, (cards + 1) / size)))

    def _search(self, view: TopperState, seat: int) -> Card:
        know = _Knowledge(view, seat)
        tables = know.tables
        index = tables.index
        trick0 = [(s, index[c]) for s, c in view.current_trick]
        taken0 = list(view.tricks_taken)
        bidder, bid = view.bidder, view.high_bid or 0
        root = _Node(seat)
        rng = self.rng
        c = self.exploration
        odds = MatchOdds(view.scores, view.config.target_score) if self.match_aware else None
        # Each seat's rewards are read on the scale of those seen so far (win
        # chances can spread little early in a match and a lot near its end).
        n = know.n
        low = [0.0] * n
        span = [1.0] * n
        high: list[float] | None = None
        deadline = self._deadline()
        budget = self.budget(view, seat)
        # Dealing is the dear part of an iteration (the voids make it a transportation
        # problem): the first iterations deal afresh, the later ones reuse those deals.
        pool: list[list[list[int]]] = []
        fresh = max(1, round(budget * self.fresh_deals))
        sqrt, log = math.sqrt, math.log
        for done in range(budget):
            if done % 32 == 31 and deadline.passed():
                break
            if done < fresh:
                try:
                    pool.append(know.deal_indices(rng))
                except InconsistentView:
                    break
                hands = pool[-1]
            else:
                hands = pool[done % len(pool)]
            sim = HandSim([list(h) for h in hands], list(trick0), seat,
                          list(taken0), tables, know.trump)
            node, path = root, []
            while not sim.over():
                legal = sim.legal()
                children = node.children
                untried = [m for m in legal if m not in children]
                if untried:
                    move = rng.choice(untried)
                    child = children[move] = _Node(sim.to_act)
                    for m in legal:
                        if m != move and m in children:
                            children[m].avail += 1
                    sim.play(move)
                    path.append(child)
                    break
                best_move, best_score = legal[0], -1.0
                for m in legal:
                    child = children[m]
                    child.avail += 1
                    p = child.player
                    score = (child.reward / child.visits - low[p]) / span[p] + c * sqrt(
                        log(child.avail) / child.visits)
                    if score > best_score:
                        best_move, best_score = m, score
                node = children[best_move]
                sim.play(best_move)
                path.append(node)
            changes = hand_score(sim.play_out(rng), bidder, bid)
            if odds is None:
                rewards = [reward(changes, s) for s in range(n)]
            else:
                rewards = odds.after(changes, bidder)
                if high is None:
                    low, high = list(rewards), list(rewards)
                    span = [1e-9] * n
                else:  # widen the scale in place (this runs every iteration)
                    for s, r in enumerate(rewards):
                        if r < low[s]:
                            low[s] = r
                            span[s] = max(1e-9, high[s] - r)
                        elif r > high[s]:
                            high[s] = r
                            span[s] = max(1e-9, r - low[s])
            for node in path:
                node.visits += 1
                node.reward += rewards[node.player]
        legal_cards = [index[a.card] for a in view.legal_actions() if isinstance(a, Play)]
        best = max(legal_cards, key=lambda m: (root.children[m].visits if m in root.children else -1,
                                               -m))
        return tables.deck[best]


__all__ = ["MatchOdds", "SearchTopperBot", "hand_score"]
