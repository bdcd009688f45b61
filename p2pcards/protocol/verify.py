"""Offline verification of a saved table, as a third party would do it.

The verifier is an observer: the same :class:`Table` with no seat and no
secret. It re-checks every signature, every proof (key shares, shuffles,
decryption shares, reveals) and every rule, and learns only the cards the
rules revealed to everyone. A verdict saved with the transcript is re-checked
too (:mod:`p2pcards.protocol.evidence`): its evidence must show exactly what
it claims, a leave and a deadline included, or it is refused with its reason.

A saved transcript must be exactly the chain: message ``i`` at position ``i``,
no message twice, and no signed notice (a notice is never part of the chain,
nor evidence of a transcript fault).

On several cores the proofs are checked in worker processes while the rules
are replayed in this one (the proofs are independent of each other; the rules
are not). The replay first runs *optimistically*: each proof check it meets is
handed to a worker and assumed to pass. If every check then passed, that replay
did exactly what a strict one would have done, and its report stands. If any
failed, the whole transcript is replayed again strictly, in order, each check
run here unless a worker found it passing; so the report, its first problem
and its precise error are those of a one-core replay.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from dataclasses import dataclass, field

from p2pcards.crypto import checks
from p2pcards.crypto.errors import CryptoError
from p2pcards.protocol.envelope import SignedMessage, SignedNotice
from p2pcards.protocol.errors import ProtocolError, VerdictAfterEnd, VerdictRefused
from p2pcards.protocol.events import (
    ActionApplied,
    CardsRevealed,
    HandReceived,
    HintTaken,
    SharesVerified,
    ShuffleVerified,
    TableEvent,
)
from p2pcards.protocol.evidence import check_verdict
from p2pcards.protocol.identity import fingerprint
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_records import Stage
from p2pcards.protocol.verdict import Verdict
from p2pcards.rules.contract import Outcome
from p2pcards.rules.seats import SEATS


@dataclass
class Report:
    """What an offline check found."""

    game: str = ""
    table: str = ""
    players: list[tuple[str, str]] = field(default_factory=list)
    #: The player (join order) at each seat, once the seats were drawn.
    seating: tuple[int, ...] | None = None
    messages: int = 0
    deals: int = 0
    shuffles: int = 0
    shares: int = 0
    reveals: int = 0
    actions: int = 0
    #: Whether the host allowed hints, and how many each player (join order) took.
    hints: bool = False
    coached: list[int] = field(default_factory=lambda: [0] * SEATS)
    outcome: Outcome | None = None
    verdict: Verdict | None = None
    #: True: its evidence breaks its rule; None: a leave or deadline that checks as far
    #: as anything can; False: refused (``verdict_refused`` says why).
    verdict_confirmed: bool | None = None
    verdict_refused: str | None = None
    problem: str | None = None

    @property
    def ok(self) -> bool:
        """Every message checked; the match ended, or a saved verdict was confirmed."""
        if self.problem is not None or self.verdict_confirmed is False:
            return False
        if self.outcome is not None:
            return True
        return self.verdict is not None


#: ``progress(stage, done, total)``: ``"replay"`` over messages, ``"proofs"`` (with
#: workers), then ``"done"``.
Progress = Callable[[str, int, int], None]
#: Checks sent to a worker at once (a 52-card shuffle is one; shares are small).
BATCH = 48


def default_workers() -> int:
    """The cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def verify_transcript(messages: list[bytes], verdict: Verdict | None = None, *,
                      workers: int | None = None,
                      progress: Progress | None = None) -> Report:
    """Replay ``messages`` (genesis first) as an observer; then re-check ``verdict``.

    ``workers`` processes check the proofs (default: one per core; 1 checks
    everything in this process, in order)."""
    workers = default_workers() if workers is None else max(1, workers)
    report = _verify(messages, verdict, workers, progress)
    if progress is not None:
        progress("done", 1, 1)
    return report


def _verify(messages: list[bytes], verdict: Verdict | None, workers: int,
            progress: Progress | None) -> Report:
    if workers == 1 or len(messages) < 2:
        # Each check once, in order (a transcript holds no check twice: no record of passes).
        return _replay(messages, verdict, _run, progress)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        pending = _Pending(pool)
        try:
            report: Report | None = _replay(messages, verdict, pending.collect, progress)
        except Exception:  # noqa: BLE001 - what an unchecked proof led to; the strict replay says
            report = None
        complete = pending.wait(progress)
    if complete and report is not None:
        return report
    # A check failed (or the optimistic replay stopped): strictly, in order, each check run
    # here unless a worker found it passing.
    return _replay(messages, verdict, pending.passed().check, progress)


def _run(check: checks.Check) -> None:
    check.run()


def _run_checks(batch: list[checks.Check]) -> list[bool]:
    """In a worker process: whether each check passes."""
    out = []
    for check in batch:
        try:
            check.run()
            out.append(True)
        except CryptoError:
            out.append(False)
    return out


class _Passed(checks.VerifiedChecks):
    """The workers' passing checks; ``complete`` if none failed."""

    def __init__(self) -> None:
        super().__init__(capacity=1 << 30)
        self.complete = True


class _Pending:
    """Checks met by the optimistic replay, sent to the workers in batches.

    A check's key (a hash of its whole statement) is computed only if a strict
    replay needs to look its result up: never when every check passed."""

    def __init__(self, pool: Executor) -> None:
        self.pool = pool
        self.batch: list[checks.Check] = []
        self.sent: list[tuple[list[checks.Check], Future[list[bool]]]] = []
        self.count = 0

    def collect(self, check: checks.Check) -> None:
        self.batch.append(check)
        self.count += 1
        if len(self.batch) >= BATCH or check.kind == checks.SHUFFLE:
            self._flush()

    def _flush(self) -> None:
        if self.batch:
            self.sent.append((self.batch, self.pool.submit(_run_checks, self.batch)))
            self.batch = []

    def wait(self, progress: Progress | None) -> bool:
        """Wait for every batch; whether every check passed."""
        self._flush()
        done, complete = 0, True
        for batch, future in self.sent:
            complete = all(future.result()) and complete
            done += len(batch)
            if progress is not None:
                progress("proofs", done, self.count)
        return complete

    def passed(self) -> _Passed:
        """The checks the workers found passing, by key (after :meth:`wait`)."""
        passed = _Passed()
        for batch, future in self.sent:
            for check, ok in zip(batch, future.result(), strict=True):
                if ok:
                    passed.passed(check.key)
                else:
                    passed.complete = False
        return passed


def _replay(messages: list[bytes], verdict: Verdict | None,
            checker: Callable[[checks.Check], None], progress: Progress | None) -> Report:
    report = Report()
    if not messages:
        report.problem = "the transcript is empty"
        return report
    try:
        table = Table(messages[0], checker=checker)
    except ProtocolError as error:
        report.problem = f"genesis: {error}"
        return report
    report.game, report.table = table.game.name, table.table_name
    report.hints = table.hints
    report.players = [(p.name, fingerprint(p.public_key)) for p in table.players]
    report.messages = 1
    for position, raw in enumerate(messages[1:], start=1):
        misplaced = _not_in_chain(raw, position)
        if misplaced is not None:
            report.problem = f"message {position}: {misplaced}"
            return report
        try:
            events = table.receive(raw)
        except ProtocolError as error:
            report.problem = f"message {position}: {error}"
            return report
        _count(report, events)
        if report.seating is None and table.player_at_seat is not None:
            report.seating = tuple(table.player_at_seat)
        if progress is not None and (position % 64 == 0 or position == len(messages) - 1):
            progress("replay", position + 1, len(messages))
        ended = table.verdict  # set exactly when the table ends (stage ENDED)
        if ended is not None:
            report.verdict, report.verdict_confirmed = ended, True
            if not _same_verdict(ended, verdict):
                report.problem = f"message {position} breaks the rules: {ended.rule}"
            # Otherwise the transcript holds the very message its saved verdict blames
            # (a share its player found bad only later): a confirmed record of the end.
            return report
        report.messages += 1
    if table.stage is Stage.OVER:
        report.outcome = table.match.engine.outcome
    if verdict is not None:
        report.verdict = verdict
        try:
            if report.outcome is not None:
                raise VerdictAfterEnd("the match ended normally at the transcript's end: "
                                      "no verdict belongs beside it")
            report.verdict_confirmed = check_verdict(table, verdict)
        except VerdictRefused as refused:
            report.verdict_confirmed, report.verdict_refused = False, f"{refused} [{refused.rule}]"
    return report


def _not_in_chain(raw: bytes, index: int) -> str | None:
    """Why record ``index`` cannot be the chain's message at that index, or None
    (shape and signature faults are left to the table, which names them)."""
    try:
        msg = SignedMessage.parse(raw)
    except ProtocolError:  # a notice (refused as a message), or a fault the table names
        try:
            notice = SignedNotice.parse(raw)
        except ProtocolError:
            return None
        return f"a signed {notice.type!r} notice, which is never part of the transcript"
    if msg.position < index:
        return f"a second copy of position {msg.position} (a saved transcript is exactly the chain)"
    if msg.position > index:
        return f"holds position {msg.position}: positions {index}..{msg.position - 1} are missing"
    return None


def tail_problem(file_size: int, records: list[bytes]) -> str | None:
    """What is wrong with a transcript file of ``file_size`` bytes whose whole records
    are ``records``: bytes after the last whole record (a write cut inside its last
    record, or anything appended) are reported, never passed over in silence."""
    tail = file_size - sum(RECORD_HEADER + len(r) for r in records)
    if tail <= 0:
        return None
    return (f"the file ends with {tail} bytes that are not a whole record (a write cut short "
            f"inside its last record, or bytes appended after the last message)")


#: The length prefix of a saved record (PROTOCOL.md §10).
RECORD_HEADER = 4


# Public names for a replay (p2pcards.ui.replay), which checks a saved chain the same way.
def not_in_chain(raw: bytes, index: int) -> str | None:
    """Why record ``index`` cannot be the chain's message at that index, or None."""
    return _not_in_chain(raw, index)


def same_verdict(found: Verdict | None, saved: Verdict | None) -> bool:
    """Whether a verdict found on replay is the saved one (same rule, same players)."""
    return _same_verdict(found, saved)


def _same_verdict(found: Verdict | None, saved: Verdict | None) -> bool:
    return (found is not None and saved is not None and found.rule == saved.rule
            and set(found.players) == set(saved.players))


def _count(report: Report, events: list[TableEvent]) -> None:
    for event in events:
        if isinstance(event, ShuffleVerified):
            report.shuffles += 1
        elif isinstance(event, SharesVerified):
            report.shares += event.count
        elif isinstance(event, HandReceived):
            report.deals += 1
        elif isinstance(event, CardsRevealed):
            report.reveals += len(event.cards)
        elif isinstance(event, ActionApplied):
            report.actions += 1
        elif isinstance(event, HintTaken):
            report.coached[event.player] = event.used
