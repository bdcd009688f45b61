"""Finding a table on the LAN: ``tables`` lists the announced ones, ``join`` and
``watch`` pick one by name, key or number (or dial ``--connect HOST:PORT``).

A number means the table that had it in the list this person last printed
(within :data:`LIST_KEPT` seconds): at a LAN party tables come and go between
reading the list and typing ``join 3``, and a number counted afresh would then
name another table. ``tables`` keeps its list in the state folder for that.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol, TypeVar

from p2pcards.commands import UserError
from p2pcards.ui.text_common import plural, quoted

if TYPE_CHECKING:
    from pathlib import Path

    from p2pcards.net.discovery import Awaited, TableInfo

log = logging.getLogger(__name__)

#: Seconds a printed list keeps its numbers for ``join N`` and ``watch N``.
LIST_KEPT = 600.0
#: The file (in the state folder) that keeps them: each number's table name and host key.
LIST_FILE = "listed.json"
#: Seconds ``join NAME`` and ``watch NAME`` look on, past ``--timeout``, for the table
#: they name while it has not answered (every one of that name the last printed list
#: showed): on a busy LAN or laptop an answer can come late (``discovery.Awaited``).
FIND_PATIENCE = 10.0


class Named(Protocol):
    """What names a table: its name and host key."""

    @property
    def name(self) -> str: ...
    @property
    def fingerprint(self) -> str: ...


class Listed(Named, Protocol):
    """What picking a table reads of a listed one: discovery's ``TableInfo``, or a
    test's stand-in for it."""

    @property
    def game(self) -> str: ...
    @property
    def host(self) -> str: ...
    @property
    def port(self) -> int: ...
    @property
    def host_name(self) -> str: ...
    @property
    def free_seats(self) -> int: ...
    @property
    def spectators(self) -> int: ...


class TablesMatch(UserError):
    """Several open tables match what ``join`` or ``watch`` was given; the sentence
    numbers them, as a fresh ``tables`` list would."""


#: A listed table, as the caller's own type (``TableInfo`` from discovery).
L = TypeVar("L", bound=Listed)
#: A named table (a listed one, or an entry of the list printed last).
N = TypeVar("N", bound=Named)
#: Whether this player holds a seat at a table's end box: its host key, address, port.
Held = Callable[[bytes | str, str, int], bool]


async def find_table(args: argparse.Namespace, held: Held | None = None
                     ) -> tuple[str, int, bytes | str | None]:
    """The table ``join``/``watch`` means (``held``: whether this player holds a seat
    at a listed table's end box: such a table is never "full" to it)."""
    if args.connect:
        host, port = host_port(args.connect)
        return host, port, None
    listed = last_listed()
    found = await _browse(args, sought(args.table, listed))
    watching = args.command == "watch"
    held_here = None if held is None else \
        (lambda t: held(t.public_key or t.fingerprint, t.host, t.port))
    try:
        table = pick_table(found, args.table, watching=watching, listed=listed, held=held_here)
    except TablesMatch:
        remember_listed(_in_order(found))  # the numbers the sentence gives are the ones to use
        raise
    verb = "Watching" if watching else "Joining"
    clock = table.clock
    timed = "" if clock is None else ", no clock" if clock == 0 else f", {clock} s per move"
    timed += ", hints allowed" if table.hints else ""
    print(f"{verb} {quoted(table.name)} ({table.game}{timed}) hosted by {table.host_name or '?'} "
          f"at {connect_address(table.host, table.port)}, host key {table.fingerprint}", flush=True)
    if clock == 0 and not watching:
        print(NO_CLOCK_WARNING, flush=True)
    return table.host, table.port, table.public_key or table.fingerprint


def host_port(text: str) -> tuple[str, int]:
    """``--connect``'s HOST:PORT: ``10.0.0.5:4000``, ``laptop.local:4000``, or an
    IPv6 address in brackets (``[fd00::1]:4000``, ``[fe80::1%eth0]:4000``)."""
    wants = f"--connect wants HOST:PORT (the address a host shows), not {text!r}"
    text = text.strip()
    if text.startswith("["):
        host, bracket, rest = text[1:].partition("]")
        if not bracket or not rest.startswith(":"):
            raise UserError(wants)
        port = rest[1:]
    else:
        host, _, port = text.rpartition(":")
        if ":" in host:
            raise UserError(f"{wants}: put an IPv6 address in brackets, as in [{host}]:{port}")
    if not host or not port.isdigit() or not 0 < int(port) <= 65535:
        raise UserError(wants)
    return host, int(port)


def sought(wanted: str | None, listed: Sequence[tuple[str, str]] | None) -> Awaited:
    """What ``join WANTED`` looks for past its window (see :class:`Awaited`): the
    tables of the list printed last that WANTED names, read as :func:`pick_table`
    reads it, else any one table it names."""
    from p2pcards.net.discovery import Awaited
    entries = [_Entry(name, key) for name, key in listed or []]
    named = tuple((entry.name, entry.fingerprint) for entry in _matching(entries, wanted, listed))
    return Awaited(named, lambda found: bool(_matching(_in_order(found), wanted, listed)),
                   patience=FIND_PATIENCE)


class _Entry(NamedTuple):
    """One table of the list printed last: its name and host key."""

    name: str
    fingerprint: str


async def _browse(args: argparse.Namespace, awaited: Awaited | None = None) -> list[TableInfo]:
    """The tables on the LAN (``--interface``: only where it says); with ``awaited``,
    looking on past ``--timeout`` until those tables answered."""
    from p2pcards.net.discovery import browse_tables
    from p2pcards.net.errors import UnknownInterface
    from p2pcards.net.failing import LocalFailure
    try:
        return await browse_tables(args.timeout, interfaces=args.interface, awaited=awaited)
    except UnknownInterface as error:
        raise UserError(f"{error} (--interface takes an address or name of this machine's interfaces)") from None
    except Exception as error:  # zeroconf's own errors too: said, not a traceback
        by_address = ("p2pcards join --connect HOST:PORT dials a table without looking"
                      if args.command == "tables" else
                      f"p2pcards {args.command} --connect HOST:PORT dials it without looking")
        raise LocalFailure("looking for tables on the LAN (mDNS)", error, remedy=(
            f"--interface ADDR looks on one interface only; {by_address} (the host's "
            f"screen shows the address)")) from error


def _in_order(found: Sequence[L]) -> list[L]:
    """Tables in the order ``tables`` numbers them (by name, then host key), so a
    number read off the list means the same table to ``join``."""
    return sorted(found, key=lambda t: (t.name.casefold(), t.fingerprint, t.host, t.port))


def _listed_path() -> Path:
    from p2pcards.net.storage import state_dir
    return state_dir() / LIST_FILE


def remember_listed(found: Sequence[Listed], now: float | None = None) -> None:
    """Keep what each number of a printed list means (its table's name and host
    key), for a ``join N`` a moment later; a folder that cannot be written only
    loses that."""
    from p2pcards.net.storage import write_atomically
    record = {"at": time.time() if now is None else now,
              "tables": [[t.name, t.fingerprint] for t in found]}
    try:
        write_atomically(_listed_path(), json.dumps(record).encode())
    except OSError as error:
        log.info("cannot keep the list's numbers: %s", error)


def last_listed(now: float | None = None) -> list[tuple[str, str]] | None:
    """The tables of the list last printed here, in its numbers' order (name, host
    key), if it was printed within :data:`LIST_KEPT` seconds; None otherwise."""
    try:
        record = json.loads(_listed_path().read_bytes())
        at, tables = float(record["at"]), record["tables"]
        listed = [(str(name), str(key)) for name, key in tables]
    except (OSError, ValueError, TypeError, KeyError):
        return None
    moment = time.time() if now is None else now
    return listed if 0 <= moment - at <= LIST_KEPT else None


async def cmd_tables(args: argparse.Namespace) -> int:
    found = _in_order(await _browse(args))
    remember_listed(found)
    if args.json:
        for number, t in enumerate(found, start=1):
            print(json.dumps({"number": number, "name": t.name, "game": t.game,
                              "host": t.host_name, "address": t.host, "port": t.port,
                              "free": t.free_seats, "spectators": t.spectators,
                              "clock": t.clock, "hints": t.hints, "version": t.version,
                              "between": t.between,
                              "fp": t.fingerprint}))
        return 0
    if not found:
        print("No tables found on the LAN (a friend's host shows an address for "
              "p2pcards join --connect HOST:PORT).")
        return 0
    for line in table_lines(found):
        print(line)
    if any(t.clock == 0 for t in found):
        print(NO_CLOCK_WARNING)
    if any(t.between and t.free_seats for t in found):
        print("* between matches: a seat freed at the end box; whoever joins takes it "
              "for the rematch.")
    print("Join one with: p2pcards join NAME (or its number, or its KEY when names clash); "
          "watch one with: p2pcards watch NAME")
    return 0


def table_lines(found: Sequence[TableInfo]) -> list[str]:
    """``tables``' header and rows; the address column as wide as its widest
    address (an IPv6 one with its zone: ``[fe80::…%eth0]:PORT``)."""
    addresses = [connect_address(t.host, t.port) for t in found]
    wide = max([len("ADDRESS"), 21, *map(len, addresses)])
    lines = [f"{'#':>2}  {'TABLE':<24}  {'GAME':<6}  {'FREE':<4}  {'WATCH':<5}  {'CLOCK':<8}  "
             f"{'HOST':<16}  {'ADDRESS':<{wide}}  KEY"]
    for number, (t, address) in enumerate(zip(found, addresses, strict=True), start=1):
        free = "full" if t.free_seats == 0 else str(t.free_seats) + ("*" if t.between else "")
        watch = str(t.spectators) if t.spectators else "no"
        lines.append(f"{number:>2}  {t.name[:24]:<24}  {t.game:<6}  {free:<4}  {watch:<5}  "
                     f"{_clock_word(t.clock):<8}  {(t.host_name or '?')[:16]:<16}  "
                     f"{address:<{wide}}  {t.fingerprint}")
    return lines


#: What ``tables`` and ``join`` say of a table whose host set no clock.
NO_CLOCK_WARNING = ("Warning: a table with no clock has no time limit per move: "
                    "anyone at it can stall it for ever.")


def _clock_word(clock: int | None) -> str:
    """A table's clock as ``tables`` shows it: seconds per move, "none", or "?"
    (a host too old to announce it)."""
    if clock is None:
        return "?"
    return "none" if clock == 0 else f"{clock}s"


def connect_address(host: str, port: int) -> str:
    """``HOST:PORT`` as ``--connect`` takes it (IPv6 in brackets)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def pick_table(found: Sequence[L], wanted: str | None, *, watching: bool = False,
               listed: Sequence[tuple[str, str]] | None = None,
               held: Callable[[L], bool] | None = None) -> L:
    """The table ``join WANTED`` (or ``watch WANTED``) means: by name, host key (or
    its start) or list number; without WANTED, the only open table (the only one
    that admits spectators). A number is the one ``listed`` (the list last printed:
    name and host key per number) gave the table, else its place in today's
    order. Each refusal says what to do."""
    listed_now = _in_order(found)
    hint = "see p2pcards tables, or use --connect HOST:PORT"
    matches = _matching(listed_now, wanted, listed)
    key = "" if wanted is None else wanted.strip().lower()
    open_ones = [t for t in matches if (t.spectators if watching else t.free_seats) > 0
                 or (held is not None and held(t))]
    if not matches:
        if wanted is not None and key.isdigit() and listed and 1 <= int(key) <= len(listed):
            name, fingerprint = listed[int(key) - 1]
            raise UserError(f"table {key} of the list you printed last, {quoted(name)} (host key "
                            f"{fingerprint}), is no longer announced ({hint})")
        if wanted is not None and key.isdigit() and listed_now:
            raise UserError(f"no table number {key}: {plural(len(listed_now), 'table')} found, "
                            f"numbered 1 to {len(listed_now)} as p2pcards tables lists them (a "
                            f"table is named by its number, its name or its host key)")
        named = f" named {quoted(wanted)}" if wanted is not None else ""
        accepted = (" (a table is named by its number in p2pcards tables, its name or its "
                    "host key; or use --connect HOST:PORT)") if wanted is not None and listed_now \
            else f" ({hint})"
        raise UserError(f"no table{named} found on the LAN{accepted}")
    if not open_ones and watching:
        if len(matches) == 1:
            raise UserError(f"table {quoted(matches[0].name)} admits no spectators")
        raise UserError(f"no table{'' if wanted is None else ' named ' + quoted(wanted)} "
                        f"admits spectators ({hint})")
    if not open_ones:
        if len(matches) == 1:
            raise UserError(f"table {quoted(matches[0].name)} is full: its four seats are taken")
        raise UserError(f"every table{'' if wanted is None else ' named ' + quoted(wanted)} "
                        f"is full ({hint})")
    if len(open_ones) > 1:
        rows = "; ".join(f"{listed_now.index(t) + 1}. {quoted(t.name)} ({t.game}, host "
                         f"{t.host_name or '?'}, key {t.fingerprint})" for t in open_ones)
        verb = "watch" if watching else "join"
        raise TablesMatch(f"{len(open_ones)} {'' if watching else 'open '}tables match; {verb} one "
                        f"by its number or key: {rows}")
    return open_ones[0]


def _matching(in_order: list[N], wanted: str | None,
              listed: Sequence[tuple[str, str]] | None) -> list[N]:
    """The tables ``wanted`` names: by name, else by host key (or its start, four
    characters or more), else by number; without ``wanted``, every table."""
    if wanted is None:
        return in_order
    key = wanted.strip().lower()
    matches = [t for t in in_order if t.name == wanted]
    if not matches and len(key) >= 4:
        matches = [t for t in in_order if t.fingerprint.startswith(key)]
    if not matches and key.isdigit():
        matches = _numbered(in_order, int(key), listed)
    return matches


def _numbered(in_order: list[N], number: int, listed: Sequence[tuple[str, str]] | None) -> list[N]:
    """The table numbered ``number``: the one the last printed list gave that number
    (found by name and host key; none if it has gone), else today's ``number``-th."""
    if listed and 1 <= number <= len(listed):
        name, fingerprint = listed[number - 1]
        return [t for t in in_order if t.name == name and t.fingerprint == fingerprint][:1]
    return [in_order[number - 1]] if 1 <= number <= len(in_order) else []
