"""A host lingers before it closes a finished table (issue 32): ``drained`` waits until
the frames queued on its links are written, so the last word of its end box (a queued
leave, how the evening ended) reaches the end boxes before their links close; a close
without it may drop them."""

from __future__ import annotations

import asyncio

from p2pcards.net.connection import Connection
from p2pcards.net.errors import NetError
from p2pcards.net.host import TableHost
from p2pcards.protocol import frames
from p2pcards.protocol.end_box import Ending
from p2pcards.protocol.envelope import PROTOCOL_VERSION
from p2pcards.protocol.identity import Identity

WORDS = 200  # frames queued at once on the end box's link


async def _heard(linger: bool) -> int:
    """How many of the host's last words one seated link reads before its link closes."""
    host = TableHost(Identity.generate("Host"), "bluff", {}, "t")
    await host.start()
    player = Identity.generate("Pat")
    connection: Connection = await host.local_connector(player)()
    await connection.send(frames.encode("hello", {"v": PROTOCOL_VERSION, "name": "Pat",
                                                  "sid": b"", "have": 0, "bot": 0}))
    await asyncio.wait_for(connection.recv(), 5)  # the lobby: this link is seated
    for _ in range(WORDS):
        host.tell_end_box(0, Ending.TIMED_OUT)
    if linger:
        await host.drained(5.0)
    await host.close()
    heard = 0
    try:
        while True:
            frame = frames.decode(await asyncio.wait_for(connection.recv(), 5))
            heard += frame.kind == "endbox"
    except (NetError, TimeoutError):
        return heard


def test_a_host_that_lingers_delivers_its_last_words_before_it_closes() -> None:
    assert asyncio.run(_heard(linger=True)) == WORDS


def test_without_the_linger_a_close_may_drop_what_was_queued() -> None:
    """The linger is needed: closing at once drops queued frames (the test could fail
    only if a close delivered them anyway)."""
    assert asyncio.run(_heard(linger=False)) < WORDS
