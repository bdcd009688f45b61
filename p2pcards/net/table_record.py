"""A table's DNS-SD record: the TXT fields a host announces and how a browser reads
them back (PROTOCOL.md's discovery section; :mod:`.discovery` does the announcing and
browsing with zeroconf).

Everything read here is untrusted: a record with a bad field is skipped, never a
crash, and names are cleaned before anyone sees them. ``pk`` is the host's whole
identity key and must match ``fp``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from p2pcards.protocol.identity import fingerprint as identity_fingerprint
from p2pcards.untrusted_text import shown

if TYPE_CHECKING:
    from zeroconf import ServiceInfo

SERVICE_TYPE = "_p2pcards._tcp.local."
HOST_TTL = 30
"""Seconds others may cache our address records (zeroconf's default is 120)."""
OTHER_TTL = 60
"""Seconds others may cache our PTR/SRV/TXT records (zeroconf's default is 4500)."""
MAX_NAME_CHARS = 48
MAX_SEATS = 64
_INSTANCE_LABEL_BYTES = 63
_TXT_ENTRY_BYTES = 255
#: The most spectators a record may claim (more is read as a bad field).
MAX_SPECTATORS_SHOWN = 1000
#: The longest table clock a record may claim (``protocol.table_settings.MAX_MOVE_TIME``).
MAX_CLOCK_SHOWN = 3600
GAME_PATTERN = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
FINGERPRINT_PATTERN = re.compile(r"[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}")
_PUBLIC_KEY_PATTERN = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class TableInfo:
    """A live table as a browser sees it."""

    name: str
    game: str
    host: str
    port: int
    free_seats: int
    version: int
    fingerprint: str
    instance: str
    """The DNS-SD service name (unique per table name and host key)."""
    public_key: bytes | None = None
    """The host's identity key (a parsed record always has it: pin the link to it)."""
    host_name: str = ""
    """The hosting player's display name, cleaned (may be empty)."""
    spectators: int = 0
    """How many spectators the host admits (``p2pcards watch``); 0: none."""
    clock: int | None = None
    """The table clock, seconds per move: 0 is no clock (anyone can stall the
    table for ever), None that the record does not say (or says it badly)."""
    hints: bool = False
    """Whether the host allowed the coach's hints (genesis ``hints``; absent: no)."""
    between: bool = False
    """Between matches: ``free_seats`` are seats freed at the end box (TXT ``end``)."""


# --- names and TXT records -------------------------------------------------------------


def clean_text(value: str, limit: int = MAX_NAME_CHARS) -> str:
    """A TXT value as people may see it (no terminal escapes from the network)."""
    return shown(value, limit)


def _truncate_utf8(text: str, limit: int) -> str:
    return text.encode("utf-8")[:limit].decode("utf-8", errors="ignore")


def instance_name(table_name: str, fingerprint: str) -> str:
    """``<table name> [<fingerprint>]``, within one 63-byte DNS label, without dots."""
    suffix = f" [{fingerprint}]"
    base = clean_text(table_name).replace(".", "_") or "table"
    return _truncate_utf8(base, _INSTANCE_LABEL_BYTES - len(suffix.encode())) + suffix


def table_properties(
    *, table_name: str, game: str, free_seats: int, version: int, fingerprint: str, port: int,
    public_key: bytes | None = None, host_name: str = "", spectators: int = 0,
    clock: int | None = None, hints: bool = False, between: bool = False,
) -> dict[bytes, bytes]:
    """The TXT record of a table, each entry within DNS-SD's 255 bytes."""
    fields = {
        "game": game,
        "name": clean_text(table_name),
        "free": str(free_seats),
        "v": str(version),
        "fp": fingerprint,
        "port": str(port),
    }
    if public_key is not None:
        fields["pk"] = public_key.hex()
    if clean_text(host_name):
        fields["hn"] = clean_text(host_name)
    if spectators:
        fields["watch"] = str(spectators)
    if clock is not None:  # 0 too: a table without a clock says so
        fields["clock"] = str(clock)
    if hints:
        fields["hints"] = "1"
    if between:
        fields["end"] = "1"
    properties: dict[bytes, bytes] = {}
    for key, value in fields.items():
        room = _TXT_ENTRY_BYTES - len(key) - 1
        properties[key.encode()] = _truncate_utf8(value, room).encode("utf-8")
    return properties


def _text_field(properties: Mapping[bytes, object], key: bytes) -> str | None:
    value = properties.get(key)
    if not isinstance(value, (bytes, bytearray)):
        return None
    try:
        return bytes(value).decode("utf-8")
    except UnicodeDecodeError:
        return None


def _int_field(properties: Mapping[bytes, object], key: bytes, low: int, high: int) -> int | None:
    text = _text_field(properties, key)
    if text is None or not text.isascii() or not text.isdigit() or len(text) > 6:
        return None
    value = int(text)
    return value if low <= value <= high else None


def parse_table(info: ServiceInfo, host: str) -> TableInfo | None:
    """The table a resolved service describes, or None if any required field is bad."""
    try:
        properties = info.properties
        srv_port = info.port
        name = info.name
    except Exception:  # a malformed TXT record must not escape
        return None
    if not isinstance(properties, dict) or not isinstance(srv_port, int):
        return None
    game = _text_field(properties, b"game")
    fp = _text_field(properties, b"fp")
    free = _int_field(properties, b"free", 0, MAX_SEATS)
    version = _int_field(properties, b"v", 0, 65535)
    txt_port = _int_field(properties, b"port", 1, 65535)
    if game is None or not GAME_PATTERN.fullmatch(game):
        return None
    if fp is None or not FINGERPRINT_PATTERN.fullmatch(fp):
        return None
    if free is None or version is None or not 1 <= srv_port <= 65535:
        return None
    if txt_port is not None and txt_port != srv_port:
        return None
    pk_text = _text_field(properties, b"pk")
    # Without the whole key a joiner could pin only the 48-bit fingerprint: refused.
    if pk_text is None or not _PUBLIC_KEY_PATTERN.fullmatch(pk_text):
        return None
    public_key = bytes.fromhex(pk_text)
    if identity_fingerprint(public_key) != fp:
        return None
    shown = clean_text(_text_field(properties, b"name") or "") or clean_text(name.removesuffix("." + SERVICE_TYPE))
    return TableInfo(
        name=shown,
        game=game,
        host=host,
        port=srv_port,
        free_seats=free,
        version=version,
        fingerprint=fp,
        instance=name,
        public_key=public_key,
        host_name=clean_text(_text_field(properties, b"hn") or ""),
        spectators=_int_field(properties, b"watch", 0, MAX_SPECTATORS_SHOWN) or 0,
        # Advisory, like ``watch``: the genesis the joiner checks is what binds.
        clock=_int_field(properties, b"clock", 0, MAX_CLOCK_SHOWN),
        hints=_int_field(properties, b"hints", 0, 1) == 1,
        between=_int_field(properties, b"end", 0, 1) == 1,
    )


# --- advertising --------------------------------------------------------------------------


def checked_free_seats(free_seats: int) -> int:
    if not 0 <= free_seats <= MAX_SEATS:
        raise ValueError(f"free_seats must be between 0 and {MAX_SEATS}")
    return free_seats


