"""What a seat's front end and caller are told, built from its table: the
lobby, a decision's context, how the session ended, and the notice a seat
sends when its table ends.

Pure translation, no I/O: the session (:mod:`p2pcards.net.peer`) decides
when.
"""

from __future__ import annotations

from p2pcards.net.session_events import LEFT_IN_LOBBY, Decision, LobbyUpdate, SessionResult
from p2pcards.protocol.errors import PlayerLeft
from p2pcards.protocol.table import Table
from p2pcards.protocol.table_records import Stage
from p2pcards.wiremap import WireMap


def lobby_update(body: WireMap) -> LobbyUpdate:
    """The host's ``lobby`` frame as an event."""
    return LobbyUpdate(body["game"], body["table"], body["config"], tuple(
        (pk, name, bool(bot)) for pk, name, bot in body["players"]))


def bot_marks(body: WireMap) -> dict[bytes, bool]:
    """Which players a ``lobby`` frame says are bots, by key."""
    return {bytes(pk): bool(bot) for pk, _name, bot in body["players"]}


def decision_of(table: Table, deadline_at: float) -> Decision:
    """What the agent is told with a decision to make."""
    names = tuple(table.players[p].name for p in table.match.player_at_seat)
    coached = (tuple(table.hints_used[p] for p in table.match.player_at_seat)
               if table.hints else ())
    return Decision(table.next_position, table.own_seat, deadline_at, names,
                    table.pauses_left[table.member.player], coached)


def result_of(table: Table | None) -> SessionResult:
    """How the session ended: the match's outcome, the verdict, or never seated."""
    if table is None:
        return SessionResult(reason=LEFT_IN_LOBBY)
    if table.stage is Stage.OVER:
        return SessionResult(outcome=table.match.engine.outcome)
    return SessionResult(verdict=table.verdict)


def closing_notice(table: Table | None) -> bytes | None:
    """The notice a seat sends when its table ended with a verdict: its signed
    leave if it left (what the others act on), else its alert (none: nothing)."""
    if table is None or table.verdict is None:
        return None
    verdict = table.verdict
    if verdict.rule == PlayerLeft.rule and verdict.players == (table.me_player,):
        return verdict.evidence[0] if verdict.evidence else None
    return table.alert()


__all__ = ["bot_marks", "closing_notice", "decision_of", "lobby_update", "result_of"]
