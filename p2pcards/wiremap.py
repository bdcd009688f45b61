"""The one name for a value that truly is anything: what msgpack (or JSON) carries.

A decoded msgpack map has str keys (the wire refuses others) and values of any
msgpack type; a rule reads a field only after protocol.schema has checked its
shape. Spelling that once, here, keeps every other annotation precise and makes
each boundary that takes anything easy to find (grep for ``Wire``).
"""

from __future__ import annotations

from typing import Any, TypeAlias

#: One msgpack (or JSON) value, unchecked or checked only by a schema shape.
WireValue: TypeAlias = Any
#: A msgpack map as it crosses the wire, the journal or a JSON report.
WireMap: TypeAlias = dict[str, WireValue]
#: A msgpack array in wire form (an address as [host, port, ...], a proof's parts).
WireList: TypeAlias = list[WireValue]
