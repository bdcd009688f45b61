"""The rules' error vocabulary.

Every refusal of an action is a :class:`RuleError` that says *which seat*
tried *what*, and *which rule* forbids it. The ``rule`` identifier is stable
(the protocol puts it in blame messages), the message is for people. An
engine that raises has not changed: a refused action never corrupts state.
"""

from __future__ import annotations

from typing import ClassVar

from p2pcards.errors import P2PCardsError


class RuleError(P2PCardsError, ValueError):
    """An action the rules forbid. Base of every rules exception."""

    #: Stable identifier of the rule broken, e.g. ``"turn"``, ``"bluff.stake"``.
    rule: ClassVar[str] = "rules"

    def __init__(self, seat: int | None, detail: str) -> None:
        self.seat = seat
        self.detail = detail
        who = "" if seat is None else f"seat {seat}: "
        super().__init__(f"{who}{detail} [{self.rule}]")


class FacesUnknown(P2PCardsError, LookupError):
    """A referee was asked for cards it does not know (a seat's hand, a called
    discard): not a rule anyone broke; ask that seat's own view instead."""

    def __init__(self, seat: int | None, what: str = "hand") -> None:
        self.seat = seat
        super().__init__(f"seat {seat}'s {what} is not known to this engine")


class ConfigError(P2PCardsError, ValueError):
    """A game's configuration whose values make no playable game (a setting out
    of range, or settings that cannot go together). Not a refusal of an action:
    no seat is at fault, the table is never made. ``setting`` names the field at
    fault (``"max_discard"``), or is None when only several together are (a deck
    that cannot be dealt evenly)."""

    def __init__(self, detail: str, setting: str | None = None) -> None:
        self.setting = setting
        self.detail = detail
        super().__init__(detail)


class WrongPhase(RuleError):
    """The action belongs to another phase of the game (e.g. a bid during play)."""

    rule = "phase"


class DealNotAwaited(WrongPhase):
    """``deal`` was called while a hand is in play (or before a deal is due)."""

    rule = "deal.not-awaited"


class NotYourTurn(RuleError):
    """A seat acted while another seat was the one to act."""

    rule = "turn"


class NotYourCard(RuleError):
    """The action names a card (or card slot) that is not in the seat's hand."""

    rule = "card.not-held"


class CardMismatch(RuleError):
    """A face given for a slot contradicts what is already known of that slot."""

    rule = "card.mismatch"


class MatchOver(RuleError):
    """An action after the match has ended."""

    rule = "match.over"


class BadAction(RuleError):
    """The action is malformed: wrong type, a value out of range, duplicates."""

    rule = "action.malformed"


class BadDeal(BadAction):
    """The faces given to ``deal`` are not a deal of this game's deck: the wrong
    number of slots, a face that is not a card of the deck, or one card twice."""

    rule = "deal.bad"
