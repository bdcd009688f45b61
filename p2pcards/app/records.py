"""Your saved records as people name them: a session id, or the start of one, as
``p2pcards saved`` prints it, stands for a table's folder, and inside it for your
own record (a session folder also holds the host's relay and its bots' seats).

``verify``, ``replay`` and ``resume`` take such an id instead of a long path, and
``saved`` says for each record whose it is, so nobody has to guess which of a
folder's several records is theirs.
"""

from __future__ import annotations

import string
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from p2pcards.errors import P2PCardsError
from p2pcards.net.saved_tables import (
    RELAY,
    own_seats,
    records_in,
    session_id,
    sessions_matching,
)
from p2pcards.net.saved_tables import read_meta as _read_meta
from p2pcards.wiremap import WireMap

#: How many characters of a session id a printed command carries: unique among
#: one person's tables in practice, and ``verify``/``replay`` say so if not.
SHORT = 12


class RecordNotFound(P2PCardsError):
    """No saved record, or more than one, answers to what was typed (the sentence
    names the candidates)."""


@dataclass(frozen=True)
class SavedTable:
    """One of this person's saved tables, as ``saved`` lists it and ``resume`` picks it."""

    directory: Path
    meta: WireMap
    game: str
    table: str
    players: tuple[str, ...]
    saved_at: float
    status: str
    in_play: bool
    """No result nor verdict saved, and not known to have ended: ``resume`` takes it up."""
    away: bool = False
    """A table you hosted that ended while you were away (the players gave up on their
    host; its record names nobody): ``resume`` says so."""

    @property
    def session(self) -> str:
        return session_id(self.directory)

    @property
    def short(self) -> str:
        """The session id as printed commands carry it."""
        return self.session[:SHORT]


def whose(directory: Path, meta: WireMap | None, fingerprint: str | None) -> str:
    """Whose record a session folder's ``directory`` is: ``yours``, ``relay``, a
    bot's (``bot Ada``) or another key's seat."""
    if directory.name == RELAY:
        return "relay"
    if fingerprint is not None and directory.name == fingerprint:
        return "yours"
    if meta is not None and meta.get("bot_key") is not None:
        return f"bot {meta.get('name') or '?'}"
    return f"seat of key {directory.name}"








def others_in(session_dir: Path, fingerprint: str | None) -> list[str]:
    """Whose the session's other records are (``relay``, ``bot Ada``…), yours left out."""
    return sorted(whose(d, _read_meta(d), fingerprint) for d in records_in(session_dir)
                  if fingerprint is None or d.name != fingerprint)


def is_session_text(text: str) -> bool:
    """Whether ``text`` could be (the start of) a session id: hexadecimal digits."""
    return bool(text) and all(c in string.hexdigits for c in text)




def own_record(session_dir: Path, fingerprint: str | None) -> Path:
    """The record a session id stands for: yours; else, where you hold no seat
    (a table copied from someone else), the relay's, else its only record."""
    records = records_in(session_dir)
    if fingerprint is not None and session_dir / fingerprint in records:
        return session_dir / fingerprint
    if session_dir / RELAY in records:
        return session_dir / RELAY
    if len(records) == 1:
        return records[0]
    held = ", ".join(whose(d, _read_meta(d), fingerprint) for d in records)
    raise RecordNotFound(f"session {session_dir.name[:SHORT]} holds no record of yours "
                         f"(it holds: {held}); give the folder of the one you mean "
                         f"({session_dir})")


def describe_matches(folders: Sequence[Path]) -> str:
    """The candidates of an ambiguous session id, each by id, game and table."""
    named = []
    for folder in folders:
        records = records_in(folder)
        table = describe(records[0], {}) if records else None
        about = f" ({table.game}, {table.table!r})" if table is not None else ""
        named.append(f"{folder.name[:SHORT]}{about}")
    return ", ".join(named)


def find_record(root: Path, text: str, fingerprint: str | None) -> Path:
    """The saved record ``text`` names: a session id or its unique start, standing
    for your own record in it (see :func:`own_record`)."""
    if not is_session_text(text):
        raise RecordNotFound(f"no file or folder {text!r}, and it is no session id "
                             f"(see p2pcards saved)")
    matches = sessions_matching(root, text)
    if not matches:
        raise RecordNotFound(f"no file or folder {text!r}, and no saved table's session id "
                             f"starts with it (see p2pcards saved)")
    if len(matches) > 1:
        raise RecordNotFound(f"{len(matches)} saved tables' session ids start with {text!r}: "
                             f"{describe_matches(matches)}; type more of the id")
    return own_record(matches[0], fingerprint)


def describe(directory: Path, meta: WireMap, now: float | None = None) -> SavedTable | None:
    """What a person wants to know of a saved record, read without replaying its proofs
    (``now``, the wall time, decides whether a hosted table ended while you were away)."""
    from p2pcards.net.journal import Journal, read_records
    from p2pcards.protocol.envelope import SignedMessage
    from p2pcards.protocol.errors import ProtocolError
    journal = Journal(directory)
    try:
        records = read_records(journal.transcript_path)
        genesis = SignedMessage.parse(records[0]).body
        game, table = str(genesis["game"]), str(genesis["table"])
        players = tuple(str(name) for _key, name in genesis["players"])
        saved_at = journal.transcript_path.stat().st_mtime
        result, verdict = journal.read_result(), journal.read_verdict()
    except (OSError, IndexError, KeyError, TypeError, ValueError, ProtocolError):
        return None
    me = meta.get("player")
    if result is not None:
        winners = [str(w) for w in result.get("winners", [])]
        status = "over: won by " + (" and ".join(winners) or "nobody")
    elif verdict is not None:
        from p2pcards.ui.text_events import offence
        named = [p for p in verdict.get("players", ()) if isinstance(p, int)
                 and 0 <= p < len(players)]
        mine = named == [me]
        who = "you" if mine else " and ".join(players[p] for p in named) or "nobody"
        status = (f"ended: {who} "
                  f"{offence(str(verdict.get('rule')), str(verdict.get('detail', '')), mine)}")
    else:
        status, away = unended_status(directory, meta, time.time() if now is None else now)
        return SavedTable(directory, meta, game, table, players, saved_at, status,
                          in_play=not away, away=away)
    return SavedTable(directory, meta, game, table, players, saved_at, status, in_play=False)


#: The reconnect window players are taken to give their host (``--reconnect-window``'s
#: default): ``saved`` and ``standings`` take no such option.
HOST_WAIT = 60.0

#: What a record with no result nor verdict says: it cannot know what happened since.
IN_PLAY_WHEN_LEFT = "in play when you left"


def unended_status(directory: Path, meta: WireMap, now: float) -> tuple[str, bool]:
    """A record without a result or a verdict, as far as it can be known: a table
    you hosted whose players gave up on you while you were away (its relay's
    heartbeat is older than their reconnect window: :mod:`p2pcards.protocol.away`),
    else in play when you left (the others may have ended it since: nothing on this
    machine can tell). The status, and whether it is known to have ended."""
    if meta.get("hosted"):
        from p2pcards.net.resume import ALIVE_EVERY, last_up
        from p2pcards.net.saved_tables import ended_away
        from p2pcards.protocol.away import ended_while_away
        from p2pcards.rules.seats import SEATS
        folder = Path(directory).parent
        bots = sum(1 for record in records_in(folder)
                   if record != Path(directory) and record.name != RELAY
                   and (_read_meta(record) or {}).get("bot_key") is not None)
        if ended_away(folder) or ended_while_away(now, last_up(folder / RELAY), HOST_WAIT,
                                                  SEATS - 1 - bots, precision=ALIVE_EVERY):
            return ENDED_AWAY_STATUS, True
    return IN_PLAY_WHEN_LEFT, False


#: A table you hosted that ended while you were away, as ``saved`` and ``standings`` say it.
ENDED_AWAY_STATUS = ("ended while you were away (you hosted it, and were gone longer than its "
                     "players wait for a host: their records name you, yours nobody)")


def my_saved_tables(root: Path, fingerprint: str) -> list[SavedTable]:
    """This person's own seats only (not its bots' nor its relay's), newest first."""
    rows = [describe(directory, meta) for directory, meta in own_seats(root, fingerprint)]
    return sorted((r for r in rows if r is not None), key=lambda r: r.saved_at, reverse=True)


def pick_mine(rows: Sequence[SavedTable], prefix: str) -> SavedTable:
    """The one of your tables whose session id starts with ``prefix``."""
    matches = [r for r in rows if r.session.startswith(prefix.lower())]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise RecordNotFound(f"no saved table of yours has a session id starting with "
                             f"{prefix!r} (see p2pcards saved)")
    named = ", ".join(f"{r.short} ({r.game}, {r.table!r}, {r.status})" for r in matches)
    raise RecordNotFound(f"{len(matches)} saved tables of yours have a session id starting "
                         f"with {prefix!r}: {named}; type more of the id")
