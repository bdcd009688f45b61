"""``join`` and ``watch``: sitting down at (or watching) a table another machine
hosts, and saying in one sentence why a dial never reached it."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from p2pcards.app.front import FrontEnd
from p2pcards.app.records import SHORT
from p2pcards.commands import UserError
from p2pcards.commands.finding import connect_address, find_table
from p2pcards.commands.identity import journal_root, my_identity
from p2pcards.commands.printed import command_line
from p2pcards.commands.rematching import back_at_the_end_box, end_box_seat
from p2pcards.commands.resuming import resume_joined
from p2pcards.commands.seated import joiner_label, play_then_clean_up, print_result, sit_down
from p2pcards.commands.settings import front_options, session_deadline
from p2pcards.evening.joiner_side import JoinerEndBox
from p2pcards.net.failing import speaking
from p2pcards.net.saved_tables import session_id

if TYPE_CHECKING:
    from p2pcards.app.joined import JoinOptions
    from p2pcards.net.session_events import SessionEvent
    from p2pcards.protocol.identity import Identity


async def cmd_join(args: argparse.Namespace) -> int:
    """Join a table; one this person already holds a seat at (a ``join`` again
    after a crash) goes on from its saved secrets, as ``resume`` does."""
    from p2pcards.app.joined import joining_session
    from p2pcards.net.journal import Journal, SeatAlreadySaved
    identity = my_identity(args)
    host, port, fingerprint = await find_table(args, held=_held_here(identity))
    back = end_box_seat(identity, host, port, fingerprint)
    if back is not None:  # this player's match there just ended: back to its end box
        return await back_at_the_end_box(args, identity, back, host, port, fingerprint)
    front = FrontEnd(front_options(args), None, rematch=True)
    heard = Heard(front.on_event)
    seat: JoinOptions = dict(expected_peer=fingerprint, deadline=session_deadline(args),
                             reconnect_window=args.reconnect_window,
                             journal_root=journal_root(), bot=bool(args.bot), seed=args.seed,
                             label=joiner_label(identity), direct=not args.no_direct,
                             listen=not args.no_listen, on_event=heard.hear)
    front.session = joining_session(identity, front.agent, host, port, **seat)
    # The end box opens the moment the match ends (while the person looks at the result).
    box = JoinerEndBox(front, identity, host, port, fingerprint)
    sit_down()
    await front.start()
    try:
        result = await play_then_clean_up(front.play(box.after(speaking(
            front.session.run(), "your seat", keep=(SeatAlreadySaved,)))))
        from p2pcards.evening.rematches import join_evening
        rejoin = seat.copy()
        rejoin["on_event"] = front.on_event
        # A client that chooses nothing (no --again, no person) leaves, signed.
        result = await join_evening(args, front, identity, host, port, fingerprint, result,
                                    rejoin, box)
    except SeatAlreadySaved as saved:
        # The host seated our key at a table we saved: fresh secrets would sign a
        # second version of what our seat already wrote. Our saved seat goes on.
        held: Path | None = saved.directory
    else:
        held = None
    finally:
        await front.stop()
    if held is None:
        if front.session.table is None and result.outcome is None and result.verdict is None \
                and not result.left_in_lobby:
            return _not_joined(result.reason, heard, front, connect_address(host, port))
        return print_result(result, front)
    meta = Journal(held).read_meta()
    if meta.get("hosted"):
        raise UserError(f"you host this table yourself: bring it back with "
                        f"{command_line('resume', session_id(held)[:SHORT])}")
    print(f"You already hold a seat at this table (saved as session {session_id(held)[:SHORT]}): "
          f"going on from it, as p2pcards resume does.", flush=True)
    return await resume_joined(args, identity, held, meta)


def _held_here(identity: Identity) -> Callable[[bytes | str, str, int], bool]:
    """Whether a listed table (its host key, address and port) is one whose end box may
    still hold this player's seat (``join`` to it is no newcomer's, full or not)."""
    def held(pin: bytes | str, host: str, port: int) -> bool:
        return end_box_seat(identity, host, port, pin) is not None
    return held


class Heard:
    """What a joining session told its front end before any table: whether it ever
    reached the host, and the host's refusal."""

    def __init__(self, on_event: Callable[[SessionEvent], None]) -> None:
        self.on_event = on_event
        self.linked = False
        self.refused: str | None = None

    def hear(self, event: SessionEvent) -> None:
        from p2pcards.net.session_events import LinkUp, Rejected
        if isinstance(event, LinkUp):
            self.linked = True
        elif isinstance(event, Rejected):
            self.refused = event.reason
        self.on_event(event)


def _not_joined(reason: str, heard: Heard, front: FrontEnd, address: str) -> int:
    """A join that never sat down, in one sentence: no table answered at that address,
    or the host refused this player (said once: plain mode has printed it already)."""
    if heard.refused is not None:
        if front.printer is None or front.trace:  # no line of plain mode said it
            print(f"Table closed: {reason}")
        return 2
    if not heard.linked:
        raise UserError(nobody_answered(address, reason))
    print(f"Table closed: the host went away before the table started ({reason})")
    return 2


def nobody_answered(address: str, reason: str) -> str:
    """A dial that never reached a host, said as what the person can check."""
    said = reason.lower()  # the host link's words (p2pcards.net.host_link.why_unreached)
    # The dial's own words inside the session's reason (a joiner's, or a spectator's).
    inner = reason.removeprefix("cannot reach the host (").removeprefix(
        "could not reach the table's host (").removesuffix(")")
    why = ("nothing accepts connections there" if "refused" in said
           else "no route to that address from this network" if "unreachable" in said
           else "that name could not be looked up" if "unknown address" in said
           else "no answer" if "timed out" in said or inner == reason
           else inner)  # another failure (a handshake, a bad address): its own words
    return (f"no table answered at {address} ({why}): check the address and port the "
            f"host's screen shows, and that its firewall lets them in")


async def cmd_watch(args: argparse.Namespace) -> int:
    from p2pcards.app.joined import tcp_connector
    from p2pcards.net.watch import WatchSession
    identity = my_identity(args)
    host, port, fingerprint = await find_table(args)
    front = FrontEnd(front_options(args), None)
    heard = Heard(front.on_event)
    front.session = WatchSession(identity, tcp_connector(host, port, identity, fingerprint),
                                 on_event=heard.hear, reconnect_window=args.reconnect_window)
    sit_down("Stopped watching.")
    await front.start()
    try:
        result = await play_then_clean_up(front.play(speaking(front.session.run(), "watching")))
    finally:
        await front.stop()
    if getattr(result, "stopped", False):
        print("You stopped watching.")
        return 0
    if result.outcome is None and result.verdict is None and front.session.table is None:
        if not heard.linked:
            raise UserError(nobody_answered(connect_address(host, port), result.reason))
        raise UserError(f"could not watch: {result.reason}")
    return print_result(result, front)
