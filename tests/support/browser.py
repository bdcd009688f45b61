"""A real browser for the browser table's tests and scripts: headless Chromium over the
DevTools protocol, with aiohttp's WebSocket client (no driver program, no other package).

:func:`find_chromium` says where the browser is (or why there is none: the tests skip
with that reason); :func:`chromium` starts one in a fresh profile and stops it; a
:class:`Page` loads an address, evaluates script, clicks where a person would (at a
point of the element that is really on top, through ``Input.dispatchMouseEvent``),
presses keys, and takes screenshots. Every wait is bounded; every script error the
page throws is kept, for the test to assert there was none.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp

#: Where a browser may be, in order (``P2PCARDS_CHROMIUM`` first).
CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
#: The flags of a quiet headless browser on a closed network (see the brief's field notes:
#: without the background-networking flags a sandboxed network refuses its connections).
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--mute-audio", "--remote-debugging-port=0")
#: Seconds the browser has to start and say where its DevTools listen.
START_TIMEOUT = 30.0

#: A point of the element that is on top there (not covered by a box or a neighbour),
#: after scrolling it into view; null when none is.
_VISIBLE_POINT = """
(selector) => {
  const el = document.querySelector(selector);
  if (!el) return null;
  el.scrollIntoView({block: "center", inline: "center"});
  const r = el.getBoundingClientRect();
  for (const fy of [0.5, 0.3, 0.7, 0.15, 0.85])
    for (const fx of [0.5, 0.25, 0.1, 0.75, 0.9, 0.05]) {
      const x = r.left + r.width * fx, y = r.top + r.height * fy;
      const hit = document.elementFromPoint(x, y);
      if (hit && (hit === el || el.contains(hit))) return [x, y];
    }
  return null;
}
"""

_KEYS = {
    "Enter": ("Enter", 13, "\r"), "Escape": ("Escape", 27, ""), " ": ("Space", 32, " "),
    "ArrowLeft": ("ArrowLeft", 37, ""), "ArrowRight": ("ArrowRight", 39, ""),
    "Home": ("Home", 36, ""), "End": ("End", 35, ""), "Tab": ("Tab", 9, ""),
}


class BrowserError(RuntimeError):
    """The browser did not do what a test waited for, in time; the message says what."""


def find_chromium() -> tuple[str | None, str]:
    """The browser's path, or None and why there is none (a test's reason to skip)."""
    given = os.environ.get("P2PCARDS_CHROMIUM")
    for name in ([given] if given else []) + list(CANDIDATES):
        path = shutil.which(name)
        if path:
            return path, ""
    return None, ("no Chromium found (install Debian's chromium, or set P2PCARDS_CHROMIUM "
                  "to a Chromium or Chrome binary)")


class Page:
    """One tab, attached over the browser's DevTools WebSocket (flat sessions)."""

    def __init__(self, browser: Browser, session: str) -> None:
        self.browser = browser
        self.session = session
        #: Script errors the page threw (uncaught exceptions, console errors).
        self.errors: list[str] = []

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        return await self.browser.send(method, params, self.session)

    async def goto(self, url: str) -> None:
        await self.send("Page.navigate", url=url)

    async def evaluate(self, expression: str) -> Any:
        """The value of ``expression`` in the page (JSON-able); BrowserError if it threw."""
        reply = await self.send("Runtime.evaluate", expression=expression, returnByValue=True,
                                awaitPromise=True)
        if "exceptionDetails" in reply:
            raise BrowserError(f"{expression[:80]!r} threw: {reply['exceptionDetails']}")
        return reply.get("result", {}).get("value")

    async def wait_for(self, expression: str, what: str, timeout: float = 30.0) -> Any:
        """Poll until ``expression`` is truthy in the page; its value."""
        deadline = time.monotonic() + timeout
        while True:
            with contextlib.suppress(BrowserError):
                value = await self.evaluate(expression)
                if value:
                    return value
            if time.monotonic() > deadline:
                raise BrowserError(f"waited {timeout:g} s for {what}")
            await asyncio.sleep(0.05)

    async def click(self, selector: str) -> None:
        """A person's click on ``selector``: a real mouse press where it is on top."""
        point = await self.evaluate(f"({_VISIBLE_POINT})({json.dumps(selector)})")
        if not point:
            raise BrowserError(f"nothing to click at {selector!r} (missing, or covered)")
        x, y = point
        await self.send("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)
        for kind in ("mousePressed", "mouseReleased"):
            await self.send("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left",
                            clickCount=1)

    async def press(self, key: str) -> None:
        """A key press (``"Enter"``, ``"ArrowRight"``, ``"d"``, ``"3"``)."""
        code, vk, text = _KEYS.get(key, (f"Key{key.upper()}" if key.isalpha() else
                                         f"Digit{key}" if key.isdigit() else key,
                                         ord(key.upper()) if len(key) == 1 else 0, key))
        await self.send("Input.dispatchKeyEvent", type="keyDown", key=key, code=code,
                        windowsVirtualKeyCode=vk, text=text)
        await self.send("Input.dispatchKeyEvent", type="keyUp", key=key, code=code,
                        windowsVirtualKeyCode=vk)

    async def type_text(self, text: str) -> None:
        await self.send("Input.insertText", text=text)

    async def viewport(self, width: int, height: int, *, mobile: bool = False,
                       scale: float = 1.0) -> None:
        await self.send("Emulation.setDeviceMetricsOverride", width=width, height=height,
                        deviceScaleFactor=scale, mobile=mobile)

    async def screenshot(self, path: Path) -> None:
        shot = await self.send("Page.captureScreenshot", format="png")
        path.write_bytes(base64.b64decode(shot["data"]))


class Browser:
    """The browser's DevTools connection: commands by id, events to their page."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self.socket = socket
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._pages: dict[str, Page] = {}
        self._reader = asyncio.ensure_future(self._read())

    async def send(self, method: str, params: dict[str, Any] | None = None,
                   session: str | None = None, timeout: float = 60.0) -> dict[str, Any]:
        number = next(self._ids)
        reply: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[number] = reply
        message: dict[str, Any] = {"id": number, "method": method, "params": params or {}}
        if session is not None:
            message["sessionId"] = session
        await self.socket.send_str(json.dumps(message))
        try:
            return await asyncio.wait_for(reply, timeout)
        except TimeoutError:
            raise BrowserError(f"the browser did not answer {method} in {timeout:g} s") from None
        finally:
            self._waiting.pop(number, None)

    async def _read(self) -> None:
        async for frame in self.socket:
            if frame.type != aiohttp.WSMsgType.TEXT:
                break
            message = json.loads(frame.data)
            waiter = self._waiting.get(message.get("id", -1))
            if waiter is not None and not waiter.done():
                if "error" in message:
                    waiter.set_exception(BrowserError(f"DevTools: {message['error']}"))
                else:
                    waiter.set_result(message.get("result", {}))
            elif message.get("sessionId") in self._pages:
                self._event(self._pages[message["sessionId"]], message)
        for waiter in self._waiting.values():
            if not waiter.done():
                waiter.set_exception(BrowserError("the browser closed its DevTools connection"))

    @staticmethod
    def _event(page: Page, message: dict[str, Any]) -> None:
        method, params = message.get("method"), message.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            page.errors.append(str(details.get("exception", {}).get("description")
                                   or details.get("text")))
        elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
            page.errors.append(" ".join(str(a.get("value", a.get("description")))
                                        for a in params.get("args", [])))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            page.errors.append(str(params["entry"].get("text")))

    async def new_page(self, width: int = 1280, height: int = 800) -> Page:
        target = await self.send("Target.createTarget", {"url": "about:blank"})
        attached = await self.send("Target.attachToTarget",
                                   {"targetId": target["targetId"], "flatten": True})
        page = Page(self, attached["sessionId"])
        self._pages[page.session] = page
        for domain in ("Page", "Runtime", "Log"):
            await page.send(f"{domain}.enable")
        await page.viewport(width, height)
        return page

    async def close(self) -> None:
        with contextlib.suppress(Exception):  # a browser already gone
            await asyncio.wait_for(self.send("Browser.close"), 5)
        self._reader.cancel()
        await asyncio.wait({self._reader})
        await self.socket.close()


@contextlib.asynccontextmanager
async def chromium(binary: str | None = None) -> AsyncIterator[Browser]:
    """A headless Chromium in a fresh profile, stopped (and its profile removed) after."""
    path = binary or find_chromium()[0]
    if path is None:
        raise BrowserError(find_chromium()[1])
    profile = tempfile.mkdtemp(prefix="p2pcards-chromium-")
    try:
        # A session of its own: its helper processes are stopped with it, as a group.
        process = subprocess.Popen([path, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, start_new_session=os.name == "posix")
        try:
            port_file = Path(profile) / "DevToolsActivePort"
            deadline = time.monotonic() + START_TIMEOUT
            while not (port_file.exists() and len(port_file.read_text().split()) >= 2):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise BrowserError(f"{path} did not start its DevTools in {START_TIMEOUT:g} s")
                await asyncio.sleep(0.05)
            port, endpoint = port_file.read_text().split()[:2]
            async with aiohttp.ClientSession() as client:
                socket = await client.ws_connect(f"ws://127.0.0.1:{port}{endpoint}",
                                                 max_msg_size=64 * 1024 * 1024)
                browser = Browser(socket)
                try:
                    yield browser
                finally:
                    await browser.close()
        finally:
            _stop(process)
    finally:
        await _remove_profile(Path(profile))


def _stop(process: subprocess.Popen[bytes]) -> None:
    """Stop the browser, then whatever of its group is left (helpers that write the profile)."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
    if os.name == "posix":
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)


async def _remove_profile(profile: Path) -> None:
    """Remove the profile; a helper that was still writing it when it was stopped can leave
    a file behind the first walk ("Directory not empty", seen beside a second suite)."""
    for _ in range(20):  # bounded: 2 s
        try:
            shutil.rmtree(profile)
            return
        except OSError:  # a file gone or added under the walk: done once the folder is gone
            if not profile.exists():
                return
            await asyncio.sleep(0.1)
    shutil.rmtree(profile, ignore_errors=True)
