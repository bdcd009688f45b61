"""``host --again N`` and ``join --again N``: the end box's choice at a LAN table,
and the rematches that follow on the same address (PROTOCOL.md §14).

A joiner signs its choice, carries it to the host (``p2pcards.net.rematch``) and
hears the others'; when the host has every seat taken again it closes the
finished table and opens the rematch on the same port, and the players who
chose again join it at once (no discovery), each checking the genesis against
its own record of the match before. After its N rematches a player leaves at
the end box: its seat is freed and the others are told.
"""

from __future__ import annotations

import argparse
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from p2pcards.front import FrontEnd
from p2pcards.net.session_events import SessionResult
from p2pcards.protocol.again import AGAIN, LEAVE, Chosen, sign_choice
from p2pcards.protocol.identity import Identity
from p2pcards.ui.text_common import quoted

if TYPE_CHECKING:
    from p2pcards.app import HostedTable, TableOptions

#: Seconds the host waits at the end box for every seat's choice.
END_BOX_WAIT = 120.0
#: Rematches one evening may have at most (every loop is bounded).
MAX_REMATCHES = 1000


def wants_again(args: argparse.Namespace, front: FrontEnd, number: int) -> bool:
    """Whether this player's end box chooses again before rematch ``number + 1``:
    ``--again N`` decides on the command line, else the full screen's ``n`` key."""
    if args.again is not None:
        again: int = args.again
        return number < again
    return front.again


def offers_evening(args: argparse.Namespace, front: FrontEnd) -> bool:
    """An end box that chooses: ``--again``, or the full screen (its ``n`` or ``q``)."""
    return args.again is not None or front.screen is not None


def _rematches(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--again takes a whole number, not {text!r}") from None
    if not 0 <= value <= 1000:
        raise argparse.ArgumentTypeError(f"--again takes 0..1000 rematches, not {value}")
    return value


def add_again_args(parser: argparse.ArgumentParser, *, host: bool) -> None:
    """The end-box options of ``host`` and ``join``."""
    parser.add_argument("--again", type=_rematches, default=None, metavar="N",
                        help="at the end box choose again, for up to N rematches with the "
                             "same players (rotated seats, no joining), then leave")
    if host:
        parser.add_argument("--fill-with-bots", action="store_true",
                            help="with --again: a seat freed at the end box gets a bot at once")


def _chosen_line(names: tuple[str, ...], chosen: Chosen) -> str:
    who = quoted(names[chosen.player])
    if chosen.choice == LEAVE:
        return f"End box: {who} left; the seat is free."
    return f"End box: {who} chose again."


def _teller(front: FrontEnd, names: tuple[str, ...]) -> Callable[[Chosen], None]:
    """Each choice heard at the end box, said on this screen."""
    def tell(chosen: Chosen) -> None:
        front.say(_chosen_line(names, chosen))
    return tell


async def host_evening(args: argparse.Namespace, front: FrontEnd, identity: Identity,
                       options: TableOptions, hosted: HostedTable, result: SessionResult,
                       close: Callable[[HostedTable], Awaitable[None]]) -> SessionResult:
    """After the host's match: count the end box, then host up to ``--again`` rematches
    on the same port. ``close(hosted)`` ends a table as the host command does."""
    current = [hosted]  # the table open now, closed at the end whatever happens
    try:
        return await _host_rematches(args, front, identity, options, current, result)
    finally:
        await close(current[0])


async def _host_rematches(args: argparse.Namespace, front: FrontEnd, identity: Identity,
                          options: TableOptions, current: list[HostedTable], result: SessionResult) -> SessionResult:
    from p2pcards.evening_flow import EveningHost
    hosted = current[0]
    for number in range(MAX_REMATCHES):
        if not wants_again(args, front, number) or result.outcome is None:
            break  # only a match that ended normally has a rematch
        evening = EveningHost(identity, hosted, options)
        front.say(f"End box: you chose again (rematch {number + 1}); waiting for the others.")
        filled = dict(evening.count.filled)
        ready = await evening.until_decided(
            END_BOX_WAIT, fill=args.fill_with_bots,
            on_chosen=_teller(front, evening.names))
        for player, (_key, name) in evening.count.filled.items():
            if player not in filled:
                front.say(f"End box: {quoted(evening.names[player])}'s seat goes to the bot "
                          f"{quoted(name)}.")
        if not ready:
            front.say("End box: not every seat was taken again; the evening ends here.")
            break
        await hosted.close(grace=0, linger=0)
        seed = None if args.seed is None else args.seed + number + 1
        hosted = await evening.start(front.agent, seed=seed, on_event=front.on_event)
        current[0] = hosted
        front.session = hosted.sessions[0]
        front.say(f"Rematch {number + 1} on port {hosted.host.listening_port}: seats rotated.")
        result = await front.play(hosted.result())
    return result


async def join_evening(args: argparse.Namespace, front: FrontEnd, identity: Identity,
                       host: str, port: int, fingerprint: bytes | str | None, result: SessionResult,
                       session_kwargs: dict[str, Any]) -> SessionResult:
    """After a joiner's match: the end box's choice, then up to ``--again`` rematches
    at the same address; a leave when they are used up."""
    from p2pcards.evening_flow import finished_of, rejoining_session
    from p2pcards.net.errors import NetError
    from p2pcards.net.rematch import end_box_link
    for number in range(MAX_REMATCHES):
        session = front.session
        table = session.table if session is not None else None
        if session is None or result.outcome is None or table is None or table.me_player is None:
            return result
        finished = finished_of(session)
        names = tuple(p.name for p in table.players)
        choice = AGAIN if wants_again(args, front, number) else LEAVE
        front.say("End box: you chose again; waiting for the host." if choice == AGAIN
                  else "End box: you leave; your seat is free.")
        mine = sign_choice(identity, finished, table.me_player, choice)
        try:
            await end_box_link(identity, host, port, finished,
                               tuple(p.public_key for p in table.players), table.next_position,
                               mine, expected_peer=fingerprint,
                               on_choice=_teller(front, names),
                               timeout=END_BOX_WAIT + 30)
        except (OSError, NetError):
            front.say("End box: the host is gone; the evening ends here.")
            return result
        if choice == LEAVE:
            return result
        front.session = rejoining_session(identity, front.agent, host, port, finished,
                                          **session_kwargs)
        front.say(f"Rematch {number + 1}: joining the host again.")
        rematch = await front.play(front.session.run())
        if front.session.table is None:
            # The host opened no rematch (or one this seat refused): the evening ends
            # with the match played, which is what the result describes.
            front.say(f"End box: no rematch ({rematch.reason}); the evening ends here.")
            front.session = session
            return result
        result = rematch
    return result
