"""Authenticated, encrypted connections over TCP (asyncio), and what they defend against.

A ``Connection`` is the link of ``link.py`` running over any frame transport:
TCP (``stream_transport.py``), in-process queues (``memory.py``); both run the
same handshake and sealing code. ``serve`` accepts connections under
``Limits``: a short handshake deadline, a deadline for finishing a frame once
it has started (idle links are allowed) and a frame size limit. Until its owner vouches for
it (``Connection.admit``), a connection is a stranger and holds a place in
the strangers' budget (``admission.py``): handshakes are rate-limited per
address (an IPv6 /64 counts as one), one address holds only a few places, and
when every place is taken the oldest stranger is evicted, so strangers can
never keep out a player. Nothing a remote sends can raise out of the server.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol, cast

from p2pcards.net.admission import StrangerBudget, Ticket
from p2pcards.net.errors import ConnectionClosed, HandshakeTimeout, NetError
from p2pcards.net.framing import MAX_FRAME, FrameTooLarge
from p2pcards.net.link import HANDSHAKE_MAX_FRAME, SEAL_OVERHEAD, LinkHandshake, Role, SecureChannel
from p2pcards.net.sockets import Address as Address
from p2pcards.net.sockets import listening_socket, served_host, socket_address
from p2pcards.net.stream_transport import READ_CHUNK, StreamTransport
from p2pcards.protocol.identity import Identity

__all__ = [
    "Connection",
    "FrameTransport",
    "Limits",
    "Server",
    "connect",
    "establish",
    "hand_over",
    "respond",
    "serve",
]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Limits:
    """Defences of a listening server (and the frame limits of a dialling client).

    The fields up to ``handshake_burst`` are the server's (``serve``);
    ``hello_timeout``, the ``link_frame_*`` pair and ``max_links_per_key`` are
    applied by the owner of accepted connections (``TableHost``), which knows
    who is seated.
    """

    handshake_timeout: float = 3.0
    """Seconds from accept to a completed handshake (slowloris and half frames end here)."""
    frame_timeout: float = 15.0
    """Seconds a frame may take to arrive once its first byte has; idle time between frames is unlimited."""
    max_frame: int = MAX_FRAME
    """Largest frame accepted (sealed payload plus its 24-byte overhead)."""
    max_connections: int = 64
    """Strangers (handshaking, or not yet vouched for) in total; when full the oldest is evicted."""
    max_per_address: int = 8
    """Concurrent strangers from one address (an IPv4 address or an IPv6 /64); more are refused."""
    handshake_rate: float = 2.0
    """New connections per second one address may open, on average (token bucket refill)."""
    handshake_burst: int = 8
    """New connections one address may open at once (token bucket size)."""
    hello_timeout: float = 5.0
    """Seconds an accepted link has to say the ``hello`` that seats it (applied by the host)."""
    link_frame_rate: float = 200.0
    """Frames per second the host reads from one link, on average; a faster sender waits (applied by the host)."""
    link_frame_burst: int = 400
    """Frames the host reads from one link at once before pacing it (applied by the host)."""
    max_links_per_key: int = 4
    """Links one player's key may hold at once at the host; a newer one closes the oldest."""


DEFAULT_LIMITS = Limits()


class FrameTransport(Protocol):
    """Moves whole frames between two ends; what a ``Connection`` runs over."""

    @property
    def remote_address(self) -> Address: ...

    def set_max_frame(self, limit: int) -> None:
        """Change the largest frame ``read_frame`` accepts."""

    async def read_frame(self) -> bytes:
        """The next frame; ``ConnectionClosed`` at the end, a ``FrameError`` on a broken stream."""

    async def write_frame(self, frame: bytes) -> None:
        """Queue ``frame`` and wait while the peer is not keeping up."""

    def close(self) -> None: ...

    async def wait_closed(self) -> None: ...


class Connection:
    """An authenticated, encrypted, message-oriented connection to one peer.

    ``send``/``recv`` move whole payloads (bytes up to ``max_payload``). Any
    error a remote causes closes the connection and is raised once; later
    calls raise ``ConnectionClosed`` with that error as ``__cause__``. To
    bound a ``send`` to a peer that stopped reading, wrap it in
    ``asyncio.timeout``: a cancelled send never leaves half a frame behind.
    """

    def __init__(self, transport: FrameTransport, channel: SecureChannel, max_frame: int) -> None:
        self._transport = transport
        self._channel = channel
        self._max_frame = max_frame
        self._send_lock = asyncio.Lock()
        self._recv_lock = asyncio.Lock()
        self._closed = asyncio.Event()
        self._failure: BaseException | None = None
        self._on_admit: Callable[[], None] | None = None
        transport.set_max_frame(max_frame)

    @property
    def peer_public_key(self) -> bytes:
        """The peer's Ed25519 identity key, proven in the handshake."""
        return self._channel.peer_public_key

    @property
    def peer_fingerprint(self) -> str:
        return self._channel.peer_fingerprint

    @property
    def remote_address(self) -> Address:
        return self._transport.remote_address

    @property
    def local_address(self) -> Address | None:
        """This end's socket address, or None over a transport without one (in-process)."""
        return getattr(self._transport, "local_address", None)

    @property
    def max_payload(self) -> int:
        return self._max_frame - SEAL_OVERHEAD

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def on_admit(self, hook: Callable[[], None]) -> None:
        """Call ``hook`` once, when the owner admits this connection (see :meth:`admit`):
        the server that accepted it lets go of its stranger's place."""
        self._on_admit = hook

    def admit(self) -> None:
        """The owner vouches for this peer (a seated player, a known key): it leaves
        the strangers' budget, so no flood of strangers can evict it. Idempotent; a
        no-op for connections no ``Server`` accepted."""
        hook, self._on_admit = self._on_admit, None
        if hook is not None:
            hook()

    async def send(self, payload: bytes) -> None:
        """Seal and send one payload."""
        self._raise_if_closed()
        if len(payload) > self.max_payload:
            raise FrameTooLarge(len(payload), self.max_payload)
        async with self._send_lock:
            self._raise_if_closed()
            # Seal and queue in one step so a cancellation cannot skip a counter.
            frame = self._channel.seal(payload)
            try:
                await self._transport.write_frame(frame)
            except NetError as error:
                self._fail(error)
                raise

    async def recv(self) -> bytes:
        """The next payload from the peer."""
        async with self._recv_lock:
            self._raise_if_closed()
            try:
                frame = await self._transport.read_frame()
                return self._channel.open(frame)
            except NetError as error:
                self._fail(error)
                raise

    def close(self) -> None:
        """Close now; pending and later ``recv``/``send`` raise ``ConnectionClosed``."""
        if not self._closed.is_set():
            self._closed.set()
            self._transport.close()

    async def wait_closed(self) -> None:
        """Wait until the connection is closed (by either side, or after an error)."""
        await self._closed.wait()
        await self._transport.wait_closed()

    async def aclose(self) -> None:
        """Close and wait until the transport has let go of the socket."""
        self.close()
        await self._transport.wait_closed()

    async def __aenter__(self) -> Connection:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"Connection(peer={self.peer_fingerprint}, remote={self.remote_address}, {state})"

    def _fail(self, error: BaseException) -> None:
        if self._failure is None and not self.closed:
            self._failure = error
        self.close()

    def _raise_if_closed(self) -> None:
        if self.closed:
            failure = self._failure
            if isinstance(failure, ConnectionClosed):
                raise ConnectionClosed(str(failure), by_peer=failure.by_peer)
            raise ConnectionClosed(
                "connection closed after an error" if failure else "connection closed locally",
                by_peer=failure is not None,
            ) from failure


async def establish(
    transport: FrameTransport,
    identity: Identity,
    role: Role,
    expected_peer: bytes | str | None = None,
    max_frame: int = MAX_FRAME,
) -> Connection:
    """Run the link handshake over ``transport``; the caller bounds it in time and closes on error."""
    transport.set_max_frame(HANDSHAKE_MAX_FRAME)
    handshake = LinkHandshake(identity, role, expected_peer)
    first = handshake.start()
    if first is not None:
        await transport.write_frame(first)
    while not handshake.complete:
        reply = handshake.receive(await transport.read_frame())
        if reply is not None:
            await transport.write_frame(reply)
    return Connection(transport, handshake.channel(), max_frame)


async def connect(
    host: str,
    port: int,
    identity: Identity,
    expected_peer: bytes | str | None = None,
    timeout: float = 10.0,
    *,
    limits: Limits = DEFAULT_LIMITS,
    local_host: str | None = None,
) -> Connection:
    """Dial ``host:port`` and complete the handshake within ``timeout`` seconds.

    ``expected_peer`` (public key or fingerprint, e.g. from discovery) makes
    the handshake fail with ``UnexpectedPeer`` if someone else answers.
    Raises ``OSError`` if nothing listens, ``HandshakeTimeout``, or a
    ``LinkError``/``ConnectionClosed`` if the handshake fails.
    """
    transport: StreamTransport | None = None
    deadline = asyncio.timeout(timeout)
    try:
        async with deadline:
            local_addr = (local_host, 0) if local_host is not None else None
            reader, writer = await asyncio.open_connection(host, port, local_addr=local_addr)
            transport = StreamTransport(reader, writer, frame_timeout=limits.frame_timeout)
            return await establish(transport, identity, Role.INITIATOR, expected_peer, limits.max_frame)
    except BaseException as error:
        if transport is not None:
            transport.close()
            if not isinstance(error, asyncio.CancelledError):
                await transport.wait_closed()
        if isinstance(error, TimeoutError) and deadline.expired():
            raise HandshakeTimeout(timeout) from None
        raise


OnConnection = Callable[[Connection], Awaitable[None] | None]


class Server:
    """A listening socket that hands each authenticated connection to ``on_connection``.

    ``on_connection`` owns the connection it is given (it may keep it after
    returning); if it raises, the connection is closed. A connection is a
    stranger, holding a place in the strangers' budget, until it is closed
    or its owner calls ``Connection.admit``.
    """

    def __init__(self, identity: Identity, on_connection: OnConnection, limits: Limits) -> None:
        self._identity = identity
        self._on_connection = on_connection
        self._limits = limits
        self._budget = StrangerBudget(total=limits.max_connections, per_address=limits.max_per_address,
                                      rate=limits.handshake_rate, burst=limits.handshake_burst)
        self._handshaking: set[asyncio.Task[object]] = set()
        self._server: asyncio.Server | None = None
        self._port = 0
        self._host = ""
        self._live = 0

    @property
    def port(self) -> int:
        """The bound port (the ephemeral one when asked for 0)."""
        return self._port

    @property
    def host(self) -> str:
        """What the socket serves: "::" for both families on one port, "0.0.0.0"
        for IPv4 alone, or the one address it is bound to."""
        return self._host

    @property
    def active_connections(self) -> int:
        """Connections accepted and not yet ended (strangers and admitted ones)."""
        return self._live

    @property
    def strangers(self) -> int:
        """Connections holding a stranger's place (handshaking, or not yet admitted)."""
        return self._budget.strangers

    @property
    def budget(self) -> StrangerBudget:
        """The strangers' budget, with its counts of refusals and evictions."""
        return self._budget

    def connections_from(self, address: str) -> int:
        """Strangers' places held by ``address`` (its IPv4 address, or its IPv6 /64)."""
        return self._budget.count(address)

    async def start(self, host: str, port: int) -> None:
        """Listen on ``host:port`` (what :func:`serve` does with a new server)."""
        loop = asyncio.get_running_loop()
        sock = listening_socket(host, port)
        if sock is None:
            self._server = await loop.create_server(lambda: _Gate(self._admit), host, port)
        else:
            try:
                self._server = await loop.create_server(lambda: _Gate(self._admit), sock=sock)
            except BaseException:
                sock.close()
                raise
        self._port = int(self._server.sockets[0].getsockname()[1])
        self._host = served_host(sock) if sock is not None else host

    def _admit(self, transport: asyncio.Transport) -> None:
        """A new TCP connection: refuse it at once (a reset, nothing allocated) if its
        address is over its budget; otherwise give it a stream and a handler task."""
        peer = socket_address(transport.get_extra_info("peername"), keep_zone=False)
        address = str(peer[0]) if peer is not None else "unknown"
        ticket = self._budget.admit(address, asyncio.get_running_loop().time())
        if ticket is None:
            transport.abort()
            return
        ticket.close = transport.abort  # evicted before its handler runs
        reader = asyncio.StreamReader(limit=READ_CHUNK)
        protocol = asyncio.StreamReaderProtocol(
            reader, lambda r, w: self._handle(r, w, address, ticket))
        transport.set_protocol(protocol)
        protocol.connection_made(transport)

    def close(self) -> None:
        """Stop listening and abort handshakes in progress; established connections stay with their owners."""
        if self._server is not None:
            self._server.close()
        for task in list(self._handshaking):
            task.cancel()

    async def wait_closed(self) -> None:
        if self._handshaking:
            await asyncio.gather(*self._handshaking, return_exceptions=True)

    async def __aenter__(self) -> Server:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.close()
        await self.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                      address: str, ticket: Ticket) -> None:
        self._live += 1
        try:
            await self._run(reader, writer, ticket)
        except Exception as error:  # a remote must never take the server down
            log.debug("connection from %s ended: %s", address, type(error).__name__)
        except asyncio.CancelledError:
            # Loop shutdown. Ending quietly matters: on 3.11 asyncio's stream callback
            # reports a cancelled handler task as an unhandled exception.
            pass
        finally:
            self._live -= 1
            self._budget.release(ticket)

    async def _run(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, ticket: Ticket) -> None:
        if not ticket.held:  # evicted before this task began
            return
        transport = StreamTransport(reader, writer, frame_timeout=self._limits.frame_timeout)
        ticket.close = transport.close  # evicted while handshaking: the handshake fails
        task = asyncio.current_task()
        if task is not None:
            self._handshaking.add(task)
        try:
            connection = await respond(transport, self._identity, self._limits)
        finally:
            if task is not None:
                self._handshaking.discard(task)
        if connection is None:
            return
        if not ticket.held:  # evicted in the very turn the handshake completed
            connection.close()
            return
        ticket.close = connection.close
        connection.on_admit(lambda: self._budget.release(ticket))
        await hand_over(connection, self._on_connection)


class _Gate(asyncio.Protocol):
    """The first protocol of every accepted socket: asks the budget before anything
    else is made, so a refused connection costs the server almost nothing."""

    def __init__(self, admit: Callable[[asyncio.Transport], None]) -> None:
        self._admit = admit

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A TCP server's transport is a full Transport; the hook is typed with its base.
        self._admit(cast(asyncio.Transport, transport))

    def connection_lost(self, exc: Exception | None) -> None:
        return None


async def respond(transport: FrameTransport, identity: Identity, limits: Limits) -> Connection | None:
    """The accepting side's handshake under its deadline; None (transport closed) if it fails."""
    try:
        async with asyncio.timeout(limits.handshake_timeout):
            return await establish(transport, identity, Role.RESPONDER, max_frame=limits.max_frame)
    except (NetError, OSError, TimeoutError, asyncio.CancelledError) as error:
        log.debug("handshake from %s failed: %s", transport.remote_address, type(error).__name__)
        transport.close()
        await transport.wait_closed()
        return None


async def hand_over(connection: Connection, on_connection: OnConnection) -> None:
    """Give an accepted connection to its owner; close it if the owner fails; wait for its end."""
    try:
        result = on_connection(connection)
        if inspect.isawaitable(result):
            await result
    except Exception as error:
        log.warning("on_connection failed for %s: %r", connection.remote_address, error)
        connection.close()
    await connection.wait_closed()


async def serve(
    host: str,
    port: int,
    identity: Identity,
    on_connection: OnConnection,
    limits: Limits = DEFAULT_LIMITS,
) -> Server:
    """Listen on ``host:port`` (0 for an ephemeral port) and accept authenticated connections.

    "" and "::" listen on every address of both families with one socket (IPv4
    alone where the machine has no IPv6); "0.0.0.0" on every IPv4 address."""
    server = Server(identity, on_connection, limits)
    await server.start(host, port)
    return server
