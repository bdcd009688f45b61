"""What this seat signs, and how each written message goes out.

Its automatic steps (key set-up, shuffles, shares), its agent's actions,
pauses and hints are written by its table (a shuffle or a deal's shares in a
worker thread, the small steps on the loop: :mod:`~p2pcards.net.work_place`);
each is handed to ``publish`` — the session's: save first, then send on every
path — so a crash can never make this player sign twice. A refused action is
shown, not sent.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Coroutine

from p2pcards.net import work_place
from p2pcards.net.ahead import Ahead
from p2pcards.net.session_events import SessionEvent
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_errors import NotThisPeersTurn
from p2pcards.protocol.table_records import Stage, Written

log = logging.getLogger(__name__)

Publish = Callable[[Written], Coroutine[object, object, None]]


async def write_automatic(table: Table, ahead: Ahead, publish: Publish) -> None:
    """Every step that falls due to this seat and needs no decision, in turn."""
    while table.my_turn and table.stage not in (Stage.OVER, Stage.ENDED):
        await ahead.offer_shares(table)  # begun when the last shuffle passed
        written = await work_place.write(table, table.outgoing)
        if written is None:
            return
        await publish(written)


async def write_action(table: Table, action: object, on_event: Callable[[SessionEvent], None],
                       publish: Publish) -> None:
    """The agent's action, or its refusal shown."""
    try:
        written = await work_place.write(table, lambda: table.act(action))
    except ProtocolError as error:
        log.warning("own action refused: %s", error)
        on_event(error)
        return
    await publish(written)


async def write_pause(table: Table, on_event: Callable[[SessionEvent], None], publish: Publish) -> None:
    """The agent took a pause (an ``away``), or its refusal shown."""
    try:
        written = table.take_pause()
    except ProtocolError as error:
        on_event(error)
        return
    await publish(written)


async def write_hint(table: Table, publish: Publish, position: int | None = None) -> None:
    """The agent asked the coach at a table that allows hints: its ``hint`` goes to
    every peer before the advice is shown (nothing when this move's is written).
    ``position`` is the decision's the advice is for: a move already made since
    is refused. Raises the table's refusal (:class:`~p2pcards.protocol.table_errors.HintsOffHere`,
    not this seat's turn) for the front end to say; nothing is then sent."""
    if position is not None and table.next_position != position and not table.hint_taken:
        raise NotThisPeersTurn("the move the coach advised on is over")
    written = table.take_hint()
    if written is not None:
        await publish(written)


__all__ = ["Publish", "write_action", "write_automatic", "write_hint", "write_pause"]
