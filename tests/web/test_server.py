"""The browser table's server, over real loopback HTTP: what it serves, to whom, with which
headers, and each refusal (no token, another host, another page's origin, a WebSocket
from another origin, a peer that is not loopback) — none of them reaches the table."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from unittest import mock

import aiohttp
import pytest
from aiohttp import web
from aiohttp.test_utils import make_mocked_request

from p2pcards.ui.web.messages import BadMessage
from p2pcards.ui.web.server import CSP, STATIC, TableServer, static_file
from p2pcards.wiremap import WireMap

STATIC_DIR = Path(__file__).resolve().parents[2] / "p2pcards" / "ui" / "web" / "static"


class Source:
    """A page source that counts: its parts change when told, and it keeps what it got."""

    def __init__(self) -> None:
        self.count = 0
        self.got: list[WireMap] = []

    def parts(self) -> dict[str, object]:
        return {"table": {"count": self.count}, "log": {"lines": []}}

    def receive(self, message: WireMap) -> None:
        if message["type"] == "bad":
            raise BadMessage("not a message the table takes")
        self.got.append(message)
        self.count += 1


Served = tuple[TableServer, Source, str, str]


def run(test: Callable[[Served], Awaitable[None]]) -> None:
    async def served() -> None:
        source = Source()
        server = TableServer(source)
        gate = await server.start()
        try:
            await test((server, source, gate.origin, gate.secret))
        finally:
            await server.stop()
    asyncio.run(served())


def headers(origin: str, secret: str | None, **more: str) -> dict[str, str]:
    """What the page's own requests carry: its host, and the cookie (when ``secret``)."""
    port = origin.rsplit(":", 1)[1]
    out = {"Host": f"127.0.0.1:{port}"}
    if secret is not None:
        out["Cookie"] = f"p2pcards-{port}={secret}"
    out.update(more)
    return out


async def fetch(origin: str, path: str, head: dict[str, str],
                method: str = "GET") -> tuple[int, dict[str, str], str]:
    async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as client, \
            client.request(method, origin + path, headers=head, allow_redirects=False) as reply:
        return reply.status, dict(reply.headers), await reply.text()


def test_the_page_needs_its_token_and_a_token_becomes_the_cookie() -> None:
    async def check(served: Served) -> None:
        _, _, origin, secret = served
        status, head, body = await fetch(origin, "/", headers(origin, None))
        assert status == 403 and "no valid token" in body
        assert head["Content-Security-Policy"] == CSP  # a refusal is headed too
        status, head, _ = await fetch(origin, f"/?token={secret}", headers(origin, None))
        assert status == 303 and head["Location"] == "/"
        cookie = head["Set-Cookie"]
        port = origin.rsplit(":", 1)[1]
        assert cookie.startswith(f"p2pcards-{port}={secret};")
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
        status, head, body = await fetch(origin, "/", headers(origin, secret))
        assert status == 200 and "<title>p2pcards</title>" in body
        assert head["Content-Security-Policy"] == CSP
        assert head["X-Frame-Options"] == "DENY" and head["X-Content-Type-Options"] == "nosniff"
        assert head["Referrer-Policy"] == "no-referrer"
    run(check)


def test_another_host_or_another_pages_origin_is_refused() -> None:
    async def check(served: Served) -> None:
        _, _, origin, secret = served
        port = origin.rsplit(":", 1)[1]
        for host in (f"evil.example:{port}", f"localhost:{port}"):
            status, _, body = await fetch(origin, "/", headers(origin, secret, Host=host))
            assert status == 403 and "host" in body
        status, _, body = await fetch(origin, "/static/main.js",
                                      headers(origin, secret, Origin="http://evil.example"))
        assert status == 403 and "page" in body
        status, _, body = await fetch(origin, "/", headers(origin, secret,
                                                             **{"Sec-Fetch-Site": "cross-site"}))
        assert status == 403 and "another site" in body
        status, _, _ = await fetch(origin, "/static/main.js", headers(origin, secret, Origin=origin))
        assert status == 200  # the page's own module script, with its own origin
    run(check)


def test_a_websocket_from_another_origin_or_without_one_is_refused() -> None:
    async def check(served: Served) -> None:
        _, source, origin, secret = served
        url = origin.replace("http", "ws") + "/ws"
        async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as client:
            for extra in ({"Origin": "http://evil.example"}, {}, {"Origin": "null"}):
                with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                    await client.ws_connect(url, headers=headers(origin, secret, **extra))
                assert refused.value.status == 403
            with pytest.raises(aiohttp.WSServerHandshakeError):
                await client.ws_connect(url, headers=headers(origin, None, Origin=origin))
            assert source.got == []  # nothing reached the table
            async with client.ws_connect(url, headers=headers(origin, secret, Origin=origin)) as ws:
                first = {json.loads((await ws.receive()).data)["type"] for _ in range(2)}
                assert first == {"table", "log"}
    run(check)


def test_the_socket_sends_what_changed_and_survives_bad_messages() -> None:
    async def check(served: Served) -> None:
        server, source, origin, secret = served
        url = origin.replace("http", "ws") + "/ws"
        async with aiohttp.ClientSession(cookie_jar=aiohttp.DummyCookieJar()) as client, \
                client.ws_connect(url, headers=headers(origin, secret, Origin=origin)) as ws:
            seen = [json.loads((await ws.receive()).data) for _ in range(2)]
            assert {m["type"] for m in seen} == {"table", "log"}
            for bad in ("not json", "[1, 2]", '{"no": "type"}', '{"type": "bad"}'):
                await ws.send_str(bad)
            await ws.send_str(json.dumps({"type": "key", "key": "p"}))
            message = json.loads((await asyncio.wait_for(ws.receive(), 10)).data)
            # Only the part that changed comes again: the log did not.
            assert message == {"type": "table", "data": {"count": 1}}
            assert source.got == [{"type": "key", "key": "p"}]
            assert server.connected == 1
    run(check)


def test_only_the_tables_own_files_are_served() -> None:
    async def check(served: Served) -> None:
        _, _, origin, secret = served
        head = headers(origin, secret)
        for name in STATIC:
            status, _, _ = await fetch(origin, f"/static/{name}", head)
            assert status == (404 if name == "index.html" else 200), name
        status, reply, body = await fetch(origin, "/cards/QH.svg", head)
        assert status == 200 and reply["Content-Type"].startswith("image/svg+xml")
        assert "queen of hearts" in body
        for path in ("/static/guard.py", "/static/..%2fguard.py", "/static/%2e%2e/server.py",
                     "/cards/ZZ.svg", "/cards/..%2fQH.svg", "/etc/passwd", "/favicon.ico"):
            status, _, _ = await fetch(origin, path, head)
            assert status == 404, path
        status, _, _ = await fetch(origin, "/", head, method="POST")
        assert status == 405
    run(check)


def test_a_peer_that_is_not_loopback_is_refused_by_the_server_itself() -> None:
    """The server listens on 127.0.0.1; its own check refuses any other peer address too."""
    async def check(served: Served) -> None:
        server, source, origin, secret = served
        reached: list[str] = []

        async def handler(request: web.Request) -> web.StreamResponse:
            reached.append(request.path)
            return web.Response(text="served")

        for remote, allowed in (("10.0.0.5", False), ("192.168.1.9", False), ("127.0.0.1", True)):
            transport = mock.Mock()
            transport.get_extra_info.side_effect = (
                lambda name, default=None, remote=remote: (remote, 5555) if name == "peername"
                else default)
            request = make_mocked_request("GET", "/static/main.js",
                                          headers=headers(origin, secret), transport=transport)
            assert request.remote == remote
            response = await server.guard(request, handler)
            assert (response.status == 200) is allowed, remote
        assert reached == ["/static/main.js"]
    run(check)


def test_the_page_has_no_inline_script_or_style_and_names_nothing_elsewhere() -> None:
    """What the Content-Security-Policy requires of the page's own files, checked in them."""
    page = static_file("index.html").decode()
    assert re.findall(r"<script\b[^>]*>", page) == ['<script type="module" src="/static/main.js">']
    assert "<style" not in page and " style=" not in page
    assert not re.search(r"\son[a-z]+=", page)  # no inline event handlers
    for path in STATIC_DIR.iterdir():
        text = path.read_text()
        assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}/", text), path.name
        assert "innerHTML" not in text and "eval(" not in text, path.name
    assert {path.name for path in STATIC_DIR.iterdir()} == set(STATIC)


def test_the_terminal_is_told_of_refused_requests_the_first_few() -> None:
    """Someone trying the table is worth a line in the player's terminal (not a flood)."""
    from p2pcards.ui.web import WebSeat

    async def check() -> list[str]:
        said: list[str] = []
        seat = WebSeat(open_browser=False, echo=said.append)
        await seat.start()
        try:
            origin = present_origin(await seat.opened())
            for _ in range(5):
                status, _, _ = await fetch(origin, "/", headers(origin, None))
                assert status == 403
        finally:
            await seat.stop()
        return said
    said = asyncio.run(check())
    refused = [line for line in said if line.startswith("Refused a request")]
    assert len(refused) == 3 and "no valid token" in refused[0]
    assert said[-1] == "More refused requests to the table's page are not shown."
    assert any(line.startswith("Open the table in a browser on this machine: http://127.0.0.1:")
               for line in said)


def present_origin(address: str | None) -> str:
    assert address is not None
    return address.split("/?", 1)[0]
