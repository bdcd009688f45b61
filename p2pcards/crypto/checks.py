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
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

from p2pcards.crypto import keys, shares, shuffle
from p2pcards.crypto.context import ProofContext
from p2pcards.crypto.elgamal import Ciphertext
from p2pcards.crypto.group import Point
from p2pcards.crypto.hashing import digest32, frame, u64
from p2pcards.wiremap import WireList, WireValue

#: Local only (never on the wire): the domain of a verified check's key.
TAG_CHECK_KEY = b"p2pcards/v1/local/check-key"

SHUFFLE, SHARE, KEY_SHARE = "shuffle", "share", "key-share"


def _flat(value: WireValue) -> bytes:
    """An unambiguous byte string of nested lists of bytes (lengths and list markers)."""
    if isinstance(value, (bytes, bytearray)):
        return b"b" + frame(bytes(value))
    return b"l" + u64(len(value)) + b"".join(_flat(v) for v in value)


@dataclass(frozen=True)
class ShuffleStatement:
    """``deck_out`` is ``deck_in`` permuted and re-masked under ``joint_key``: ``proof`` says so."""

    deck_in: tuple[Ciphertext, ...]
    deck_out: tuple[Ciphertext, ...]
    proof: shuffle.ShuffleProof
    joint_key: Point

    def wire(self) -> WireList:
        return [[c.to_wire() for c in self.deck_in], [c.to_wire() for c in self.deck_out],
                self.proof.to_wire(), self.joint_key.to_bytes()]

    def verify(self, ctx: ProofContext, slot: int) -> None:
        shuffle.verify_shuffle(self.deck_in, self.deck_out, self.proof, self.joint_key, ctx)


@dataclass(frozen=True)
class ShareStatement:
    """``share`` is the decryption share of ``ciphertext`` under ``public``, with its proof."""

    public: Point
    ciphertext: Ciphertext
    share: shares.DecryptionShare

    def wire(self) -> WireList:
        return [self.public.to_bytes(), self.ciphertext.to_wire(), self.share.to_wire()]

    def verify(self, ctx: ProofContext, slot: int) -> None:
        shares.verify_share(self.public, self.ciphertext, self.share, ctx, slot)


@dataclass(frozen=True)
class KeyShareStatement:
    """``proof`` proves knowledge of the secret of the key share ``public``."""

    public: Point
    proof: keys.SchnorrProof

    def wire(self) -> WireList:
        return [self.public.to_bytes(), self.proof.to_wire()]

    def verify(self, ctx: ProofContext, slot: int) -> None:
        keys.verify_key_share(self.public, self.proof, ctx)


Statement = ShuffleStatement | ShareStatement | KeyShareStatement


@dataclass(frozen=True)
class Check:
    """One public verification, whole: ``run()`` performs it (raising the same
    :class:`~p2pcards.crypto.errors.CryptoError` as the underlying check)."""

    kind: str
    ctx: ProofContext
    slot: int
    statement: Statement = field(repr=False)
    """What is checked, with its proof."""

    @property
    def key(self) -> bytes:
        """32 bytes that change with every input of the verification."""
        return digest32(TAG_CHECK_KEY, self.kind.encode(), *self.ctx.fields(), u64(self.slot),
                        _flat(self.statement.wire()))

    def run(self) -> None:
        self.statement.verify(self.ctx, self.slot)


def shuffle_check(deck_in: Sequence[Ciphertext], deck_out: Sequence[Ciphertext],
                  proof: shuffle.ShuffleProof, joint_key: Point, ctx: ProofContext) -> Check:
    return Check(SHUFFLE, ctx, 0, ShuffleStatement(tuple(deck_in), tuple(deck_out), proof, joint_key))


def share_check(public: Point, ciphertext: Ciphertext, share: shares.DecryptionShare,
                ctx: ProofContext, slot: int) -> Check:
    return Check(SHARE, ctx, slot, ShareStatement(public, ciphertext, share))


def key_share_check(public: Point, proof: keys.SchnorrProof, ctx: ProofContext) -> Check:
    return Check(KEY_SHARE, ctx, 0, KeyShareStatement(public, proof))


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
            if running is None:
                mine = self._running[key] = threading.Event()
        if running is not None:
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
