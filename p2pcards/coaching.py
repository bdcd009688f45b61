"""The coach's advice as a front end shows it: one line, searched off the event loop.

The front end of a table against bots (:mod:`p2pcards.front`) hands this to
both screens (plain ``hint``, the full screen's ``w``); the screens know no
bot (the layers), and a seat without it refuses hints. The advice itself is
:mod:`p2pcards.bots.coach`'s. At a LAN table whose host allowed hints the
front end hands :func:`telling_coach` instead: the seat's ``hint`` goes to
every peer before the advice is shown, so every screen marks it coached.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Sequence

from p2pcards.bots.coach import NoAdvice, advise
from p2pcards.protocol.errors import ProtocolError
from p2pcards.rules.contract import Engine
from p2pcards.ui.text_common import faces_as_symbols


async def coach_line(view: Engine, names: Sequence[str], position: int, symbols: bool = False) -> str:
    """The coach's advice for ``view`` (seeded by the decision's ``position``: asked twice,
    it says the same), or ``Not accepted: why`` when there is none; cards as the board
    writes them with ``symbols``."""
    try:
        advice = await asyncio.to_thread(advise, view, random.Random(f"coach:{position}"), names)
    except NoAdvice as none:
        return f"{REFUSED}{none}."
    text = advice.text()
    return faces_as_symbols(text) if symbols else text


#: The coach as the screens call it: (view, names by seat, position, symbols) -> one line.
CoachLine = Callable[[Engine, Sequence[str], int, bool], Awaitable[str]]
REFUSED = "Not accepted: "


def telling_coach(tell: Callable[[int], Awaitable[None]]) -> CoachLine:
    """The coach of a LAN table that allows hints: its advice is searched first, then
    ``tell(position)`` (the session's :meth:`~p2pcards.net.peer.PeerSession.hint`, for
    the decision at ``position``) signs and sends the seat's ``hint``, and only then is
    the advice shown. No advice (not this seat's turn), or the table refusing the
    hint (the move made meanwhile): ``Not accepted: why``, nothing shown."""
    async def coach(view: Engine, names: Sequence[str], position: int,
                    symbols: bool = False) -> str:
        line = await coach_line(view, names, position, symbols)
        if line.startswith(REFUSED):
            return line
        try:
            await tell(position)
        except ProtocolError as refusal:
            return f"{REFUSED}{refusal}."
        return line
    return coach


__all__ = ["CoachLine", "coach_line", "telling_coach"]
