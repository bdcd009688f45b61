"""The rules' error vocabulary.

Every refusal of an action is a :class:`RuleError` that says *which seat*
tried *what*, and *which rule* forbids it. The ``rule`` identifier is stable
(the protocol puts it in blame messages), the message is for people. An
engine that raises has not changed: a refused action never corrupts state.
"""

from __future__ import annotations

from typing import ClassVar


class RuleError(ValueError):
    """An action the rules forbid. Base of every rules exception."""

    #: Stable identifier of the rule broken, e.g. ``"turn"``, ``"bluff.stake"``.
    rule: ClassVar[str] = "rules"

    def __init__(self, seat: int | None, detail: str) -> None:
        self.seat = seat
        self.detail = detail
        who = "" if seat is None else f"seat {seat}: "
        super().__init__(f"{who}{detail} [{self.rule}]")


class WrongPhase(RuleError):
    """The action belongs to another phase of the game (e.g. a bid during play)."""

    rule = "phase"


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
