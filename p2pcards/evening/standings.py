"""The evening's standings: matches played, wins and totals, counted only from records that verify.

A record is a saved table's folder (or its transcript). Each one is checked
as ``p2pcards verify`` checks it (every signature, proof and rule); one that
fails is not counted and is listed with its reason. A finished match counts
once however many copies of it are given (its session id names it).

**Evenings.** A rematch is in the evening of the match its genesis names
(``after``, PROTOCOL.md §14) when that match is counted too and the link
holds, whatever its day or players (a leaver's seat may have gone to a bot).
Other matches are grouped by rule: the matches played on one local day (the day of the transcript's
last write, on this machine's clock) by the same four players. A person is
known by his identity key; a bot by its name, when a record's own ``meta``
says that seat was a bot (a bot is given a fresh key at every table, so its
key would split every evening against bots into single matches). The
evening's id is a short hash of its day and its four players.

Totals are per game: Bluff counts the chips each player ended a match with,
Topper the points.
"""

from __future__ import annotations

import contextlib
import hashlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from p2pcards.errors import P2PCardsError
from p2pcards.net.journal import Journal, NoTranscript, read_saved_transcript
from p2pcards.protocol.envelope import SignedMessage, session_id_of
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.identity import fingerprint
from p2pcards.protocol.rematch_genesis import After, EveningRefused, FinishedMatch, check_after
from p2pcards.protocol.verdict import Verdict
from p2pcards.protocol.verify import Report, tail_problem, verify_transcript
from p2pcards.protocol.verify_rematches import link_of
from p2pcards.ui.text_common import clean, plural
from p2pcards.wiremap import WireMap

#: At most this many transcripts are looked for under one folder given (a bound, not a goal).
MAX_RECORDS = 2000


@dataclass(frozen=True)
class Seat:
    """A player of one match: who he is for the standings, his name and key, and his result."""

    who: str
    """``key:`` + fingerprint for a person, ``bot:`` + name for a bot."""
    player: int
    """Join order (the genesis's list)."""
    name: str
    fingerprint: str
    bot: bool
    result: int
    """Chips (Bluff) or points (Topper) at the end of the match."""
    won: bool


@dataclass(frozen=True)
class Match:
    """A finished match whose record verifies."""

    session: str
    game: str
    table: str
    when: float
    seats: tuple[Seat, ...]
    ending: str
    path: Path
    #: Whether a record's meta said which players are bots.
    bots_known: bool = False
    #: The match before, as this one's genesis names it (a rematch), else None.
    after: After | None = None
    #: This match as a rematch of it must name it.
    finished: FinishedMatch | None = None

    def with_bots(self, bots: list[bool]) -> Match:
        """The same match with its bots known (from another copy's meta)."""
        seats = tuple(replace(s, bot=bots[s.player],
                              who=f"bot:{s.name}" if bots[s.player] else f"key:{s.fingerprint}")
                      for s in self.seats)
        return replace(self, seats=seats, bots_known=True)

    @property
    def day(self) -> str:
        return time.strftime("%Y-%m-%d", time.localtime(self.when))

    @property
    def players(self) -> frozenset[str]:
        return frozenset(s.who for s in self.seats)


@dataclass(frozen=True)
class NotCounted:
    """A record left out, and why (it failed verify, or it is no finished match)."""

    path: Path
    why: str
    failed: bool
    """True: the record does not verify; False: it verifies but the match did not finish."""


@dataclass
class PlayerLine:
    """One player's evening: matches won, and totals by game."""

    who: str
    name: str
    fingerprint: str
    bot: bool
    wins: int = 0
    totals: dict[str, int] = field(default_factory=dict)


@dataclass
class Evening:
    """The matches of one evening, in the order they were played."""

    day: str
    players: frozenset[str]
    matches: list[Match] = field(default_factory=list)

    @property
    def id(self) -> str:
        return evening_id(self.day, self.players)

    @property
    def last(self) -> Match:
        return self.matches[-1]

    def lines(self) -> list[PlayerLine]:
        """Each player's wins and totals, most wins first (then by name)."""
        rows: dict[str, PlayerLine] = {}
        for match in self.matches:
            for seat in match.seats:
                row = rows.setdefault(seat.who, PlayerLine(seat.who, seat.name, seat.fingerprint,
                                                           seat.bot))
                row.name = seat.name  # the latest name a player used
                row.wins += seat.won
                row.totals[match.game] = row.totals.get(match.game, 0) + seat.result
        return sorted(rows.values(), key=lambda r: (-r.wins, r.name, r.who))


@dataclass
class Standings:
    """Every evening found (oldest first) and the records left out."""

    evenings: list[Evening]
    not_counted: list[NotCounted]


def evening_id(day: str, players: Iterable[str]) -> str:
    """The short id of the evening of ``players`` (``who`` strings) on local ``day``."""
    key = day + "\n" + "\n".join(sorted(players))
    return hashlib.sha256(key.encode()).hexdigest()[:10]


def evening_of(directory: Path) -> tuple[str, str] | None:
    """The evening a saved table belongs to, as ``(id, day)``, by the rule of this module,
    read without verifying (``saved`` groups by it; ``standings`` counts only what verifies):
    a rematch's is that of the first match of its chain saved beside it (same seat folder)."""
    directory = Path(directory)
    for _ in range(MAX_RECORDS):
        before = _saved_before(directory)
        if before is None:
            break
        directory = before
    return _own_evening(directory)


def _saved_before(directory: Path) -> Path | None:
    """The record of the match a rematch's genesis names, in this seat's folder beside it,
    if its last message is the one named (nothing more is checked here: see ``standings``)."""
    try:
        _journal, _transcript, messages = read_saved_transcript(directory)
        after = SignedMessage.parse(messages[0]).body.get("after")
        if not isinstance(after, dict):
            return None
        before = directory.parent.parent / bytes(after["sid"]).hex() / directory.name
        _journal, _transcript, previous = read_saved_transcript(before)
        if SignedMessage.parse(previous[-1]).digest != after["final"]:
            return None
    except (NoTranscript, OSError, ProtocolError, ValueError, KeyError, TypeError):
        return None
    return before


def _own_evening(directory: Path) -> tuple[str, str] | None:
    try:
        _journal, transcript, messages = read_saved_transcript(directory)
        body = SignedMessage.parse(messages[0]).body
        players = [(str(name), fingerprint(bytes(key))) for key, name in body["players"]]
        day = time.strftime("%Y-%m-%d", time.localtime(transcript.stat().st_mtime))
    except (NoTranscript, OSError, ProtocolError, ValueError, KeyError, TypeError):
        return None
    bots = _bots_of(_journal_of(directory)) or [False] * len(players)
    who = [f"bot:{name}" if bot else f"key:{fp}" for (name, fp), bot in zip(players, bots, strict=False)]
    return evening_id(day, who), day


# --- finding and checking records ---------------------------------------------------------

def own_records(root: Path, fingerprint: str) -> list[Path]:
    """This person's own seats' folders under the saved tables' ``root`` (not its bots' or relay's)."""
    if not root.is_dir():
        return []
    return sorted(p.parent for p in root.glob(f"*/{fingerprint}/transcript"))


def records_under(path: Path) -> list[Path]:
    """The saved tables at ``path``: a transcript, a folder holding one, or any folder
    below which they lie (at most :data:`MAX_RECORDS`)."""
    path = Path(path)
    if path.is_file() or (path / "transcript").exists():
        return [path]
    found: list[Path] = []
    if path.is_dir():
        for transcript in sorted(path.rglob("transcript")):
            found.append(transcript.parent)
            if len(found) >= MAX_RECORDS:
                break
    return found


def _unfinished(journal: Journal, verdict: Verdict | None) -> str:
    """Why a record that verifies holds no finished match: a verdict ended it, a table
    you hosted ended while you were away, or it was in play when you left."""
    from p2pcards.app.records import IN_PLAY_WHEN_LEFT, unended_status
    if verdict is not None:
        return "it ended with a verdict"
    meta = None
    with contextlib.suppress(OSError, ValueError, P2PCardsError):
        meta = journal.read_meta()
    if meta is None:
        return IN_PLAY_WHEN_LEFT  # a transcript alone: nothing says whose or whether it ended
    return unended_status(journal.directory, meta, time.time())[0]


def _bots_of(journal: Journal) -> list[bool] | None:
    """Which players (join order) the record's own meta says are bots, if it says."""
    with contextlib.suppress(OSError, ValueError, P2PCardsError):
        bots = journal.read_meta().get("bots")
        if isinstance(bots, list) and len(bots) == 4 and all(b in (0, 1) for b in bots):
            return [bool(b) for b in bots]
    return None


Verifier = Callable[[list[bytes], Verdict | None], Report]


def _verify(messages: list[bytes], verdict: Verdict | None) -> Report:
    return verify_transcript(messages, verdict)


def _said(error: Exception) -> str:
    """Why a record cannot be read: a system error in words (never its ``[Errno …]``)."""
    from p2pcards.net.failing import in_words
    return in_words(error) if isinstance(error, OSError) else str(error)


def check_record(path: Path, verifier: Verifier = _verify) -> tuple[str, Match | NotCounted]:
    """The session id of the record at ``path`` and its match, or why it is not counted."""
    try:
        journal, transcript, messages = read_saved_transcript(path)
    except (NoTranscript, OSError, ProtocolError, ValueError) as error:
        return "", NotCounted(Path(path), f"unreadable: {_said(error)}", True)
    try:
        session = session_id_of(SignedMessage.parse(messages[0]).payload).hex()
    except (ProtocolError, ValueError) as error:
        return "", NotCounted(Path(path), f"no table's genesis: {error}", True)
    try:
        verdict = journal.saved_verdict()
    except (OSError, ProtocolError, ValueError) as error:
        return session, NotCounted(Path(path), f"its verdict is unreadable: {_said(error)}", True)
    report = verifier(messages, verdict)
    if report.problem is None:
        report.problem = tail_problem(transcript.stat().st_size, messages)
    if report.problem is None and report.outcome is None and report.verdict is None:
        # Every message checks, the table stops before its end: not a failure.
        return session, NotCounted(Path(path), "verifies, but the match did not finish "
                                               f"({_unfinished(journal, verdict)})", False)
    if not report.ok:
        why = report.problem or report.verdict_refused or "it does not verify"
        return session, NotCounted(Path(path), f"fails verify: {why}", True)
    if report.outcome is None or report.seating is None:
        return session, NotCounted(Path(path), "verifies, but the match did not finish "
                                               f"({_unfinished(journal, verdict)})", False)
    outcome = report.outcome
    seats = []
    for seat, player in enumerate(report.seating):
        name, fp = report.players[player]
        seats.append(Seat(f"key:{fp}", player, name, fp, False,
                          int(outcome.standings[seat]), seat in outcome.winners))
    ending = outcome.termination.name.lower().replace("_", "-")
    link = link_of(messages, report)
    match = Match(session, report.game, report.table, transcript.stat().st_mtime,
                  tuple(seats), ending, Path(path), after=link.after if link else None,
                  finished=link.finished if link else None)
    bots = _bots_of(journal)
    return session, match.with_bots(bots) if bots is not None else match


def collect(records: Iterable[Path], verifier: Verifier = _verify) -> Standings:
    """Check every record once per session and group the finished matches into evenings."""
    counted: dict[str, Match] = {}
    left_out: list[NotCounted] = []
    seen: set[Path] = set()
    for path in records:
        real = Path(path).resolve()
        if real in seen:
            continue
        seen.add(real)
        known = counted.get(_session_of(path) or "")
        if known is not None:  # another copy of a match counted: no need to check it again
            bots = None if known.bots_known else _bots_of(_journal_of(path))
            if bots is not None:
                counted[known.session] = known.with_bots(bots)
            continue
        session, found = check_record(path, verifier)
        if isinstance(found, Match):
            counted[session] = found
        else:
            left_out.append(found)
    evenings: dict[tuple[str, frozenset[str]], Evening] = {}
    chained: dict[str, Evening] = {}
    for match in _in_chain_order(counted):
        before = _chained_to(match, counted)
        if before is not None and before in chained:
            evening = chained[match.session] = chained[before]
        else:
            key = (match.day, match.players)
            evening = chained[match.session] = evenings.setdefault(
                key, Evening(match.day, match.players))
        evening.matches.append(match)
    return Standings(sorted(evenings.values(), key=lambda e: e.last.when), left_out)


def _chained_to(match: Match, counted: dict[str, Match]) -> str | None:
    """The session of the counted match this one is the rematch of (its link holds), or None."""
    if match.after is None:
        return None
    before = counted.get(match.after.session.hex())
    if before is None or before.finished is None:
        return None
    try:
        check_after(match.after, before.finished)
    except EveningRefused:
        return None
    return before.session


def _in_chain_order(counted: dict[str, Match]) -> list[Match]:
    """By time, except that a rematch always comes after the match it names."""
    order: list[Match] = []
    placed: set[str] = set()

    for match in sorted(counted.values(), key=lambda m: (m.when, m.session)):
        back: list[Match] = []  # this match and the unplaced ones it follows, latest first
        at: Match | None = match
        for _ in range(len(counted)):  # a chain is at most every match (and has no cycle)
            if at is None or at.session in placed or at in back:
                break
            back.append(at)
            before = _chained_to(at, counted)
            at = counted[before] if before is not None else None
        for found in reversed(back):
            placed.add(found.session)
            order.append(found)
    return order


def _journal_of(path: Path) -> Journal:
    path = Path(path)
    return Journal(path if path.is_dir() else path.parent)


def _session_of(path: Path) -> str | None:
    """The session id the record's genesis names (read, not verified), if it has one."""
    try:
        _journal, _transcript, messages = read_saved_transcript(path)
        return session_id_of(SignedMessage.parse(messages[0]).payload).hex()
    except (NoTranscript, OSError, ProtocolError, ValueError):
        return None


# --- words and JSON ------------------------------------------------------------------------

_UNITS = {"bluff": "chips", "topper": "points"}


def _matches(count: int) -> str:
    return f"{count} match" if count == 1 else f"{count} matches"


def _winners(match: Match) -> str:
    names = [clean(s.name, 32) for s in match.seats if s.won]
    if not names:
        return "nobody won"
    return " and ".join(names) + (" won" if len(names) == 1 else " shared the win")


def last_result(match: Match) -> str:
    """``Topper at Ann's table, 21:40: Ann won (target-reached); points Ann 22, Ben 9, …``"""
    when = time.strftime("%H:%M", time.localtime(match.when))
    results = ", ".join(f"{clean(s.name, 32)} {s.result}" for s in match.seats)
    return (f"{match.game.capitalize()} at {clean(match.table, 32)}, {when}: {_winners(match)} "
            f"({match.ending}); {_UNITS.get(match.game, 'score')} {results}")


def evening_lines(evening: Evening) -> list[str]:
    """One evening as ``standings`` prints it."""
    games = sorted({m.game for m in evening.matches})
    lines = [f"Evening {evening.id} ({evening.day}): {_matches(len(evening.matches))} played"]
    header = f"  {'PLAYER':<24} {'WINS':>4}" + "".join(
        f" {g.upper() + ' ' + _UNITS.get(g, 'score'):>14}" for g in games)
    lines.append(header)
    for row in evening.lines():
        name = clean(row.name, 20) + (" (bot)" if row.bot else "")
        lines.append(f"  {name:<24} {row.wins:>4}" + "".join(
            f" {row.totals.get(g, 0):>14}" for g in games))
    lines.append(f"  Last match: {last_result(evening.last)}")
    return lines


def standings_lines(standings: Standings) -> list[str]:
    """Every evening, newest last, then the records left out and why."""
    lines: list[str] = []
    for evening in standings.evenings:
        if lines:
            lines.append("")
        lines.extend(evening_lines(evening))
    if not standings.evenings:
        lines.append("No finished match in the records that verify.")
    failed = [n for n in standings.not_counted if n.failed]
    unfinished = [n for n in standings.not_counted if not n.failed]
    if failed:
        lines.append("")
        lines.append(f"Not counted: {plural(len(failed), 'record')} that "
                     f"{'fails' if len(failed) == 1 else 'fail'} verify:")
        lines.extend(f"  {n.path}: {clean(n.why, 300)}" for n in failed)
    if unfinished:
        lines.append("")
        lines.append(f"Not counted: {_matches(len(unfinished))} that did not finish:")
        lines.extend(f"  {n.path}: {n.why}" for n in unfinished)
    return lines


def evening_json(evening: Evening) -> WireMap:
    return {
        "evening": evening.id, "day": evening.day, "matches": len(evening.matches),
        "players": [{"name": r.name, "fingerprint": r.fingerprint, "bot": r.bot,
                     "wins": r.wins, "totals": dict(r.totals)} for r in evening.lines()],
        "last": _match_json(evening.last),
        "sessions": [m.session for m in evening.matches],
    }


def _match_json(match: Match) -> WireMap:
    return {"session": match.session, "game": match.game, "table": match.table,
            "when": match.when, "ending": match.ending,
            "winners": [s.name for s in match.seats if s.won],
            "results": [{"name": s.name, "fingerprint": s.fingerprint, "bot": s.bot,
                         "result": s.result} for s in match.seats]}


def standings_json(standings: Standings) -> WireMap:
    return {"evenings": [evening_json(e) for e in standings.evenings],
            "not_counted": [{"path": str(n.path), "why": n.why, "fails_verify": n.failed}
                            for n in standings.not_counted]}


def pick(standings: Standings, prefix: str | None) -> Standings:
    """Only the evening whose id starts with ``prefix`` (all of them without one)."""
    if not prefix:
        return standings
    return Standings([e for e in standings.evenings if e.id.startswith(prefix.lower())],
                     standings.not_counted)


__all__ = ["Evening", "Match", "NotCounted", "PlayerLine", "Seat", "Standings", "check_record",
           "collect", "evening_id", "evening_json", "evening_lines", "evening_of", "last_result", "own_records", "pick",
           "records_under", "standings_json", "standings_lines"]

