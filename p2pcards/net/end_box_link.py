"""A joiner's end box on the LAN: the asyncio driver of its rules
(:class:`~p2pcards.protocol.end_box.EndBox`).

After OVER the seat's own link to the host is closed (PROTOCOL.md §5); the end
box dials the same host again at once, says hello as the seat of the finished
session (it has every message: the relay sends none) and, once the host
answered (its first frame seats the link), sends this player's signed choice
when it is made (an ``again`` frame), hears the others' choices and fills,
and waits for the host's word on how the end box ended. A lost link is
dialled again while the end box is open; a link that cannot be dialled again
ends it (:attr:`~p2pcards.protocol.end_box.Ending.HOST_GONE`). When and why it
stops is the rules' to say: this module only carries frames, the clock and
the person's choice to them, and their outputs back (``on_output``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

from p2pcards.net.connection import Connection, connect
from p2pcards.net.errors import NetError
from p2pcards.net.stopping import stop_task
from p2pcards.protocol import frames
from p2pcards.protocol.again import AgainCount, Choice
from p2pcards.protocol.end_box import EndBox, Ending, Output, Over, SendFrame
from p2pcards.protocol.envelope import PROTOCOL_VERSION
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.rematch_genesis import FinishedMatch

#: Seconds a dial (and its first answer) of the end box may take.
DIAL_TIMEOUT = 10.0
#: Failed dials in a row after which the host counts as gone (its table closed).
DIALS = 3
#: Seconds between dials of a lost end-box link.
REDIAL_PAUSE = 0.5
#: Seconds an end box told that the rematch opens waits for the host to close the
#: finished table (its link ends), so that its next dial reaches the rematch.
CLOSE_WAIT = 10.0


class EndBoxLink:
    """One end box's links to the finished match's host, driven by its rules."""

    def __init__(self, identity: Identity, host: str, port: int, box: EndBox, have: int, *,
                 expected_peer: bytes | str | None = None,
                 on_output: Callable[[Output], None] | None = None) -> None:
        self.identity, self.host, self.port = identity, host, port
        self.box, self.have, self.expected_peer = box, have, expected_peer
        self.on_output = on_output or (lambda out: None)
        self._connection: Connection | None = None
        self._chosen: asyncio.Future[Choice] = asyncio.get_running_loop().create_future()

    def choose(self, mine: Choice) -> None:
        """This player's signed choice (the person's, made while the box listens)."""
        if not self._chosen.done():
            self._chosen.set_result(mine)

    async def run(self) -> Over:
        """Until the rules say the end box is over; how it ended."""
        loop = asyncio.get_running_loop()
        reading: asyncio.Task[bytes] | None = None
        failed = 0
        try:
            while not self.box.done:
                await self._take_choice()
                connection = self._connection
                if connection is None:
                    if await self._dial():
                        failed = 0
                        continue
                    failed += 1
                    if failed >= DIALS:
                        await self._apply(self.box.unreachable(loop.time()))
                    else:
                        await self._wait(set(), loop.time() + REDIAL_PAUSE)
                    continue
                if reading is None:
                    reading = asyncio.ensure_future(connection.recv())
                await self._wait({reading}, self.box.wake_at())
                if reading.done():
                    finished, reading = reading, None
                    try:
                        data = finished.result()
                    except NetError:
                        self._drop()
                        await self._apply(self.box.unlinked(loop.time()))
                        continue
                    await self._apply(self.box.frame(data, loop.time()))
            if self.box.ending is Ending.REMATCH and self._connection is not None:
                await self._until_closed(reading)
                reading = None
        finally:
            if reading is not None:
                await stop_task(reading, quiet=True)
            self._drop()
        return Over(self.box.ending or Ending.NO_WORD, self.box.reason)

    async def _wait(self, waits: set[asyncio.Future[Any]], until: float) -> None:
        """Until one of ``waits`` is done, the person chooses, or ``until`` (capped by the
        rules' next wake-up); then the rules hear the choice and the time."""
        loop = asyncio.get_running_loop()
        waits = set(waits)  # Any: asyncio.wait's mixed results
        if self.box.mine is None and not self._chosen.done():
            waits.add(self._chosen)
        timeout = max(0.0, min(until, self.box.wake_at()) - loop.time())
        if waits:
            await asyncio.wait(waits, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        else:
            await asyncio.sleep(timeout)
        await self._take_choice()
        await self._apply(self.box.tick(loop.time()))

    async def _take_choice(self) -> None:
        if self._chosen.done() and self.box.mine is None:
            await self._apply(self.box.choose(self._chosen.result(),
                                              asyncio.get_running_loop().time()))

    async def _dial(self) -> bool:
        """Dial the host and say hello; True once its first frame came (the link is
        seated; the rules hear it)."""
        loop = asyncio.get_running_loop()
        try:
            connection = await connect(self.host, self.port, self.identity, self.expected_peer,
                                       timeout=DIAL_TIMEOUT)
        except (OSError, NetError, TimeoutError):
            return False
        try:
            finished = self.box.count.finished
            await connection.send(frames.encode("hello", {
                "v": PROTOCOL_VERSION, "name": self.identity.name[:frames.MAX_NAME] or "player",
                "sid": finished.session, "have": self.have, "bot": 0}))
            # The host seats this link (it answers with the table's presence) before the
            # choice goes: a frame sent in the same breath as the handshake would reach
            # a host still reading handshake-sized frames.
            async with asyncio.timeout(DIAL_TIMEOUT):
                first = await connection.recv()
        except (NetError, TimeoutError):
            connection.close()
            return False
        self._connection = connection
        await self._apply(self.box.linked(loop.time()))
        await self._apply(self.box.frame(first, loop.time()))
        return True

    async def _apply(self, outputs: list[Output]) -> None:
        for out in outputs:
            if isinstance(out, SendFrame):
                connection = self._connection
                if connection is None:
                    continue  # sent again on the next link (the rules resend it)
                try:
                    await connection.send(out.frame)
                except NetError:
                    self._drop()
                    await self._apply(self.box.unlinked(asyncio.get_running_loop().time()))
            else:
                self.on_output(out)

    async def _until_closed(self, reading: asyncio.Task[bytes] | None) -> None:
        """The rematch opens: read until the host closes the finished table (bounded)."""
        connection = self._connection
        assert connection is not None
        with contextlib.suppress(NetError, TimeoutError):
            async with asyncio.timeout(CLOSE_WAIT):
                if reading is not None:
                    await reading
                while True:
                    await connection.recv()

    def _drop(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


async def end_box_link(identity: Identity, host: str, port: int, finished: FinishedMatch,
                       player_keys: tuple[bytes, ...], have: int, choice: Choice, *,
                       expected_peer: bytes | str | None = None,
                       on_output: Callable[[Output], None] | None = None,
                       timeout: float | None = None) -> AgainCount:
    """An end box whose choice is made already: send ``choice`` to the finished
    match's host and hear the others' until the end box is over (``timeout``: its own
    wait, END_BOX_WAIT by default); the choices and fills heard, counted as the host
    counts them."""
    loop = asyncio.get_running_loop()
    box = EndBox(finished, player_keys, loop.time()) if timeout is None else \
        EndBox(finished, player_keys, loop.time(), wait=timeout)
    link = EndBoxLink(identity, host, port, box, have, expected_peer=expected_peer,
                      on_output=on_output)
    link.choose(choice)
    await link.run()
    return box.count


__all__ = ["CLOSE_WAIT", "DIALS", "DIAL_TIMEOUT", "EndBoxLink", "end_box_link"]
