"""Offline verification of an evening: each match alone, then the chain between them.

Each transcript is checked as :func:`p2pcards.protocol.verify.verify_transcript`
checks one. Then every match after the first must be a rematch of the one
before it: that match ended normally, and its genesis's ``after`` names its
session id, the digest of its last message and its seating (PROTOCOL.md §14). A
match that verifies alone but whose link does not hold is refused with a
sentence naming it and the rule (``evening.unfinished``, ``evening.after``,
``evening.rotation``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from p2pcards.protocol.envelope import SignedMessage, session_id_of
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.rematch_genesis import After, EveningRefused, FinishedMatch, UnfinishedBefore, check_after
from p2pcards.protocol.verdict import Verdict
from p2pcards.protocol.verify import Report, verify_transcript

#: ``verify(messages, verdict)``: how one match is checked (tests may pass a cheaper one).
Verifier = Callable[[list[bytes], Verdict | None], Report]


@dataclass
class Link:
    """What one transcript says about its place in the evening."""

    session: bytes
    after: After | None
    #: None unless the match ended normally (only such a match can be followed).
    finished: FinishedMatch | None


@dataclass
class EveningReport:
    """Each match's own report, in evening order, and the first broken link if any."""

    reports: list[Report] = field(default_factory=list)
    sessions: list[bytes] = field(default_factory=list)
    problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.problem is None and bool(self.reports) and all(r.ok for r in self.reports)


def _session(link: Link | None) -> bytes:
    return link.session if link is not None else b""


def link_of(messages: list[bytes], report: Report) -> Link | None:
    """The chain fields of a transcript whose genesis parses (None otherwise)."""
    try:
        genesis = SignedMessage.parse(messages[0])
        last = SignedMessage.parse(messages[-1])
        raw_after = genesis.body.get("after")
        after = After.from_wire(raw_after) if isinstance(raw_after, dict) else None
        keys = [bytes(p[0]) for p in genesis.body["players"]]
    except (ProtocolError, IndexError, KeyError, TypeError):
        return None
    session = session_id_of(genesis.payload)
    finished = None
    if report.ok and report.outcome is not None and report.seating is not None:
        finished = FinishedMatch(session, last.digest, tuple(keys[p] for p in report.seating))
    return Link(session, after, finished)


def chain_order(links: list[Link | None]) -> list[int]:
    """Indices of ``links`` in evening order: each match after the one its ``after``
    names when that one is given; the others (the evening's first) where they stand."""
    by_session = {link.session: i for i, link in enumerate(links) if link is not None}
    follows: dict[int, int] = {}
    for i, link in enumerate(links):
        if link is not None and link.after is not None and link.after.session in by_session:
            follows.setdefault(by_session[link.after.session], i)
    starts = [i for i, link in enumerate(links) if _starts(link, by_session)]
    order: list[int] = []
    for start in starts:
        at: int | None = start
        while at is not None and at not in order:
            order.append(at)
            at = follows.get(at)
    order += [i for i in range(len(links)) if i not in order]  # a cycle: left as given
    return order


def _starts(link: Link | None, by_session: dict[bytes, int]) -> bool:
    return link is None or link.after is None or link.after.session not in by_session


def verify_evening(transcripts: list[list[bytes]], verdicts: list[Verdict | None] | None = None,
                   *, verifier: Verifier | None = None, ordered: bool = True) -> EveningReport:
    """Check every match, then every link. ``ordered``: the transcripts are given in
    evening order (False: put them in chain order first, as a folder lists them)."""
    check = verifier or (lambda messages, verdict: verify_transcript(messages, verdict))
    verdicts = verdicts or [None] * len(transcripts)
    reports = [check(messages, verdict) for messages, verdict in zip(transcripts, verdicts,
                                                                       strict=True)]
    links = [link_of(m, r) if m else None for m, r in zip(transcripts, reports, strict=True)]
    order = list(range(len(transcripts))) if ordered else chain_order(links)
    out = EveningReport(reports=[reports[i] for i in order])
    out.sessions = [_session(links[i]) for i in order]
    for number, i in enumerate(order, start=1):
        if not reports[i].ok:
            out.problem = f"match {number} does not verify: {reports[i].problem or 'see its report'}"
            return out
        if number == 1:
            continue
        link, before = links[i], links[order[number - 2]]
        assert link is not None and before is not None  # both verified, so both parse
        try:
            if before.finished is None:
                raise UnfinishedBefore(f"match {number - 1} did not end normally, so no match "
                                       f"can follow it")
            check_after(link.after, before.finished)
        except EveningRefused as refused:
            out.problem = (f"match {number} is not the rematch of match {number - 1}: "
                           f"{refused.detail} [{refused.rule}]")
            return out
    return out
