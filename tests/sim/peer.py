"""One player's process in a simulated match, as the run drives it and the judge reads it.

The run (``simulation.py``) feeds the peer's :class:`SessionRules` and table; the
coalition (``adversary.py``) writes in its members' names; the judge
(``judge.py``) reads what each peer received, accepted and concluded, and when.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from p2pcards.protocol.session import SessionRules
from p2pcards.protocol.table import Table
from p2pcards.protocol.verdict import Verdict


@dataclass
class Peer:
    player: int
    honest: bool
    rules: SessionRules
    table: Table
    verdict: Verdict | None = None
    verdict_at: float | None = None
    #: Each message given to the rules, or in an alert's evidence: (raw, the
    #: table's next position then, ended then).
    received: list[tuple[bytes, int, bool]] = field(default_factory=list)
    wakes: set[float] = field(default_factory=set)
    #: When this peer accepted the message at each position.
    accepted_at: dict[int, float] = field(default_factory=dict)
    written: dict[int, bytes] = field(default_factory=dict)
    #: Its table met a message signed with its own key that it did not write (a
    #: coalition member's other version coming back): it stops, as PeerSession does.
    stopped: bool = False
    #: Its process is down (a crash).
    down: bool = False
    #: Speculative shuffles started, by position, and those kept.
    speculated: dict[int, int] = field(default_factory=dict)
    kept: set[int] = field(default_factory=set)
    #: Its own messages it never sends (a rule-breaking one went out instead).
    withheld: set[bytes] = field(default_factory=set)
    #: When its table saw the match's end.
    over_at: float | None = None
