"""A joiner's end box on the LAN: its again/leave choice carried to the host of the
match it just finished, and the other players' choices heard back.

After OVER the seat's own link to the host is closed (PROTOCOL.md §5); the end
box dials the same host again, says hello as the seat of the finished session
(it has every message: the relay sends none), and sends its signed choice in an
``again`` frame. The relay shows it, and every other choice, to every end box
still linked, and who takes each freed seat (a ``fill`` frame, unsigned: the
rematch's genesis is what binds); the link ends when the host closes the
finished table (to open its rematch on the same port) or when this player leaves.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from p2pcards.net.connection import Connection, connect
from p2pcards.net.errors import NetError
from p2pcards.protocol import frames
from p2pcards.protocol.again import LEAVE, AgainCount, Choice, Chosen
from p2pcards.protocol.envelope import PROTOCOL_VERSION
from p2pcards.protocol.errors import ProtocolError
from p2pcards.protocol.evening import FinishedMatch
from p2pcards.protocol.identity import Identity
from p2pcards.protocol.seat_fill import Fill

#: Frames an end box reads at most (every choice, presence and peers frames): bounded.
MAX_FRAMES = 256


async def end_box_link(identity: Identity, host: str, port: int, finished: FinishedMatch,
                       player_keys: tuple[bytes, ...], have: int, choice: Choice, *,
                       expected_peer: bytes | str | None = None,
                       on_choice: Callable[[Chosen], None] | None = None,
                       on_fill: Callable[[Fill], None] | None = None,
                       timeout: float = 120.0) -> AgainCount:
    """Send ``choice`` to the finished match's host and hear the others' until the host
    closes the table (or ``timeout``); the choices and fills heard, counted as the host
    counts them. A leave is sent and the link closed at once. Raises NetError/OSError
    when the host cannot be reached."""
    count = AgainCount(finished, player_keys)
    tell = on_choice or (lambda chosen: None)
    told = on_fill or (lambda made: None)
    connection: Connection = await connect(host, port, identity, expected_peer, timeout=10.0)
    try:
        await connection.send(frames.encode("hello", {
            "v": PROTOCOL_VERSION, "name": identity.name[:frames.MAX_NAME] or "player",
            "sid": finished.session, "have": have, "bot": 0}))
        async with asyncio.timeout(timeout):
            # The host seats this link (it answers with the table's presence) before
            # the choice goes: a frame sent in the same breath as the handshake would
            # reach a host still reading handshake-sized frames.
            first = frames.decode(await connection.recv())
            if first.kind == "reject":
                return count
            await connection.send(frames.encode("again", choice.raw))
            chosen = count.receive(choice.raw)
            if chosen is not None:
                tell(chosen)
            if choice.choice == LEAVE:
                return count
            for _ in range(MAX_FRAMES):
                frame = frames.decode(await connection.recv())
                if frame.kind == "reject":
                    break
                if frame.kind == "fill":
                    with contextlib.suppress(ProtocolError):
                        made = Fill.from_wire(frame.body)
                        if count.hear_fill(made):
                            told(made)
                    continue
                if frame.kind != "again":
                    continue  # presence, peers: the finished table's, not the end box's
                with contextlib.suppress(ProtocolError):
                    chosen = count.receive(frame.body)
                    if chosen is not None:
                        tell(chosen)
    except (NetError, TimeoutError, ProtocolError):
        pass  # the host closed the finished table (or said something unusable): done
    finally:
        connection.close()
    return count
