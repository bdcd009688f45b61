"""A peer session's table rebuilt from its journal, and what its screen is told.

A player that comes back (``p2pcards resume``, a crash, a restarted process)
rebuilds its table from the messages it saved, with the secrets it saved, and
carries on from there: it never signs a position twice. Its clock gets no
fresh time: the turn began when the transcript was last written, though a
table resumed after a long pause keeps ``RESUME_GRACE`` seconds, so that it
is not decided before anyone could reconnect.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from p2pcards.net.journal import Journal
from p2pcards.net.session_events import LobbyUpdate
from p2pcards.protocol.errors import RemoteProtocolError
from p2pcards.protocol.events import MatchEnded, PlayersSeated, TableEnded
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.table import MOVE_TIME, SessionSecrets, Stage, Table
from p2pcards.protocol.verdict import Verdict

#: Seconds of the clock a resumed turn keeps however long ago it began.
RESUME_GRACE = 30.0


@dataclass
class Resumed:
    table: Table
    #: The saved meta, without the secrets.
    meta: dict[str, Any]
    #: Wall time the transcript was last written (None: unknown).
    saved_at: float | None


def rebuild(journal: Journal, identity: Identity,
            randomness_for: Callable[[int], Callable[[int], bytes]] | None) -> Resumed:
    """The table as saved in ``journal`` (claimed first: raises
    :class:`~p2pcards.net.journal.JournalInUse` if another process plays it)."""
    journal.claim()
    meta = journal.read_meta()
    messages = journal.read_messages()
    secrets = SessionSecrets.from_wire(meta["secrets"])
    table = Table(messages[0], identity, secrets, randomness=randomness_for)
    for raw in messages[1:]:
        try:
            table.receive(raw, saved=True)  # its own record: its own messages are its own
        except RemoteProtocolError:
            break
    saved_at = None
    # When the saved turn began (the transcript's last write), before the rewrite
    # below touches the file.
    with contextlib.suppress(OSError):
        saved_at = journal.transcript_path.stat().st_mtime
    journal.rewrite(table.transcript())
    saved_verdict = journal.read_verdict()
    if saved_verdict is not None and table.stage is not Stage.ENDED:
        table.restore_verdict(Verdict.from_wire(saved_verdict))  # it ended: no play resumes
    return Resumed(table, {k: v for k, v in meta.items() if k != "secrets"}, saved_at)


def turn_age(saved_at: float | None, move_time: float) -> float:
    """Seconds since the saved transcript was last written (a resumed turn's age),
    leaving at least ``RESUME_GRACE`` of the clock."""
    if saved_at is None:
        return 0.0
    age = max(0.0, time.time() - saved_at)
    return min(age, max(0.0, move_time - RESUME_GRACE))


def resumed_events(table: Table, meta: dict[str, Any]) -> list[Any]:
    """A resumed session's front end starts empty: the table as saved (game,
    name, players and bot marks, seats) and, for a table that had already
    ended, how it ended, before anything new happens."""
    bots = meta.get("bots") or []
    players = tuple((p.public_key, p.name, bool(bots[i]) if i < len(bots) else False)
                    for i, p in enumerate(table.players))
    # The table clock, so a resumed seat shows a table without one as such.
    clock = {} if table.move_time is None else {MOVE_TIME: table.move_time}
    events: list[Any] = [LobbyUpdate(table.game.name, table.table_name, clock, players)]
    if table.player_at_seat is not None and table.first_seat is not None:
        events.append(PlayersSeated(table.player_at_seat, table.first_seat))
    if table.stage is Stage.OVER:
        events.append(MatchEnded(table.engine.outcome))
    elif table.stage is Stage.ENDED and table.verdict is not None:
        events.append(TableEnded(table.verdict))
    return events
