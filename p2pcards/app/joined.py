"""A seat at a table another machine hosts: the joiner's session, dialling the host
over TCP (a table hosted here is :mod:`p2pcards.app.hosted`'s)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypedDict

from p2pcards.app.insecure_seed import randomness_for
from p2pcards.net.connection import Connection, connect
from p2pcards.net.peer import PeerSession
from p2pcards.net.session_events import Agent, SessionEvent
from p2pcards.protocol.identity import Identity


def tcp_connector(host: str, port: int, identity: Identity,
                  expected_peer: bytes | str | None = None,
                  timeout: float = 5.0) -> Callable[[], Awaitable[Connection]]:
    async def dial() -> Connection:
        return await connect(host, port, identity, expected_peer, timeout)
    return dial


class JoinOptions(TypedDict, total=False):
    """The keyword options of :func:`joining_session`, for a command that builds them
    once and hands them on again for a rematch (``**options``, checked by key)."""

    expected_peer: bytes | str | None
    deadline: float
    reconnect_window: float
    journal_root: Path | None
    bot: bool
    seed: int | None
    label: str
    on_event: Callable[[SessionEvent], None] | None
    direct: bool
    listen: bool
    announce: bool


def joining_session(identity: Identity, agent: Agent, host: str, port: int, *,
                    expected_peer: bytes | str | None = None, deadline: float = 120.0,
                    reconnect_window: float = 60.0, journal_root: Path | None = None,
                    bot: bool = False, seed: int | None = None, label: str = "joiner",
                    on_event: Callable[[SessionEvent], None] | None = None, direct: bool = True,
                    listen: bool = True, announce: bool = True) -> PeerSession:
    """A session that joins the table at ``host:port`` (call ``run()`` to play it).

    A joiner runs in its own process, so it links directly to the other players
    (``direct``; it listens on its address of the link to the host unless
    ``listen`` is off): then the host alone can no longer decide what it hears.
    With ``announce`` it also announces its listener on the LAN, signed, and
    dials the others' announcements, so a host cannot keep a pair apart by
    never handing out their addresses."""
    return PeerSession(identity, agent, tcp_connector(host, port, identity, expected_peer),
                       bot=bot, deadline=deadline, reconnect_window=reconnect_window,
                       journal_root=journal_root, on_event=on_event,
                       randomness_for=randomness_for(seed, label),
                       meta={"host": host, "port": port, "pin": expected_peer or ""},
                       direct=direct, listen=listen, announce=announce and direct)
