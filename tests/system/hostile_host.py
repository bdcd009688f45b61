"""A hostile host for system tests: a real TableHost (with its own bot seat) whose
relay never hands player B anything player A signed (messages, replies to a
``sync``, alerts), as a host that wants B to blame A would.

Run inside a namespace by a test: it prints ``{"listening": PORT}`` once it
listens, and ``{"result": ..., "withheld": N}`` when its own seat's table ends.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from p2pcards.app import TableOptions, start_hosted_table
from p2pcards.bots.agent import BotAgent, make_bot_factory
from p2pcards.net.host import TableHost
from p2pcards.protocol import frames, games
from p2pcards.protocol.envelope import SignedMessage
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.relay import Broadcast, Send
from p2pcards.rules.bluff import BluffConfig
from p2pcards.rules.topper import TopperConfig

SHORT = {"topper": TopperConfig(target_score=3), "bluff": BluffConfig(deal_cap=1)}


def _signer(frame: bytes) -> int | None:
    """Who signed the message or notice a frame carries (None for other frames)."""
    try:
        decoded = frames.decode(frame)
        if decoded.kind in ("msg", "alert"):
            return SignedMessage.parse(decoded.body).player
    except ProtocolError:
        pass
    return None


def withhold(host: TableHost, writer: int, victim: int, counter: list[int]) -> None:
    """Make ``host`` deliver nothing ``writer`` signed to ``victim``'s link."""
    apply = host._apply

    def victims_link(number: int) -> bool:
        info = host.relay.links.get(number)
        return info is not None and info.player == victim

    def filtered(outputs: list[Any]) -> None:
        kept = []
        for out in outputs:
            if isinstance(out, Broadcast) and _signer(out.frame) == writer:
                for number, link in list(host._links.items()):
                    if number == out.exclude or not host.relay.seated(number):
                        continue
                    if victims_link(number):
                        counter[0] += 1
                    else:
                        link.push(out.frame)
                continue
            if isinstance(out, Send) and victims_link(out.link) and _signer(out.frame) == writer:
                counter[0] += 1
                continue
            kept.append(out)
        apply(kept)
    host._apply = filtered  # type: ignore[method-assign]


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bind", required=True)
    parser.add_argument("--game", default="topper")
    parser.add_argument("--writer", type=int, default=1)
    parser.add_argument("--victim", type=int, default=2)
    parser.add_argument("--deadline", type=float, default=30.0)
    parser.add_argument("--honest", action="store_true", help="relay faithfully")
    args = parser.parse_args(argv)
    rules = games.by_name(args.game)
    options = TableOptions(game=args.game, config=rules.config_to_wire(SHORT[args.game]),
                           name="mesh night", deadline=args.deadline, tcp_host=args.bind)
    agent = BotAgent(make_bot_factory(args.game, "heuristic"), None)
    hosted = await start_hosted_table(Identity.generate("Host"), agent, options, bots=0)
    counter = [0]
    if not args.honest:
        withhold(hosted.host, args.writer, args.victim, counter)
    print(json.dumps({"listening": hosted.host.tcp_port}), flush=True)
    try:
        result = await asyncio.wait_for(hosted.result(), 300)
        verdict = result.verdict
        print(json.dumps({"result": "verdict" if verdict else "over",
                          "blamed": list(verdict.players) if verdict else [],
                          "withheld": counter[0]}), flush=True)
    finally:
        await hosted.close()


if __name__ == "__main__":
    asyncio.run(main())
