"""Who may use a browser table: its own player's browser, and nothing else.

The table's page is served on 127.0.0.1, but loopback is not a person:
another account on the same machine, or a web page open in another tab,
can reach 127.0.0.1 too. So every request must pass every check here
before anything is served, and each refusal says which check failed:

- the peer address is loopback (the server listens on 127.0.0.1 alone; this
  is the server's own check of that, not a trust in the socket's options);
- ``Host`` is exactly ``127.0.0.1:PORT`` (a DNS-rebinding page's requests
  name its own host);
- ``Origin``, when the browser sends one, is exactly this page's own (a page
  of another site cannot open the table's WebSocket or call it); a
  WebSocket must send it;
- ``Sec-Fetch-Site``, when sent, says the request came from this page
  itself or from the person (an address typed or opened), never from
  another site, nor from another port of 127.0.0.1 (the same *site*);
- a secret: the cookie this server set, or a token in the address.

Two tokens, both from :mod:`secrets`. The *secret* is printed in the
terminal (open it again, or in another browser, at any time) and is the
cookie's value. The *ticket* is what the browser is started with: a
browser's command line can be read by other accounts on the machine
(``ps``), so the ticket opens the table once and is spent. The first
page load trades either token for the cookie (``HttpOnly``,
``SameSite=Strict``, this port's own name) and sends the browser on to
the bare address, so the secret does not stay in the address bar.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets
import socket
from dataclasses import dataclass

from p2pcards.errors import P2PCardsError

#: The one address the table is served on.
LOOPBACK = "127.0.0.1"
#: Connections the table's socket holds before the server accepts them.
LISTEN_QUEUE = 32
#: ``Sec-Fetch-Site`` values of a request this page or its person made.
OWN_FETCHES = frozenset({"same-origin", "none"})


class Refused(P2PCardsError):
    """A request the table does not serve; the message says which check failed."""


def loopback_socket(port: int = 0) -> socket.socket:
    """A TCP socket bound to 127.0.0.1 (a free port unless one is given) and listening: no
    other machine can reach it. Made before the web library is loaded, so the browser can
    be started at its address at once (its first request waits in the socket's queue)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.bind((LOOPBACK, port))
        sock.listen(LISTEN_QUEUE)
    except OSError:
        sock.close()
        raise
    return sock


def is_loopback(remote: str | None) -> bool:
    """Whether the peer address ``remote`` is this machine's loopback (IPv4, IPv6, or
    IPv4 mapped into IPv6)."""
    if not remote:
        return False
    try:
        address = ipaddress.ip_address(remote.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped.is_loopback
    return address.is_loopback


def _same(given: str, secret: str) -> bool:
    """A constant-time comparison of a token as received (any text) with a secret."""
    return hmac.compare_digest(given.encode("utf-8", "replace"), secret.encode())


@dataclass(frozen=True)
class Request:
    """What the gate reads of one HTTP request (or WebSocket handshake)."""

    remote: str | None
    host: str | None
    origin: str | None = None
    fetch_site: str | None = None
    cookie: str | None = None
    token: str | None = None
    websocket: bool = False


class Gate:
    """The checks of one table's server on ``port`` (see the module's docstring)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.secret = secrets.token_urlsafe(32)
        self.ticket = secrets.token_urlsafe(32)
        self._ticket_spent = False

    @property
    def origin(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    @property
    def host(self) -> str:
        return f"{LOOPBACK}:{self.port}"

    @property
    def cookie_name(self) -> str:
        """Cookies are shared by every port of a host: each table's has its own name."""
        return f"p2pcards-{self.port}"

    def address(self) -> str:
        """The address to print: it opens the table at any time, in any browser here."""
        return f"{self.origin}/?token={self.secret}"

    def opening_address(self) -> str:
        """The address a browser is started with: it opens the table once."""
        return f"{self.origin}/?token={self.ticket}"

    @property
    def ticket_spent(self) -> bool:
        return self._ticket_spent

    def admit(self, request: Request) -> bool:
        """Check ``request``; :class:`Refused` says why it is not served. True when it
        was let in by a token in its address (the page then sets the cookie)."""
        if not is_loopback(request.remote):
            raise Refused(f"the request came from {request.remote or 'an unknown address'}, "
                          f"not from this machine's loopback")
        if request.host != self.host:
            raise Refused(f"the request names the host {request.host!r}, not {self.host!r} "
                          f"(another site's page, or a DNS rebinding)")
        if request.origin is not None and request.origin != self.origin:
            raise Refused(f"the request comes from the page {request.origin!r}, not from "
                          f"the table's own page")
        if request.websocket and request.origin is None:
            raise Refused("a WebSocket without an Origin: only the table's page may open one")
        if request.fetch_site is not None and request.fetch_site not in OWN_FETCHES:
            raise Refused(f"the request was made by another site's page ({request.fetch_site})")
        if request.cookie is not None and _same(request.cookie, self.secret):
            return False
        if request.token is not None:
            if _same(request.token, self.secret):
                return True
            if _same(request.token, self.ticket):
                if self._ticket_spent:
                    raise Refused("this opening address was used already: open the address "
                                  "p2pcards printed in its terminal")
                self._ticket_spent = True
                return True
        raise Refused("no valid token: open the address p2pcards printed in its terminal")
