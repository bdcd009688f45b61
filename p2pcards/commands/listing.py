"""``saved`` and ``standings``: this person's saved tables, listed with the commands
that take them up, and the evening's standings from the records that verify."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from p2pcards.app.records import SavedTable, my_saved_tables, others_in
from p2pcards.commands import UserError
from p2pcards.commands.identity import journal_root, my_identity
from p2pcards.commands.printed import command_line
from p2pcards.net.saved_tables import session_folder

if TYPE_CHECKING:
    from p2pcards.protocol.identity import Identity


def my_tables(identity: Identity) -> list[SavedTable]:
    """This person's own seats only (not its bots' nor its relay's), newest first."""
    return my_saved_tables(journal_root(), identity.fingerprint)


def _shown_path(path: Path) -> str:
    """A folder as ``saved`` prints it: under the home folder as ``~/…``."""
    with contextlib.suppress(ValueError, RuntimeError):
        return str(Path("~") / path.relative_to(Path.home()))
    return str(path)


def _commands_for(row: SavedTable) -> dict[str, str]:
    """The commands that take up a saved table, by what they do."""
    commands = {"verify": command_line("verify", row.short), "replay": command_line("replay", row.short)}
    if row.in_play:
        commands["resume"] = command_line("resume", row.short)
    return commands


def cmd_saved(args: argparse.Namespace) -> int:
    identity = my_identity(args)
    rows = my_tables(identity)
    _say_left_out(identity, rows)
    if args.json:
        for row in rows:
            print(json.dumps({"session": row.session, "game": row.game, "table": row.table,
                              "players": list(row.players), "saved": row.saved_at,
                              "status": row.status, "in_play": row.in_play,
                              "path": str(row.directory), "evening": _evening_id(row.directory),
                              "others": others_in(session_folder(row.directory), identity.fingerprint),
                              "commands": _commands_for(row)}))
        return 0
    if not rows:
        print("No saved tables.")
        return 0
    # An evening's tables together (p2pcards.evening.standings says how tables are grouped),
    # the evening of the newest table first; each table names its evening.
    evenings = {row.directory: _evening_id(row.directory) for row in rows}
    order = list(dict.fromkeys(evenings[row.directory] for row in rows))
    print(f"{'SESSION':<12}  {'GAME':<6}  {'TABLE':<24}  {'SAVED':<16}  STATUS")
    for row in sorted(rows, key=lambda r: order.index(evenings[r.directory])):
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(row.saved_at))
        print(f"{row.short:<12}  {row.game:<6}  {row.table[:24]:<24}  {when:<16}  "
              f"{row.status}")
        evening = evenings[row.directory]
        print(f"{'':<12}  players: {', '.join(row.players)}"
              + (f"; evening {evening}" if evening is not None else ""))
        others = others_in(session_folder(row.directory), identity.fingerprint)
        print(f"{'':<12}  record: {_shown_path(row.directory)}")
        print(f"{'':<12}  (yours" + (f"; its session's folder also holds: {', '.join(others)})"
                                     if others else ")"))
        also = "replay and resume take the same id" if row.in_play else "replay takes the same id"
        print(f"{'':<12}  check it: {_commands_for(row)['verify']} ({also})")
    return 0


def _say_left_out(identity: Identity, rows: list[SavedTable]) -> None:
    """Your records that cannot be listed, each named on stderr with why (the list
    itself, and ``--json``, stay what scripts read)."""
    from p2pcards.net.saved_tables import own_records, why_left_out
    listed = {row.directory for row in rows}
    for record in own_records(journal_root(), identity.fingerprint):
        if record not in listed:
            print(f"p2pcards: {why_left_out(record)}; that table is left out of this list",
                  file=sys.stderr)


def _evening_id(directory: Path) -> str | None:
    from p2pcards.evening.standings import evening_of
    evening = evening_of(directory)
    return None if evening is None else evening[0]


def cmd_standings(args: argparse.Namespace) -> int:
    from p2pcards.evening import standings
    identity = my_identity(args)
    records = standings.own_records(journal_root(), identity.fingerprint)
    for given in args.records:
        found = standings.records_under(Path(given))
        if not found:
            raise UserError(f"no saved table at {given} (a table's folder holds a transcript; "
                            f"see p2pcards saved)")
        records += found
    result = standings.pick(standings.collect(records), args.evening)
    if args.evening and not result.evenings:
        raise UserError(f"no evening {args.evening!r} in the records that verify")
    if args.json:
        print(json.dumps(standings.standings_json(result)))
    else:
        print("\n".join(standings.standings_lines(result)))
    return 1 if any(n.failed for n in result.not_counted) else 0
