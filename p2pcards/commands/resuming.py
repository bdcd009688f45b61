"""``resume``: a saved table taken up again, as its joiner, as its host, or, when
it is over, shown from its record alone."""

from __future__ import annotations

import argparse
import errno
import json
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from p2pcards.app.front import FrontEnd
from p2pcards.app.records import SHORT, RecordNotFound, SavedTable, describe, pick_mine
from p2pcards.commands import TableUnreachable, UserError
from p2pcards.commands.finding import connect_address
from p2pcards.commands.identity import journal_root, my_identity
from p2pcards.commands.listing import my_tables
from p2pcards.commands.printed import command_line
from p2pcards.commands.seated import close_hosted, joiner_label, play_then_clean_up, print_result, sit_down
from p2pcards.commands.settings import front_options, pace_of, session_deadline
from p2pcards.errors import P2PCardsError
from p2pcards.net.failing import CannotListen, LocalFailure, speaking
from p2pcards.net.saved_tables import note_ended_away, read_meta, session_folder, session_id
from p2pcards.ui.text_common import quoted
from p2pcards.wiremap import WireMap

if TYPE_CHECKING:
    from p2pcards.protocol.identity import Identity


async def cmd_resume(args: argparse.Namespace) -> int:
    identity = my_identity(args)
    picked = _pick_saved(identity, args.session)
    directory, meta = picked.directory, picked.meta
    if not picked.in_play and not picked.away:
        from p2pcards.commands.rematching import back_at_the_end_box, end_box_seat
        back = end_box_seat(identity)
        if back is not None and back.directory == directory:  # its end box may still wait
            return await back_at_the_end_box(args, identity, back)
        return await _show_finished(args, identity, directory)
    if meta.get("hosted"):
        return await _resume_hosted(args, identity, session_folder(directory))
    return await resume_joined(args, identity, directory, meta)


def _pick_saved(identity: Identity, prefix: str | None) -> SavedTable:
    """The saved table ``resume`` means: the one matching ``prefix``, or without one,
    the only table of yours still in play."""
    rows = my_tables(identity)
    if prefix:
        try:
            return pick_mine(rows, prefix)
        except RecordNotFound as error:
            raise UserError(str(error)) from None
    in_play = [r for r in rows if r.in_play]
    if not in_play and not prefix:
        from p2pcards.commands.rematching import end_box_seat
        back = end_box_seat(identity)  # a match just over: its end box may still wait
        if back is not None:
            return back
    if len(in_play) != 1:
        named = ", ".join(f"{r.short} ({r.game}, {quoted(r.table)})" for r in in_play)
        away = [r for r in rows if r.away]
        ended = "".join(f"; {r.short} ({r.game}, {quoted(r.table)}) {r.status}" for r in away)
        raise UserError(f"{len(in_play)} saved tables of yours were in play when you left: "
                        f"{named}; name one by its session (p2pcards resume {in_play[0].short})"
                        if in_play else
                        f"no saved table of yours is in play{ended} (see p2pcards saved)")
    return in_play[0]


async def resume_joined(args: argparse.Namespace, identity: Identity, directory: Path,
                         meta: WireMap) -> int:
    """Rejoin, from its saved record, a table this person joined (not hosted)."""
    from p2pcards.app.insecure_seed import randomness_for
    from p2pcards.app.joined import tcp_connector
    from p2pcards.net.journal import Journal, JournalInUse
    from p2pcards.net.peer import PeerSession
    front = FrontEnd(front_options(args), None)
    session = PeerSession(identity, front.agent,
                          tcp_connector(meta["host"], meta["port"], identity, meta.get("pin") or None),
                          bot=bool(args.bot), deadline=session_deadline(args),
                          reconnect_window=args.reconnect_window, journal_root=journal_root(),
                          randomness_for=randomness_for(args.seed, joiner_label(identity)),
                          on_event=front.on_event, direct=not args.no_direct,
                          listen=not args.no_listen, announce=not args.no_direct)
    try:
        session.resume_from(Journal(directory))
    except JournalInUse:
        raise UserError("that table is in use by another p2pcards process of yours; "
                        "end it first (two processes for one seat would sign twice)") from None
    front.session = session
    sit_down()
    await front.start()
    try:
        result = await play_then_clean_up(front.play(speaking(session.run(), "your seat")))
    finally:
        await front.stop()
    if result.unreached is not None and result.outcome is None and result.verdict is None:
        raise TableUnreachable(unreached_sentence(directory, meta, result.unreached))
    return print_result(result, front)


def unreached_sentence(directory: Path, meta: WireMap, why: str) -> str:
    """A resume that reached no host, as the person can act on it: which table and
    host (name, address and port), why in words, what to check, and that the table
    is kept."""
    table = describe(directory, meta)
    short = session_id(directory)[:SHORT]
    named = f"your table {quoted(table.table)} ({table.game})" if table is not None else "your table"
    host = f"{table.players[0]} at " if table is not None and table.players else ""
    address = connect_address(str(meta["host"]), int(meta["port"]))
    return (f"could not reach the host of {named}, {host}{address} ({why}). Is the host's "
            f"laptop on and on this network, with the table hosted again? Your table is kept, "
            f"still in play: {command_line('resume', short)} tries again (p2pcards saved lists your "
            f"tables)")


async def _show_finished(args: argparse.Namespace, identity: Identity, directory: Path) -> int:
    """A table that already ended: its result screen (or lines), from the saved
    record alone; nobody is dialled and no port is opened."""
    from p2pcards.net.journal import Journal, JournalInUse
    from p2pcards.net.peer import PeerSession

    async def no_dial() -> NoReturn:
        raise ConnectionError("a finished table dials nobody")

    front = FrontEnd(front_options(args), None)
    session = PeerSession(identity, front.agent, no_dial, journal_root=journal_root(),
                          on_event=front.on_event, direct=False, listen=False)
    try:
        table = session.resume_from(Journal(directory))
    except JournalInUse:
        raise UserError("that table is open in another p2pcards process of yours") from None
    front.session = session
    front.say(f"Your table {quoted(table.table_name)} is over; this is how it ended.")
    await front.start()
    try:
        result = await front.play(session.run())
    finally:
        await front.stop()
    return print_result(result, front)


async def _resume_hosted(args: argparse.Namespace, identity: Identity, table_dir: Path) -> int:
    """Host again a table this machine hosted: the relay on its old port, its own
    seat and its bots from their journals; the remote players reconnect."""
    from p2pcards.app.hosted import TableEndedWhileAway, resume_hosted_table
    from p2pcards.net.journal import JournalInUse
    front = FrontEnd(front_options(args), None)
    sit_down()
    await front.start()
    try:
        try:
            hosted = await resume_hosted_table(
                identity, front.agent, table_dir, deadline=session_deadline(args),
                reconnect_window=args.reconnect_window, seed=args.seed, pace=pace_of(args),
                on_event=front.on_event)
        except JournalInUse:
            raise UserError("that table is in use by another p2pcards process of yours; "
                            "end it first (two hosts for one table would sign twice)") from None
        except CannotListen as failed:
            raise UserError(host_again_failure(table_dir, failed.error)) from None
        except TableEndedWhileAway as away:
            # Nothing to host again and nobody to name: one sentence, as a table that ended.
            note_ended_away(table_dir, str(away))  # so saved lists it as ended
            await front.stop()
            print(f"Table ended: {away}.")
            return 3
        except (OSError, P2PCardsError) as error:  # its record, a seat: which, why, what to try
            if isinstance(error, (UserError, LocalFailure)):
                raise
            raise LocalFailure("taking your table up again", error) from error
        front.session = hosted.sessions[0]
        port = hosted.host.tcp_port
        if port is None:  # a solo table against bots, as play made it: the coach is on
            front.allow_coach()
        front.say(json.dumps({"listening": port, "fingerprint": identity.fingerprint,
                              "resumed": True}) if args.trace
                  else resumed_line(hosted.host.lobby.table_name, port))
        result = await play_then_clean_up(front.play(hosted.result()), close_hosted(front, hosted))
    finally:
        await front.stop()
    return print_result(result, front)


def host_again_failure(table_dir: Path, error: OSError) -> str:
    """Why a hosted table cannot listen again where its players will reconnect (its
    saved address and port), in words; the table is kept."""
    from p2pcards.net.saved_tables import RELAY
    meta = read_meta(table_dir / RELAY)
    host = str(meta.get("tcp_host") or "") if meta is not None else ""
    port = int(meta.get("tcp_port") or 0) if meta is not None else 0
    where = connect_address(host, port) if host else "its saved port"
    resume = command_line("resume", table_dir.name[:SHORT])
    kept = "Your table is kept, still in play"
    if error.errno == errno.EADDRINUSE:
        return (f"cannot host your table again on {where}: another program holds that port "
                f"now, and the players reconnect to that port alone. {kept}: close that "
                f"program, then run {resume} again")
    if error.errno == errno.EADDRNOTAVAIL:
        return (f"cannot host your table again on {where}: {host} is no longer an address of "
                f"this machine (is it on another network now?). {kept}: run {resume} again "
                f"once it is back")
    why = "permission denied" if error.errno == errno.EACCES else \
        (error.strerror or type(error).__name__).lower()
    return f"cannot host your table again on {where}: {why}. {kept}: {resume} tries again"


def resumed_line(table_name: str, port: int | None) -> str:
    """What a resumed host is doing: a solo table against bots has no port."""
    if port is None:
        return f"Resuming your table {quoted(table_name)} against the bots."
    return (f"Hosting table {quoted(table_name)} again on port {port}; "
            f"waiting for the players to reconnect.")
