"""What a seat's browser table and a replay's share: the model, the server, the boxes.

:class:`WebTable` holds the screen's :class:`~p2pcards.ui.tui.model.ScreenModel`
(the full screen's own, fed the same events), the status line's message,
a deal's summary and how long it stays up, and the
:class:`~p2pcards.ui.web.server.TableServer` that shows them to the
browser. Starting it does not hold the table up: the web library is
imported on a thread while the table's first steps (its cryptography)
run, then the server listens, the terminal prints its address and the
default browser is opened there (:mod:`webbrowser`, on a thread of its own:
a browser slow to start holds nothing up either).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import sys
import threading
import webbrowser
from collections.abc import Callable
from typing import TYPE_CHECKING

from p2pcards.net.stopping import stop_task
from p2pcards.rules.contract import Engine
from p2pcards.ui.text_common import clean
from p2pcards.ui.text_summary import Summary
from p2pcards.ui.tui.model import ScreenModel
from p2pcards.ui.web import page
from p2pcards.ui.web.guard import Gate, loopback_socket
from p2pcards.ui.web.messages import BadMessage
from p2pcards.ui.web.page_games import Json
from p2pcards.wiremap import WireMap

if TYPE_CHECKING:
    from p2pcards.ui.web.server import TableServer

#: What the table says in the terminal (the address, the program's notes).
Echo = Callable[[str], None]
#: Refused requests said in the terminal (then one line says more are not shown).
REFUSALS_SHOWN = 3


def _server_class() -> type[TableServer]:
    """The server's class, imported (with aiohttp) on the thread this runs on."""
    from p2pcards.ui.web.server import TableServer
    return TableServer


def graphical_session() -> bool:
    """Whether a graphical browser can be started here. On Linux and the BSDs a
    terminal without a display would get a text browser, which cannot run the page
    and would take the terminal over: there the address is printed only."""
    if sys.platform in ("win32", "darwin"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


class WebTable:
    """A table shown in the browser: the model, the status line, the summary, the server.

    ``summary_seconds``: how long a deal's summary stays up by itself (a LAN
    table, where the others go on); None: until the person closes it.
    ``echo`` prints in the terminal; ``open_browser`` starts the default
    browser at the table's address (else the address is only printed).
    """

    #: What the page's help lists as the keys.
    help_keys: page.KeyRows = page.SEAT_KEYS

    def __init__(self, *, summary_seconds: float | None = None, echo: Echo | None = None,
                 open_browser: bool = True) -> None:
        self.model = ScreenModel()
        self.message: tuple[str, str] | None = None
        self.summary_seconds = summary_seconds
        self.summary_until: float | None = None
        self.echo: Echo = echo or (lambda text: print(text, flush=True))
        self.open_browser = open_browser
        #: The page's server, once started (see :meth:`start`).
        self.server: TableServer | None = None
        self._refusals = 0
        self._opening: asyncio.Task[str] | None = None
        #: The address printed in the terminal (once started).
        self.address: str | None = None
        self._timed: Summary | None = None
        self._closing = asyncio.Event()
        self._served: asyncio.Task[None] | None = None

    # -- what the page shows -------------------------------------------------------------

    def parts(self) -> dict[str, object]:
        return {"table": page.table_part(self), "log": page.log_part(self.model),
                "history": {"lines": self.history_text()},
                "help": page.help_part(self.model.game, self.help_keys)}

    def now(self) -> float:
        try:
            return asyncio.get_running_loop().time()
        except RuntimeError:
            return 0.0

    def shown_view(self) -> Engine | None:
        return self.model.view

    def deciding_view(self) -> Engine | None:
        return None

    def end_box(self) -> Json:
        return {"ready": True, "again": None, "fill": False, "leave": "leave"}

    def extras(self) -> Json:
        return {}

    def history_text(self) -> list[str]:
        model = self.model
        return model.history.lines(model.names(), model.me, model.view, symbols=True)

    def summary_seconds_left(self) -> int | None:
        if self.summary_until is None or self.model.summary is None:
            return None
        return max(0, int(self.summary_until - self.now() + 0.999))

    # -- what the page sends ---------------------------------------------------------------

    def receive(self, message: WireMap) -> None:
        """A message from the page: the boxes and the log here, the rest :meth:`act`."""
        kind = message["type"]
        if kind == "summary_read":
            self.close_summary()
        elif kind == "details":
            self.model.show_details = not self.model.show_details
        else:
            self.act(kind, message)
        self._invalidate()

    def act(self, kind: str, message: WireMap) -> None:
        raise BadMessage(f"the page sent {clean(kind, 20)!r}, which this table does not take")

    def close_summary(self) -> None:
        self.model.summary, self.summary_until = None, None

    # -- changes ---------------------------------------------------------------------------

    def note(self, text: str) -> None:
        """A line from the program (e.g. the address a hosted table listens on): in the log
        and in the terminal."""
        self.model.note(clean(text, 300), "info")
        self.echo(text)
        self._invalidate()

    def _refuse(self, text: str) -> None:
        """A choice that cannot act: say why (and log it); nothing else changes."""
        self.message = self.model.refused(text)
        self._invalidate()

    def _invalidate(self) -> None:
        """Something changed: time a LAN table's new summary, tell the page."""
        summary = self.model.summary
        if (summary is not None and summary is not self._timed and self.summary_seconds
                is not None and self.model.ending is None):
            self._timed = summary
            self.summary_until = self.now() + self.summary_seconds
            with contextlib.suppress(RuntimeError):  # no loop: nothing to time
                asyncio.get_running_loop().call_later(
                    self.summary_seconds, self._summary_timed_out, summary)
        if self.server is not None:
            self.server.changed()

    def _refused(self, reason: str) -> None:
        """A request the gate refused: said in the terminal (the first few), since it may be
        another program or page trying the table."""
        self._refusals += 1
        if self._refusals <= REFUSALS_SHOWN:
            self.echo(f"Refused a request to the table's page: {reason}.")
        elif self._refusals == REFUSALS_SHOWN + 1:
            self.echo("More refused requests to the table's page are not shown.")

    def _summary_timed_out(self, shown: Summary) -> None:
        if self.model.summary is shown:
            self.close_summary()
            self._invalidate()

    # -- running ---------------------------------------------------------------------------

    @property
    def app_task(self) -> asyncio.Task[None] | None:
        """Done once the page is no longer served (None: not started)."""
        return self._served

    async def _serve(self) -> None:
        await self._closing.wait()

    async def start(self) -> None:
        """Begin serving the page (see :meth:`opened`); returns at once, so the table's first
        steps run while the web library loads."""
        if self._served is not None:
            return
        self._served = asyncio.ensure_future(self._serve())
        self._opening = asyncio.ensure_future(self._open())

    async def opened(self) -> str:
        """The page's address, once it is served; a failure to serve it (said in the
        terminal, and the end of the page's side of the table) is raised here."""
        if self._opening is None:
            await self.start()
        assert self._opening is not None
        return await asyncio.shield(self._opening)

    async def _open(self) -> str:
        """The socket first, so the browser starts at once; then the web library (on a
        thread: the table's first steps go on) and the server on that socket."""
        sock: socket.socket | None = None
        try:
            sock = loopback_socket()
            gate = Gate(sock.getsockname()[1])
            self.address = gate.address()
            self._announce(gate.opening_address())
            server_class = await asyncio.to_thread(_server_class)
            server = server_class(self, on_refused=self._refused)
            await server.start(sock, gate)
        except BaseException as error:
            if sock is not None:
                sock.close()
            if not isinstance(error, asyncio.CancelledError):
                self.echo(f"The table could not be served to the browser: {error}")
            self._closing.set()  # nobody can play here: the run ends
            raise
        self.server = server
        server.changed()
        return self.address

    def _announce(self, opening: str) -> None:
        """The address in the terminal, and the browser started at it (where one can be)."""
        assert self.address is not None
        if self.open_browser and graphical_session():
            self.echo(f"The table is open in your browser; its address (for another browser "
                      f"on this machine): {self.address}")
            self._start_browser(opening)
        else:
            self.echo(f"Open the table in a browser on this machine: {self.address}")
        self.echo("Ctrl-C here leaves the table too.")

    def _start_browser(self, address: str) -> None:
        loop = asyncio.get_running_loop()

        def started(ok: bool) -> None:
            if not ok:
                self.echo("No browser could be started here: open the address above in yours.")

        def run() -> None:
            try:
                ok = webbrowser.open(address)
            except Exception:  # noqa: BLE001 - any browser launcher's failure is the same to us
                ok = False
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(started, ok)

        threading.Thread(target=run, name="p2pcards-browser", daemon=True).start()

    async def stop(self) -> None:
        """Send the page its last state, close it and stop serving."""
        opening, self._opening = self._opening, None
        if opening is not None:
            await stop_task(opening, quiet=True)  # a failure was said when it happened
        if self.server is not None:
            await self.server.stop()
        self._closing.set()
        if self._served is not None:
            await asyncio.wait({self._served})
