"""Where a table's check or write runs: on the event loop when it is small, else in a worker thread.

Why: handing a step to a worker thread and back (the executor's queue, a
thread woken, the loop woken by its self-pipe) costs 0.5-1 ms on a machine
whose cores are busy, which is more than checking or writing a small message
costs: a key commit or opening, a Bluff claim, a Topper card. Those steps are
on the path every player waits on (the eight key messages of a table's start
run one after another; every action waits on the one before), so they run on
the loop. A shuffle or a deal's shares (some hundreds of scalar
multiplications) still run in a worker thread, so the loop and a screen drawn
on it never stall for long.

The bound is on bytes, not on what a message claims to be: a peer's message
of at most :data:`SMALL_MESSAGE_BYTES` holds at most some thirty points and
proofs, whose check costs a few milliseconds at worst, whatever its sender put
in it. A write is small by the stage it is written in (:data:`SMALL_WRITE_STAGES`):
this seat's own steps there are a key message or one game action.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from p2pcards.net.same_bytes import SAME_MESSAGE
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_records import Stage

T = TypeVar("T")

#: A received message of at most this many bytes is checked on the event loop.
SMALL_MESSAGE_BYTES = 1024

#: Stages whose own steps (key messages, game actions) are written on the event loop;
#: a shuffle or a deal's shares is written in a worker thread.
SMALL_WRITE_STAGES = frozenset({Stage.COMMIT, Stage.OPEN, Stage.PLAY})


def checked_on_loop(raw: bytes) -> bool:
    """Whether the check of the message ``raw`` runs on the event loop (it is small)."""
    return len(raw) <= SMALL_MESSAGE_BYTES


def written_on_loop(table: Table) -> bool:
    """Whether this seat's next step at ``table`` is written on the event loop."""
    return table.stage in SMALL_WRITE_STAGES


async def check(raw: bytes, job: Callable[[], T]) -> T:
    """Run ``job``, the full check of ``raw``, through the process's gate for
    identical messages (:data:`~p2pcards.net.same_bytes.SAME_MESSAGE`): on the
    loop for a small message, else in a worker thread. The same bytes always take
    the same way, so the loop never waits at the gate for a worker's check."""
    if checked_on_loop(raw):
        return SAME_MESSAGE.run(raw, job)
    return await asyncio.to_thread(SAME_MESSAGE.run, raw, job)


async def write(table: Table, make: Callable[[], T]) -> T:
    """Run ``make``, which writes this seat's next step at ``table``: on the loop
    where that step is small, else in a worker thread."""
    if written_on_loop(table):
        return make()
    return await asyncio.to_thread(make)


__all__ = ["SMALL_MESSAGE_BYTES", "SMALL_WRITE_STAGES", "check", "checked_on_loop", "write",
           "written_on_loop"]
