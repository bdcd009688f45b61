"""Cryptography made ahead of its turn, off the event loop, for one peer session.

While the players think, a peer can already make the next deal's first
shuffle, its own decryption shares of a deck that passed its checks, and —
while a received shuffle is still being checked — its own shuffle of that
deck (or, when it is the deal's last, its shares of it). None of it is ever
sent unless the table later finds it made on exactly the deck that falls due
(``Table.ahead``: ``offer_shuffle``/``offer_shares``).
Speculative work on decks not yet checked runs on a one-thread executor of its own,
so the peer's own checks (the default executor) never queue behind them; the
session rules (:mod:`p2pcards.protocol.session`) start at most one per
position, for a message that passed every cheap check, and settle it (keep or
drop) when the message's check ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from p2pcards.protocol.events import HandReceived, ShuffleVerified, TableEvent
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_ahead import Offer
from p2pcards.protocol.table_records import Prepared, PreparedShares

log = logging.getLogger(__name__)

#: What a worker thread makes ahead (a shuffle or shares).
Made = TypeVar("Made")


class Ahead:
    """The work one session makes ahead; :meth:`close` cancels what is left."""

    def __init__(self) -> None:
        self._background: set[asyncio.Future[Any]] = set()  # Any: futures of any job's result
        self._speculation: dict[int, asyncio.Future[Offer]] = {}
        self._pool: ThreadPoolExecutor | None = None
        #: This seat's shares being made (see Table.ahead.shares_job), awaited at its turn.
        self.shares: asyncio.Future[PreparedShares] | None = None

    def run(self, job: Callable[[], Made] | None) -> asyncio.Future[Made] | None:
        """Run ``job`` in a worker thread; a failure (a deck that does not parse:
        its check will say so) is dropped, never sent."""
        if job is None:
            return None
        future = asyncio.get_running_loop().run_in_executor(None, job)
        self._background.add(future)

        def done(finished: asyncio.Future[Made]) -> None:
            self._background.discard(finished)
            if not finished.cancelled() and finished.exception() is not None:
                log.debug("work made ahead was dropped: %r", finished.exception())
        future.add_done_callback(done)
        return future

    def after(self, table: Table, events: list[TableEvent]) -> None:
        """What the table's events let us begin: after a deal, the next deal's
        first shuffle (while the players think); after the last shuffle passed,
        our shares of its deck (final now)."""
        if any(isinstance(event, HandReceived) for event in events):
            self.next_shuffle(table)
        if any(isinstance(event, ShuffleVerified) for event in events):
            self.our_shares(table)

    def next_shuffle(self, table: Table) -> None:
        """The next deal's first shuffle (only seat 0 has one), kept by the table."""
        future = self.run(table.ahead.next_shuffle_job())
        if future is not None:
            def keep(done: asyncio.Future[Prepared]) -> None:
                if not done.cancelled() and done.exception() is None:
                    table.ahead.offer_shuffle(done.result())
            future.add_done_callback(keep)

    def our_shares(self, table: Table) -> None:
        """Our shares of a deck whose last shuffle just passed."""
        self.shares = self.run(table.ahead.shares_job()) or self.shares

    async def offer_shares(self, table: Table) -> None:
        """At our turn: wait for the shares begun earlier rather than make them twice."""
        pending, self.shares = self.shares, None
        if pending is not None:
            with contextlib.suppress(Exception):
                table.ahead.offer_shares(await pending)

    def speculate(self, position: int, job: Callable[[], Offer]) -> None:
        """Our work on the deck in the message at ``position``, not yet checked (our
        shuffle of it, or our shares of it: ``WorkAhead.speculative_job``)."""
        if self._pool is None:
            self._pool = ThreadPoolExecutor(1, thread_name_prefix="speculate")
        future = asyncio.get_running_loop().run_in_executor(self._pool, job)
        self._speculation[position] = future

        def done(finished: asyncio.Future[Offer]) -> None:
            if not finished.cancelled() and finished.exception() is not None:
                log.debug("speculative work was dropped: %r", finished.exception())
        future.add_done_callback(done)

    async def settle(self, position: int, keep: bool) -> None:
        """The message at ``position`` was checked: offer its speculative work to the
        table that asked for it (``keep``: made while it was checked) or drop it."""
        future = self._speculation.pop(position, None)
        if future is None:
            return
        if not keep:
            future.cancel()
            return
        with contextlib.suppress(Exception):
            offer = await future
            offer()

    def close(self) -> None:
        for future in self._speculation.values():
            future.cancel()
        self._speculation.clear()
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
