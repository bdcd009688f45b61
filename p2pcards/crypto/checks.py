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

Checks travel as plain bytes (:meth:`Check.to_wire`), so an offline verifier
can hand them to worker processes; a worker parses (and validates) them again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from p2pcards.crypto import keys, shares, shuffle
from p2pcards.crypto.context import ProofContext
from p2pcards.crypto.elgamal import Ciphertext
from p2pcards.crypto.errors import InvalidEncoding
from p2pcards.crypto.group import Point
from p2pcards.crypto.hashing import digest32, frame, u64
from p2pcards.crypto.wire import expect_list

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
    :class:`~p2pcards.crypto.errors.CryptoError` as the underlying check)."""

    kind: str
    ctx: ProofContext
    slot: int
    statement: tuple = field(repr=False)
    """The points and proof as wire values (bytes, nested lists)."""
    _run: Callable[[], None] = field(repr=False, compare=False)

    @property
    def key(self) -> bytes:
        """32 bytes that change with every input of the verification."""
        return digest32(TAG_CHECK_KEY, self.kind.encode(), *self.ctx.fields(), u64(self.slot),
                        _flat(list(self.statement)))

    def run(self) -> None:
        self._run()

    def to_wire(self) -> list:
        """``[kind, session, seat, deck, slot, statement]`` (bytes and lists only)."""
        return [self.kind, self.ctx.session, self.ctx.seat, self.ctx.deck, self.slot,
                list(self.statement)]


def shuffle_check(deck_in: Sequence[Ciphertext], deck_out: Sequence[Ciphertext],
                  proof: shuffle.ShuffleProof, joint_key: Point, ctx: ProofContext) -> Check:
    statement = ([c.to_wire() for c in deck_in], [c.to_wire() for c in deck_out],
                 proof.to_wire(), joint_key.to_bytes())
    return Check(SHUFFLE, ctx, 0, statement,
                 lambda: shuffle.verify_shuffle(deck_in, deck_out, proof, joint_key, ctx))


def share_check(public: Point, ciphertext: Ciphertext, share: shares.DecryptionShare,
                ctx: ProofContext, slot: int) -> Check:
    statement = (public.to_bytes(), ciphertext.to_wire(), share.to_wire())
    return Check(SHARE, ctx, slot, statement,
                 lambda: shares.verify_share(public, ciphertext, share, ctx, slot))


def key_share_check(public: Point, proof: keys.SchnorrProof, ctx: ProofContext) -> Check:
    statement = (public.to_bytes(), proof.to_wire())
    return Check(KEY_SHARE, ctx, 0, statement,
                 lambda: keys.verify_key_share(public, proof, ctx))


def check_from_wire(obj: Any) -> Check:
    """A check received as bytes (by a worker process): every point and scalar
    parsed and validated again, as from any peer."""
    kind, session, seat, deck, slot, statement = expect_list(obj, "check", None, length=6)
    ctx = ProofContext(session=session, seat=seat, deck=deck)
    if kind == SHUFFLE:
        deck_in, deck_out, proof, joint = expect_list(statement, "shuffle check", seat, length=4)
        return shuffle_check([_input_ciphertext(c) for c in deck_in],
                             [Ciphertext.from_wire(c) for c in deck_out],
                             shuffle.ShuffleProof.from_wire(proof, seat), Point.from_bytes(joint), ctx)
    if kind == SHARE:
        public, ciphertext, share = expect_list(statement, "share check", seat, length=3)
        return share_check(Point.from_bytes(public), Ciphertext.from_wire(ciphertext),
                           shares.DecryptionShare.from_wire(share, seat), ctx, slot)
    if kind == KEY_SHARE:
        public, proof = expect_list(statement, "key-share check", seat, length=2)
        return key_share_check(Point.from_bytes(public), keys.SchnorrProof.from_wire(proof, seat), ctx)
    raise InvalidEncoding(f"unknown check kind {kind!r}")


def _input_ciphertext(obj: Any) -> Ciphertext:
    """A shuffle's input card: ``c1`` may be the identity (the unmasked initial deck)."""
    c1, c2 = expect_list(obj, "input ciphertext", None, length=2)
    return Ciphertext(Point.from_bytes_or_identity(c1, what="input ciphertext.c1"),
                      Point.from_bytes(c2, what="input ciphertext.c2"))


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


def verify(check: Check, record: Optional[VerifiedChecks] = None) -> None:
    """Run ``check`` unless it already passed in this process (``record``, by
    default :data:`PROCESS_CHECKS`)."""
    (PROCESS_CHECKS if record is None else record).check(check)
