"""The refusals specific to Bluff, each with a stable rule id.

They extend the shared vocabulary of :mod:`p2pcards.rules.errors` so that a
caller can catch broadly (``WrongPhase``, ``BadAction``) or precisely. The
shared classes (``NotYourTurn``, ``NotYourCard``, ``CardMismatch``,
``MatchOver``, ``WrongPhase``, ``BadAction``) are raised as they are where
they already say everything.
"""

from __future__ import annotations

from p2pcards.rules.errors import BadAction, RuleError, WrongPhase

# BadDeal, ConfigError, DealNotAwaited and FacesUnknown are one class for both
# games (rules.errors), re-exported here.
from p2pcards.rules.errors import BadDeal as BadDeal
from p2pcards.rules.errors import ConfigError as ConfigError
from p2pcards.rules.errors import DealNotAwaited as DealNotAwaited
from p2pcards.rules.errors import FacesUnknown as FacesUnknown


class LeaderMustDiscard(WrongPhase):
    """The leader passed: a round opens with a discard, there is nothing to pass on."""

    rule = "bluff.leader-must-discard"


class NothingToChallenge(WrongPhase):
    """A challenge while no discard is on the table (the leader's turn)."""

    rule = "bluff.nothing-to-challenge"


class AlreadyRevealed(RuleError):
    """A challenge of a discard that a challenge already showed honest."""

    rule = "bluff.already-revealed"


class DiscardCount(BadAction):
    """A discard of fewer than one or more than ``max_discard`` cards."""

    rule = "bluff.discard-count"


class DuplicateSlots(BadAction):
    """A discard that names the same slot twice."""

    rule = "bluff.duplicate-slots"


class RankRequired(RuleError):
    """The leader discarded without naming a rank."""

    rule = "bluff.rank-required"


class WrongRank(RuleError):
    """A responder named a rank other than the one the leader named."""

    rule = "bluff.wrong-rank"


class StakeTooLow(RuleError):
    """A stake below the minimum: the table's, the round's current stake, or
    (for a leader short of the table minimum) his whole stack."""

    rule = "bluff.stake-too-low"


class StakeAboveStack(RuleError):
    """A stake larger than the chips the seat has in front of it."""

    rule = "bluff.stake-above-stack"


class RevealCount(BadAction):
    """A reveal whose number of faces differs from the challenged discard's."""

    rule = "bluff.reveal-count"
