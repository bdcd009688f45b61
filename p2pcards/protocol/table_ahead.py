"""Work a seat does while the players think: the shuffles and shares it will owe,
made before they fall due (:class:`~.table_match.Match` says which).

A job touches no table state, so it runs in a worker thread. None is made with
seeded randomness (its bytes depend on a position not known yet), except the
speculative shuffle, whose position is known and whose randomness is that
position's own. What a job made is offered back to the deck in flight, which
signs it only on that very deck (:class:`~.table_deck.DeckInFlight`); a job's
result never skips a check of what others wrote.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial

from p2pcards.crypto.shuffle import precompute
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.game_wire import GAMES
from p2pcards.protocol.table_chain import Chain
from p2pcards.protocol.table_deck import Rng
from p2pcards.protocol.table_match import Match
from p2pcards.protocol.table_records import Prepared, PreparedShares

_decks_ready = threading.Lock()
_decks_done = False


def precompute_decks() -> None:
    """The public points of every game's deck (:func:`~p2pcards.crypto.shuffle.precompute`),
    once per process, before a table is known: a table's last key message, its first
    shuffle and every seat's first check would otherwise wait on them. The peers of
    one process (a seat and its bots) share them: the second to ask waits for the first."""
    global _decks_done
    with _decks_ready:
        if not _decks_done:
            for game in GAMES.values():
                precompute(game.deck_codes)
            _decks_done = True


#: The byte source for the message at each position (tests and benchmarks only).
Randomness = Callable[[int], Callable[[int], bytes]]

#: Hands what a speculative job made to the table whose job it was.
Offer = Callable[[], None]


class WorkAhead:
    """The jobs of one table (``Table.ahead``): ``seated`` is its match once the
    players are seated (None before), ``match`` the same or raises before,
    ``writer`` who may write next (None once the table is closed)."""

    def __init__(self, chain: Chain, randomness: Randomness | None,
                 seated: Callable[[], Match | None], match: Callable[[], Match],
                 writer: Callable[[], int | None]) -> None:
        self._chain, self._randomness = chain, randomness
        self._seated, self._match, self._writer = seated, match, writer

    def next_shuffle_job(self) -> Callable[[], Prepared] | None:
        """Seat 0's first shuffle of the next deal, made during play."""
        match = self._seated()
        if self._randomness is not None or match is None:
            return None
        return match.next_shuffle_job()

    def speculative_job(self, raw: bytes) -> Callable[[], Offer] | None:
        """What this seat makes from the message ``raw`` while the table checks it (it
        passed only the cheap checks, :meth:`.table_chain.Chain.candidate`): its shuffle
        of the deck in it, the shuffle before its own; or, when that is the deal's last
        shuffle, its shares of that deck. The job returns how to offer what it made to
        this table (:meth:`offer_shuffle`, :meth:`offer_shares`), which signs it only on
        that very deck."""
        match, writer = self._seated(), self._writer()
        if match is None or writer is None:
            return None
        if not (match.shuffles_next or match.last_shuffle_due):
            return None
        try:
            msg = self._chain.candidate(raw, "shuffle", writer)
        except ProtocolError:
            return None
        if msg is None:
            return None
        # Its randomness is that of the position it is made for: the next one for a
        # shuffle; for shares, this seat's turn among the four that follow.
        shuffle = match.speculative_shuffle_job(msg.body, self._rng_at(msg.position + 1))
        if shuffle is not None:
            return lambda: partial(self.offer_shuffle, shuffle())
        seat = match.my_seat
        if seat is None:
            return None
        shares = match.speculative_shares_job(msg.body, self._rng_at(msg.position + 1 + seat))
        if shares is not None:
            return lambda: partial(self.offer_shares, shares())
        return None

    def _rng_at(self, position: int) -> Rng:
        """A seeded table's randomness for ``position`` (None: the OS's)."""
        return None if self._randomness is None else self._randomness(position)

    def shares_job(self) -> Callable[[], PreparedShares] | None:
        """This seat's ``shares`` of the final deck, made while the seats before it write."""
        match = self._seated()
        if self._randomness is not None or match is None:
            return None
        return match.shares_job()

    def offer_shares(self, prepared: PreparedShares) -> None:
        self._match().decks.offer_shares(prepared)

    def offer_shuffle(self, prepared: Prepared) -> None:
        self._match().decks.offer_shuffle(prepared)
