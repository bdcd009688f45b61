"""Length-prefixed framing of a byte stream, sans-IO.

A frame is a 4-byte big-endian length followed by that many payload bytes.
The decoder refuses a frame as soon as its header announces more than the
limit, before any of the body is buffered, so a hostile peer cannot make us
hold more than one frame's worth of memory. Once the decoder has raised it
stays broken: a stream that lost its framing cannot be trusted to resync.
"""

from __future__ import annotations

import struct

from p2pcards.net.errors import FrameError, FrameTooLarge, TruncatedFrame

__all__ = [
    "HEADER_SIZE",
    "MAX_FRAME",
    "FrameDecoder",
    "FrameError",
    "FrameTooLarge",
    "TruncatedFrame",
    "encode_frame",
]

MAX_FRAME = 256 * 1024
_HEADER = struct.Struct(">I")
HEADER_SIZE = _HEADER.size


def encode_frame(payload: bytes, max_frame: int = MAX_FRAME) -> bytes:
    """Prefix ``payload`` with its length; refuse what the peer's decoder would refuse."""
    if len(payload) > max_frame:
        raise FrameTooLarge(len(payload), max_frame)
    return _HEADER.pack(len(payload)) + payload


class FrameDecoder:
    """Turns stream chunks into whole frames.

    ``max_frame`` may be raised or lowered between calls (the link handshake
    runs with a small limit, then opens up to the session's). A caller whose
    limit may change after the next frame takes frames one at a time
    (``feed(data, most=1)``): the bytes after it are kept unread, and judged by
    the limit in force when they are read (``feed(b"", most=1)``). So the first
    frame after a handshake, arriving in the same read as its last message (a
    busy responder reads both at once), is not held to the handshake's limit.
    """

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        if max_frame < 0:
            raise ValueError("max_frame must not be negative")
        self.max_frame = max_frame
        self._buffer = bytearray()
        self._body_size: int | None = None  # size announced by the current header
        self._error: FrameError | None = None
        #: Bytes after the last frame a ``most``-bounded feed returned, not yet read.
        self._unread = memoryview(b"")

    @property
    def unread(self) -> bool:
        """Whether bytes after the frames returned wait to be read (``feed(b"", most=1)``)."""
        return bool(self._unread)

    @property
    def in_frame(self) -> bool:
        """True while part of a frame has arrived and the rest has not (deadlines start here)."""
        return bool(self._buffer) or self._body_size is not None

    @property
    def buffered(self) -> int:
        """Bytes held for the frame in progress."""
        return len(self._buffer)

    def feed(self, data: bytes, most: int | None = None) -> list[bytes]:
        """Consume ``data`` (after any bytes left unread) and return every frame it
        completes, in order; with ``most``, at most that many, the rest left unread."""
        if self._error is not None:
            raise self._error
        frames: list[bytes] = []
        view = memoryview(data)
        if self._unread:  # what a bounded feed left comes first
            view = memoryview(bytes(self._unread) + data) if data else self._unread
        self._unread = memoryview(b"")
        try:
            while view:
                if most is not None and len(frames) >= most:
                    self._unread = view
                    break
                if self._body_size is None:
                    take = min(HEADER_SIZE - len(self._buffer), len(view))
                    self._buffer += view[:take]
                    view = view[take:]
                    if len(self._buffer) < HEADER_SIZE:
                        break
                    (size,) = _HEADER.unpack(self._buffer)
                    self._buffer.clear()
                    if size > self.max_frame:
                        raise FrameTooLarge(size, self.max_frame)
                    self._body_size = size
                take = min(self._body_size - len(self._buffer), len(view))
                self._buffer += view[:take]
                view = view[take:]
                if len(self._buffer) == self._body_size:
                    frames.append(bytes(self._buffer))
                    self._buffer.clear()
                    self._body_size = None
        except FrameError as error:
            self._fail(error)
            raise
        return frames

    def end_of_stream(self) -> None:
        """Declare that no more data will come; raise if a frame was cut short."""
        if self._error is not None:
            raise self._error
        if self.in_frame:
            error = TruncatedFrame(self.buffered + (HEADER_SIZE if self._body_size is not None else 0))
            self._fail(error)
            raise error

    def _fail(self, error: FrameError) -> None:
        self._error = error
        self._unread = memoryview(b"")
        self._buffer = bytearray()
        self._body_size = None
