"""The coach's advice as a front end shows it: one line, searched off the event loop.

The front end of a table against bots (:mod:`p2pcards.front`) hands this to
both screens (plain ``hint``, the full screen's ``w``); the screens know no
bot (the layers), and a seat without it refuses hints. The advice itself is
:mod:`p2pcards.bots.coach`'s.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence

from p2pcards.bots.coach import NoAdvice, advise
from p2pcards.rules.contract import Engine
from p2pcards.ui.text_common import faces_as_symbols


async def coach_line(view: Engine, names: Sequence[str], position: int, symbols: bool = False) -> str:
    """The coach's advice for ``view`` (seeded by the decision's ``position``: asked twice,
    it says the same), or ``Not accepted: why`` when there is none; cards as the board
    writes them with ``symbols``."""
    try:
        advice = await asyncio.to_thread(advise, view, random.Random(f"coach:{position}"), names)
    except NoAdvice as none:
        return f"Not accepted: {none}."
    text = advice.text()
    return faces_as_symbols(text) if symbols else text


__all__ = ["coach_line"]
