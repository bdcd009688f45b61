"""Bluff, laid out like Topper: the referee and its whole vocabulary, exported here.

The rule for both games' packages: ``__init__`` exports what a caller outside
the package uses (the engine, configuration, phases, records, actions,
events, outcome and the game's refusals), listed in ``__all__``; helpers
that only some callers need (Topper's card order and determinisation, the
engine's read-only half) are imported from their own modules. Inside the
package, modules import from each other, never from here.

* :mod:`.model` — ``BluffConfig``, ``Phase``, ``Claim``, ``BluffOptions``, ``BluffPublic``.
* :mod:`.actions` — ``Discard``, ``Pass``, ``Challenge``, ``Reveal`` (``Action``).
* :mod:`.events` — what ``deal``/``apply`` return (``Event``) and ``BluffOutcome``.
* :mod:`.errors` — the refusals specific to Bluff.
* :mod:`.facts` — ``BluffFacts``: a state's fields and every read-only question about them.
* :mod:`.engine` — ``BluffState``: construction, views, ``deal``, ``check``, ``apply``.
"""

from p2pcards.rules.bluff.actions import Action, Challenge, Discard, Pass, Reveal
from p2pcards.rules.bluff.engine import BluffState
from p2pcards.rules.bluff.errors import (
    AlreadyRevealed,
    BadDeal,
    ConfigError,
    DealNotAwaited,
    DiscardCount,
    DuplicateSlots,
    FacesUnknown,
    LeaderMustDiscard,
    NothingToChallenge,
    RankRequired,
    RevealCount,
    StakeAboveStack,
    StakeTooLow,
    WrongRank,
)
from p2pcards.rules.bluff.events import (
    BluffOutcome,
    Challenged,
    ChallengeResolved,
    DealWon,
    Discarded,
    Event,
    Passed,
    PlayerOut,
    RoundEnded,
    StakeReturned,
    Termination,
)
from p2pcards.rules.bluff.model import DECK_SIZE, BluffConfig, BluffOptions, BluffPublic, Claim, Phase
from p2pcards.rules.seats import SEATS
from p2pcards.rules.shared import HandDealt, Held, MatchEnded, faces_for_hands

__all__ = [
    "SEATS", "DECK_SIZE", "BluffConfig", "Phase", "BluffState", "BluffOptions", "BluffOutcome",
    "BluffPublic", "Termination", "Claim", "Action", "Discard", "Pass", "Challenge", "Reveal",
    "Event", "HandDealt", "Discarded", "StakeReturned", "Passed", "Challenged",
    "ChallengeResolved", "RoundEnded", "PlayerOut", "DealWon", "MatchEnded", "Held",
    "faces_for_hands",
    "LeaderMustDiscard", "NothingToChallenge", "AlreadyRevealed", "DiscardCount", "DuplicateSlots",
    "RankRequired", "WrongRank", "StakeTooLow", "StakeAboveStack", "RevealCount",
    "BadDeal", "ConfigError", "DealNotAwaited", "FacesUnknown",
]
