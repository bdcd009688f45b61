"""``verify`` and ``replay``: a saved record re-checked offline, or stepped through
move by move; each takes a path or a session id from ``p2pcards saved``."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from p2pcards.app.records import RecordNotFound, find_record, is_session_text, own_record
from p2pcards.commands import UserError
from p2pcards.commands.identity import known_fingerprint
from p2pcards.errors import P2PCardsError
from p2pcards.net.saved_tables import is_session_folder, why_unreadable

if TYPE_CHECKING:
    from p2pcards.protocol.verify import Report
    from p2pcards.ui.text_verify import Unended
    from p2pcards.wiremap import WireMap


def _progress_bar(stage: str, done: int, total: int) -> None:
    """One line on a terminal's stderr, redrawn in place, cleared when done."""
    width = 30
    filled = width * done // max(1, total)
    line = f"\rverify: {stage:<6} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}"
    sys.stderr.write("\r" + " " * len(line) + "\r" if stage == "done" else line)
    sys.stderr.flush()


def _record_path(text: str) -> Path:
    """What ``verify`` and ``replay`` read: a file or a record's folder as typed; a
    session's folder, or a session id (or its unique start) from ``p2pcards saved``,
    standing for your own record in it."""
    path = Path(text)
    try:
        if is_session_folder(path):
            return own_record(path, known_fingerprint())  # a whole session's folder
        if path.exists() or not is_session_text(text):
            return path  # a path (or no id): read as typed, a missing one said so there
        from p2pcards.net.storage import tables_dir
        return find_record(tables_dir(), text, known_fingerprint())  # made by nothing here
    except RecordNotFound as error:
        raise UserError(str(error)) from None


@contextlib.contextmanager
def _readable(given: str) -> Iterator[None]:
    """A saved file the system will not let ``verify`` or ``replay`` read: one
    sentence naming it and why (a product error keeps its own)."""
    try:
        yield
    except OSError as error:
        if isinstance(error, P2PCardsError):
            raise
        raise UserError(why_unreadable(error, Path(given))) from None


def cmd_verify(args: argparse.Namespace) -> int:
    with _readable(args.file):
        return _verify(args)


def _verify(args: argparse.Namespace) -> int:
    from p2pcards.net.journal import NoTranscript, read_saved_transcript
    from p2pcards.protocol.errors import ProtocolError
    from p2pcards.protocol.file_shapes import SEAT_META_SHAPE
    from p2pcards.protocol.schema import validate
    from p2pcards.protocol.verify import tail_problem, verify_transcript
    from p2pcards.ui.text_verify import report_json, report_lines
    if args.more:
        return _verify_evening([args.file, *args.more], as_json=args.json)
    try:
        record = _record_path(args.file)
        journal, transcript, messages = read_saved_transcript(record)
    except NoTranscript as missing:
        raise UserError(str(missing)) from None
    try:
        verdict = journal.saved_verdict()
    except ProtocolError as error:  # an unreadable one is said by _readable
        raise UserError(f"{journal.verdict_path} is not a saved verdict ({error})") from None
    report = verify_transcript(messages, verdict,
                               progress=_progress_bar if sys.stderr.isatty() else None)
    if not report.game:
        raise UserError(f"{transcript} is not a p2pcards transcript "
                        f"(its first record is no table's genesis: {report.problem})")
    if report.problem is None:
        report.problem = tail_problem(transcript.stat().st_size, messages)
    # ``meta`` is read only when a saved table's folder is given (asking for your
    # own table; a session id stands for that folder), and only to say which player
    # "you" are: absent, unreadable or of another shape (a relay's, a damaged file),
    # it is ignored. Given a transcript file, ``verify`` never opens the ``meta`` beside it.
    me_player, meta = None, None
    if record.is_dir():
        with contextlib.suppress(OSError, ValueError, ProtocolError):
            meta = journal.read_meta()
            me_player = validate(SEAT_META_SHAPE, meta, "meta")["player"]
    unended = _unended(record, meta, report)
    if args.json:
        print(json.dumps(report_json(report, me_player, unended)))
    else:
        print("\n".join(report_lines(report, me_player, details=args.details, unended=unended)))
    return 0 if report.ok else 1


def _unended(record: Path, meta: WireMap | None, report: Report) -> Unended | None:
    """What is known of a record that verifies but holds no end (no outcome, no
    verdict): what ``saved`` says of it, decided by the same function
    (:func:`p2pcards.app.records.unended_status`); None for any other record, and
    ``Unended(None, False)`` for a transcript alone (nothing says whose it is)."""
    from p2pcards.app.records import unended_status
    from p2pcards.ui.text_verify import Unended
    if report.problem is not None or report.outcome is not None or report.verdict is not None:
        return None
    if meta is None:
        return Unended(None, False)
    status, away = unended_status(record, meta, time.time())
    return Unended(status, away)


def cmd_replay(args: argparse.Namespace) -> int:
    from p2pcards.ui.replay_steps import ReplayError, load_saved, print_plain, replay_saved
    if not 0.1 <= args.speed <= 50:
        raise UserError(f"--speed is moves per second, 0.1 to 50, not {args.speed:g}")
    path = _record_path(args.file)
    try:
        with _readable(args.file):
            saved = load_saved(path)
    except ReplayError as error:
        raise UserError(str(error)) from None
    bar = sys.stderr.isatty()
    try:
        record = replay_saved(saved, own_hand=not args.public, progress=(
            lambda done, total: _progress_bar("replay", done, total)) if bar else None)
    except ReplayError as error:
        if error.position == 0:
            raise UserError(f"{path} is not a p2pcards transcript (its first record is no "
                            f"table's genesis: {error})") from None
        raise UserError(f"{path} cannot be replayed: {error}") from None
    finally:
        if bar:
            _progress_bar("done", 1, 1)
    if args.web:
        from p2pcards.ui.web.replay import WebReplay
        asyncio.run(WebReplay(record, speed=args.speed, open_browser=not args.no_browser)
                    .run(playing=args.play))
        return 0
    if args.plain or not (sys.stdin.isatty() and sys.stdout.isatty()):
        from p2pcards.ui.plain import print_line
        try:
            print_plain(record, print_line)
        except BrokenPipeError:  # the reader (e.g. head) has read enough
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    from p2pcards.ui.tui.replay_screen import ReplayScreen
    asyncio.run(ReplayScreen(record, speed=args.speed).run(playing=args.play))
    return 0


def _verify_evening(given: list[str], *, as_json: bool) -> int:
    """``verify`` of several matches: each alone, then the chain (PROTOCOL.md §14)."""
    from p2pcards.net.journal import NoTranscript, read_saved_transcript
    from p2pcards.protocol.verify_rematches import verify_evening
    from p2pcards.ui.text_verify import evening_json, evening_lines
    transcripts = []
    for text in given:
        try:
            transcripts.append(read_saved_transcript(_record_path(text))[2])
        except NoTranscript as missing:
            raise UserError(str(missing)) from None
    report = verify_evening(transcripts, ordered=False)
    print(json.dumps(evening_json(report)) if as_json else "\n".join(evening_lines(report)))
    return 0 if report.ok else 1
