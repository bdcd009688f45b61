"""Frames over an asyncio TCP stream, with the deadline for finishing a frame.

The TCP ``FrameTransport`` a :class:`~p2pcards.net.connection.Connection`
runs over (the in-process one is :mod:`p2pcards.net.memory`'s). Kept apart
from the connection because it is about bytes on a socket — chunks, the
frame decoder, a half frame that must finish in time — while the connection
is about what the link seals and who may stay.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque

from p2pcards.net.errors import ConnectionClosed, FrameTimeout
from p2pcards.net.framing import FrameDecoder, encode_frame
from p2pcards.net.link import HANDSHAKE_MAX_FRAME
from p2pcards.net.sockets import Address, socket_address

#: Bytes read from the socket at a time (and an accepted stream's buffer limit).
READ_CHUNK = 64 * 1024


class StreamTransport:
    """Frames over an asyncio stream, with the per-frame read deadline."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        frame_timeout: float,
        max_frame: int = HANDSHAKE_MAX_FRAME,
    ) -> None:
        self._reader = reader
        self._writer = writer
        self._frame_timeout = frame_timeout
        self._decoder = FrameDecoder(max_frame)
        self._frames: deque[bytes] = deque()
        # Seconds of waiting left for the frame in progress; only time spent
        # waiting on the socket counts, so a slow consumer is not blamed.
        self._frame_budget: float | None = None
        self._remote: Address = socket_address(writer.get_extra_info("peername")) or ("unknown", 0)
        self._closing = False

    @property
    def remote_address(self) -> Address:
        return self._remote

    @property
    def local_address(self) -> Address | None:
        """This end's own socket address (where a direct-link listener belongs), a
        link-local one with its zone."""
        return socket_address(self._writer.get_extra_info("sockname"))

    def set_max_frame(self, limit: int) -> None:
        self._decoder.max_frame = limit

    async def read_frame(self) -> bytes:
        loop = asyncio.get_running_loop()
        if not self._frames and self._decoder.unread:  # judged by the limit in force now
            self._frames.extend(self._decoder.feed(b"", most=1))
            if not self._frames:  # the rest of the last chunk began a frame: its deadline runs
                self._frame_budget = self._frame_timeout
        while not self._frames:
            if self._closing:
                raise ConnectionClosed("connection closed locally")
            budget = self._frame_budget
            waited_from = loop.time()
            try:
                if budget is None:  # between frames: idle is allowed
                    data = await self._reader.read(READ_CHUNK)
                else:
                    async with asyncio.timeout(budget):
                        data = await self._reader.read(READ_CHUNK)
            except TimeoutError:
                raise FrameTimeout(self._frame_timeout) from None
            except OSError as error:
                raise ConnectionClosed(f"connection lost: {type(error).__name__}", by_peer=True) from None
            if budget is not None:
                self._frame_budget = budget - (loop.time() - waited_from)
            if not data:
                if self._closing:
                    raise ConnectionClosed("connection closed locally")
                self._decoder.end_of_stream()
                raise ConnectionClosed("connection closed by the peer", by_peer=True)
            # One frame at a time: the limit may change after it (the handshake's).
            self._frames.extend(self._decoder.feed(data, most=1))
            if not self._decoder.in_frame:
                self._frame_budget = None
            elif self._frame_budget is None or self._frames:
                # A new frame began in this chunk: it gets the whole budget.
                self._frame_budget = self._frame_timeout
        return self._frames.popleft()

    async def write_frame(self, frame: bytes) -> None:
        if self._closing or self._writer.is_closing():
            raise ConnectionClosed("connection closed locally")
        self._writer.write(encode_frame(frame, self._decoder.max_frame))
        try:
            await self._writer.drain()
        except OSError as error:
            raise ConnectionClosed(f"connection lost: {type(error).__name__}", by_peer=True) from None

    def close(self) -> None:
        self._closing = True
        self._writer.close()

    async def wait_closed(self) -> None:
        with contextlib.suppress(OSError):
            await self._writer.wait_closed()
