"""A peer session's table rebuilt from its journal, and what its screen is told.

A player that comes back (``p2pcards resume``, a crash, a restarted process)
rebuilds its table from the messages it saved, with the secrets it saved, and
carries on from there: it never signs a position twice. Its clock gets no
fresh time: the turn began when the transcript was last written, though a
table resumed after a long pause keeps ``RESUME_GRACE`` seconds, so that it
is not decided before anyone could reconnect.

Its front end is rebuilt from the same record: every saved message's events
are told again, in order, each with this seat's view as it was just after
that message (:class:`Step`), so the log, the history of the deal and the
board's stage come back as they were before the crash, not from the lobby.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from p2pcards.net.journal import Journal
from p2pcards.net.session_events import NO_VIEW, LobbyUpdate, SessionEvent
from p2pcards.net.session_events import Step as Step
from p2pcards.net.session_snapshot import seat_view
from p2pcards.protocol.errors import RemoteProtocolError
from p2pcards.protocol.events import (
    MatchCompleted,
    PlayersSeated,
    SharesVerified,
    ShuffleVerified,
    TableEnded,
    TableEvent,
)
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_records import SessionSecrets, Stage
from p2pcards.protocol.table_settings import MOVE_TIME
from p2pcards.protocol.verdict import Verdict
from p2pcards.rules.contract import Engine
from p2pcards.wiremap import WireMap

#: Seconds of the clock a resumed turn keeps however long ago it began.
RESUME_GRACE = 30.0
#: Seconds between a running host's heartbeats (how stale its "last up" may be).
ALIVE_EVERY = 1.0
#: The heartbeat's file in the relay's record folder (only its time counts).
ALIVE_FILE = "alive"


@dataclass
class Resumed:
    table: Table
    #: The saved meta, without the secrets.
    meta: WireMap
    #: Wall time the transcript was last written (None: unknown).
    saved_at: float | None
    #: Each saved message's events as this seat had them (see :class:`Step`).
    steps: list[Step] = field(default_factory=list)


def rebuild(journal: Journal, identity: Identity,
            randomness_for: Callable[[int], Callable[[int], bytes]] | None) -> Resumed:
    """The table as saved in ``journal`` (claimed first: raises
    :class:`~p2pcards.net.journal.JournalInUse` if another process plays it)."""
    journal.claim()
    meta = journal.read_meta()
    messages = journal.read_messages()
    secrets = SessionSecrets.from_wire(meta["secrets"])
    table = Table(messages[0], identity, secrets, randomness=randomness_for)
    steps: list[Step] = []
    for raw in messages[1:]:
        try:
            events = table.receive(raw, saved=True)  # its own record: its own messages are its own
        except RemoteProtocolError:
            break
        if events:
            own = table.messages[-1].player == table.me_player
            steps.append(Step(tuple(_as_written(events) if own else events), _view_now(table)))
    saved_at = None
    # When the saved turn began (the transcript's last write), before the rewrite
    # below touches the file.
    with contextlib.suppress(OSError):
        saved_at = journal.transcript_path.stat().st_mtime
    journal.rewrite(table.transcript())
    saved_verdict = journal.read_verdict()
    if saved_verdict is not None and table.stage is not Stage.ENDED:
        table.restore_verdict(Verdict.from_wire(saved_verdict))  # it ended: no play resumes
    return Resumed(table, {k: v for k, v in meta.items() if k != "secrets"}, saved_at, steps)


def _as_written(events: Sequence[TableEvent]) -> list[TableEvent]:
    """This seat's own message, read back: its events as they were when it wrote
    it (``own``), so that the log says "you" where it said "you"."""
    return [dataclasses.replace(e, own=True) if isinstance(e, (ShuffleVerified, SharesVerified))
            else e for e in events]


def _view_now(table: Table) -> Engine | None:
    """This seat's view at this point of the rebuild (a copy), or ``NO_VIEW``."""
    return seat_view(table)


def turn_age(saved_at: float | None, move_time: float) -> float:
    """Seconds since the saved transcript was last written (a resumed turn's age),
    leaving at least ``RESUME_GRACE`` of the clock."""
    if saved_at is None:
        return 0.0
    age = max(0.0, time.time() - saved_at)
    return min(age, max(0.0, move_time - RESUME_GRACE))


def resumed_steps(table: Table, meta: WireMap, steps: Sequence[Step] = ()) -> list[Step]:
    """What a resumed session's front end (which starts empty) is told before
    anything new happens: the table as saved (game, name, players and bot marks),
    then every saved message's events with the view after it (``steps``: the
    seats drawn, the deals, the calls and their cards, the stage reached), and,
    for a table that had already ended by a verdict, how it ended."""
    bots = meta.get("bots") or []
    players = tuple((p.public_key, p.name, bool(bots[i]) if i < len(bots) else False)
                    for i, p in enumerate(table.players))
    # The table clock, so a resumed seat shows a table without one as such.
    clock = {} if table.move_time is None else {MOVE_TIME: table.move_time}
    out = [Step((LobbyUpdate(table.game.name, table.table_name, clock, players),))]
    out.extend(steps)
    told = [event for step in steps for event in step.events]
    last = steps[-1].view if steps else NO_VIEW
    if table.player_at_seat is not None and table.first_seat is not None and not any(
            isinstance(event, PlayersSeated) for event in told):
        out.append(Step((PlayersSeated(table.player_at_seat, table.first_seat),), last))
    outcome = table.match.engine.outcome if table.stage is Stage.OVER else None
    if outcome is not None and not any(isinstance(event, MatchCompleted) for event in told):
        out.append(Step((MatchCompleted(outcome),), last))
    elif table.stage is Stage.ENDED and table.verdict is not None and not any(
            isinstance(event, TableEnded) for event in told):
        out.append(Step((TableEnded(table.verdict),), last))
    return out


class TellsRecord(Protocol):
    """What :func:`show_record` needs of a session (a :class:`~p2pcards.net.peer.PeerSession`):
    its front end's hook, and where front ends read the step being told."""

    on_event: Callable[[SessionEvent], None]
    replaying: Step | None


def show_record(session: TellsRecord, steps: Sequence[Step]) -> None:
    """Tell ``session``'s front end (``on_event``) every step again, with the
    session's ``replaying`` set to the step while its events are told (front
    ends read the view of that moment from it), and cleared at the end."""
    try:
        for step in steps:
            session.replaying = step
            for event in step.events:
                session.on_event(event)
    finally:
        session.replaying = None


async def keep_alive(folder: Callable[[], Path | None], every: float = ALIVE_EVERY) -> None:
    """While a host runs, touch :data:`ALIVE_FILE` in its relay's record folder
    (``folder()``, None until the table starts) every ``every`` seconds: after a
    crash, the file's time says when the host was last up, which a resumed host
    needs to know whether the players gave up on it meanwhile
    (:func:`p2pcards.protocol.away.ended_while_away`). Runs until cancelled."""
    while True:
        directory = folder()
        if directory is not None:
            with contextlib.suppress(OSError):
                (directory / ALIVE_FILE).touch()
        await asyncio.sleep(every)


def last_up(relay_dir: Path) -> float | None:
    """When a crashed host was last known to be up (wall time): its heartbeat or
    its relay transcript's last write, whichever is later; None if neither exists."""
    times = []
    for name in (ALIVE_FILE, "transcript"):
        with contextlib.suppress(OSError):
            times.append((Path(relay_dir) / name).stat().st_mtime)
    return max(times) if times else None
