"""``play`` and ``host``: a table hosted on this machine (``play``: its other three
seats are bots)."""

from __future__ import annotations

import argparse
import errno
import json
from typing import TYPE_CHECKING

from p2pcards.app.front import FrontEnd
from p2pcards.commands import UserError, printed
from p2pcards.commands.finding import connect_address
from p2pcards.commands.identity import journal_root, my_identity
from p2pcards.commands.rematching import offers_evening
from p2pcards.commands.seated import close_hosted, play_then_clean_up, print_result, sit_down
from p2pcards.commands.settings import (
    HOST_MOVE_TIME,
    clock_seconds,
    front_options,
    pace_of,
    session_deadline,
    table_config,
)
from p2pcards.net.failing import CannotListen
from p2pcards.ui.text_common import plural, quoted

if TYPE_CHECKING:
    from p2pcards.app.hosted import HostedTable, TableOptions
    from p2pcards.net.session_events import SessionEvent, SessionResult
    from p2pcards.protocol.identity import Identity


async def cmd_play(args: argparse.Namespace) -> int:
    from p2pcards.app.hosted import TableOptions, start_hosted_table
    identity = my_identity(args)
    front = FrontEnd(front_options(args), args.game, again=True)
    sit_down()
    await front.start()
    try:
        for table_number in range(10_000):  # a new table each time the player asks for one
            seed = None if args.seed is None else args.seed + table_number
            # Against bots nobody is hurried: no clock unless the player sets one.
            options = TableOptions(game=args.game,
                                   config=table_config(args.game, args, clock_seconds(args, 0)),
                                   name=f"{identity.name}'s table"[:32],
                                   deadline=session_deadline(args),
                                   reconnect_window=args.reconnect_window,
                                   journal_root=journal_root(), bot_kind=args.bot_kind,
                                   bot_level=args.bot_level, seed=seed, pace=pace_of(args))
            front.session = None
            hosted = await start_hosted_table(identity, front.agent, options, bots=3,
                                              on_event=front.on_event)
            front.session = hosted.sessions[0]
            result = await play_then_clean_up(front.play(hosted.result()), close_hosted(front, hosted))
            if not front.again:
                break
    finally:
        await front.stop()
    return print_result(result, front)


async def cmd_host(args: argparse.Namespace) -> int:
    from p2pcards.app.hosted import TableOptions, start_hosted_table
    from p2pcards.protocol.relay import LobbyChanged
    identity = my_identity(args)
    front = FrontEnd(front_options(args), args.game, rematch=True)
    table_name = (args.table or f"{identity.name}'s table")[:32]
    move_time = clock_seconds(args, HOST_MOVE_TIME)
    options = TableOptions(game=args.game, config=table_config(args.game, args, move_time),
                           name=table_name, deadline=float(move_time), journal_root=journal_root(),
                           reconnect_window=args.reconnect_window,
                           bot_kind=args.bot_kind, bot_level=args.bot_level,
                           seed=args.seed, advertise=not args.no_advertise,
                           interfaces=args.interface, tcp_host=args.bind, tcp_port=args.port,
                           pace=pace_of(args), spectators=args.spectators)

    def host_event(event: SessionEvent) -> None:
        if isinstance(event, LobbyChanged) and not args.trace and front.screen is None:
            names = ", ".join(p.name + (" (bot)" if p.bot else "") for p in event.players)
            front.say(f"Lobby: {names}; {plural(event.free_seats, 'free seat')}")
        front.on_event(event)

    sit_down()
    await front.start()
    try:
        try:
            hosted = await start_hosted_table(identity, front.agent, options, bots=args.bots,
                                              on_event=front.on_event, on_host_event=host_event)
        except CannotListen as failed:
            raise UserError(_listen_failure(args.bind, args.port, failed.error)) from None
        front.session = hosted.sessions[0]
        port = hosted.host.listening_port
        front.say(json.dumps({"listening": port, "fingerprint": identity.fingerprint}) if args.trace
                  else f"Hosting {args.game} table {quoted(table_name)} on port {port} "
                       f"(host key {identity.fingerprint}). Waiting for players. "
                       f"{join_hint(table_name, hosted.host.tcp_host or args.bind, port)}")
        if not offers_evening(args, front):
            result = await play_then_clean_up(_play_then_leave(front, identity, hosted),
                                              close_hosted(front, hosted))
        else:
            result = await _host_an_evening(args, front, identity, options, hosted)
    finally:
        await front.stop()
    return print_result(result, front)


async def _host_an_evening(args: argparse.Namespace, front: FrontEnd, identity: Identity,
                           options: TableOptions, hosted: HostedTable) -> SessionResult:
    """``host --again``: the match, the end box, the rematches (p2pcards.evening.rematches)."""
    from p2pcards.evening.rematches import host_evening
    return await host_evening(args, front, identity, options, hosted,
                              lambda table: close_hosted(front, table)())


async def _play_then_leave(front: FrontEnd, identity: Identity, hosted: HostedTable) -> SessionResult:
    """A host that offers no rematch: its match, then its signed leave and its word to
    every end box (the evening ends), delivered before the table closes."""
    from p2pcards.evening.rematches import host_leaves
    result = await front.play(hosted.result())
    await host_leaves(identity, hosted)
    return result


def join_hint(table_name: str, bind: str, port: int) -> str:
    """What to tell a friend: the name for discovery, and this machine's address
    and port for a network that blocks multicast (LAN addresses of the families
    the socket serves; loopback only when there is nothing else)."""
    from p2pcards.net.addresses import friend_addresses, local_addresses
    addresses = friend_addresses(bind, local_addresses())
    direct = " or ".join(f"--connect {connect_address(a, port)}" for a in addresses[:3])
    return (f"Friends join with: p2pcards join {printed.quote(table_name)}"
            + (f" (where multicast is blocked: p2pcards join {direct})" if direct else ""))


def _listen_failure(address: str, port: int, error: OSError) -> str:
    """Why a table cannot listen where it was asked to, in the person's words."""
    where = connect_address(address, port) if port else address
    if error.errno == errno.EADDRINUSE:
        return f"cannot host on {where}: that port is already in use (try another --port, or 0)"
    if error.errno == errno.EADDRNOTAVAIL:
        return (f"cannot host on {where}: {address} is not an address of this machine "
                f"(--bind takes one of this machine's own addresses)")
    if error.errno == errno.EACCES:
        return f"cannot host on {where}: permission denied (ports below 1024 need privileges)"
    return f"cannot host on {where}: {error.strerror or error}"
