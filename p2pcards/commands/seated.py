"""A seat at a table from the moment it sits down to its result: what Ctrl-C
means once seated, running a session then cleaning up, and the result's lines."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TextIO, TypeVar

from p2pcards.app.records import SHORT
from p2pcards.commands.printed import command_line
from p2pcards.net.saved_tables import session_id

if TYPE_CHECKING:
    from p2pcards.app.front import FrontEnd
    from p2pcards.app.hosted import HostedTable
    from p2pcards.net.session_events import SessionResult
    from p2pcards.net.watch import WatchResult
    from p2pcards.protocol.identity import Identity

#: What the session run returns.
R = TypeVar("R")

#: What Ctrl-C means once this process sat down at a table (or watched one):
#: "Left the table."; None before, in discovery, ``tables`` or ``verify``,
#: where it is just the end of the command.
_seated: str | None = None


def sit_down(farewell: str = "Left the table.") -> None:
    """From now on Ctrl-C ends this command with ``farewell``."""
    global _seated
    _seated = farewell


def stand_up() -> None:
    """Not seated (a new command starts): Ctrl-C is just the end of it."""
    global _seated
    _seated = None


def farewell() -> str | None:
    """What Ctrl-C says now: the seat's farewell, or None before any table."""
    return _seated


def joiner_label(identity: Identity) -> str:
    """Each joiner's own seeded byte source (``--seed``), the same again on ``resume``."""
    return f"joiner-{identity.fingerprint}"


def print_result(result: SessionResult | WatchResult, front: FrontEnd, out: TextIO = sys.stdout) -> int:
    """How the table ended, in one sentence, and the session to verify it by; the
    command's exit status (0 over or left, 3 a verdict, 2 closed)."""
    from p2pcards.ui.text_events import Speaker, verdict_sentence, winners_sentence
    table = front.session.table if front.session is not None else None
    players, me_player = front.players()
    speaker = Speaker(front.names(), table.my_seat if table is not None else None,
                      table.player_at_seat if table is not None else None, players, me_player)
    if result.outcome is not None:
        print(f"Match over: {winners_sentence(result.outcome.winners, speaker)}.", file=out)
        code = 0
    elif result.verdict is not None and table is not None and result.verdict.rule == "left" \
            and result.verdict.players == (table.me_player,):
        print("You left the table; the other players were told.", file=out)
        code = 0
    elif result.verdict is not None:
        print(f"Table ended: {verdict_sentence(result.verdict, speaker)}", file=out)
        code = 3
    elif result.left_in_lobby:
        print("You left before the table started; nothing was played.", file=out)
        return 0
    else:
        print(f"Table closed: {result.reason}", file=out)
        code = 2
    if front.session is not None and front.session.journal is not None:
        session = session_id(front.session.journal.directory)[:SHORT]
        print(f"Saved as session {session}; check it with: {command_line('verify', session)}",
              file=out)
    return code


async def play_then_clean_up(coro: Awaitable[R],
                             cleanup: Callable[[], Awaitable[None]] | None = None) -> R:
    """Run a session, then clean up. On Ctrl-C the session itself tells the
    other peers (a signed leave notice) before its link closes."""
    try:
        return await coro
    finally:
        if cleanup is not None:
            await cleanup()


def close_hosted(front: FrontEnd, hosted: HostedTable) -> Callable[[], Awaitable[None]]:
    """The host's clean-up: the relay stays up while other players' tables are
    still in play (their own clocks decide), and the host is told why it waits."""
    async def close() -> None:
        if not hosted.host.relay.started:
            # Left in the lobby: no table to finish, nobody's clock to wait for.
            await hosted.close(grace=0, linger=0)
            return
        if all(task.done() for task in hosted.tasks) and hosted.host.players_linked():
            front.say(f"Keeping the table open for the players still at it "
                      f"(up to {hosted.linger:.0f} s; Ctrl-C to stop now).")
        await hosted.close()
    return close
