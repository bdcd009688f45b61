"""How a table ends when someone breaks it: the verdict and its evidence.

A verdict names the rule broken, the players blamed, the transcript position
and the evidence: the offending signed messages exactly as received. Fed
after the transcript it is saved beside (the whole of it, PROTOCOL.md §8), the
evidence lets anyone re-check a provable verdict (``provable``) without
trusting the peer that reached it. A verdict that is
not provable (a missed deadline by this peer's own clock, a signed leave)
says so. Another peer's unprovable report is never a
verdict here: it is the advisory event ``Reported``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from p2pcards.protocol.errors import (
    DeadlineMissed,
    PlayerLeft,
    RematchUnopened,
    RemoteProtocolError,
)
from p2pcards.protocol.schema import Bin, Int, ListOf, Struct, Text, validate
from p2pcards.wiremap import WireMap

#: Rules whose verdict rests on this peer's clock or observation, or on the named
#: player's own signed leave, not on evidence anyone can re-check (a rematch unopened
#: names nobody: the writer due wrote nothing in it).
UNPROVABLE_RULES = frozenset({DeadlineMissed.rule, PlayerLeft.rule, RematchUnopened.rule})

VERDICT_SHAPE = Struct({
    "rule": Text(64, 1),
    "players": ListOf(Int(0, 3), 0, 4),
    "position": Int(0, 2**31 - 1),
    "detail": Text(240),
    "evidence": ListOf(Bin(lo=1, hi=64 * 1024), 0, 4),
})


@dataclass(frozen=True)
class Verdict:
    """Why a table ended early, whom it blames and the signed evidence."""

    rule: str
    players: tuple[int, ...]
    position: int
    detail: str
    evidence: tuple[bytes, ...] = field(default=(), repr=False)

    @property
    def provable(self) -> bool:
        return self.rule not in UNPROVABLE_RULES and bool(self.evidence)

    @classmethod
    def from_error(cls, error: RemoteProtocolError, evidence: tuple[bytes, ...] = (),
                   players: tuple[int, ...] | None = None) -> Verdict:
        rule = error.rule
        game_rule = getattr(error, "game_rule", None)
        if game_rule:
            rule = f"{rule}.{game_rule}"
        if players is None:
            players = () if error.player is None else (error.player,)
        return cls(rule=rule, players=players, position=error.position or 0,
                   detail=error.detail[:240], evidence=evidence)

    def to_wire(self) -> WireMap:
        return {"rule": self.rule, "players": list(self.players), "position": self.position,
                "detail": self.detail, "evidence": list(self.evidence)}

    @classmethod
    def from_wire(cls, obj: object) -> Verdict:
        d = validate(VERDICT_SHAPE, obj, "verdict")
        return cls(d["rule"], tuple(d["players"]), d["position"], d["detail"],
                   tuple(d["evidence"]))
