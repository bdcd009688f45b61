"""Every exception the network layer raises, in one vocabulary.

Callers (the peer runner) catch ``NetError`` to mean "this connection is no
longer usable"; the subclasses say exactly why, so a log line or a UI message
can name the fault. Unless a docstring says otherwise the *remote* side (or
the path to it) is at fault. No message ever carries key material or payload
bytes: only sizes, counters, versions, fingerprints and addresses.
"""

from __future__ import annotations

from p2pcards.errors import P2PCardsError


class NetError(P2PCardsError):
    """Base of every error raised by ``p2pcards.net``."""


# --- framing -----------------------------------------------------------------


class FrameError(NetError):
    """The length-prefixed byte stream broke its framing rules."""


class FrameTooLarge(FrameError):
    """A frame exceeds the size limit.

    Raised by the decoder as soon as a header announces more than the limit
    (before any of the body is buffered), and by the encoding side when a
    local caller tries to send a payload that would not fit (a local error:
    nothing is sent and the connection stays usable).
    """

    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"frame of {size} bytes exceeds the limit of {limit} bytes")
        self.size = size
        self.limit = limit


class TruncatedFrame(FrameError):
    """The stream ended in the middle of a frame."""

    def __init__(self, buffered: int) -> None:
        super().__init__(f"stream ended inside a frame ({buffered} bytes of it received)")
        self.buffered = buffered


class FrameTimeout(FrameError, TimeoutError):
    """A frame started but did not complete within its deadline (a trickling sender)."""

    def __init__(self, deadline: float) -> None:
        super().__init__(f"frame not completed within {deadline:g} s of its first byte")
        self.deadline = deadline


# --- link security -------------------------------------------------------------


class LinkError(NetError):
    """The authenticated, encrypted link failed."""


class HandshakeError(LinkError):
    """The link handshake failed; no session was established."""


class MalformedHandshake(HandshakeError):
    """A handshake message had the wrong shape (length, magic, or came out of order)."""


class UnsupportedVersion(HandshakeError):
    """The peer speaks a link version this build does not."""

    def __init__(self, got: int, supported: int) -> None:
        super().__init__(f"peer speaks link version {got}, this build speaks {supported}")
        self.got = got
        self.supported = supported


class BadHandshakeSignature(HandshakeError):
    """The peer's signature over the handshake hash does not verify under its identity key."""


class UnexpectedPeer(HandshakeError):
    """The peer's identity is not the one pinned by the caller (for example from discovery)."""

    def __init__(self, expected: str, got: str) -> None:
        super().__init__(f"expected peer {expected}, the peer proved identity {got}")
        self.expected = expected
        self.got = got


class WeakKeyExchange(HandshakeError):
    """The peer's ephemeral key is a low-order point: the shared secret would be known to all."""


class HandshakeTimeout(HandshakeError, TimeoutError):
    """The connection or its handshake did not complete within the deadline."""

    def __init__(self, deadline: float) -> None:
        super().__init__(f"handshake not completed within {deadline:g} s")
        self.deadline = deadline


class HandshakeIncomplete(LinkError):
    """A local caller asked for the session before the handshake finished (a local error)."""


class SealedFrameError(LinkError):
    """A sealed frame was rejected; ``expected`` is the counter the receiver wanted next."""

    def __init__(self, message: str, expected: int) -> None:
        super().__init__(message)
        self.expected = expected


class MalformedSealedFrame(SealedFrameError):
    """A sealed frame is too short to hold its counter and authenticator."""

    def __init__(self, size: int, expected: int) -> None:
        super().__init__(f"sealed frame of {size} bytes is too short (frame {expected} expected)", expected)
        self.size = size


class ReplayedFrame(SealedFrameError):
    """A sealed frame carries a counter already received: a replay."""

    def __init__(self, counter: int, expected: int) -> None:
        super().__init__(f"frame {counter} replayed (frame {expected} expected)", expected)
        self.counter = counter


class OutOfOrderFrame(SealedFrameError):
    """A sealed frame carries a counter ahead of the expected one: reordered or one was dropped."""

    def __init__(self, counter: int, expected: int) -> None:
        super().__init__(f"frame {counter} arrived out of order (frame {expected} expected)", expected)
        self.counter = counter


class TamperedFrame(SealedFrameError):
    """A sealed frame failed authentication: altered, truncated or forged."""

    def __init__(self, expected: int) -> None:
        super().__init__(f"frame {expected} failed authentication (altered, truncated or forged)", expected)


class CounterExhausted(LinkError):
    """A direction of the link used up its 2**64 frame counters (a local limit)."""


# --- connections -----------------------------------------------------------------


class ConnectionClosed(NetError):
    """The connection is closed: ``by_peer`` says whether the remote closed it.

    Raised by ``recv``/``send`` on a connection closed locally, closed by the
    remote, or torn down after an earlier error (then ``__cause__`` is that error).
    """

    def __init__(self, message: str = "connection closed", *, by_peer: bool = False) -> None:
        super().__init__(message)
        self.by_peer = by_peer


# --- discovery -------------------------------------------------------------------


class NotRunning(NetError, RuntimeError):
    """A local caller used something that is not running (a local error): a
    browser before ``start()`` or after ``stop()``, a peer session's inbox before
    ``run()``, a table host's TCP port before it listens on one."""


class UnknownInterface(NetError, ValueError):
    """``--interface`` names no interface of this machine (a local error)."""

    def __init__(self, names: list[str]) -> None:
        super().__init__(f"no interface of this machine is named {', '.join(names)}")
        self.names = names
