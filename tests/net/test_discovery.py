"""Discovery on loopback: advertise, find, update, withdraw; stale and hostile records."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from zeroconf import DNSQuestionType, ServiceInfo, Zeroconf
from zeroconf.asyncio import AsyncServiceInfo

from p2pcards.net import discovery
from p2pcards.net.connection import Server, serve
from p2pcards.net.discovery import Awaited, TableAdvertiser, TableBrowser, browse_tables
from p2pcards.net.table_record import (
    SERVICE_TYPE,
    TableInfo,
    instance_name,
    parse_table,
    table_properties,
)
from p2pcards.protocol.identity import Identity

LOOPBACK = ["127.0.0.1"]
BOUND = 10.0
REPO_ROOT = Path(__file__).resolve().parents[2]


async def listening(identity: Identity) -> Server:
    return await serve("127.0.0.1", 0, identity, lambda conn: conn.close())


def advertiser(identity: Identity, port: int, name: str = "Kitchen", free: int = 3) -> TableAdvertiser:
    return TableAdvertiser(
        table_name=name, game="bluff", port=port, fingerprint=identity.fingerprint,
        free_seats=free, version=1, interfaces=LOOPBACK, public_key=identity.public_key,
        host_name=identity.name,
    )


async def wait_for_table(
    browser: TableBrowser, fingerprint: str, condition: Callable[[TableInfo | None], bool]
) -> TableInfo | None:
    """Poll the browser until the table with ``fingerprint`` meets ``condition`` (bounded)."""
    async with asyncio.timeout(BOUND):
        while True:
            tables = {t.fingerprint: t for t in await browser.tables()}
            table = tables.get(fingerprint)
            if condition(table):
                return table
            await asyncio.sleep(0.1)


@pytest.mark.asyncio
async def test_advertised_table_is_found_with_its_txt_fields(alice: Identity) -> None:
    server = await listening(alice)
    try:
        async with advertiser(alice, server.port, name="Kitchen \x1b[2Jtable", free=3):
            await asyncio.sleep(1.0)  # a just-announced record is not multicast again for 1 s
            for _ in range(5):  # one-shot browses, each bounded; the first normally suffices
                tables = await browse_tables(timeout=1.0, interfaces=LOOPBACK)
                mine = [t for t in tables if t.fingerprint == alice.fingerprint]
                if mine:
                    break
    finally:
        server.close()
    assert len(mine) == 1
    table = mine[0]
    assert (table.name, table.game, table.free_seats, table.version) == ("Kitchen [2Jtable", "bluff", 3, 1)
    assert (table.host, table.port) == ("127.0.0.1", server.port)
    assert alice.fingerprint in table.instance


@pytest.mark.asyncio
async def test_update_changes_free_seats(alice: Identity) -> None:
    server = await listening(alice)
    try:
        async with TableBrowser(LOOPBACK) as browser, advertiser(alice, server.port, free=3) as adv:
            first = await wait_for_table(browser, alice.fingerprint, lambda t: t is not None)
            assert first is not None and first.free_seats == 3
            await adv.update(free_seats=1)
            updated = await wait_for_table(browser, alice.fingerprint, lambda t: t is not None and t.free_seats == 1)
            assert updated is not None and updated.instance == first.instance
    finally:
        server.close()


@pytest.mark.asyncio
async def test_stopped_table_disappears(alice: Identity) -> None:
    server = await listening(alice)
    try:
        async with TableBrowser(LOOPBACK) as browser:
            adv = advertiser(alice, server.port)
            await adv.start()
            found = await wait_for_table(browser, alice.fingerprint, lambda t: t is not None)
            assert found is not None
            await adv.stop()
            # The goodbye withdraws it even though its port still answers.
            async with asyncio.timeout(BOUND):
                while found.instance in browser.heard_of:
                    await asyncio.sleep(0.05)
            assert alice.fingerprint not in {t.fingerprint for t in await browser.tables()}
    finally:
        server.close()


@pytest.mark.asyncio
async def test_a_browse_awaiting_a_table_listens_past_its_window_until_it_answers(
        alice: Identity, monkeypatch: pytest.MonkeyPatch) -> None:
    """The table is announced only after the browse's window closed without it."""
    looks: list[list[TableInfo]] = []
    looked = TableBrowser.tables

    async def counted(browser: TableBrowser, *args: float, **kwargs: object) -> list[TableInfo]:
        found = await looked(browser, *args, **kwargs)  # type: ignore[arg-type]
        looks.append(found)
        return found

    monkeypatch.setattr(TableBrowser, "tables", counted)
    awaited = Awaited(listed=(("Late den", alice.fingerprint),), patience=3 * BOUND)
    server = await listening(alice)
    adv = advertiser(alice, server.port, name="Late den")
    browsing = asyncio.create_task(browse_tables(timeout=0.0, interfaces=LOOPBACK, awaited=awaited))
    try:
        async with asyncio.timeout(BOUND):
            while not looks:  # bounded: the window (none) is over at the first look
                await asyncio.sleep(0.01)
        assert alice.fingerprint not in {t.fingerprint for t in looks[0]}
        await adv.start()
        found = await asyncio.wait_for(browsing, 4 * BOUND)
    finally:
        browsing.cancel()
        await adv.stop()
        server.close()
    assert [t.name for t in found if t.fingerprint == alice.fingerprint] == ["Late den"]


@pytest.mark.asyncio
async def test_a_browse_awaiting_a_table_that_never_answers_ends_with_its_patience() -> None:
    nobody = Identity.generate("nobody")
    awaited = Awaited(listed=(("Gone den", nobody.fingerprint),), patience=1.0)
    found = await asyncio.wait_for(browse_tables(timeout=0.1, interfaces=LOOPBACK, awaited=awaited),
                                   BOUND)
    assert nobody.fingerprint not in {t.fingerprint for t in found}


#: How late the table's records come: a responder that multicast them within the
#: last second waits (RFC 6762 §6), and a loaded machine adds its own delay.
LATE = 1.5


class _LateAnswers(AsyncServiceInfo):
    """A resolution whose answer comes ``LATE`` seconds after the question."""

    async def async_request(self, zc: Zeroconf, timeout: float, question_type: DNSQuestionType | None = None,
                            addr: str | None = None, port: int = 5353) -> bool:
        if timeout < LATE * 1000:
            await asyncio.sleep(timeout / 1000)
            return False
        await asyncio.sleep(LATE)
        answered: bool = await super().async_request(zc, timeout - LATE * 1000, question_type, addr, port)
        return answered


@pytest.mark.asyncio
async def test_a_table_heard_while_listening_is_resolved_within_the_window(
        alice: Identity, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its records answer 1.5 s late: a 2 s listen that heard it early lists it (it
    was resolved from the moment it was heard, not only when the window closed)."""
    server = await listening(alice)
    try:
        async with advertiser(alice, server.port, name="Slow den"):
            await asyncio.sleep(1.0)  # announced, and its first multicasts are over
            monkeypatch.setattr(discovery, "AsyncServiceInfo", _LateAnswers)
            async with TableBrowser(LOOPBACK) as browser:
                async with asyncio.timeout(BOUND):  # heard at once: the PTR is not late
                    while not any(alice.fingerprint in name for name in browser.heard_of):
                        await asyncio.sleep(0.05)
                await asyncio.sleep(2.0 - 0.05)
                listed = await browser.tables()
    finally:
        server.close()
    assert [t.name for t in listed if t.fingerprint == alice.fingerprint] == ["Slow den"]


ADVERTISER_SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    from p2pcards.net.connection import serve
    from p2pcards.net.discovery import TableAdvertiser
    from p2pcards.protocol.identity import Identity

    async def main():
        me = Identity.generate("doomed")
        server = await serve("127.0.0.1", 0, me, lambda conn: conn.close())
        adv = TableAdvertiser(table_name="Doomed", game="topper", port=server.port,
                              fingerprint=me.fingerprint, free_seats=2, version=1,
                              interfaces=["127.0.0.1"], public_key=me.public_key)
        await adv.start()
        print(me.fingerprint, server.port, flush=True)
        await asyncio.sleep(60)  # killed long before; never outlives a stuck test by much

    asyncio.run(main())
    """
)


@pytest.mark.asyncio
async def test_killed_advertiser_is_not_listed_as_live() -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    process = subprocess.Popen(
        [sys.executable, "-c", ADVERTISER_SCRIPT], stdout=subprocess.PIPE, text=True, env=env, cwd=REPO_ROOT
    )
    try:
        async with TableBrowser(LOOPBACK) as browser:
            assert process.stdout is not None
            line = await asyncio.wait_for(asyncio.to_thread(process.stdout.readline), BOUND)
            fingerprint, _port = line.split()
            live = await wait_for_table(browser, fingerprint, lambda t: t is not None)
            assert live is not None
            process.send_signal(signal.SIGKILL)  # no goodbye is sent
            process.wait(timeout=BOUND)
            assert live.instance in browser.heard_of  # the stale record lingers...
            tables = await browser.tables()
            assert fingerprint not in {t.fingerprint for t in tables}  # ...but is not listed as live
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=BOUND)
        if process.stdout is not None:
            process.stdout.close()


# --- names and hostile TXT records ----------------------------------------------------------


def service(properties: Mapping[bytes, bytes | None] | bytes, port: int = 4000) -> ServiceInfo:
    return ServiceInfo(
        SERVICE_TYPE, f"Somewhere [aaaa-bbbb-cccc].{SERVICE_TYPE}", port=port,
        properties=properties if isinstance(properties, bytes) else dict(properties),
        server="x.local.", parsed_addresses=["127.0.0.1"],
    )


DEN_HOST = Identity.generate("Dana")
GOOD = {b"game": b"bluff", b"name": b"Den", b"free": b"2", b"v": b"1",
        b"fp": DEN_HOST.fingerprint.encode(), b"pk": DEN_HOST.public_key.hex().encode(),
        b"port": b"4000", b"hn": b"Dana\x1b[2J"}


def test_good_txt_record_parses() -> None:
    table = parse_table(service(GOOD), "10.0.0.5")
    assert table == TableInfo(
        name="Den", game="bluff", host="10.0.0.5", port=4000, free_seats=2, version=1,
        fingerprint=DEN_HOST.fingerprint,
        instance=f"Somewhere [aaaa-bbbb-cccc].{SERVICE_TYPE}",
        public_key=DEN_HOST.public_key, host_name="Dana [2J",
    )


@pytest.mark.parametrize(
    "change",
    [
        {b"free": b"lots"},
        {b"free": b"-1"},
        {b"free": b"\xff"},
        {b"v": b""},
        {b"v": None},
        {b"fp": b"not-a-fingerprint"},
        {b"game": b"Bluff; rm -rf"},
        {b"game": b"\xc3\x28"},
        {b"port": b"4001"},  # disagrees with the SRV record
        {b"free": "٣".encode()},  # a non-ASCII digit
    ],
)
def test_bad_txt_values_skip_the_table(change: dict[bytes, bytes | None]) -> None:
    assert parse_table(service({**GOOD, **change}), "10.0.0.5") is None


def test_missing_fields_skip_the_table() -> None:
    # pk too: with only the 48-bit fingerprint a joiner could not pin the host's key.
    for key in (b"game", b"free", b"v", b"fp", b"pk"):
        assert parse_table(service({k: v for k, v in GOOD.items() if k != key}), "10.0.0.5") is None


def test_the_table_clock_round_trips_through_the_txt_record_and_no_clock_is_zero() -> None:
    """A host's clock (0: none) is announced and read back; an older host's record
    without the key, or a value no genesis could set, reads as unknown (None)."""
    for clock in (120, 1, 3600, 0):
        announced = table_properties(table_name="Den", game="bluff", free_seats=2, version=1,
                                     fingerprint=DEN_HOST.fingerprint, port=4000,
                                     public_key=DEN_HOST.public_key, clock=clock)
        assert announced[b"clock"] == str(clock).encode()
        table = parse_table(service(announced), "10.0.0.5")
        assert table is not None and table.clock == clock
    unsaid = table_properties(table_name="Den", game="bluff", free_seats=2, version=1,
                              fingerprint=DEN_HOST.fingerprint, port=4000, public_key=DEN_HOST.public_key)
    assert b"clock" not in unsaid
    for record in (GOOD, {**GOOD, b"clock": b"3601"}, {**GOOD, b"clock": b"-1"}, {**GOOD, b"clock": b"soon"}):
        table = parse_table(service(record), "10.0.0.5")
        assert table is not None and table.clock is None


def test_control_characters_are_stripped_from_names() -> None:
    table = parse_table(service({**GOOD, b"name": b"Evil\x1b]0;pwned\x07\r\nTable"}), "10.0.0.5")
    assert table is not None and table.name == "Evil ]0;pwned Table"


def test_name_that_is_not_utf8_falls_back_to_the_instance_name() -> None:
    table = parse_table(service({**GOOD, b"name": b"\xff\xfe"}), "10.0.0.5")
    assert table is not None and table.name == "Somewhere [aaaa-bbbb-cccc]"


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_arbitrary_txt_bytes_never_crash(text: bytes) -> None:
    result = parse_table(service(text), "10.0.0.5")
    assert result is None or isinstance(result, TableInfo)


def test_instance_names_are_unique_per_host_key_and_fit_a_dns_label() -> None:
    one, two = Identity.generate(), Identity.generate()
    assert instance_name("Den", one.fingerprint) != instance_name("Den", two.fingerprint)
    long = instance_name("ö" * 100 + ".x", one.fingerprint)
    assert len(long.encode()) <= 63 and "." not in long and long.endswith(f"[{one.fingerprint}]")


def test_advertiser_refuses_bad_fields(alice: Identity) -> None:
    with pytest.raises(ValueError):
        TableAdvertiser(table_name="x", game="Bad Game", port=1, fingerprint=alice.fingerprint,
                        free_seats=1, version=1, public_key=alice.public_key)
    with pytest.raises(ValueError):
        TableAdvertiser(table_name="x", game="bluff", port=1, fingerprint="nope", free_seats=1,
                        version=1, public_key=alice.public_key)
    with pytest.raises(ValueError):
        TableAdvertiser(table_name="x", game="bluff", port=1, fingerprint=alice.fingerprint,
                        free_seats=-1, version=1, public_key=alice.public_key)


def test_announced_public_key_is_parsed_when_it_matches_the_fingerprint(alice: Identity) -> None:
    record = {**GOOD, b"fp": alice.fingerprint.encode(), b"pk": alice.public_key.hex().encode()}
    table = parse_table(service(record), "10.0.0.5")
    assert table is not None and table.public_key == alice.public_key


def test_public_key_that_does_not_match_the_fingerprint_skips_the_table(alice: Identity) -> None:
    other = Identity.generate("mallory")
    record = {**GOOD, b"fp": alice.fingerprint.encode(), b"pk": other.public_key.hex().encode()}
    assert parse_table(service(record), "10.0.0.5") is None


@pytest.mark.asyncio
async def test_browsing_on_an_interface_this_machine_lacks_says_so() -> None:
    from p2pcards.net.errors import UnknownInterface

    with pytest.raises(UnknownInterface, match="nope0"):
        await browse_tables(timeout=0.1, interfaces=["nope0"])


def test_hints_allowed_round_trip_through_the_txt_record_and_absent_is_off() -> None:
    """``host --hints`` is announced as ``hints=1``; no key (an older host, or hints off)
    or any other value reads as not allowed."""
    announced = table_properties(table_name="Den", game="bluff", free_seats=2, version=1,
                                 fingerprint=DEN_HOST.fingerprint, port=4000,
                                 public_key=DEN_HOST.public_key, hints=True)
    assert announced[b"hints"] == b"1"
    table = parse_table(service(announced), "10.0.0.5")
    assert table is not None and table.hints is True
    off = table_properties(table_name="Den", game="bluff", free_seats=2, version=1,
                           fingerprint=DEN_HOST.fingerprint, port=4000, public_key=DEN_HOST.public_key)
    assert b"hints" not in off
    for record in (GOOD, {**GOOD, b"hints": b"0"}, {**GOOD, b"hints": b"2"}, {**GOOD, b"hints": b"yes"}):
        table = parse_table(service(record), "10.0.0.5")
        assert table is not None and table.hints is False


def test_a_table_between_matches_says_so_with_its_freed_seats_and_absent_is_not() -> None:
    """A host whose end box has a freed seat announces ``end=1`` with ``free`` the seats
    freed (PROTOCOL.md §14); no key, or any other value, is a table that is not."""
    announced = table_properties(table_name="Den", game="bluff", free_seats=1, version=1,
                                 fingerprint=DEN_HOST.fingerprint, port=4000,
                                 public_key=DEN_HOST.public_key, between=True)
    assert announced[b"end"] == b"1"
    table = parse_table(service(announced), "10.0.0.5")
    assert table is not None and table.between is True and table.free_seats == 1
    for record in (GOOD, {**GOOD, b"end": b"0"}, {**GOOD, b"end": b"yes"}):
        table = parse_table(service(record), "10.0.0.5")
        assert table is not None and table.between is False
