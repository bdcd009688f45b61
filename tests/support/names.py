"""Table names no other process on this machine uses: a test that announces tables
where others can hear them (loopback mDNS) names them with :func:`own_name` and
looks only at those, so another copy of the suite, or anyone's tables played
beside it, can neither take its ``join NAME`` nor change what it counts.

A test that counts *every* table, or numbers them from one, cannot hold on a
shared loopback; it runs in a network namespace of its own instead
(``tests.support.netns``).
"""

from __future__ import annotations

import secrets

__all__ = ["RUN_TAG", "own_name"]

#: Six hex digits, fresh in every process.
RUN_TAG = secrets.token_hex(3)


def own_name(base: str) -> str:
    """``base`` with this process's tag (``"Loop den 3fa91c"``): at most 32 characters,
    as a table name may be."""
    name = f"{base} {RUN_TAG}"
    if len(name) > 32:
        raise ValueError(f"{base!r} is too long for a tagged table name")
    return name
