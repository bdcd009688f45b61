"""How the players after a Bluff claim answer it: the chance it is called, as its maker can foresee.

The maker does not see the next player's hand, but his belief
(:class:`~p2pcards.bots.bluff_belief.TableBelief`) says how many cards of
the rank that player was likely dealt and still holds. For each case, the
next player judges the claim as the table would, knowing his own cards too
(:meth:`~p2pcards.bots.bluff_belief.TableBelief.chance_believed`): the more
of the rank he holds, the fewer remain for the claim to be true. He calls
when a call is worth more to him than his best alternative: shedding his own
cards of the rank if he has some, else passing or a discard of his own. If
he lacks the rank and passes, the player after him judges likewise.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from p2pcards.bots.bluff import pass_price
from p2pcards.bots.bluff_belief import TableBelief
from p2pcards.cards import Rank
from p2pcards.rules.bluff import SEATS, BluffState


@dataclass(frozen=True)
class Plan:
    """A claim a seat weighs making: what, how many, leading or not, at what stake."""

    seat: int
    rank: Rank
    count: int
    #: Of ``count``, the cards no call has shown (the others are known to be true).
    hidden: int
    lead: bool
    raised: bool
    stake: int


@dataclass(frozen=True)
class Values:
    """What the answering players are believed to weigh, in chips."""

    #: A card shed (the deal goes to the first empty hand).
    card_value: float = 20.0
    #: Share of a caught bluff's stake that counts as the caller's.
    stake_share: float = 0.5
    #: Leading the next round (a caught bluff gives the caller the lead).
    lead_value: float = 10.0
    #: A player lacking the rank: his best move other than a call (a pass costs the pass
    #: price, a bluff of his own is worth about this).
    lacking_alt: float = 0.0
    #: Chips over which readiness to call goes from unlikely to likely.
    spread: float = 2.0


def next_in_play(view: BluffState, after: int) -> int | None:
    """The seat that answers a discard by ``after`` (the next one with cards, in play)."""
    for step in range(1, SEATS):
        seat = (after + step) % SEATS
        if not view.out[seat] and view.hand_sizes[seat] > 0:
            return seat
    return None


def lead_worth(lead_value: float, card_value: float, best: int) -> float:
    """What leading the next round is worth to a seat whose largest group of one rank is
    ``best`` cards: it sheds them at once, by a claim nobody can doubt."""
    return lead_value + 0.75 * card_value * min(4, best)


@dataclass(frozen=True)
class Answerers:
    """What the answers to a seat's claim depend on besides the claim, read once per decision:
    who answers in turn, their hands, the pass price and the safe box."""

    maker: int
    #: The seats in play after the maker, in turn.
    order: tuple[int, ...]
    #: The maker's cards in hand (a claim of them all would take him out).
    hand: int
    price: int
    safe_box: int


def answerers(view: BluffState, maker: int) -> Answerers:
    order: list[int] = []
    seat: int | None = maker
    for _ in range(SEATS - 1):
        seat = next_in_play(view, seat) if seat is not None else None
        if seat is None or seat == maker:
            break
        order.append(seat)
    return Answerers(maker, tuple(order), view.hand_sizes[maker], pass_price(view), view.safe_box)


def call_gain(who: Answerers, plan: Plan, values: Values) -> float:
    """What a call that catches ``plan`` as a bluff is worth to the caller."""
    gain = values.stake_share * plan.stake + plan.count * values.card_value / 2 + values.lead_value
    if plan.count == who.hand:
        gain += who.safe_box + plan.stake  # the maker would go out: a call is the last chance
    return gain


def answer(who: Answerers, belief: TableBelief, public: TableBelief, plan: Plan, seat: int,
           values: Values) -> tuple[float, float]:
    """The chance ``seat`` calls ``plan``, and the chance he lacks its rank and lets it be.

    ``belief`` is the maker's own, ``public`` an onlooker's (``judge=None``)."""
    gain = call_gain(who, plan, values)
    lacking = max(-float(who.price), values.lacking_alt)
    stake, spread, card = plan.stake, values.spread, values.card_value
    calls = lacking_lets = 0.0
    believed = public.chances_believed(seat, plan.seat, plan.rank, plan.hidden, plan.lead,
                                       plan.raised) if plan.hidden else []
    for (knows, held), chance in belief.dealt_and_held(seat, plan.rank).items():
        if chance < 0.002:
            continue
        true = (believed[knows] if knows < len(believed) else 0.0) if plan.hidden else 1.0
        worth = (1 - true) * gain - true * stake
        best = (held if held < 4 else 4) * card if held else lacking
        call = _logistic((worth - best) / spread)
        calls += chance * call
        if held == 0:
            lacking_lets += chance * (1 - call)
    return calls, lacking_lets


def caught(who: Answerers, belief: TableBelief, public: TableBelief, plan: Plan, values: Values,
           scale: Callable[[int], float] | None = None) -> tuple[float, tuple[int, float] | None]:
    """The chance ``plan`` is called by one of the players after its maker, and the next
    player's own chance (before ``scale``, for a model to learn from).

    ``scale(seat)``, if given, says how much more readily than foreseen that seat calls.
    A player lacking the rank who does not call passes, unless a discard of his own (which
    accepts the claim) is cheap: at a high stake he rather passes.
    """
    passes = 0.9 if plan.stake >= 3 * who.price else 0.4
    total, reach = 0.0, 1.0
    first: tuple[int, float] | None = None
    for seat in who.order:
        call, lacking_lets = answer(who, belief, public, plan, seat, values)
        if first is None:
            first = (seat, call)
        if scale is not None:
            call = min(0.97, call * scale(seat))
        total += reach * call
        reach *= lacking_lets * passes
        if reach < 0.03:
            break
    return total, first


def _logistic(x: float) -> float:
    return 1 / (1 + math.exp(-max(-30.0, min(30.0, x))))


__all__ = ["Answerers", "Plan", "Values", "answer", "answerers", "call_gain", "caught", "lead_worth",
           "next_in_play"]
