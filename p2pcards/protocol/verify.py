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

The proofs are checked in one *optimistic* pass first: the rules are replayed
once, the shuffle proofs' equations go into one batch (:mod:`p2pcards.crypto.batch`,
one random linear combination instead of each proof alone), the other proofs
are checked as they come (on other threads when there are cores), and received
points are left for the multiplications to validate
(:func:`p2pcards.crypto.group.deferring_validation`). If the batch holds, every
other check passed and every point is valid, that replay did exactly what a
strict one would have, and its report stands. Otherwise the whole transcript is
replayed again strictly, in order, each point validated as it is decoded and each
proof checked alone; so the report, its first problem and its precise error
(which proof, which seat) are those of a one-by-one replay.
"""

from __future__ import annotations

import contextvars
import os
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from p2pcards.crypto import checks
from p2pcards.crypto.batch import ShuffleBatch
from p2pcards.crypto.group import Point, deferring_validation
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


#: ``progress(stage, done, total)``: ``"replay"`` over messages, ``"proofs"`` (the
#: checks left after the replay), then ``"done"``.
Progress = Callable[[str, int, int], None]
#: Decryption-share checks handed to a worker thread at once.
BATCH = 48


def default_workers() -> int:
    """The cores this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def verify_transcript(messages: list[bytes], verdict: Verdict | None = None, *,
                      workers: int | None = None,
                      progress: Progress | None = None) -> Report:
    """Replay ``messages`` (genesis first) as an observer; then re-check ``verdict``.

    ``workers`` threads check the proofs beside the replay (default: one per
    core; 1 checks everything in this thread)."""
    workers = default_workers() if workers is None else max(1, workers)
    report = _verify(messages, verdict, workers, progress)
    if progress is not None:
        progress("done", 1, 1)
    return report


def _verify(messages: list[bytes], verdict: Verdict | None, workers: int,
            progress: Progress | None) -> Report:
    with _Optimistic(workers) as fast, deferring_validation() as pending:
        try:
            report: Report | None = _replay(messages, verdict, fast.collect, progress)
        except Exception:  # noqa: BLE001 - what an unchecked proof or point led to: the strict replay says
            report = None
        complete = fast.wait(progress) and pending.validate_rest()
    if complete and report is not None:
        return report
    # Something failed (or the optimistic replay stopped): strictly, in order.
    return replay_strictly(messages, verdict, progress)


def replay_strictly(messages: list[bytes], verdict: Verdict | None = None,
                    progress: Progress | None = None) -> Report:
    """The one-by-one replay: each point validated as it is decoded, each proof
    checked alone, in order, in this thread. What the optimistic pass falls back
    to; its work is the per-proof floor a benchmark sets the fast path against."""
    return _replay(messages, verdict, _run, progress)


def _run(check: checks.Check) -> None:
    check.run()


def _passes(batch: list[checks.Check]) -> bool:
    """On a worker thread: whether every check of ``batch`` passes."""
    try:
        for check in batch:
            check.run()
    except Exception:  # noqa: BLE001 - a refused point too; the strict replay names it
        return False
    return True


class _Optimistic:
    """The checks the optimistic replay meets: shuffles into one batch, the others
    run as they come, on ``workers - 1`` threads beside the replay when there
    are several cores. A check that fails here fails the pass (never the report)."""

    def __init__(self, workers: int) -> None:
        self.pool = ThreadPoolExecutor(workers, "verify") if workers > 1 else None
        self.shuffles = ShuffleBatch(self._submit_sum)
        self.batch: list[checks.Check] = []
        self.sent: list[Future[bool]] = []
        self.count = 0
        self.failed = False

    def __enter__(self) -> _Optimistic:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)

    def _submit_sum(self, job: Callable[[], Point]) -> Callable[[], Point]:
        if self.pool is None:
            result = job()
            return lambda: result
        # The worker runs in a copy of this context: its multiplications take the
        # points they validate off this pass's pending ones.
        return self.pool.submit(contextvars.copy_context().run, job).result

    def collect(self, check: checks.Check) -> None:
        self.count += 1
        try:
            if isinstance(check.statement, checks.ShuffleStatement):
                st = check.statement
                self.shuffles.add(st.deck_in, st.deck_out, st.proof, st.joint_key, check.ctx)
            elif self.pool is None or check.kind != checks.SHARE:
                check.run()
            else:
                self.batch.append(check)
                if len(self.batch) >= BATCH:
                    self._flush()
        except Exception:
            self.failed = True
            raise

    def _flush(self) -> None:
        if self.batch and self.pool is not None:
            job = self.batch
            self.sent.append(self.pool.submit(contextvars.copy_context().run, _passes, job))
            self.batch = []

    def wait(self, progress: Progress | None) -> bool:
        """Wait for every check; whether every one passed (the shuffles' batch included)."""
        self._flush()
        complete, total = not self.failed, len(self.sent) + 1
        for done, future in enumerate(self.sent, start=1):
            complete = future.result() and complete
            if progress is not None:
                progress("proofs", done, total)
        try:
            complete = self.shuffles.holds() and complete
        except Exception:  # noqa: BLE001 - libsodium refused a pending point
            complete = False
        if progress is not None:
            progress("proofs", total, total)
        return complete


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
        parsed, misplaced = _placed(raw, position)
        if misplaced is not None:
            report.problem = f"message {position}: {misplaced}"
            return report
        try:
            events = table.receive(raw, parsed=parsed)
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


def _placed(raw: bytes, index: int) -> tuple[SignedMessage | None, str | None]:
    """Record ``index`` parsed (None if it does not parse as a message), and why it
    cannot be the chain's message at that index, or None (shape and signature
    faults are left to the table, which names them)."""
    try:
        msg = SignedMessage.parse(raw)
    except ProtocolError:  # a notice (refused as a message), or a fault the table names
        try:
            notice = SignedNotice.parse(raw)
        except ProtocolError:
            return None, None
        return None, f"a signed {notice.type!r} notice, which is never part of the transcript"
    if msg.position < index:
        return msg, f"a second copy of position {msg.position} (a saved transcript is exactly the chain)"
    if msg.position > index:
        return msg, f"holds position {msg.position}: positions {index}..{msg.position - 1} are missing"
    return msg, None


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


# Public names for a replay (p2pcards.ui.replay_steps), which checks a saved chain the same way.
def not_in_chain(raw: bytes, index: int) -> str | None:
    """Why record ``index`` cannot be the chain's message at that index, or None."""
    return _placed(raw, index)[1]


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
