"""The coach: what the ``normal`` search bot would do in a seat's place, and one line of why.

A player learning the games asks it on his own turn (``hint``, or ``w`` on
the full screen). It is given the seat's view and nothing else, like every
bot, so its advice cannot depend on another seat's hidden cards. The move is
exactly the normal bot's choice (a fresh bot each time: the learning Bluff
bot has observed nothing of the opponents yet, so it judges them as an
average player). The reason is in the game's terms, with numbers a player
can check on the board:

- **Bluff.** The count of the rank a claim names (or our lead), as a careful
  player makes it: how many the others claimed this deal, how many we hold,
  discarded or saw shown, so how many of the claimed can be true at most;
  and the chance that the claim on the table is true, as the bot believes it
  (:mod:`p2pcards.bots.coach_bluff`).
- **Topper.** The trump count of the suit that matters (our best suit while
  bidding, the named trump after), the tricks a bid needs, and for a card to
  play why that card: whether it takes the trick so far, whether any unseen
  card could beat it, and where the bidder stands against his bid.

Hints belong to a table against bots (``p2pcards play``), or to a LAN table
whose host allowed them (``host --hints``): there the seat's ``hint`` message
tells every other player first (:mod:`p2pcards.app.front`); elsewhere the
screens refuse them (``HINTS_OFF`` of :mod:`p2pcards.ui.text_common`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from p2pcards.bots.bluff_belief import RankCount
from p2pcards.bots.coach_bluff import bluff_reason
from p2pcards.bots.registry import make_bot_factory
from p2pcards.bots.topper import best_trump, estimate_tricks
from p2pcards.cards import Card, Suit
from p2pcards.errors import P2PCardsError
from p2pcards.rules import bluff
from p2pcards.rules.bluff import BluffState
from p2pcards.rules.contract import Engine
from p2pcards.rules.games import GameAction, game_of
from p2pcards.rules.topper import Bid, NameTrump, PassBid, Play, TopperAction, TopperState
from p2pcards.rules.topper.order import effective_suit, is_trump, trick_power

#: The level of the bot whose choice the coach shows.
COACH_LEVEL = "normal"

class NoAdvice(P2PCardsError, LookupError):
    """The coach was asked when this seat has nothing to decide (not its turn, or the
    rules leave it no choice)."""


@dataclass(frozen=True)
class Advice:
    """The normal bot's move for a seat (``action``), the words a player types for it
    (``says``, cards in ASCII as plain mode types them) and one line of why; in Bluff also
    the numbers the why quotes (``count``, ``chance``), for a front end to show its own way."""

    action: GameAction
    says: str
    why: str
    count: RankCount | None = None
    chance: float | None = None

    def text(self) -> str:
        return f"Coach: {self.says}. {self.why}"


def advise(view: Engine, rng: random.Random, names: Sequence[str] = ()) -> Advice:
    """What the normal search bot would do at ``view``'s seat, and why (``names``: the
    display names by seat, for the reason's words)."""
    seat = view.viewer if view.viewer is not None else view.to_act
    if view.to_act is None or seat != view.to_act:
        raise NoAdvice("the coach advises on your own turn only")
    if view.forced_action() is not None:
        raise NoAdvice("the rules leave you no choice here")
    game = game_of(view).name
    action = make_bot_factory(game, "search", COACH_LEVEL)(rng).choose(view)
    if isinstance(view, BluffState):
        return bluff_advice(view, cast(bluff.Action, action), names)
    return topper_advice(cast(TopperState, view), cast(TopperAction, action), names)


def bluff_advice(view: BluffState, action: bluff.Action, names: Sequence[str] = ()) -> Advice:
    """The words and the reason for a Bluff ``action`` at ``view``."""
    reason = bluff_reason(view, action, names)
    return Advice(action, reason.says, reason.why, reason.count, reason.chance)


def _name(names: Sequence[str], seat: int) -> str:
    return names[seat] if 0 <= seat < len(names) and names[seat] else f"seat {seat}"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def _sentence(parts: Sequence[str]) -> str:
    text = "; ".join(parts)
    return (text[:1].upper() + text[1:] + ".") if text else ""


# --- Topper -----------------------------------------------------------------------------

def _my_cards(view: TopperState, me: int) -> list[Card]:
    return [face for _, face in view.hand(me) if face is not None]


def trump_count(cards: Sequence[Card], trump: Suit) -> int:
    """How many of ``cards`` are trumps with ``trump`` (the Little Jack included)."""
    return sum(1 for card in cards if is_trump(card, trump))


def _suit_word(suit: Suit) -> str:
    return suit.name.lower()


def topper_advice(view: TopperState, action: TopperAction, names: Sequence[str] = ()) -> Advice:
    """The words and the reason for a Topper ``action`` at ``view``."""
    me = action.seat
    cards = _my_cards(view, me)
    hand_size = view.config.hand_size
    if isinstance(action, (Bid, PassBid)):
        suit, value = best_trump(cards)
        trumps = trump_count(cards, suit)
        need = max((view.high_bid or 0) + 1, view.config.min_bid)
        base = (f"your best trump is {_suit_word(suit)}: you hold {_plural(trumps, 'trump')} "
                f"of it, and your hand is worth about {value:.1f} tricks")
        if isinstance(action, Bid):
            return Advice(action, f"bid {action.tricks}", _sentence([
                base, f"a bid of {action.tricks} needs {action.tricks} of the {hand_size} tricks "
                      f"(short of it, you lose {action.tricks} points)"]))
        if need > view.config.max_bid:
            tail = "nobody can bid higher"
        else:
            tail = f"the next bid, {need}, needs {need} of the {hand_size} tricks"
        return Advice(action, "pass", _sentence([base, tail]))
    if isinstance(action, NameTrump):
        trumps = trump_count(cards, action.suit)
        bid = view.high_bid or 0
        return Advice(action, f"trump {_suit_word(action.suit)}", _sentence([
            f"with {_suit_word(action.suit)} as trump you hold {_plural(trumps, 'trump')}, "
            f"worth about {estimate_tricks(cards, action.suit):.1f} tricks",
            f"your bid of {bid} needs {bid} of the {hand_size} tricks"]))
    if isinstance(action, Play):
        return Advice(action, f"play {action.card.ascii}",
                      _sentence(_play_reasons(view, action.card, me, cards, names)))
    return Advice(action, str(action), "")  # pragma: no cover - the bot plays only the above


def _play_reasons(view: TopperState, card: Card, me: int, cards: Sequence[Card],
                  names: Sequence[str]) -> list[str]:
    trump = view.trump
    parts: list[str] = []
    if trump is not None:
        parts.append(f"trump is {_suit_word(trump)}, and you hold "
                     f"{_plural(trump_count(cards, trump), 'trump')}")
    trick = view.current_trick
    led = effective_suit(trick[0][1], trump) if trick else effective_suit(card, trump)
    power = trick_power(card, trump, led)
    seen = set(view.played_cards) | set(cards)
    unseen = [c for c in view.config.deck if c not in seen]
    beaten_by = [c for c in unseen if trick_power(c, trump, led) > power]
    if trick:
        best_seat, best = max(trick, key=lambda sc: trick_power(sc[1], trump, led))
        if power > trick_power(best, trump, led):
            top = trick_power(best, trump, led)
            legal = [a.card for a in view.legal_actions() if isinstance(a, Play)]
            winners = [trick_power(c, trump, led) for c in legal if trick_power(c, trump, led) > top]
            cheapest = len(winners) > 1 and power == min(winners)
            parts.append(f"{card.ascii} takes the trick from {_name(names, best_seat)}'s "
                         f"{best.ascii}" + (" as cheaply as you can" if cheapest else ""))
        elif effective_suit(card, trump) != led:
            parts.append(f"you cannot follow {_suit_word(led)}, nor take the trick: "
                         f"throw {card.ascii}, keep your better cards")
        else:
            parts.append(f"{card.ascii} cannot beat {_name(names, best_seat)}'s {best.ascii}: "
                         f"keep your better cards")
    else:
        kind = "a trump" if trump is not None and is_trump(card, trump) else _suit_word(led)
        parts.append(f"you lead {kind}")
    if not beaten_by and (not trick or power > 0):
        parts.append(f"no card still unseen beats {card.ascii}")
    bidder, bid = view.bidder, view.high_bid or 0
    if bidder is not None:
        taken = view.tricks_taken[bidder]
        who = "you have" if bidder == me else f"{_name(names, bidder)} has"
        parts.append(f"{who} {taken} of the {bid} tricks the bid needs")
    return parts


__all__ = ["Advice", "COACH_LEVEL", "NoAdvice", "advise", "bluff_advice", "topper_advice",
           "trump_count"]
