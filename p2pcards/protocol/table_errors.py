"""The table's own refusals: what this peer may not do now (local), and a gap.

These are the :class:`~p2pcards.protocol.errors.LocalProtocolError` subclasses
(and :class:`Gap`) that :class:`~p2pcards.protocol.table.Table` raises; they
name no other peer, so no verdict follows from them. The errors that blame a
player are in :mod:`p2pcards.protocol.errors`.
"""

from __future__ import annotations

from p2pcards.protocol.errors import LocalProtocolError, RemoteProtocolError
from p2pcards.rules.errors import RuleError


class NotAtThisTable(LocalProtocolError):
    """This identity is not one of the genesis message's four players."""

    rule = "local.not-seated"


class NotThisPeersTurn(LocalProtocolError):
    """This peer tried to write while another player is the writer."""

    rule = "local.turn"


class IllegalAction(LocalProtocolError):
    """This peer's own action was refused by the referee; ``error`` says which rule."""

    rule = "local.illegal"

    def __init__(self, error: RuleError) -> None:
        self.error = error
        super().__init__(str(error))


class NoPauseLeftHere(LocalProtocolError):
    """This peer's player asked for a pause with none of the table's left."""

    rule = "local.away"


class HintsOffHere(LocalProtocolError):
    """This peer's player asked for a hint at a table whose host did not allow them."""

    rule = "local.hint"


class TableClosed(LocalProtocolError):
    """The table is over or ended; nothing more is accepted or written."""

    rule = "local.closed"


class StageNotReached(LocalProtocolError):
    """Something only a later stage creates was asked for too early: the seats,
    the referee or a deck before every key share is open."""

    rule = "local.stage"


class Observing(LocalProtocolError):
    """A player's part (identity, seat, secrets) was asked of an observer's table."""

    rule = "local.observer"


class Gap(RemoteProtocolError):
    """A message for a later position than the next one: messages are missing
    (the caller should ask for them with a ``sync`` frame)."""

    rule = "chain.gap"
