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
from typing import TYPE_CHECKING

from p2pcards.front import FrontEnd
from p2pcards.net.session_events import SessionResult
from p2pcards.protocol.again import AGAIN, LEAVE, Chosen, sign_choice
from p2pcards.protocol.identity import Identity
from p2pcards.ui.text_common import quoted

if TYPE_CHECKING:
    from p2pcards.app import HostedTable, JoinOptions, TableOptions
    from p2pcards.evening_flow import EveningHost
    from p2pcards.net.session_events import SessionEvent
    from p2pcards.protocol.seat_fill import Fill

#: Seconds the host waits at the end box for every seat's choice.
END_BOX_WAIT = 120.0
#: Rematches one evening may have at most (every loop is bounded).
MAX_REMATCHES = 1000


async def wants_again(args: argparse.Namespace, front: FrontEnd, number: int) -> bool:
    """Whether this player's end box chooses again before rematch ``number + 1``:
    ``--again N`` decides on the command line, else the person (the full screen's
    ``n`` key, plain mode's ``again`` command)."""
    if args.again is not None:
        again: int = args.again
        return number < again
    return await front.chooses_again()


def offers_evening(args: argparse.Namespace, front: FrontEnd) -> bool:
    """An end box that chooses: ``--again``, or a person's (the full screen's ``n`` or
    ``q``, plain mode's ``again`` or ``leave``)."""
    return args.again is not None or front.chooses_at_end


def _chosen_line(names: tuple[str, ...], chosen: Chosen) -> str:
    who = quoted(names[chosen.player])
    if chosen.choice == LEAVE:
        return f"End box: {who} left; the seat is free."
    return f"End box: {who} chose again."


def _teller(front: FrontEnd, names: tuple[str, ...], can_fill: bool = False,
            waiting: EveningHost | None = None) -> Callable[[Chosen], None]:
    """Each choice heard at the end box, said on this screen (``can_fill``: the host's,
    which says how to give a freed seat to a bot; ``waiting``: the host's count, whose
    end box then says who it still waits for)."""
    def tell(chosen: Chosen) -> None:
        line = _chosen_line(names, chosen)
        if can_fill and chosen.choice == LEAVE:
            line += (" Press b to give it to a bot." if front.screen is not None
                     else " Type fill to give it to a bot.")
        front.say(line)
        if waiting is not None:
            _say_waiting(front, waiting)
    return tell


def _fill_teller(front: FrontEnd, names: tuple[str, ...], me: bytes) -> Callable[[Fill], None]:
    """A joiner's end box: who the host says took each freed seat."""
    from p2pcards.evening_flow import fill_line

    def tell(made: Fill) -> None:
        front.say(fill_line(made, names, me))
    return tell


def _say_waiting(front: FrontEnd, evening: EveningHost) -> None:
    """The host's end box: who it still waits for (see EveningHost.waiting_line)."""
    line = evening.waiting_line(END_BOX_WAIT)
    if line is not None:
        front.say_waiting(line)


def _takers_teller(front: FrontEnd, previous: tuple[tuple[bytes, str], ...],
                   on_event: Callable[[SessionEvent], None] | None) -> Callable[[SessionEvent], None]:
    """A rejoining seat's events, and once its rematch's genesis is taken, who took
    each seat freed at the end box (the genesis names them, signed by the host)."""
    from p2pcards.evening_flow import takers_of
    told = False

    def hear(event: SessionEvent) -> None:
        nonlocal told
        if on_event is not None:
            on_event(event)
        table = getattr(front.session, "table", None)
        if told or table is None:
            return
        told = True
        for line in takers_of(previous, [(p.public_key, p.name) for p in table.players]):
            front.say(line)
    return hear


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
    from p2pcards.evening_flow import EveningHost, fill_line, filled_line
    hosted = current[0]
    for number in range(MAX_REMATCHES):
        if result.outcome is None or not await wants_again(args, front, number):
            break  # only a match that ended normally has a rematch
        evening = EveningHost(identity, hosted, options)
        front.say(f"End box: you chose again (rematch {number + 1}); waiting for the others.")
        person = front.chooses_at_end and not args.fill_with_bots
        if person:
            await front.offer_fill(evening)  # b / fill: a bot in a freed seat
        _say_waiting(front, evening)
        def told(made: Fill, evening: EveningHost = evening) -> None:
            if made.public_key not in evening.bots:  # the host's own bots: said as made
                front.say(fill_line(made, evening.names))
                _say_waiting(front, evening)
        try:
            ready = await evening.until_decided(
                END_BOX_WAIT, fill=args.fill_with_bots,
                on_chosen=_teller(front, evening.names, can_fill=person, waiting=evening),
                on_fill=told)
        finally:
            front.say_waiting(None)
            if person:
                await front.offer_fill(None)
        if args.fill_with_bots:
            for player, (_key, name) in evening.count.filled.items():
                front.say(filled_line(evening.names[player], name))
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
                       session_kwargs: JoinOptions) -> SessionResult:
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
        choice = AGAIN if await wants_again(args, front, number) else LEAVE
        front.say("End box: you chose again; waiting for the host." if choice == AGAIN
                  else "End box: you leave; your seat is free.")
        mine = sign_choice(identity, finished, table.me_player, choice)
        try:
            held = await end_box_link(identity, host, port, finished,
                               tuple(p.public_key for p in table.players), table.next_position,
                               mine, expected_peer=fingerprint,
                               on_choice=_teller(front, names),
                               on_fill=_fill_teller(front, names, identity.public_key),
                               timeout=END_BOX_WAIT + 30)
        except (OSError, NetError):
            front.say("End box: the host is gone; the evening ends here.")
            return result
        if choice == LEAVE:
            return result
        told = _takers_teller(front, tuple((p.public_key, p.name) for p in table.players),
                              session_kwargs.get("on_event"))
        options = session_kwargs.copy()
        options["on_event"] = told
        front.session = rejoining_session(identity, front.agent, host, port, finished, held,
                                          **options)
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
