"""Topper, laid out like Bluff: the referee and its whole vocabulary, exported here.

The rule for both games' packages: ``__init__`` exports what a caller outside
the package uses (the engine, configuration, phases, records, actions,
events, outcome and the game's refusals), listed in ``__all__``; helpers
that only some callers need (the card order, determinisation, the engine's
read-only half) are imported from their own modules. Inside the package,
modules import from each other, never from here.

* :mod:`.model` — ``TopperConfig``, ``Phase``, ``TopperOptions``, ``TopperPublic``.
* :mod:`.actions` — ``Bid``, ``PassBid``, ``NameTrump``, ``Play`` (``TopperAction``).
* :mod:`.events` — what ``deal``/``apply`` return (``TopperEvent``) and ``TopperOutcome``.
* :mod:`.errors` — the refusals specific to Topper.
* :mod:`.order` — which card beats which, the jacks, following suit.
* :mod:`.determinize` — hidden cards drawn consistent with a seat's view and the voids shown.
* :mod:`.facts` — ``TopperFacts``: a state's fields and every read-only question about them.
* :mod:`.engine` — ``TopperState``: construction, views, ``deal``, ``check``, ``apply``.
"""

from p2pcards.rules.shared import Held, faces_for_hands
from p2pcards.rules.topper.actions import Bid, NameTrump, PassBid, Play, TopperAction
from p2pcards.rules.topper.determinize import InconsistentView
from p2pcards.rules.topper.engine import TopperState
from p2pcards.rules.topper.errors import (
    BadDeal,
    BadTrumpSuit,
    BidNotHigher,
    BidOutOfRange,
    CardNotInDeck,
    ConfigError,
    DealNotAwaited,
    FacesUnknown,
    FollowSuit,
    NotTheBidder,
    Renege,
)
from p2pcards.rules.topper.events import (
    BiddingWon,
    BidMade,
    BidPassed,
    CardPlayed,
    HandDealt,
    HandScored,
    MatchEnded,
    ShowedVoid,
    Termination,
    ThrownIn,
    TieContinues,
    TopperEvent,
    TopperOutcome,
    TrickWon,
    TrumpNamed,
)
from p2pcards.rules.topper.model import Phase, TopperConfig, TopperOptions, TopperPublic

__all__ = [
    "TopperConfig", "ConfigError", "Phase", "TopperState", "TopperPublic", "TopperOptions",
    "Held", "faces_for_hands",
    "Bid", "PassBid", "NameTrump", "Play", "TopperAction",
    "BidOutOfRange", "BidNotHigher", "NotTheBidder", "BadTrumpSuit", "CardNotInDeck",
    "BadDeal", "DealNotAwaited", "FollowSuit", "Renege", "FacesUnknown", "InconsistentView",
    "HandDealt", "BidMade", "BidPassed", "BiddingWon", "ThrownIn", "TrumpNamed",
    "CardPlayed", "ShowedVoid", "TrickWon", "HandScored", "TieContinues", "MatchEnded",
    "Termination", "TopperOutcome", "TopperEvent",
]
