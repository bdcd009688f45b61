"""An offline check in words: what ``p2pcards verify`` tells a person, and its JSON.

The report (:class:`~p2pcards.protocol.verify.Report`) counts players in
join order, as the protocol does; people know each other by seat and name,
so the words here name seats ("Seat 2 (Cal) ran out of time") and say "you"
for the folder's owner. The join-order index and the technical rule id show
only with ``details`` (``verify -v``) and in the JSON, which scripts read.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from p2pcards.protocol.verify import Report
from p2pcards.protocol.verify_rematches import EveningReport
from p2pcards.ui.text_common import clean, plural, quoted
from p2pcards.ui.text_events import Speaker, outcome_words, verdict_sentence
from p2pcards.wiremap import WireMap


def _speaker(report: Report, me_player: int | None) -> Speaker:
    names = ([report.players[p][0] for p in report.seating]
             if report.seating is not None else [])
    me = (report.seating.index(me_player)
          if report.seating is not None and me_player in report.seating else None)
    return Speaker(names, me, report.seating, [name for name, _ in report.players], me_player)


def _seat_of(report: Report, player: int) -> int | None:
    if report.seating is None or player not in report.seating:
        return None
    return report.seating.index(player)


def _json(value: object) -> object:
    return list(value) if isinstance(value, tuple) else value


@dataclass(frozen=True)
class Unended:
    """What is known of a record that verifies but holds no end: ``status`` in the
    words ``p2pcards saved`` uses (in play when you left, or ended while you were
    away), None for a transcript alone (nothing says whose it is, nor whether its
    table went on); ``away``: known to have ended while its host was away."""

    status: str | None
    away: bool


def report_lines(report: Report, me_player: int | None = None, details: bool = False,
                 unended: Unended | None = None) -> list[str]:
    """What a person reads: the table, who sat where, what was checked, how it ended
    (``unended``: what is known of a record with no end, see :class:`Unended`)."""
    lines: list[str] = []
    if not report.game:
        lines.append(f"FAILED: {report.problem or 'no table in this transcript'}.")
        return lines
    s = _speaker(report, me_player)
    lines.append(f"{report.game.capitalize()} at table {quoted(report.table)}, "
                 f"{plural(len(report.players), 'player')}:")
    order = (list(report.seating) if report.seating is not None
             else list(range(len(report.players))))
    for player in order:
        name, fp = report.players[player]
        seat = _seat_of(report, player)
        label = f"Seat {seat}" if seat is not None else "No seat yet"
        extra = [f"player {player} in join order"] if details else []
        if player == me_player:
            extra.insert(0, "you")
        if report.coached[player]:  # hints the host allowed, on the record
            extra.append(f"coached {plural(report.coached[player], 'time')}")
        more = f" ({', '.join(extra)})" if extra else ""
        lines.append(f"  {label}: {clean(name, 32)}, key {fp}{more}")
    lines.append(f"Checked {plural(report.messages, 'signed message')}: "
                 f"{plural(report.shuffles, 'shuffle proof')}, "
                 f"{plural(report.shares, 'decryption share')}, "
                 f"{plural(report.reveals, 'revealed card')}, "
                 f"{plural(report.actions, 'game action')}, {plural(report.deals, 'deal')}.")
    if report.outcome is not None:
        lines.append(f"Match over: {outcome_words(report.outcome, s)}")
    if report.verdict is not None:
        said = ("The saved verdict claims" if report.verdict_confirmed is False
                else f"Table ended at deal {max(report.deals, 1)}")
        lines.append(f"{said}: {verdict_sentence(report.verdict, s)}")
        lines.append("  " + _confirmation(report))
        if details:
            lines.append(f"  Rule {clean(report.verdict.rule, 64)}: {clean(report.verdict.detail, 240)}")
    if report.problem:
        lines.append(f"FAILED: {report.problem}.")
    elif report.outcome is None and report.verdict is None:
        lines.append(f"NOT OVER: every message checks; the transcript stops at deal "
                     f"{max(report.deals, 1)}, before the match ends, and no verdict is saved "
                     f"with it: {_unended_words(unended)}.")
    elif report.verdict_confirmed is False:
        lines.append("FAILED: the saved verdict is refused: "
                     f"{clean(report.verdict_refused or 'its evidence does not show it', 300)}.")
    else:
        lines.append("OK: every signature, proof and rule checks.")
    return lines


def _unended_words(unended: Unended | None) -> str:
    """What is known of a record without an end, as ``saved`` says it."""
    if unended is None or unended.status is None:
        return ("a transcript alone cannot say whether its table went on (verify its folder, "
                "or see p2pcards saved)")
    if unended.away:
        return f"the table {unended.status}"
    return (f"the table was {unended.status} (nothing on this machine can tell whether the "
            f"others ended it since: p2pcards resume takes it up, or says how it ended)")


def _confirmation(report: Report) -> str:
    verdict = report.verdict
    if report.verdict_confirmed is False:
        return "(NOT proven: the evidence saved with it does not show it.)"
    if verdict is not None and verdict.rule == "deadline":
        return ("(A deadline is this player's own clock: it cannot be proven from the "
                "transcript, which checks up to that point.)")
    if verdict is not None and verdict.rule == "left":
        return "(The leave is signed by the player who left.)"
    return {True: "(Proven: the signed evidence breaks that rule; anyone can re-check it.)",
            False: "(NOT proven: the evidence saved with it does not break that rule.)",
            None: "(Reported, not provable from the transcript.)"}[report.verdict_confirmed]


def report_json(report: Report, me_player: int | None = None,
                unended: Unended | None = None) -> WireMap:
    """The same facts for scripts: seats and join order both, rule ids, the outcome's
    numbers; for a record with no end, ``status`` (as ``saved --json`` says it) and
    ``ended_away``, and ``unfinished`` unless it is known to have ended."""
    outcome = report.outcome
    away = unended is not None and unended.away
    out: WireMap = {
        "ok": report.ok, "game": report.game, "table": report.table, "you": me_player,
        "players": [{"player": i, "seat": _seat_of(report, i), "name": name, "fingerprint": fp,
                     "coached": report.coached[i]}
                    for i, (name, fp) in enumerate(report.players)],
        "hints": report.hints,
        "checked": {"messages": report.messages, "shuffles": report.shuffles,
                    "shares": report.shares, "reveals": report.reveals,
                    "actions": report.actions, "deals": report.deals},
        "outcome": None, "verdict": None, "problem": report.problem,
        "unfinished": (report.problem is None and outcome is None and report.verdict is None
                       and not away),
        "ended_away": away, "status": unended.status if unended is not None else None,
    }
    if outcome is not None:
        out["outcome"] = {
            "termination": outcome.termination.name.lower().replace("_", "-"),
            "winners": list(outcome.winners),
            # The game's own fields: Bluff's chips and deals, Topper's scores and hands.
            **{f.name: _json(getattr(outcome, f.name)) for f in fields(outcome)
               if f.name not in ("termination", "winners")}}
    if report.verdict is not None:
        v = report.verdict
        out["verdict"] = {"rule": v.rule, "blamed": list(v.players),
                          "blamed_seats": [_seat_of(report, p) for p in v.players],
                          "detail": v.detail, "provable": v.provable,
                          "confirmed": report.verdict_confirmed,
                          "refused": report.verdict_refused}
    return out


def evening_lines(evening: EveningReport) -> list[str]:
    """An evening's check: one line per match in evening order, then the chain's verdict."""
    lines = []
    for number, (report, session) in enumerate(zip(evening.reports, evening.sessions,
                                                   strict=True), start=1):
        state = "verifies" if report.ok else "FAILED"
        lines.append(f"Match {number}: session {session.hex()[:12]}, {report.game} at "
                     f"{quoted(report.table)}: {state}")
    if evening.ok:
        lines.append(f"The evening verifies: {len(evening.reports)} matches, each the rematch "
                     f"of the one before.")
    else:
        lines.append(f"The evening FAILED: {evening.problem}.")
    return lines


def evening_json(evening: EveningReport) -> WireMap:
    """The same for scripts: each match's report (as ``verify --json``) in evening order."""
    return {"ok": evening.ok, "problem": evening.problem,
            "matches": [{"session": session.hex(), **report_json(report)}
                        for report, session in zip(evening.reports, evening.sessions, strict=True)]}
