"""The evening on the command line: whether a seat's end box chooses (``--again N``,
or a person), and a seat going back to the end box of a match it finished moments
ago (``join`` or ``resume`` after a crash there). The evening itself is
:mod:`p2pcards.evening.rematches`'.
"""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING, NoReturn

from p2pcards.app.front import FrontEnd
from p2pcards.commands import UserError
from p2pcards.commands.identity import journal_root
from p2pcards.commands.seated import joiner_label, print_result, sit_down
from p2pcards.commands.settings import front_options, session_deadline
from p2pcards.evening import rematches
from p2pcards.evening.joiner_side import JoinerEndBox
from p2pcards.net.journal import Journal, JournalInUse
from p2pcards.net.session_events import SessionResult
from p2pcards.protocol.end_box import END_BOX_SLACK, END_BOX_WAIT
from p2pcards.protocol.table_records import Stage
from p2pcards.ui.text_common import quoted

if TYPE_CHECKING:
    from p2pcards.app.joined import JoinOptions
    from p2pcards.app.records import SavedTable
    from p2pcards.protocol.identity import Identity
    from p2pcards.wiremap import WireMap


def offers_evening(args: argparse.Namespace, front: FrontEnd) -> bool:
    """An end box that chooses: ``--again``, or a person's (the full screen's ``n`` or
    ``q``, plain mode's ``again`` or ``leave``)."""
    return args.again is not None or front.chooses_at_end


def end_box_seat(identity: Identity, host: str | None = None, port: int | None = None,
                 pin: bytes | str | None = None, now: float | None = None) -> SavedTable | None:
    """This person's newest joined table whose match ended normally so recently that
    its host's end box may still wait for it (``host``/``port``/``pin``: only at that
    table's host); None when there is none."""
    from p2pcards.commands.listing import my_tables  # looked up at each call: tests stand in for it
    now = time.time() if now is None else now
    for row in my_tables(identity):  # newest first
        meta = row.meta
        if meta.get("hosted") or now - row.saved_at > END_BOX_WAIT + END_BOX_SLACK:
            continue
        if host is not None and not _same_host(meta, host, port, pin):
            continue
        if Journal(row.directory).read_result() is not None:
            return row
    return None


def _same_host(meta: WireMap, host: str, port: int | None, pin: bytes | str | None) -> bool:
    saved = meta.get("pin") or None
    if saved is not None and pin is not None:
        return bool(saved == pin)
    return meta.get("host") == host and meta.get("port") == port


async def back_at_the_end_box(args: argparse.Namespace, identity: Identity, row: SavedTable,
                              host: str | None = None, port: int | None = None,
                              fingerprint: bytes | str | None = None) -> int:
    """``join`` (or ``resume``) of a table whose match this player finished moments ago
    (it crashed, or its window closed, at the end box): back at its end box, where it
    chooses while the host waits (its seat, freed while it was away, is its own again
    unless someone took it: then it is told)."""
    from p2pcards.net.peer import PeerSession
    meta = row.meta
    host = host if host is not None else str(meta["host"])
    port = port if port is not None else int(meta["port"])
    fingerprint = fingerprint if fingerprint is not None else (meta.get("pin") or None)
    front = FrontEnd(front_options(args), None, rematch=True)

    async def no_dial() -> NoReturn:
        raise ConnectionError("a finished table dials nobody")
    session = PeerSession(identity, front.agent, no_dial, on_event=front.on_event,
                          direct=False, listen=False)
    try:
        table = session.resume_from(Journal(row.directory))
    except JournalInUse:
        raise UserError("that table is in use by another p2pcards process of yours; end it "
                        "first (two processes for one seat would sign twice)") from None
    finally:
        session.record.release()
    if table.stage is not Stage.OVER or table.me_player is None:
        raise UserError(f"table {row.short} did not end normally: it has no end box to go back to")
    front.session = session
    print(f"Back at the end box of {quoted(row.table)} ({row.game}, session {row.short}): "
          f"the host waits {round(END_BOX_WAIT)} s from the match's end for every choice.",
          flush=True)
    seat: JoinOptions = dict(expected_peer=fingerprint, deadline=session_deadline(args),
                             reconnect_window=args.reconnect_window, journal_root=journal_root(),
                             bot=bool(args.bot), seed=args.seed, label=joiner_label(identity),
                             direct=not args.no_direct, listen=not args.no_listen,
                             on_event=front.on_event)
    box = JoinerEndBox(front, identity, host, port, fingerprint)
    ended = SessionResult(outcome=table.match.engine.outcome)

    async def already() -> SessionResult:
        return ended
    sit_down()
    await front.start()
    try:
        result = await front.play(box.after(already()))  # the full screen's end box shows
        result = await rematches.join_evening(args, front, identity, host, port, fingerprint, result,
                                    seat, box)
    finally:
        await front.stop()
    return print_result(result, front)
