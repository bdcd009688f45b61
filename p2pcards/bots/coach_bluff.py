"""The coach's words at a Bluff table: the count a careful player makes, and why the move.

The numbers are those of the belief the bots read
(:class:`~p2pcards.bots.bluff_belief.TableBelief`, from the seat's view
alone): of the rank a claim names, how many the other players have claimed
this deal, how many the seat holds, discarded itself or saw shown by a call,
and so how many can be true at most; then the chance the claim on the table
is true as the coach's bot believes it (an average opponent: a fresh coach
has learned nothing of this table). For example: "Ben claims 1 Ace. 7 Aces
claimed this deal; you hold 1: at most 3 can be true. The chance it is true
is about 4%."
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from p2pcards.bots.bluff import pass_price
from p2pcards.bots.bluff_belief import RankCount, TableBelief
from p2pcards.cards import Rank
from p2pcards.rules import bluff
from p2pcards.rules.bluff import BluffState, Challenge, Discard, Pass

_NAMES = ("two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
          "Jack", "Queen", "King", "Ace")


def rank_name(rank: Rank, plural: bool = True) -> str:
    """A rank as a player says it: "Aces", "sevens", "sixes" (one: "Ace", "seven")."""
    name = _NAMES[rank.value - 2]
    if not plural:
        return name
    return name + ("es" if name.endswith("x") else "s")


def rank_words(rank: Rank, count: int) -> str:
    """``count`` cards of ``rank`` in words: "1 Ace", "3 Aces", "2 sevens"."""
    return f"{count} {rank_name(rank, count != 1)}"


def count_words(count: RankCount) -> str:
    """The count of a rank as a careful player says it: claimed by the others this deal, in
    hand, discarded, shown; then how many of the claimed can be true."""
    parts = [f"you hold {count.in_hand}"]
    if count.discarded:
        parts.append(f"discarded {count.discarded}")
    if count.shown:
        parts.append(f"saw {count.shown} shown by calls")
    seen = "; " + ", ".join(parts)
    claimed = count.claimed
    if claimed == 0:
        return f"No {rank_name(count.rank)} claimed yet this deal{seen}: {count.unseen} unseen"
    verb = "was" if claimed == 1 else "were"
    head = f"{rank_words(count.rank, claimed)} {verb} claimed this deal{seen}"
    if claimed <= count.unseen:
        return f"{head}: all could be true ({count.unseen} unseen)"
    lies = count.certain_lies
    return (f"{head}: at most {count.at_most_true} can be true, so at least "
            f"{lies} {'was a lie' if lies == 1 else 'were lies'}")


@dataclass(frozen=True)
class BluffReason:
    """What the coach says of a Bluff move: its words, its why, and the numbers behind it."""

    says: str
    why: str
    #: The count of the rank the claim on the table (or our lead) names.
    count: RankCount | None
    #: The chance the claim on the table is true (None when none is answered).
    chance: float | None


def _name(names: Sequence[str], seat: int) -> str:
    return names[seat] if 0 <= seat < len(names) and names[seat] else f"seat {seat}"


def _percent(p: float) -> str:
    return f"{round(100 * p)}%"


def bluff_reason(view: BluffState, action: bluff.Action, names: Sequence[str] = ()) -> BluffReason:
    """The words and the reason for a Bluff ``action`` at ``view`` (the seat to act's view)."""
    me = view.viewer if view.viewer is not None else view.to_act
    belief = TableBelief(view, me)
    claim = view.last_claim
    opts = view.options()
    answering = opts is not None and opts.can_challenge and claim is not None
    sentences: list[str] = []
    count: RankCount | None = None
    chance: float | None = None
    if answering and claim is not None:
        count = belief.count(claim.rank)
        chance = belief.chance_true(claim)
        sentences.append(f"{_name(names, claim.seat)} claims {rank_words(claim.rank, claim.count)}")
        sentences.append(count_words(count) + (
            ", and this claim needs more than that: a certain lie"
            if claim.count > count.unseen else ""))
        sentences.append(f"The chance it is true is about {_percent(chance)}")
    if isinstance(action, Challenge):
        says = "challenge"
        stake = claim.stake if claim is not None else 0
        sentences.append(f"Calling is worth more than the {stake} chips a true claim would cost you")
    elif isinstance(action, Pass):
        says = "pass"
        sentences.append(f"Passing costs {pass_price(view)} chips, less than a call or a discard risks")
    elif isinstance(action, Discard):
        rank = action.rank if action.rank is not None else view.named_rank
        assert rank is not None  # a responder's rank is the round's
        faces = [view.face(slot) for slot in action.slots]
        true = sum(1 for f in faces if f is not None and f.rank == rank)
        cards = " ".join(f.ascii if f is not None else "??" for f in faces)
        lead = opts is not None and opts.must_lead
        says = (f"discard {cards} as {rank.label} stake {action.stake}" if lead
                else f"discard {cards} stake {action.stake}")
        if not answering:
            count = belief.count(rank)
            sentences.append(count_words(count))
        sentences.append(_truth(true, len(faces), rank))
    else:  # pragma: no cover - a reveal is forced, never advised
        says = str(action)
    why = " ".join(s[:1].upper() + s[1:] + "." for s in sentences)
    return BluffReason(says, why, count, chance)


def _truth(true: int, count: int, rank: Rank) -> str:
    """Whether a discard of ``count`` cards, ``true`` of them of ``rank``, tells the truth."""
    if true == count:
        return "the card is true" if count == 1 else f"all {count} cards are true"
    if count == 1:
        return f"a bluff: that card is no {rank_name(rank, False)}"
    are = f"is a {rank_name(rank, False)}" if true == 1 else f"are {rank_name(rank)}"
    return f"a bluff: only {true} of the {count} cards {are}"


__all__ = ["BluffReason", "bluff_reason", "count_words", "rank_name", "rank_words"]
