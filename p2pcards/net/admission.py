"""Who may hold a place on a listening socket, and for how long: the strangers' budget.

Anyone can open a TCP connection and complete the link handshake with a
self-made key, so a server cannot let strangers hold the places its own
players need. A connection is a *stranger* from accept until its owner
vouches for it (``Connection.admit``: a seated player, a known key); only
strangers count here, so strangers can never use up the players' places.
The budget, per address *key* (an IPv4 address, or an IPv6 /64, since one
machine commonly holds a whole /64):

- a token bucket refuses new connections beyond a rate (refill per second,
  burst);
- at most ``per_address`` concurrent strangers;
- at most ``total`` strangers in all; when full, the oldest stranger is
  evicted to make room, so a newcomer (a player about to say hello) always
  gets in while attackers' links churn.

Sans-IO: callers pass the time in (``now``), so the rules can be tested
without a clock; nothing here touches a socket.
"""

from __future__ import annotations

import ipaddress
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["AddressBuckets", "StrangerBudget", "Ticket", "TokenBucket", "address_key"]

#: Buckets kept at most; beyond, full (idle) ones are forgotten first, then the least recent.
MAX_BUCKETS = 4096


def address_key(address: str) -> str:
    """The unit that rate limits and caps count by: an IPv4 address, or an IPv6 /64.

    An IPv4-mapped IPv6 address counts as its IPv4 address; a scope id
    (``fe80::1%eth0``) is ignored; a string that is no IP address (an
    in-process transport's label) is its own key."""
    text = address.split("%", 1)[0]
    try:
        ip = ipaddress.ip_address(text)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


class TokenBucket:
    """``burst`` tokens, refilled at ``rate`` per second; one per event."""

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = now

    def _refill(self, now: float) -> None:
        if now > self.stamp:
            self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
            self.stamp = now

    def take(self, now: float) -> bool:
        """Spend one token if there is one."""
        self._refill(now)
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False

    def wait(self, now: float) -> float:
        """Spend one token, borrowing if need be: the seconds to wait before the
        event it pays for (0 while the bucket holds tokens)."""
        self._refill(now)
        self.tokens -= 1.0
        if self.tokens >= 0.0 or self.rate <= 0:
            return 0.0
        return -self.tokens / self.rate

    def full(self, now: float) -> bool:
        self._refill(now)
        return self.tokens >= self.burst


class AddressBuckets:
    """A token bucket per address key, in bounded memory."""

    def __init__(self, rate: float, burst: float, max_buckets: int = MAX_BUCKETS) -> None:
        self.rate = rate
        self.burst = burst
        self.max_buckets = max_buckets
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def allow(self, address: str, now: float) -> bool:
        """Whether one more connection from ``address`` fits its key's rate."""
        key = address_key(address)
        bucket = self._buckets.get(key)
        if bucket is None:
            self._make_room(now)
            bucket = self._buckets[key] = TokenBucket(self.rate, self.burst, now)
        else:
            self._buckets.move_to_end(key)
        return bucket.take(now)

    def __len__(self) -> int:
        return len(self._buckets)

    def _make_room(self, now: float) -> None:
        if len(self._buckets) < self.max_buckets:
            return
        for key in [k for k, b in self._buckets.items() if b.full(now)]:
            del self._buckets[key]
        while len(self._buckets) >= self.max_buckets:
            self._buckets.popitem(last=False)


@dataclass(eq=False)
class Ticket:
    """One stranger's place; ``close`` ends its connection (set by the server)."""

    key: str
    close: Callable[[], None] = field(repr=False, default=lambda: None)
    held: bool = True


class StrangerBudget:
    """The places strangers may hold: a rate and a cap per address key, a total cap with eviction."""

    def __init__(self, *, total: int, per_address: int, rate: float, burst: float) -> None:
        self.total = total
        self.per_address = per_address
        self.buckets = AddressBuckets(rate, burst)
        self._held: OrderedDict[int, Ticket] = OrderedDict()  # oldest first
        self._per_key: Counter[str] = Counter()
        self.refused_rate = 0
        self.refused_cap = 0
        self.evicted = 0

    def admit(self, address: str, now: float) -> Ticket | None:
        """A place for a new connection from ``address``, or None (refuse it).

        Refused: its key already holds ``per_address`` strangers, or has used
        up its rate. When every place is taken the oldest stranger is closed
        to make room: a newcomer is never refused for others' sake."""
        key = address_key(address)
        if self._per_key[key] >= self.per_address:
            self.refused_cap += 1
            return None
        if not self.buckets.allow(address, now):
            self.refused_rate += 1
            return None
        while self.total > 0 and len(self._held) >= self.total:
            _, oldest = self._held.popitem(last=False)
            self._forget(oldest)
            self.evicted += 1
            oldest.close()
        ticket = Ticket(key)
        self._held[id(ticket)] = ticket
        self._per_key[key] += 1
        return ticket

    def release(self, ticket: Ticket) -> None:
        """The stranger left, or its owner vouched for it: its place is free (idempotent)."""
        if ticket.held:
            self._held.pop(id(ticket), None)
            self._forget(ticket)

    def _forget(self, ticket: Ticket) -> None:
        ticket.held = False
        self._per_key[ticket.key] -= 1
        if self._per_key[ticket.key] <= 0:
            del self._per_key[ticket.key]

    @property
    def strangers(self) -> int:
        """Places held now."""
        return len(self._held)

    def count(self, address: str) -> int:
        """Places held by ``address``'s key."""
        return self._per_key[address_key(address)]
