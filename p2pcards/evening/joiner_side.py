"""The evening from a joiner's side: its end box on its screen, and its seat at the rematch.

The end box opens the moment the match ends (while the person still looks at
the result and decides), is told the choice when it is made, and says in words
as it goes every choice and fill, the time left, and how it ended (PROTOCOL.md
§14). The rules are :class:`~p2pcards.protocol.end_box.EndBox`'s and the links
:class:`~p2pcards.net.end_box_link.EndBoxLink`'s; this only shows them. When every
seat is taken again the joiner dials the rematch at the address it played at
(:func:`rejoining_session`), and refuses a genesis that does not follow its own
record of the match before.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Iterable
from typing import TYPE_CHECKING, Unpack

from p2pcards.app.joined import JoinOptions, joining_session
from p2pcards.net.errors import NetError
from p2pcards.net.session_events import SessionResult
from p2pcards.protocol.again import LEAVE, AgainCount, Choice, sign_choice
from p2pcards.protocol.end_box import (
    END_BOX_GRACE,
    END_BOX_WAIT,
    ChoiceHeard,
    EndBox,
    EndStated,
    FillHeard,
    Output,
    Over,
)
from p2pcards.ui.text_end_box import Countdown, chosen_line, fill_line, over_line

if TYPE_CHECKING:
    from p2pcards.app.front import FrontEnd
    from p2pcards.net.connection import Connection
    from p2pcards.net.end_box_link import EndBoxLink
    from p2pcards.net.peer import Connector, PeerSession
    from p2pcards.net.session_events import Agent
    from p2pcards.protocol.identity import Identity
    from p2pcards.protocol.rematch_genesis import FinishedMatch

#: Seconds between refreshes of a full screen's time left.
TICK = 5.0


class JoinerEndBox:
    """One joiner's end box for the match its session just finished."""

    def __init__(self, front: FrontEnd, identity: Identity, host: str, port: int,
                 fingerprint: bytes | str | None) -> None:
        self.front, self.identity = front, identity
        self.host, self.port, self.fingerprint = host, port, fingerprint
        self.link: EndBoxLink | None = None
        self.task: asyncio.Task[Over] | None = None
        self.names: tuple[str, ...] = ()
        self.me: int | None = None
        self._countdown: Countdown | None = None
        self._ticker: asyncio.Task[None] | None = None
        self.chosen = self.chosen_again = False

    async def after(self, run: Awaitable[SessionResult]) -> SessionResult:
        """Run a session; the moment its match ends normally, open its end box."""
        result = await run
        self.open(result)
        return result

    def open(self, result: SessionResult) -> bool:
        """Open the end box of the session's finished match (once); False when there is
        none (no match ended normally here)."""
        from p2pcards.net.end_box_link import EndBoxLink
        session = self.front.session
        table = getattr(session, "table", None)
        if self.task is not None or result.outcome is None or table is None \
                or table.me_player is None:
            return self.task is not None
        loop = asyncio.get_running_loop()
        self.names = tuple(p.name for p in table.players)
        self.me = table.me_player
        box = EndBox(table.finished(), tuple(p.public_key for p in table.players), loop.time())
        self.link = EndBoxLink(self.identity, self.host, self.port, box, table.next_position,
                               expected_peer=self.fingerprint, on_output=self._told)
        self.task = loop.create_task(self.link.run())
        if self.front.chooses_at_end:  # a person: the time left while he decides, too
            self._start_countdown()
        return True

    def _start_countdown(self) -> None:
        if self._ticker is None:
            self._countdown = Countdown(self.front, self._waiting_line)
            self._ticker = asyncio.get_running_loop().create_task(self._tick())

    @property
    def box(self) -> EndBox:
        assert self.link is not None
        return self.link.box

    def choose(self, mine: Choice) -> None:
        """The person's (or the script's) signed choice."""
        assert self.link is not None
        self.chosen, self.chosen_again = True, mine.choice != LEAVE
        self.link.choose(mine)
        if self._countdown is not None:
            self._countdown.show(asyncio.get_running_loop().time(),
                                 self.box.shown_end - asyncio.get_running_loop().time(),
                                 changed=True)
        self._start_countdown()

    async def over(self) -> Over:
        """Until the end box ended; its last words said."""
        assert self.task is not None
        try:
            over = await self.task
        finally:
            if self._ticker is not None:
                self._ticker.cancel()
            if self._countdown is not None:
                self._countdown.done()
        self.front.say(over_line(over, self.box, self.names))
        return over

    def opening_line(self) -> str:
        """What the end box says when it opens (before the person chose)."""
        return (f"End box: open for {round(END_BOX_WAIT)} s: choose again for a rematch with "
                f"the same players, or leave. A player away {round(END_BOX_GRACE)} s without "
                f"choosing loses the seat to whoever comes.")

    def _waiting_line(self, now: float) -> str | None:
        box = self.box
        if box.done:
            return None
        left = max(0, round(box.shown_end - now))
        if not self.chosen:
            return f"End box: choose again for a rematch, or leave ({left} s left)."
        if self.chosen_again:
            return f"End box: you chose again; waiting for the others ({left} s left)."
        return f"End box: you leave; telling the host ({left} s left)."

    async def _tick(self) -> None:
        loop = asyncio.get_running_loop()
        while self._countdown is not None and not self.box.done:
            self._countdown.show(loop.time(), self.box.shown_end - loop.time())
            await asyncio.sleep(TICK)

    def _told(self, out: Output) -> None:
        if isinstance(out, ChoiceHeard):
            if out.chosen.player != self.me:  # its own is said as it is made
                self.front.say(chosen_line(self.names, out.chosen, self.me))
        elif isinstance(out, FillHeard):
            self.front.say(fill_line(out.fill, self.names, self.identity.public_key))
        elif isinstance(out, EndStated) and self._countdown is not None:
            self._countdown.show(asyncio.get_running_loop().time(),
                                 out.at - asyncio.get_running_loop().time())



def rejoining_session(identity: Identity, agent: Agent, host: str, port: int,
                      previous: FinishedMatch, held: AgainCount | None = None,
                      **kwargs: Unpack[JoinOptions]) -> PeerSession:
    """A joiner's session at the rematch of ``previous``, at the address it played at
    (``held``: its end box's count, which the genesis must not contradict, §14)."""
    session = joining_session(identity, agent, host, port, **kwargs)
    session.previous = previous
    session.held = held
    session.connector = _patient(session.connector)
    return session


def _patient(dial: Connector, tries: int = 60, pause: float = 0.25) -> Connector:
    """A dial that waits a moment for the host to open its rematch on the port
    (the finished table's relay closes first)."""
    async def patient() -> Connection:
        for _ in range(tries - 1):
            try:
                return await dial()
            except (OSError, NetError):
                await asyncio.sleep(pause)
        return await dial()
    return patient


def choices_of(identity: Identity, finished: FinishedMatch, player: int,
               choices: Iterable[str]) -> list[bytes]:
    """Signed choices of one player (what its end box sends the host)."""
    return [sign_choice(identity, finished, player, choice).raw for choice in choices]
