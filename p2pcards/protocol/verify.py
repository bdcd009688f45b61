"""Offline verification of a saved table, as a third party would do it.

The verifier is an observer: the same :class:`Table` with no seat and no
secret. It re-checks every signature, every proof (key shares, shuffles,
decryption shares, reveals) and every rule, and learns only the cards the
rules revealed to everyone. A verdict saved with the transcript is re-checked
too: its evidence, fed after the transcript, must break the rule it names.

A saved transcript must be exactly the chain: message ``i`` at position ``i``,
no message twice, and no signed notice (a notice is never part of the chain,
nor evidence of a transcript fault).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from p2pcards.protocol.envelope import SignedMessage, SignedNotice
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.events import (
    ActionApplied, CardsRevealed, HandDealt, SharesVerified, ShuffleVerified,
)
from p2pcards.protocol.identity import fingerprint
from p2pcards.protocol.table import Stage, Table
from p2pcards.protocol.verdict import Verdict


@dataclass
class Report:
    """What an offline check found."""

    game: str = ""
    table: str = ""
    players: list[tuple[str, str]] = field(default_factory=list)
    #: The player (join order) at each seat, once the seats were drawn.
    seating: Optional[tuple[int, ...]] = None
    messages: int = 0
    deals: int = 0
    shuffles: int = 0
    shares: int = 0
    reveals: int = 0
    actions: int = 0
    outcome: Any = None
    verdict: Optional[Verdict] = None
    verdict_confirmed: Optional[bool] = None
    problem: Optional[str] = None

    @property
    def ok(self) -> bool:
        """Every message checked; the match ended, or a saved verdict was confirmed."""
        if self.problem is not None:
            return False
        if self.outcome is not None:
            return True
        return self.verdict is not None and self.verdict_confirmed is not False


def verify_transcript(messages: list[bytes], verdict: Optional[Verdict] = None) -> Report:
    """Replay ``messages`` (genesis first) as an observer; then re-check ``verdict``."""
    report = Report()
    if not messages:
        report.problem = "the transcript is empty"
        return report
    try:
        table = Table(messages[0])
    except ProtocolError as error:
        report.problem = f"genesis: {error}"
        return report
    report.game, report.table = table.game.name, table.table_name
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
        if table.stage is Stage.ENDED:
            report.verdict, report.verdict_confirmed = table.verdict, True
            if not _same_verdict(table.verdict, verdict):
                report.problem = f"message {position} breaks the rules: {table.verdict.rule}"
            # Otherwise the transcript holds the very message its saved verdict blames
            # (a share its player found bad only later): a confirmed record of the end.
            return report
        report.messages += 1
    if table.stage is Stage.OVER:
        report.outcome = table.engine.outcome
    if verdict is not None:
        report.verdict = verdict
        report.verdict_confirmed = _confirm(table, verdict)
    return report


def _not_in_chain(raw: bytes, index: int) -> Optional[str]:
    """Why record ``index`` cannot be the chain's message at that index, or None
    (shape and signature faults are left to the table, which names them)."""
    try:
        notice = SignedNotice.parse(raw)
    except ProtocolError:
        notice = None
    if notice is not None:
        return f"a signed {notice.type!r} notice, which is never part of the transcript"
    try:
        msg = SignedMessage.parse(raw)
    except ProtocolError:
        return None
    if msg.position < index:
        return f"a second copy of position {msg.position} (a saved transcript is exactly the chain)"
    if msg.position > index:
        return f"holds position {msg.position}: positions {index}..{msg.position - 1} are missing"
    return None


def _same_verdict(found: Optional[Verdict], saved: Optional[Verdict]) -> bool:
    return (found is not None and saved is not None and found.rule == saved.rule
            and set(found.players) == set(saved.players))


def _confirm(table: Table, verdict: Verdict) -> Optional[bool]:
    """True if the evidence breaks the named rule; None if the verdict is not provable."""
    if not verdict.provable:
        return None
    for raw in verdict.evidence:
        try:
            table.receive(raw)
        except ProtocolError:
            continue
        if table.verdict is not None:
            return _same_verdict(table.verdict, verdict)
    return False


def _count(report: Report, events: list[Any]) -> None:
    for event in events:
        if isinstance(event, ShuffleVerified):
            report.shuffles += 1
        elif isinstance(event, SharesVerified):
            report.shares += event.count
        elif isinstance(event, HandDealt):
            report.deals += 1
        elif isinstance(event, CardsRevealed):
            report.reveals += len(event.cards)
        elif isinstance(event, ActionApplied):
            report.actions += 1
