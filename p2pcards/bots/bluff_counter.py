"""A Bluff card counter: the heuristic player, but every claim of a rank is accounted for.

The heuristic believes earlier unchallenged claims of a rank only by half.
The counter adds up every card of the rank it can account for: its own, the
ones revealed, and every earlier unchallenged claim of the rank by another
seat this deal. When the claim on the table needs more cards of the rank
than the four minus those accounted for, someone lied; the later claim is
the likelier liar (it came when the count was already tight), so its
chance of being honest is cut by :attr:`CounterBluffBot.overclaimed`, and
the heuristic's rules decide the call with that chance. Only the seat's
view is read.
"""

from __future__ import annotations

from p2pcards.bots.bluff import HeuristicBluffBot, chance_honest
from p2pcards.rules.bluff import BluffState, Claim


def accounted_honest(view: BluffState, claim: Claim, judge: int, overclaimed: float) -> float:
    """``chance_honest``, cut by ``overclaimed`` when the full count of the rank says a lie."""
    honest = chance_honest(view, claim, judge)
    if honest <= 0.0 or honest >= 1.0:
        return honest
    rank = claim.rank
    known = sum(1 for slot in range(52) if (face := view.face(slot)) is not None and face.rank == rank)
    claimed = sum(c.count for c in view.claims[:-1]
                  if c.rank == rank and not c.revealed and c.seat not in (judge, claim.seat))
    needed = sum(1 for slot in claim.slots if view.face(slot) is None)
    if known + claimed + needed > 4:
        return honest * overclaimed
    return honest


class CounterBluffBot(HeuristicBluffBot):
    """The heuristic's play with a full count of the claimed cards (see the module docstring)."""

    name = "counter"
    #: Factor on a claim's chance of being honest when the claims of its rank exceed the deck.
    overclaimed = 0.35

    def _honest(self, view: BluffState, claim: Claim, seat: int) -> float:
        return accounted_honest(view, claim, seat, self.overclaimed)


__all__ = ["CounterBluffBot", "accounted_honest"]
