"""Reading ``p2pcards tables``' plain listing back into its columns, as a person reads it.

The listing is a fixed-width table under a header; a name may hold spaces, so
a row is cut where the header's columns start, never split on blanks.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["COLUMNS", "listing_rows"]

COLUMNS = ("#", "TABLE", "GAME", "FREE", "WATCH", "CLOCK", "HOST", "ADDRESS", "KEY")


def listing_rows(lines: Sequence[str]) -> list[dict[str, str]]:
    """Each numbered row of a listing (its header first) as ``{column: text}``; none
    where no table was listed (no header, only a sentence saying so)."""
    if not lines or not all(f"  {name}" in lines[0] for name in COLUMNS[1:]):
        return []
    header = lines[0]
    starts = [0, *(header.index(f"  {name}") + 2 for name in COLUMNS[1:])]
    rows = []
    for line in lines[1:]:
        if not line[:2].strip().isdigit():
            continue
        cells = [line[start:end].strip() for start, end in zip(starts, [*starts[1:], None], strict=True)]
        rows.append(dict(zip(COLUMNS, cells, strict=True)))
    return rows
