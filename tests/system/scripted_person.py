"""Run the real ``p2pcards`` command as a person in plain mode whose game moves a bot
types for him:

    python tests/system/scripted_person.py host bluff --plain ...

Everything but the moves is the person's own, from stdin: the end box's ``again``,
``leave`` and ``fill``. Scripting a card game's moves through stdin is not what the
tests that use this are about (``tests/system/test_end_box_lan.py``: the end box);
the moves are the ``heuristic`` bot's, from the seat's own view. Only for tests: it
patches this process and nowhere else.
"""

from __future__ import annotations

import runpy
import sys
from typing import Any

from p2pcards.app.front import LazyBotAgent
from p2pcards.ui import plain

_bots: dict[int, LazyBotAgent] = {}


async def _bot_moves(self: Any, view: Any, decision: Any = None) -> object:
    bot = _bots.setdefault(id(self), LazyBotAgent("heuristic", 7))
    return await bot.decide(view, decision)


def main() -> None:
    plain.PlainAgent.decide = _bot_moves  # type: ignore[method-assign]
    sys.argv = ["p2pcards", *sys.argv[1:]]
    runpy.run_module("p2pcards", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main()
