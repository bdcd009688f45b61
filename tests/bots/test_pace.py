"""Bots take a think time when a person plays, and none at a table of bots."""

from __future__ import annotations

import asyncio

import pytest

from p2pcards.bots import pace
from p2pcards.commands.options import build_parser
from p2pcards.commands.settings import pace_of


class InstantBot:
    async def decide(self, view: object, decision: object) -> tuple[str, object]:
        return ("action for", view)


def test_a_paced_bot_waits_out_its_think_time_after_choosing(monkeypatch: pytest.MonkeyPatch) -> None:
    waits: list[float] = []

    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr("p2pcards.bots.pace.asyncio.sleep", sleep)
    agent = pace.PacedAgent(InstantBot(), 0.8)
    assert asyncio.run(agent.decide("view", None)) == ("action for", "view")  # type: ignore[arg-type]
    assert len(waits) == 1 and 0.7 < waits[0] <= 0.8


def test_no_pace_is_the_bot_itself() -> None:
    bot = InstantBot()
    assert pace.paced(bot, 0) is bot and isinstance(pace.paced(bot, 0.5), pace.PacedAgent)


@pytest.mark.parametrize("argv, seconds", [
    (["play", "bluff"], pace.DEFAULT_PACE),           # a person plays: bots can be followed
    (["play", "bluff", "--bot", "random"], 0.0),       # bots only: full speed
    (["play", "bluff", "--pace", "0.3"], 0.3),
    (["host", "topper", "--pace", "0"], 0.0),
])
def test_the_bots_think_time_follows_who_plays_and_the_option(argv: list[str], seconds: float) -> None:
    assert pace_of(build_parser().parse_args(argv)) == seconds
