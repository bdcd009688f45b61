"""The table in the browser (``--web``): the player's own peer serves its seat's view to
the player's own browser, on 127.0.0.1, to that browser alone.

Modules, one idea each:

- :mod:`.seat` — :class:`WebSeat`, one person's seat: the full screen's seat
  (:class:`~p2pcards.ui.tui.seatside.SeatSide`), answered from the page instead of keys;
- :mod:`.replay` — :class:`~.replay.WebReplay`, a saved table stepped through;
- :mod:`.table` — what both share: the model, the status line, the summary, the server;
- :mod:`.page`, :mod:`.page_games` — the page as data (JSON), from this seat's view alone;
- :mod:`.messages` — what the page sends, its fields checked;
- :mod:`.server` — the aiohttp server: the page's own files, the cards, one WebSocket;
- :mod:`.guard` — who may use it: loopback, ``Host``, ``Origin``, a one-time token;
- :mod:`.cardart` — the cards, drawn as SVG;
- ``static/`` — the page: HTML, CSS and small ES modules, no build step, nothing fetched
  from elsewhere.

Only ``--web`` imports this package, and aiohttp is imported only once the page is
served (on a thread, while the table starts): a terminal table never pays for it.
"""

from p2pcards.ui.web.seat import WebSeat

__all__ = ["WebSeat"]
