"""A hostile host for system tests: a real TableHost (with its own bot seat) that
misbehaves in one of these ways (``--mode``):

- ``withhold``: its relay never hands player B anything player A signed
  (messages, replies to a ``sync``, alerts), as a host that wants B to blame A
  would;
- ``resend-notices``: it re-sends every signed notice (a ``leave``, an
  ``alert``) to every player also as a transcript message, as a host that
  wants the notice's signer named would (issue 10, finding 2);
- ``churn``: once the table has started, it closes every player's link every
  ``--churn`` seconds, a little more often than once per deadline (issue 10,
  finding 3). Not in the lobby: there every joiner would have to be back within
  one period for the table to start at all (the joiners share one address on
  loopback, and its handshake budget admits two a second), so whether it
  started would depend on the machine's load;
- ``bad-share``: its own seat's first ``shares`` message reaches the players
  with one decryption share for the next seat's card replaced by another
  (re-signed by the host), and it re-sends notices as in ``resend-notices``:
  the victim's alert must get the host named, never the reporter;
- ``honest``: it relays faithfully.

With ``--no-peers`` (beside any mode) it also never hands out the players'
addresses (no ``peers`` frame), as a host that wants every pair on its star
would (issue 20, finding 6).

The match is short (Topper to 3, one Bluff deal) unless ``--target`` gives
Topper's target, as a test's plan does.

Run inside a namespace by a test: it prints ``{"listening": PORT}`` once it
listens, and ``{"result": ..., "withheld": N}`` when its own seat's table ends.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from p2pcards.app.hosted import TableOptions, start_hosted_table
from p2pcards.bots.agent import BotAgent, make_bot_factory
from p2pcards.net.host import TableHost
from p2pcards.protocol import frames, game_wire
from p2pcards.protocol.envelope import SignedMessage, SignedNotice, seal
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.relay import Broadcast, Send
from p2pcards.protocol.table_settings import MOVE_TIME
from p2pcards.rules.bluff import BluffConfig
from p2pcards.rules.topper import TopperConfig
from tests.hostile.bad_share import swap_share_for_next_seat
from tests.support.typed import present

from .harness import STARTUP_TIMEOUT, PeerProcess

if TYPE_CHECKING:
    from tests.support.netns import SimulatedLan

SHORT = {"topper": TopperConfig(target_score=3), "bluff": BluffConfig(deal_cap=1)}


def start_in(lan: SimulatedLan, *args: str) -> tuple[Any, int]:
    """Start the hostile host with ``args`` in ``lan``'s first namespace: the
    process, and the port it listens on (once it said so)."""
    code = ("import asyncio; "
            "from tests.system.hostile_host import main; "
            f"asyncio.run(main({list(args)!r}))")
    process = lan.spawn_python(0, code)
    line = lan.read_line(process, timeout=STARTUP_TIMEOUT)
    if not line.startswith("{"):
        process.kill()
        raise AssertionError(f"the test host did not start: {line!r} {present(process.stderr).read()[-800:]!r}")
    return process, json.loads(line)["listening"]


def finished(host: Any, joiners: Sequence[PeerProcess], seconds: float) -> dict[str, Any]:
    """Wait until each joiner's match is over and the host (from :func:`start_in`) has
    ended; the host's last report."""
    for joiner in joiners:
        joiner.wait(seconds)
    host.wait(timeout=30)
    report: dict[str, Any] = json.loads(
        [line for line in host.stdout.read().splitlines() if line.startswith("{")][-1])
    return report


def _signer(frame: bytes) -> int | None:
    """Who signed the message or notice a frame carries (None for other frames)."""
    try:
        decoded = frames.decode(frame)
        if decoded.kind == "msg":
            return SignedMessage.parse(decoded.body).player
        if decoded.kind == "alert":
            return SignedNotice.parse(decoded.body).player
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


def resend_notices(host: TableHost, counter: list[int]) -> None:
    """Make ``host`` hand every notice it relays to every seated link again, as a ``msg``."""
    apply = host._apply

    def resending(outputs: list[Any]) -> None:
        extra: list[Any] = []
        for out in outputs:
            if isinstance(out, (Broadcast, Send)) and frames.decode(out.frame).kind == "alert":
                notice = frames.decode(out.frame).body
                extra.append(Broadcast(frames.encode("msg", notice)))
                counter[0] += 1
        apply(list(outputs) + extra)
    host._apply = resending  # type: ignore[method-assign]


def bad_share(host: TableHost, seat_table: Callable[[], Any], counter: list[int]) -> None:
    """Make ``host`` hand the players a copy of its own seat's first ``shares``
    message with one share for the next seat's card replaced by another one."""
    apply = host._apply

    def cheating(outputs: list[Any]) -> None:
        table = seat_table()
        kept = []
        for out in outputs:
            if (not counter[0] and table is not None and isinstance(out, Broadcast)
                    and frames.decode(out.frame).kind == "msg"):
                msg = SignedMessage.parse(frames.decode(out.frame).body)
                if msg.player == table.me_player and msg.type == "shares":
                    forged, _ = swap_share_for_next_seat(msg.body["shares"], table.my_seat)
                    body = dict(msg.body, shares=forged)
                    cheat = seal(host.identity, session=msg.session, position=msg.position,
                                 prev=msg.prev, player=msg.player, type="shares", body=body)
                    out = Broadcast(frames.encode("msg", cheat.raw), exclude=out.exclude)
                    counter[0] += 1
            kept.append(out)
        apply(kept)
    host._apply = cheating  # type: ignore[method-assign]


def no_peers(host: TableHost, counter: list[int]) -> None:
    """Make ``host`` drop every ``peers`` frame it would send."""
    apply = host._apply

    def suppressing(outputs: list[Any]) -> None:
        kept = []
        for out in outputs:
            if isinstance(out, (Broadcast, Send)) and frames.decode(out.frame).kind == "peers":
                counter[0] += 1
                continue
            kept.append(out)
        apply(kept)
    host._apply = suppressing  # type: ignore[method-assign]


async def churn(host: TableHost, every: float, counter: list[int], lobby: bool = False) -> None:
    """Close every link but the host's own seat's, every ``every`` seconds, once the table
    has started (``lobby``: from the first, so the table may never start)."""
    if not lobby:
        await host.started.wait()
    while True:
        await asyncio.sleep(every)
        for link in list(host._links.values()):
            if link.connection.peer_public_key != host.identity.public_key:
                link.connection.close()
                counter[0] += 1


async def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bind", required=True)
    parser.add_argument("--game", default="topper")
    parser.add_argument("--writer", type=int, default=1)
    parser.add_argument("--victim", type=int, default=2)
    parser.add_argument("--deadline", type=float, default=30.0)
    parser.add_argument("--mode", choices=("withhold", "resend-notices", "bad-share", "churn", "honest"),
                        default="withhold")
    parser.add_argument("--honest", action="store_true", help="relay faithfully (--mode honest)")
    parser.add_argument("--churn", type=float, default=2.0, help="seconds between link cuts")
    parser.add_argument("--no-peers", action="store_true", help="never hand out the players' addresses")
    parser.add_argument("--reconnect-window", type=float, default=60.0)
    parser.add_argument("--target", type=int, default=None,
                        help="Topper's target score (the plan's --target); short when not given")
    args = parser.parse_args(argv)
    mode = "honest" if args.honest else args.mode
    rules = game_wire.by_name(args.game)
    # The table clock in the genesis, as every p2pcards host sets it (joiners take none).
    short = SHORT[args.game]
    if args.target is not None and isinstance(short, TopperConfig):
        short = TopperConfig(target_score=args.target)
    config = {**rules.config_to_wire(short), MOVE_TIME: max(1, round(args.deadline))}
    options = TableOptions(game=args.game, config=config,
                           name="mesh night", deadline=args.deadline, tcp_host=args.bind,
                           reconnect_window=args.reconnect_window)
    agent = BotAgent(make_bot_factory(args.game, "heuristic"), None)
    hosted = await start_hosted_table(Identity.generate("Host"), agent, options, bots=0)
    counter = [0]
    suppressed = [0]
    if args.no_peers:
        no_peers(hosted.host, suppressed)
    cutter = None
    if mode == "withhold":
        withhold(hosted.host, args.writer, args.victim, counter)
    elif mode == "resend-notices":
        resend_notices(hosted.host, counter)
    elif mode == "bad-share":
        bad_share(hosted.host, lambda: hosted.sessions[0].table, counter)
        resend_notices(hosted.host, [0])
    elif mode == "churn":
        cutter = asyncio.create_task(churn(hosted.host, args.churn, counter))
    print(json.dumps({"listening": hosted.host.tcp_port}), flush=True)
    try:
        result = await asyncio.wait_for(hosted.result(), 300)
        verdict = result.verdict
        print(json.dumps({"result": "verdict" if verdict else "over",
                          "blamed": list(verdict.players) if verdict else [],
                          "withheld": counter[0], "mode": mode,
                          "peers_suppressed": suppressed[0]}), flush=True)
    finally:
        # A churning host churns to its last moment: also while its relay lingers after
        # its own seat's table ended, so no player sees it relay faithfully at the end.
        await hosted.close()
        if cutter is not None:
            cutter.cancel()


if __name__ == "__main__":
    asyncio.run(main())
