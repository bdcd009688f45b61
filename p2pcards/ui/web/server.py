"""The browser table's web server: the page, its files and one WebSocket, on the peer's loop.

aiohttp serves, on 127.0.0.1 only, exactly these: the page (``/``), its
script and style (a fixed list under ``/static/``), the cards this project
draws (``/cards/QH.svg``) and the WebSocket (``/ws``). Every request passes
the :class:`~p2pcards.ui.web.guard.Gate` first, and every response carries
a strict Content-Security-Policy (no inline script, nothing from another
origin, no framing).

What the page shows comes from a :class:`PageSource` (the seat, or a
replay) as a few named parts (the table's state, the log, the help, the
history), JSON, each sent again only when it changed. What the page sends
back is a small JSON message the source checks and answers; the page never
decides anything.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from typing import Protocol

from aiohttp import WSMsgType, web
from aiohttp.typedefs import Handler

from p2pcards.errors import P2PCardsError
from p2pcards.net.stopping import stop_task
from p2pcards.ui.web import cardart
from p2pcards.ui.web.guard import Gate, Refused, Request, loopback_socket
from p2pcards.ui.web.messages import BadMessage
from p2pcards.wiremap import WireMap

log = logging.getLogger(__name__)

#: The page's rules for the browser: its own files only, no inline script or style,
#: no plug-in, never inside another page's frame, no form posted anywhere.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
       "connect-src 'self'; font-src 'none'; object-src 'none'; base-uri 'none'; "
       "form-action 'none'; frame-ancestors 'none'")
#: Headers on every response, a refusal's too.
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Resource-Policy": "same-origin",
}
#: The page's own files and their types: nothing else is served from ``/static/``.
STATIC = {
    "index.html": "text/html",
    "table.css": "text/css",
    "main.js": "text/javascript",
    "render.js": "text/javascript",
    "board.js": "text/javascript",
    "controls.js": "text/javascript",
    "dialogs.js": "text/javascript",
    "keys.js": "text/javascript",
    "replay.js": "text/javascript",
}
#: The largest message the page may send (a chat line is at most 200 characters).
MAX_MESSAGE = 16 * 1024
#: Seconds changes are gathered before the page is told (a burst of events, one send).
GATHER = 0.02


class PageSource(Protocol):
    """What a table's page shows and takes: the seat's screen, or a replay's."""

    def parts(self) -> dict[str, object]:
        """The page now, by part (each a JSON value; a part is sent when it changed)."""

    def receive(self, message: WireMap) -> None:
        """A message from the page (a JSON object with a ``type``); :class:`BadMessage`
        or another :class:`~p2pcards.errors.P2PCardsError` when it is not taken."""


def static_file(name: str) -> bytes:
    """One of the page's own files, shipped with the package."""
    return resources.files("p2pcards.ui.web").joinpath("static", name).read_bytes()


@dataclass(eq=False)
class _Client:
    """One open page (a tab) and what it was last sent, by part."""

    socket: web.WebSocketResponse
    sent: dict[str, str] = field(default_factory=dict)


class TableServer:
    """Serves one table to its player's browser; :meth:`changed` tells every open page."""

    def __init__(self, source: PageSource, port: int = 0,
                 on_refused: Callable[[str], None] | None = None) -> None:
        self.source = source
        self._port = port
        #: Told each refusal's reason (the terminal says it: someone tried the table).
        self.on_refused = on_refused or (lambda reason: None)
        self.gate: Gate | None = None
        self._runner: web.AppRunner | None = None
        self._clients: set[_Client] = set()
        self._dirty = asyncio.Event()
        self._pump_task: asyncio.Task[None] | None = None
        self._files: dict[str, bytes] = {}

    @property
    def connected(self) -> int:
        """How many pages are open now."""
        return len(self._clients)

    async def start(self, sock: socket.socket | None = None, gate: Gate | None = None) -> Gate:
        """Serve on ``sock`` (a :func:`~p2pcards.ui.web.guard.loopback_socket`, made here
        unless given) behind ``gate`` (made for its port unless given); the gate."""
        sock = sock if sock is not None else loopback_socket(self._port)
        gate = self.gate = gate if gate is not None else Gate(sock.getsockname()[1])
        app = web.Application(middlewares=[self.guard], client_max_size=MAX_MESSAGE)
        app.router.add_get("/", self._page)
        app.router.add_get("/static/{name}", self._static)
        app.router.add_get("/cards/{name}.svg", self._card)
        app.router.add_get("/icon.svg", self._icon)
        app.router.add_get("/ws", self._socket)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
        try:
            await self._runner.setup()
            await web.SockSite(self._runner, sock).start()
        except BaseException:
            sock.close()
            raise
        self._pump_task = asyncio.ensure_future(self._pump())
        return gate

    def changed(self) -> None:
        """Something on the page changed: every open page gets the parts that differ."""
        self._dirty.set()

    async def stop(self) -> None:
        """Send the last changes, close every page's socket and stop serving."""
        if self._pump_task is not None:
            await stop_task(self._pump_task)
            self._pump_task = None
            await self._send_changes()
        for client in list(self._clients):
            await client.socket.close(message=b"the table closed")
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # -- the gate and the headers ---------------------------------------------------------

    @web.middleware
    async def guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """The middleware every request passes: the gate's checks, then the headers."""
        gate = self.gate
        assert gate is not None  # requests come only once started
        upgrade = request.headers.get("Upgrade", "").lower() == "websocket"
        try:
            by_token = gate.admit(Request(
                remote=request.remote, host=request.headers.get("Host"),
                origin=request.headers.get("Origin"),
                fetch_site=request.headers.get("Sec-Fetch-Site"),
                cookie=request.cookies.get(gate.cookie_name), token=request.query.get("token"),
                websocket=upgrade))
        except Refused as refusal:
            log.warning("browser table: refused %s %s: %s", request.method, request.path, refusal)
            self.on_refused(str(refusal))
            return _headed(web.Response(status=403, text=f"Refused: {refusal}.\n"))
        if by_token and request.path == "/":
            # The token becomes the cookie; the address bar forgets it.
            moved = web.Response(status=303, headers={"Location": "/"})
            moved.set_cookie(gate.cookie_name, gate.secret, httponly=True, samesite="Strict",
                             path="/")
            return _headed(moved)
        try:
            response = await handler(request)
        except web.HTTPException as error:
            response = web.Response(status=error.status, text=f"{error.reason}.\n")
        return response if response.prepared else _headed(response)

    # -- the files --------------------------------------------------------------------------

    def _file(self, name: str) -> bytes:
        if name not in self._files:
            self._files[name] = static_file(name)
        return self._files[name]

    async def _page(self, request: web.Request) -> web.StreamResponse:
        return web.Response(body=self._file("index.html"), content_type="text/html",
                            charset="utf-8", headers={"Cache-Control": "no-store"})

    async def _static(self, request: web.Request) -> web.StreamResponse:
        name = request.match_info["name"]
        kind = STATIC.get(name)
        if kind is None or name == "index.html":
            return web.Response(status=404, text="Not one of the table's files.\n")
        return web.Response(body=self._file(name), content_type=kind, charset="utf-8",
                            headers={"Cache-Control": "no-store"})

    async def _card(self, request: web.Request) -> web.StreamResponse:
        try:
            drawn = cardart.drawing(request.match_info["name"])
        except KeyError:
            return web.Response(status=404, text="Not a card.\n")
        return web.Response(text=drawn, content_type="image/svg+xml",
                            headers={"Cache-Control": "private, max-age=86400"})

    async def _icon(self, request: web.Request) -> web.StreamResponse:
        return web.Response(text=cardart.icon_svg(), content_type="image/svg+xml")

    # -- the page's socket --------------------------------------------------------------

    async def _socket(self, request: web.Request) -> web.StreamResponse:
        # No per-message compression: on the loopback it saves nothing and costs zlib
        # work on every part sent, on the loop the table's first steps run on.
        ws = web.WebSocketResponse(max_msg_size=MAX_MESSAGE, heartbeat=30.0, compress=False)
        await ws.prepare(request)
        client = _Client(ws)
        self._clients.add(client)
        self.changed()  # a new page is sent every part
        try:
            async for message in ws:
                if message.type != WSMsgType.TEXT:
                    break
                self._take(message.data)
        finally:
            self._clients.discard(client)
        return ws

    def _take(self, data: str) -> None:
        """One message of the page, checked: a refusal is the source's to say."""
        try:
            message = json.loads(data)
            if not isinstance(message, dict) or not isinstance(message.get("type"), str):
                raise BadMessage("a message from the page is a JSON object with a type")
            self.source.receive(message)
        except (ValueError, P2PCardsError) as error:  # JSONDecodeError is a ValueError
            log.warning("browser table: a message not taken: %s", error)
        self.changed()

    async def _pump(self) -> None:
        while True:
            await self._dirty.wait()
            await asyncio.sleep(GATHER)
            await self._send_changes()

    async def _send_changes(self) -> None:
        self._dirty.clear()
        if not self._clients:
            return
        parts = {name: json.dumps(value, ensure_ascii=False, separators=(",", ":"))
                 for name, value in self.source.parts().items()}
        for client in list(self._clients):
            for name, text in parts.items():
                if client.sent.get(name) == text or client.socket.closed:
                    continue
                try:
                    await client.socket.send_str(f'{{"type":"{name}","data":{text}}}')
                except ConnectionError:
                    self._clients.discard(client)
                    break
                client.sent[name] = text


def _headed(response: web.StreamResponse) -> web.StreamResponse:
    response.headers.update(HEADERS)
    response.headers.setdefault("Cache-Control", "no-store")
    return response
