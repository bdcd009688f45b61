"""A bot's think time, so a person at the table can follow what the bots do.

Three bots that each answer within a millisecond can discard, call, reveal and
end a Bluff round before a person has read a line. When a person plays, each
bot's decision therefore takes at least a short, configurable time (``--pace``);
a table of bots only keeps its full speed. The wait is added after the bot has
chosen (its choice does not depend on it) and never delays another seat: the
session awaits it like any agent.
"""

from __future__ import annotations

import asyncio
from typing import Generic, Protocol, TypeVar

from p2pcards.rules.contract import Engine

#: Seconds a bot takes per decision at a table where a person plays (``--pace``).
DEFAULT_PACE = 1.0


#: The session's question an agent answers (bots read only its position).
D = TypeVar("D", contravariant=True)


class Deciding(Protocol[D]):
    """An agent as the session asks it (``net.session_events.Agent``, which this
    layer does not import): a view and the question in, an action out."""

    async def decide(self, view: Engine, decision: D) -> object: ...


class PacedAgent(Generic[D]):
    """An agent (a bot) whose every decision takes at least ``seconds``."""

    def __init__(self, agent: Deciding[D], seconds: float) -> None:
        self.agent = agent
        self.seconds = max(0.0, seconds)

    async def decide(self, view: Engine, decision: D) -> object:
        loop = asyncio.get_running_loop()
        started = loop.time()
        action = await self.agent.decide(view, decision)
        rest = self.seconds - (loop.time() - started)
        if rest > 0:
            await asyncio.sleep(rest)
        return action


def paced(agent: Deciding[D], seconds: float) -> Deciding[D]:
    """``agent`` with a think time, or ``agent`` itself when ``seconds`` is 0."""
    return PacedAgent(agent, seconds) if seconds > 0 else agent
