"""The browser table is its player's alone: each check of the gate refuses what it must.

Each test names one way in that is refused (no token, the ticket used twice, another
host, another page's origin, another site's request, a WebSocket without an origin, a
peer that is not loopback) and shows the same request let in when only that flaw is
mended, so each refusal is the check's own.
"""

from __future__ import annotations

import dataclasses

import pytest

from p2pcards.ui.web.guard import Gate, Refused, Request, is_loopback

PORT = 40123


def good(gate: Gate, **changes: object) -> Request:
    """A request the page itself makes (its cookie set), with ``changes``."""
    request = Request(remote="127.0.0.1", host=f"127.0.0.1:{PORT}",
                      origin=f"http://127.0.0.1:{PORT}", fetch_site="same-origin",
                      cookie=gate.secret)
    return dataclasses.replace(request, **changes)  # type: ignore[arg-type]


def test_the_page_with_its_cookie_is_let_in() -> None:
    gate = Gate(PORT)
    assert gate.admit(good(gate)) is False  # let in, and not by a token (no cookie to set)


def test_a_request_without_a_token_or_cookie_is_refused() -> None:
    gate = Gate(PORT)
    with pytest.raises(Refused, match="no valid token"):
        gate.admit(good(gate, cookie=None))
    with pytest.raises(Refused, match="no valid token"):
        gate.admit(good(gate, cookie="a-guess", token="another-guess"))
    with pytest.raises(Refused, match="no valid token"):
        gate.admit(good(gate, cookie=None, token="é-not-ascii"))


def test_the_printed_token_opens_the_table_again_and_again() -> None:
    gate = Gate(PORT)
    for _ in range(3):
        assert gate.admit(good(gate, cookie=None, token=gate.secret)) is True


def test_the_ticket_a_browser_is_started_with_opens_the_table_once() -> None:
    """A browser's command line can be read by other accounts (ps): once used, it is spent."""
    gate = Gate(PORT)
    assert gate.admit(good(gate, cookie=None, token=gate.ticket, fetch_site="none")) is True
    assert gate.ticket_spent
    with pytest.raises(Refused, match="used already"):
        gate.admit(good(gate, cookie=None, token=gate.ticket, fetch_site="none"))


def test_each_gate_has_its_own_tokens() -> None:
    first, second = Gate(PORT), Gate(PORT)
    assert len({first.secret, first.ticket, second.secret, second.ticket}) == 4
    with pytest.raises(Refused):
        second.admit(good(second, cookie=first.secret))


@pytest.mark.parametrize("host", [None, "127.0.0.1", "localhost:40123", f"127.0.0.1:{PORT + 1}",
                                  f"evil.example:{PORT}", f"127.0.0.1.nip.io:{PORT}"])
def test_another_host_is_refused_as_a_dns_rebinding(host: str | None) -> None:
    gate = Gate(PORT)
    with pytest.raises(Refused, match="host"):
        gate.admit(good(gate, host=host))


@pytest.mark.parametrize("origin", ["http://evil.example", f"http://localhost:{PORT}",
                                    f"http://127.0.0.1:{PORT + 1}", "null",
                                    f"https://127.0.0.1:{PORT}"])
def test_another_pages_origin_is_refused(origin: str) -> None:
    gate = Gate(PORT)
    with pytest.raises(Refused, match="page"):
        gate.admit(good(gate, origin=origin))
    with pytest.raises(Refused, match="page"):
        gate.admit(good(gate, origin=origin, websocket=True))


def test_a_websocket_must_say_its_origin() -> None:
    gate = Gate(PORT)
    with pytest.raises(Refused, match="WebSocket without an Origin"):
        gate.admit(good(gate, origin=None, websocket=True))
    assert gate.admit(good(gate, websocket=True)) is False


@pytest.mark.parametrize("site", ["cross-site", "same-site"])
def test_a_request_another_site_made_is_refused(site: str) -> None:
    """``same-site`` too: another port of 127.0.0.1 is the same site, not this page."""
    gate = Gate(PORT)
    with pytest.raises(Refused, match="another site"):
        gate.admit(good(gate, fetch_site=site, origin=None))


@pytest.mark.parametrize("remote", ["192.168.1.20", "10.0.0.5", "fd00::5", "::ffff:10.0.0.5",
                                    "0.0.0.0", "", None, "not-an-address"])
def test_a_peer_that_is_not_loopback_is_refused(remote: str | None) -> None:
    gate = Gate(PORT)
    with pytest.raises(Refused, match="loopback"):
        gate.admit(good(gate, remote=remote))


@pytest.mark.parametrize("remote", ["127.0.0.1", "127.3.2.1", "::1", "::ffff:127.0.0.1"])
def test_loopback_in_each_of_its_forms_is_loopback(remote: str) -> None:
    assert is_loopback(remote)
    gate = Gate(PORT)
    assert gate.admit(good(gate, remote=remote)) is False


def test_the_addresses_name_loopback_and_their_tokens() -> None:
    gate = Gate(PORT)
    assert gate.address() == f"http://127.0.0.1:{PORT}/?token={gate.secret}"
    assert gate.opening_address() == f"http://127.0.0.1:{PORT}/?token={gate.ticket}"
    assert gate.cookie_name == f"p2pcards-{PORT}"
    assert len(gate.secret) >= 40  # 32 random bytes, URL-safe base64
