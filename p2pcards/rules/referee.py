"""What every referee shares: the read-only facts of the engine contract.

Both games' states inherit these, so the protocol layer, bots and front ends
read ``phase``, ``to_act``, ``awaiting_deal``, ``outcome``, ``viewer`` and
``config`` the same way whatever the game. Read-only, so that no caller can
bend a referee's state behind its back. The whole contract, these facts
included, is :class:`p2pcards.rules.contract.Engine`.
"""

from __future__ import annotations

import enum
from typing import ClassVar, Generic, TypeVar

from p2pcards.rules.shared import Outcome

ConfigT = TypeVar("ConfigT")
PhaseT = TypeVar("PhaseT", bound=enum.Enum)
OutcomeT = TypeVar("OutcomeT", bound=Outcome)


class Referee(Generic[ConfigT, PhaseT, OutcomeT]):
    """Base of ``BluffState`` and ``TopperState``.

    A state's attributes are slots, annotated here and in each game's class
    so that a type checker knows every one of them.
    """

    __slots__ = ("_config", "_viewer", "_phase", "_to_act", "_outcome")

    _config: ConfigT
    _viewer: int | None
    _phase: PhaseT
    _to_act: int | None
    _outcome: OutcomeT | None

    #: The phase in which a shuffle and deal are awaited.
    DEAL_PHASE: ClassVar[enum.Enum]

    def __init__(self, config: ConfigT, phase: PhaseT) -> None:
        self._config = config
        self._viewer = None
        self._phase = phase
        self._to_act = None
        self._outcome = None

    @classmethod
    def all_slots(cls) -> tuple[str, ...]:
        """Every attribute a state holds, base class first (for copies)."""
        names: list[str] = []
        for klass in reversed(cls.__mro__):
            names.extend(getattr(klass, "__slots__", ()))
        return tuple(names)

    @property
    def config(self) -> ConfigT:
        return self._config

    @property
    def viewer(self) -> int | None:
        """The seat this state is a view for (``None``: no one's view, e.g. made by ``new``)."""
        return self._viewer

    @property
    def phase(self) -> PhaseT:
        return self._phase

    @property
    def to_act(self) -> int | None:
        """The one seat whose action is awaited (``None``: a deal is awaited, or the match is over)."""
        return self._to_act

    @property
    def awaiting_deal(self) -> bool:
        return self._phase is self.DEAL_PHASE

    @property
    def outcome(self) -> OutcomeT | None:
        """``None`` until the match ends, then its result as data."""
        return self._outcome
