"""Public proof checks as values, and a per-process record of the ones that passed.

Why: the peers that share a process (a player's seat and its bots in
``play``; a host and its bots) receive the same shuffles and shares, and each
used to check every proof itself, on one core. A :class:`Check` is one public
verification (a shuffle, a decryption share, a key-share proof) with its whole
statement; its :attr:`Check.key` is a hash of every byte the verification
reads: kind, session, seat, deck, slot, the statement's points and the proof.
:class:`VerifiedChecks` remembers the keys of checks that *passed in this
process*, so the second peer to meet the same statement and proof skips the
work. Nothing else goes in: never a failure, never a statement a peer wrote
itself without checking it, never a result computed in another process. A
key differs whenever any input differs, so a hit means this very check, with
these very bytes, already passed here.

Checks pickle, so that an offline verifier can hand them to its own worker
processes (points and scalars travel as their validated bytes).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from p2pcards.crypto import keys, shares, shuffle
from p2pcards.crypto.context import ProofContext
from p2pcards.crypto.elgamal import Ciphertext
from p2pcards.crypto.group import Point
from p2pcards.crypto.hashing import digest32, frame, u64

#: Local only (never on the wire): the domain of a verified check's key.
TAG_CHECK_KEY = b"p2pcards/v1/local/check-key"

SHUFFLE, SHARE, KEY_SHARE = "shuffle", "share", "key-share"


def _flat(value: Any) -> bytes:
    """An unambiguous byte string of nested lists of bytes (lengths and list markers)."""
    if isinstance(value, (bytes, bytearray)):
        return b"b" + frame(bytes(value))
    return b"l" + u64(len(value)) + b"".join(_flat(v) for v in value)


@dataclass(frozen=True)
class Check:
    """One public verification, whole: ``run()`` performs it (raising the same
    :class:`~p2pcards.crypto.errors.CryptoError` as the underlying check).
    It pickles (for an offline verifier's worker processes)."""

    kind: str
    ctx: ProofContext
    slot: int
    args: tuple = field(repr=False)
    """The statement and proof, as the underlying check takes them (before ``ctx``)."""

    @property
    def key(self) -> bytes:
        """32 bytes that change with every input of the verification."""
        return digest32(TAG_CHECK_KEY, self.kind.encode(), *self.ctx.fields(), u64(self.slot),
                        _flat(self._statement()))

    def _statement(self) -> list:
        if self.kind == SHUFFLE:
            deck_in, deck_out, proof, joint_key = self.args
            return [[c.to_wire() for c in deck_in], [c.to_wire() for c in deck_out],
                    proof.to_wire(), joint_key.to_bytes()]
        if self.kind == SHARE:
            public, ciphertext, share = self.args
            return [public.to_bytes(), ciphertext.to_wire(), share.to_wire()]
        public, proof = self.args
        return [public.to_bytes(), proof.to_wire()]

    def run(self) -> None:
        if self.kind == SHUFFLE:
            shuffle.verify_shuffle(*self.args, self.ctx)
        elif self.kind == SHARE:
            shares.verify_share(*self.args, self.ctx, self.slot)
        else:
            keys.verify_key_share(*self.args, self.ctx)


def shuffle_check(deck_in: Sequence[Ciphertext], deck_out: Sequence[Ciphertext],
                  proof: shuffle.ShuffleProof, joint_key: Point, ctx: ProofContext) -> Check:
    return Check(SHUFFLE, ctx, 0, (tuple(deck_in), tuple(deck_out), proof, joint_key))


def share_check(public: Point, ciphertext: Ciphertext, share: shares.DecryptionShare,
                ctx: ProofContext, slot: int) -> Check:
    return Check(SHARE, ctx, slot, (public, ciphertext, share))


def key_share_check(public: Point, proof: keys.SchnorrProof, ctx: ProofContext) -> Check:
    return Check(KEY_SHARE, ctx, 0, (public, proof))


class VerifiedChecks:
    """The keys of checks that passed in this process (bounded, oldest dropped),
    shared by every peer of the process; thread-safe.

    A check already running in another thread is waited for rather than run
    twice; if it failed there, the waiting caller runs it itself (so each
    caller gets its own precise error)."""

    def __init__(self, capacity: int = 4096) -> None:
        self.capacity = capacity
        self._passed: OrderedDict[bytes, None] = OrderedDict()
        self._running: dict[bytes, threading.Event] = {}
        self._lock = threading.Lock()
        self.hits = 0
        self.runs = 0

    def __contains__(self, key: bytes) -> bool:
        with self._lock:
            return key in self._passed

    def check(self, check: Check) -> None:
        """Return if ``check`` passes (here and now, or earlier in this process)."""
        key = check.key
        with self._lock:
            if self._hit(key):
                return
            running = self._running.get(key)
            mine = None
            if running is None:
                mine = self._running[key] = threading.Event()
        if mine is None:
            running.wait()
            with self._lock:
                if self._hit(key):
                    return
            self._run(check, key)  # it failed in the other thread: our own run, our own error
            return
        try:
            self._run(check, key)
        finally:
            with self._lock:
                self._running.pop(key, None)
            mine.set()

    def _hit(self, key: bytes) -> bool:
        if key not in self._passed:
            return False
        self._passed.move_to_end(key)
        self.hits += 1
        return True

    def _run(self, check: Check, key: bytes) -> None:
        self.runs += 1
        check.run()
        self.passed(key)

    def passed(self, key: bytes) -> None:
        """Record a check that passed in this process (a worker's result included)."""
        with self._lock:
            self._passed[key] = None
            self._passed.move_to_end(key)
            while len(self._passed) > self.capacity:
                self._passed.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._passed.clear()


#: The process's record: every peer and verifier in this process consults it.
PROCESS_CHECKS = VerifiedChecks()


def verify(check: Check, record: VerifiedChecks | None = None) -> None:
    """Run ``check`` unless it already passed in this process (``record``, by
    default :data:`PROCESS_CHECKS`)."""
    (PROCESS_CHECKS if record is None else record).check(check)
