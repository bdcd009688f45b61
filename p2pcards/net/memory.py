"""In-process transport: the same handshake and sealing as TCP, over queues.

Four peers can run in one process with the code path they use on a LAN:
only the frame transport differs. A ``MemoryWire`` sits between two ends so
tests can drop, duplicate, alter or reorder frames and cut the connection.
``MemoryNetwork`` offers ``serve``/``connect`` with the TCP signatures, so a
peer runner written against those runs unchanged in tests.

Queues are unbounded: ``send`` never waits for a slow reader here, unlike TCP.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Iterable
from typing import Literal, cast

from p2pcards.net.connection import (
    DEFAULT_LIMITS,
    Address,
    Connection,
    Limits,
    OnConnection,
    establish,
    hand_over,
    respond,
)
from p2pcards.net.errors import ConnectionClosed, HandshakeTimeout
from p2pcards.net.framing import MAX_FRAME, FrameTooLarge
from p2pcards.net.link import HANDSHAKE_MAX_FRAME, Role
from p2pcards.protocol.identity import Identity

__all__ = ["MemoryNetwork", "MemoryServer", "MemoryWire", "memory_pair"]

Side = Literal["a", "b"]
"""``a`` is the dialling (initiator) end of a wire, ``b`` the accepting one."""

Interceptor = Callable[[bytes], Iterable[bytes]]

_LOCAL_CLOSE = object()
_PEER_CLOSE = object()


class MemoryWire:
    """The simulated cable between two in-memory ends, for injecting faults.

    ``intercept(sender, fn)`` passes every frame ``sender`` writes through
    ``fn``, which returns the frames to deliver instead (none to drop, two to
    duplicate, changed bytes to tamper, held ones later to reorder).
    """

    def __init__(self) -> None:
        self._ends: dict[Side, _MemoryEnd] = {}
        self._interceptors: dict[Side, Interceptor | None] = {"a": None, "b": None}
        self._drops: dict[Side, int] = {"a": 0, "b": 0}

    def intercept(self, sender: Side, interceptor: Interceptor | None) -> None:
        """Route ``sender``'s frames through ``interceptor`` (None to stop)."""
        self._interceptors[sender] = interceptor

    def drop_next(self, sender: Side, count: int = 1) -> None:
        """Silently lose the next ``count`` frames ``sender`` writes."""
        self._drops[sender] += count

    def cut(self) -> None:
        """Break the wire: both ends see the connection drop as if the peer had gone."""
        for end in self._ends.values():
            end.peer_gone()

    def attach(self, a_sees: Address, b_sees: Address) -> tuple[_MemoryEnd, _MemoryEnd]:
        """The wire's two ends (``a`` dials), each seeing the other at the address given."""
        a, b = _MemoryEnd(self, "a", a_sees), _MemoryEnd(self, "b", b_sees)
        self._ends = {"a": a, "b": b}
        return a, b

    def carry(self, sender: Side, frame: bytes) -> None:
        """A frame ``sender``'s end wrote: to the other end, unless dropped or intercepted."""
        if self._drops[sender] > 0:
            self._drops[sender] -= 1
            return
        interceptor = self._interceptors[sender]
        frames = [frame] if interceptor is None else list(interceptor(frame))
        receiver = self._ends["b" if sender == "a" else "a"]
        for delivered in frames:
            receiver.deliver(delivered)

    def hang_up(self, sender: Side) -> None:
        """``sender``'s end closed: the other end sees its peer gone."""
        for side, end in self._ends.items():
            if side != sender:
                end.peer_gone()


class _MemoryEnd:
    """One end of a wire: a ``FrameTransport`` over an asyncio queue."""

    def __init__(self, wire: MemoryWire, side: Side, remote_address: Address) -> None:
        self._wire = wire
        self._side = side
        self._remote = remote_address
        self._inbox: asyncio.Queue[object] = asyncio.Queue()
        self._max_frame = HANDSHAKE_MAX_FRAME
        self._closed = False
        self._peer_closed = False

    @property
    def remote_address(self) -> Address:
        return self._remote

    def set_max_frame(self, limit: int) -> None:
        self._max_frame = limit

    async def read_frame(self) -> bytes:
        if self._closed:
            raise ConnectionClosed("connection closed locally")
        item = await self._inbox.get()
        if item is _LOCAL_CLOSE:
            raise ConnectionClosed("connection closed locally")
        if item is _PEER_CLOSE:
            raise ConnectionClosed("connection closed by the peer", by_peer=True)
        frame = cast(bytes, item)
        if len(frame) > self._max_frame:
            raise FrameTooLarge(len(frame), self._max_frame)
        return frame

    async def write_frame(self, frame: bytes) -> None:
        if self._closed:
            raise ConnectionClosed("connection closed locally")
        if self._peer_closed:
            raise ConnectionClosed("connection closed by the peer", by_peer=True)
        self._wire.carry(self._side, bytes(frame))
        await asyncio.sleep(0)  # let the reader run, as a drain would

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._inbox.put_nowait(_LOCAL_CLOSE)
        self._wire.hang_up(self._side)

    async def wait_closed(self) -> None:
        return None

    def deliver(self, frame: bytes) -> None:
        """A frame from the wire (dropped once either end closed)."""
        if not self._closed and not self._peer_closed:
            self._inbox.put_nowait(frame)

    def peer_gone(self) -> None:
        """The other end closed, or the wire was cut: reads end after what came."""
        if not self._peer_closed:
            self._peer_closed = True
            self._inbox.put_nowait(_PEER_CLOSE)


_connection_numbers = itertools.count(1)


async def _establish_or_close(
    end: _MemoryEnd, identity: Identity, role: Role, expected_peer: bytes | str | None, max_frame: int
) -> Connection:
    try:
        return await establish(end, identity, role, expected_peer, max_frame)
    except BaseException:
        end.close()
        raise


async def memory_pair(
    identity_a: Identity,
    identity_b: Identity,
    *,
    expect_b: bytes | str | None = None,
    expect_a: bytes | str | None = None,
    wire: MemoryWire | None = None,
    max_frame: int = MAX_FRAME,
) -> tuple[Connection, Connection]:
    """Two connected, handshaken ends: ``a`` dialled ``b``.

    ``expect_b``/``expect_a`` pin the other side as ``connect``'s
    ``expected_peer`` does. Pass a ``MemoryWire`` to inject faults later.
    A failed handshake raises the error of the side that detected it.
    """
    wire = wire if wire is not None else MemoryWire()
    number = next(_connection_numbers)
    end_a, end_b = wire.attach(("memory-b", number), ("memory-a", number))
    results = await asyncio.gather(
        _establish_or_close(end_a, identity_a, Role.INITIATOR, expect_b, max_frame),
        _establish_or_close(end_b, identity_b, Role.RESPONDER, expect_a, max_frame),
        return_exceptions=True,
    )
    errors = [result for result in results if isinstance(result, BaseException)]
    if errors:
        end_a.close()
        end_b.close()
        # The side that saw the fault raised a precise error; the other merely saw the close.
        errors.sort(key=lambda error: isinstance(error, ConnectionClosed))
        raise errors[0]
    return cast(Connection, results[0]), cast(Connection, results[1])


class MemoryServer:
    """A listener registered in a ``MemoryNetwork``; the counterpart of ``connection.Server``."""

    def __init__(self, network: MemoryNetwork, address: tuple[str, int], identity: Identity,
                 on_connection: OnConnection, limits: Limits) -> None:
        self._network = network
        self._address = address
        self.identity = identity
        self.on_connection = on_connection
        self.limits = limits
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def port(self) -> int:
        return self._address[1]

    def close(self) -> None:
        """Stop accepting; established connections stay with their owners."""
        self._network.forget(self._address)

    async def wait_closed(self) -> None:
        return None

    async def __aenter__(self) -> MemoryServer:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        self.close()

    def accept(self, end: _MemoryEnd) -> None:
        """A dialled wire's accepting end: its handshake and owner in a task of their own."""
        task = asyncio.get_running_loop().create_task(self._run(end))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, end: _MemoryEnd) -> None:
        connection = await respond(end, self.identity, self.limits)
        if connection is not None:
            await hand_over(connection, self.on_connection)


class MemoryNetwork:
    """In-process listeners addressed by (host, port), with ``serve``/``connect`` like TCP's."""

    def __init__(self) -> None:
        self._listeners: dict[tuple[str, int], MemoryServer] = {}
        self._ports = itertools.count(40000)
        self.wires: list[MemoryWire] = []
        """Every wire made by ``connect``, in order, for injecting faults."""

    def forget(self, address: tuple[str, int]) -> None:
        """The listener at ``address`` closed: nothing accepts there any more."""
        self._listeners.pop(address, None)

    async def serve(
        self,
        host: str,
        port: int,
        identity: Identity,
        on_connection: OnConnection,
        limits: Limits = DEFAULT_LIMITS,
    ) -> MemoryServer:
        if port == 0:
            port = next(self._ports)
        address = (host, port)
        if address in self._listeners:
            raise OSError(f"memory address {host}:{port} already in use")
        server = MemoryServer(self, address, identity, on_connection, limits)
        self._listeners[address] = server
        return server

    async def connect(
        self,
        host: str,
        port: int,
        identity: Identity,
        expected_peer: bytes | str | None = None,
        timeout: float = 10.0,
        *,
        limits: Limits = DEFAULT_LIMITS,
        local_host: str | None = None,
    ) -> Connection:
        server = self._listeners.get((host, port))
        if server is None:
            raise ConnectionRefusedError(f"nothing listens on memory address {host}:{port}")
        wire = MemoryWire()
        self.wires.append(wire)
        number = next(_connection_numbers)
        end_a, end_b = wire.attach((host, port), (local_host or "memory", number))
        server.accept(end_b)
        deadline = asyncio.timeout(timeout)
        try:
            async with deadline:
                return await _establish_or_close(end_a, identity, Role.INITIATOR, expected_peer, limits.max_frame)
        except TimeoutError:
            if deadline.expired():
                raise HandshakeTimeout(timeout) from None
            raise
