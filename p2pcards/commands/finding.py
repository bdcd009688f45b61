"""Finding a table on the LAN: ``tables`` lists the announced ones, ``join`` and
``watch`` pick one by name, key or number (or dial ``--connect HOST:PORT``)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol, TypeVar

from p2pcards.commands import UserError
from p2pcards.ui.text_common import plural, quoted

if TYPE_CHECKING:
    from p2pcards.net.discovery import TableInfo


class Listed(Protocol):
    """What picking a table reads of a listed one: discovery's ``TableInfo``, or a
    test's stand-in for it."""

    @property
    def name(self) -> str: ...
    @property
    def game(self) -> str: ...
    @property
    def host(self) -> str: ...
    @property
    def port(self) -> int: ...
    @property
    def host_name(self) -> str: ...
    @property
    def fingerprint(self) -> str: ...
    @property
    def free_seats(self) -> int: ...
    @property
    def spectators(self) -> int: ...


#: A listed table, as the caller's own type (``TableInfo`` from discovery).
L = TypeVar("L", bound=Listed)
#: Whether this player holds a seat at a table's end box: its host key, address, port.
Held = Callable[[bytes | str, str, int], bool]


async def find_table(args: argparse.Namespace, held: Held | None = None
                     ) -> tuple[str, int, bytes | str | None]:
    """The table ``join``/``watch`` means (``held``: whether this player holds a seat
    at a listed table's end box: such a table is never "full" to it)."""
    if args.connect:
        host, port = host_port(args.connect)
        return host, port, None
    found = await _browse(args)
    watching = args.command == "watch"
    table = pick_table(found, args.table, watching=watching,
                       held=None if held is None else
                       lambda t: held(t.public_key or t.fingerprint, t.host, t.port))
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


async def _browse(args: argparse.Namespace) -> list[TableInfo]:
    """The tables on the LAN (``--interface``: only where it says)."""
    from p2pcards.net.discovery import browse_tables
    from p2pcards.net.errors import UnknownInterface
    from p2pcards.net.failing import LocalFailure
    try:
        return await browse_tables(args.timeout, interfaces=args.interface)
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


async def cmd_tables(args: argparse.Namespace) -> int:
    found = _in_order(await _browse(args))
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
    print(f"{'#':>2}  {'TABLE':<24}  {'GAME':<6}  {'FREE':<4}  {'WATCH':<5}  {'CLOCK':<8}  "
          f"{'HOST':<16}  {'ADDRESS':<21}  KEY")
    for number, t in enumerate(found, start=1):
        free = "full" if t.free_seats == 0 else str(t.free_seats) + ("*" if t.between else "")
        watch = str(t.spectators) if t.spectators else "no"
        print(f"{number:>2}  {t.name[:24]:<24}  {t.game:<6}  {free:<4}  {watch:<5}  {_clock_word(t.clock):<8}  "
              f"{(t.host_name or '?')[:16]:<16}  {connect_address(t.host, t.port):<21}  {t.fingerprint}")
    if any(t.clock == 0 for t in found):
        print(NO_CLOCK_WARNING)
    if any(t.between and t.free_seats for t in found):
        print("* between matches: a seat freed at the end box; whoever joins takes it "
              "for the rematch.")
    print("Join one with: p2pcards join NAME (or its number, or its KEY when names clash); "
          "watch one with: p2pcards watch NAME")
    return 0


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
               held: Callable[[L], bool] | None = None) -> L:
    """The table ``join WANTED`` (or ``watch WANTED``) means: by name, host key (or
    its start) or list number; without WANTED, the only open table (the only one
    that admits spectators). Each refusal says what to do."""
    listed = _in_order(found)
    hint = "see p2pcards tables, or use --connect HOST:PORT"
    if wanted is None:
        matches = listed
    else:
        key = wanted.strip().lower()
        matches = [t for t in listed if t.name == wanted]
        if not matches and len(key) >= 4:
            matches = [t for t in listed if t.fingerprint.startswith(key)]
        if not matches and key.isdigit() and 1 <= int(key) <= len(listed):
            matches = [listed[int(key) - 1]]
    open_ones = [t for t in matches if (t.spectators if watching else t.free_seats) > 0
                 or (held is not None and held(t))]
    if not matches:
        if wanted is not None and key.isdigit() and listed:
            raise UserError(f"no table number {key}: {plural(len(listed), 'table')} found, "
                            f"numbered 1 to {len(listed)} as p2pcards tables lists them (a "
                            f"table is named by its number, its name or its host key)")
        named = f" named {quoted(wanted)}" if wanted is not None else ""
        accepted = (" (a table is named by its number in p2pcards tables, its name or its "
                    "host key; or use --connect HOST:PORT)") if wanted is not None and listed \
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
        rows = "; ".join(f"{listed.index(t) + 1}. {quoted(t.name)} ({t.game}, host "
                         f"{t.host_name or '?'}, key {t.fingerprint})" for t in open_ones)
        verb = "watch" if watching else "join"
        raise UserError(f"{len(open_ones)} {'' if watching else 'open '}tables match; {verb} one "
                        f"by its number or key: {rows}")
    return open_ones[0]
