"""``tables`` at a LAN party: an address column that fits any address, zones named as
the hints name them, and list numbers that keep meaning the table they named
while other tables come and go (without a network: discovery's answer is given)."""

from __future__ import annotations

import asyncio
import json
import socket
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from p2pcards.commands import UserError
from p2pcards.commands.finding import (
    LIST_KEPT,
    TablesMatch,
    find_table,
    last_listed,
    pick_table,
    remember_listed,
    sought,
    table_lines,
)
from p2pcards.commands.options import build_parser
from p2pcards.net.addresses import zone_by_name
from p2pcards.net.discovery import Awaited, TableInfo
from p2pcards.protocol.identity import Identity
from tests.support.listing import listing_rows


def _table(name: str, host: str = "10.0.0.2", port: int = 4000, free: int = 2) -> TableInfo:
    key = Identity.generate(name)
    return TableInfo(name=name, game="topper", host=host, port=port, free_seats=free, version=1,
                     fingerprint=key.fingerprint, instance=f"{name} [{key.fingerprint}]",
                     public_key=key.public_key, host_name="Ann", clock=60)


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state"


# -- the address column ---------------------------------------------------------------------


def test_the_address_column_fits_an_ipv6_address_with_its_zone_and_the_key_stays_in_its_column() -> None:
    found = [_table("Den", "10.0.0.2", 4000),
             _table("Six", "2001:db8:1234:5678:9abc:def0:1234:5678", 65535),
             _table("Zone", "fe80::1234:5678:9abc:def0%enp0s31f6", 65535)]
    lines = table_lines(found)
    rows = listing_rows(lines)
    assert [row["ADDRESS"] for row in rows] == ["10.0.0.2:4000", "[2001:db8:1234:5678:9abc:def0:1234:5678]:65535",
                                                "[fe80::1234:5678:9abc:def0%enp0s31f6]:65535"]
    assert [row["KEY"] for row in rows] == [t.fingerprint for t in found]
    key_column = lines[0].index("KEY")
    assert all(line.index(t.fingerprint) == key_column for line, t in zip(lines[1:], found, strict=True))


def test_a_short_listing_keeps_the_usual_width() -> None:
    lines = table_lines([_table("Den")])
    assert lines[0].index("KEY") - lines[0].index("ADDRESS") == 21 + 2


@pytest.mark.skipif(not hasattr(socket, "if_indextoname"), reason="no interface names here")
def test_a_zone_given_as_an_index_reads_as_the_interface_name_as_in_the_hints() -> None:
    index, name = socket.if_nameindex()[0]
    assert zone_by_name(f"fe80::1%{index}") == f"fe80::1%{name}"
    assert zone_by_name(f"fe80::1%{name}") == f"fe80::1%{name}"
    assert zone_by_name("10.0.0.2") == "10.0.0.2" and zone_by_name("fd00::1") == "fd00::1"
    assert zone_by_name("fe80::1%987654") == "fe80::1%987654"  # no such interface: as given


def test_on_windows_a_zone_stays_an_index_as_windows_hints_show_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "win32")
    assert zone_by_name("fe80::1%1") == "fe80::1%1"


# -- numbers that keep their table ------------------------------------------------------------


def test_a_number_means_the_table_the_printed_list_gave_it_though_a_new_table_came_first() -> None:
    den, kitchen = _table("Den"), _table("Kitchen")
    printed = [(den.name, den.fingerprint), (kitchen.name, kitchen.fingerprint)]
    arrived = _table("Attic")  # sorts first: counted afresh, 2 would now be the Den
    assert pick_table([den, kitchen, arrived], "2", listed=printed) is kitchen
    assert pick_table([den, kitchen, arrived], "2", listed=None) is den
    assert pick_table([den, kitchen, arrived], "3", listed=printed) is kitchen  # beyond the list: afresh


def test_a_number_whose_table_has_gone_says_which_table_it_was() -> None:
    den, kitchen = _table("Den"), _table("Kitchen")
    printed = [(den.name, den.fingerprint), (kitchen.name, kitchen.fingerprint)]
    with pytest.raises(UserError, match=f'table 2 of the list you printed last, "Kitchen" \\(host key '
                                        f'{kitchen.fingerprint}\\), is no longer announced'):
        pick_table([den, _table("Attic")], "2", listed=printed)


def test_another_table_with_the_same_name_and_a_new_key_is_not_the_one_listed() -> None:
    den, twin = _table("Den"), _table("Den")
    with pytest.raises(UserError, match="no longer announced"):
        pick_table([twin], "1", listed=[(den.name, den.fingerprint)])


def test_the_printed_list_is_kept_for_a_while_then_forgotten(state: Path) -> None:
    den, kitchen = _table("Den"), _table("Kitchen")
    remember_listed([den, kitchen], now=1000.0)
    assert last_listed(now=1000.0 + LIST_KEPT) == [(den.name, den.fingerprint),
                                                   (kitchen.name, kitchen.fingerprint)]
    assert last_listed(now=1001.0 + LIST_KEPT) is None
    assert last_listed(now=999.0) is None  # a clock set back: not trusted


@pytest.mark.parametrize("text", [b"", b"{", b"[]", b'{"at": 1}', b'{"at": "x", "tables": []}',
                                  b'{"at": 1, "tables": [[1]]}'])
def test_a_damaged_list_file_is_no_list(state: Path, text: bytes) -> None:
    (state / "p2pcards").mkdir(parents=True)
    (state / "p2pcards" / "listed.json").write_bytes(text)
    assert last_listed(now=1.0) is None


def test_a_folder_that_cannot_keep_the_list_does_not_stop_tables(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("XDG_STATE_HOME", str(blocker))  # its p2pcards folder cannot be made
    remember_listed([_table("Den")])
    assert last_listed() is None


def _browsed(monkeypatch: pytest.MonkeyPatch, found: Sequence[TableInfo],
             asked: list[Awaited | None] | None = None) -> None:
    """Discovery answers ``found``; what each browse awaited goes to ``asked``."""
    async def browse(timeout: float = 1.0, interfaces: list[str] | None = None,
                     awaited: Awaited | None = None) -> list[TableInfo]:
        if asked is not None:
            asked.append(awaited)
        return list(found)
    monkeypatch.setattr("p2pcards.net.discovery.browse_tables", browse)


def _join(*argv: str) -> tuple[str, int, object]:
    return asyncio.run(find_table(build_parser().parse_args(["join", *argv])))


def test_tables_then_join_by_number_takes_the_listed_table_while_others_arrive(
        state: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from p2pcards.commands.finding import cmd_tables
    den, kitchen = _table("Den", port=4001), _table("Kitchen", port=4002)
    _browsed(monkeypatch, [kitchen, den])
    asyncio.run(cmd_tables(build_parser().parse_args(["tables"])))
    numbered = {row["TABLE"]: row["#"] for row in listing_rows(capsys.readouterr().out.splitlines())}
    _browsed(monkeypatch, [_table("Annex", port=4003), _table("Bar", port=4004), den, kitchen])
    assert _join(numbered["Kitchen"])[:2] == ("10.0.0.2", 4002)
    assert _join(numbered["Den"])[:2] == ("10.0.0.2", 4001)


def test_the_numbers_a_clash_gives_are_the_ones_join_then_takes(
        state: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    one, two = _table("Den", port=4001), _table("Den", port=4002)
    _browsed(monkeypatch, [one, two])
    with pytest.raises(TablesMatch) as clash:
        _join("Den")
    number = next(part.split(".")[0].strip() for part in str(clash.value).split(": ", 1)[1].split(";")
                  if two.fingerprint in part)
    _browsed(monkeypatch, [_table("Attic", port=4003), one, two])  # arrives after the sentence
    assert _join(number)[:2] == ("10.0.0.2", 4002)


def test_tables_json_keeps_its_numbers_too(state: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    from p2pcards.commands.finding import cmd_tables
    den = replace(_table("Den"), port=4001)
    _browsed(monkeypatch, [den])
    asyncio.run(cmd_tables(build_parser().parse_args(["tables", "--json"])))
    assert json.loads(capsys.readouterr().out)["number"] == 1
    _browsed(monkeypatch, [_table("Attic"), den])
    assert _join("1")[:2] == ("10.0.0.2", 4001)


# -- looking on for the table a person named ---------------------------------------------------


def test_join_by_a_name_the_list_showed_twice_looks_on_until_both_answered() -> None:
    den, twin, kitchen = _table("Den"), _table("Den"), _table("Kitchen")
    printed = [(t.name, t.fingerprint) for t in (den, twin, kitchen)]
    awaited = sought("Den", printed)
    assert set(awaited.listed) == {printed[0], printed[1]} and awaited.patience > 0
    assert not awaited.met([den, kitchen], withdrawn=())  # the twin has not answered yet
    assert awaited.met([den, twin], withdrawn=())
    # A twin that said goodbye is not waited for.
    assert awaited.met([den], withdrawn=set(Awaited(listed=(printed[1],)).instances()))


def test_join_by_number_or_key_looks_on_for_the_table_the_list_gave_it() -> None:
    den, kitchen = _table("Den"), _table("Kitchen")
    printed = [(den.name, den.fingerprint), (kitchen.name, kitchen.fingerprint)]
    assert sought("2", printed).listed == (printed[1],)
    assert sought(kitchen.fingerprint[:4], printed).listed == (printed[1],)
    assert sought(None, printed).listed == tuple(printed)  # the only open one: all listed answer


def test_a_table_no_list_showed_is_looked_for_until_one_of_its_name_answers() -> None:
    den, attic = _table("Den"), _table("Attic")
    awaited = sought("Den", [(attic.name, attic.fingerprint)])
    assert awaited.listed == ()
    assert not awaited.met([attic], withdrawn=()) and awaited.met([attic, den], withdrawn=())
    numbered = sought("2", None)  # no list: the second of today's tables
    assert not numbered.met([den], withdrawn=()) and numbered.met([den, attic], withdrawn=())


def test_join_asks_discovery_to_look_on_for_the_tables_the_printed_list_named(
        state: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from p2pcards.commands.finding import cmd_tables
    one, two = _table("Den", port=4001), _table("Den", port=4002)
    asked: list[Awaited | None] = []
    _browsed(monkeypatch, [one, two], asked)
    asyncio.run(cmd_tables(build_parser().parse_args(["tables"])))
    assert asked == [None]  # a listing shows what answered in its window
    with pytest.raises(TablesMatch):
        _join("Den")
    awaited = asked[-1]
    assert awaited is not None
    assert set(awaited.listed) == {(one.name, one.fingerprint), (two.name, two.fingerprint)}
