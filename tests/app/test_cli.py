"""The p2pcards command, run as a user would run it."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.listing import listing_rows
from tests.support.names import own_name
from tests.support.typed import present

BOUND = 180


def run_cli(args: list[str], home: Path, timeout: float = BOUND) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(home / "config"), "XDG_STATE_HOME": str(home / "state")}
    return subprocess.run([sys.executable, "-m", "p2pcards", *args], env=env, capture_output=True,
                          text=True, timeout=timeout)


def test_whoami_creates_one_identity_and_keeps_it(tmp_path: Path) -> None:
    first = run_cli(["whoami", "--name", "Zoe"], tmp_path)
    second = run_cli(["whoami"], tmp_path)
    assert first.returncode == 0 and first.stdout == second.stdout
    name, fingerprint = second.stdout.split()
    assert name == "Zoe" and len(fingerprint) == 14


@pytest.mark.slow
def test_play_with_a_bot_in_my_seat_finishes_and_its_transcript_verifies(tmp_path: Path) -> None:
    played = run_cli(["play", "topper", "--bot", "heuristic", "--target", "3", "--name", "Me"], tmp_path)
    assert played.returncode == 0, played.stderr
    assert "Match over:" in played.stdout
    transcript = played.stdout.split("p2pcards verify ")[1].strip()
    checked = run_cli(["verify", transcript], tmp_path)
    assert checked.returncode == 0, checked.stdout
    assert "OK: every signature, proof and rule checks." in checked.stdout
    assert "shuffle proofs" in checked.stdout


@pytest.mark.slow
def test_verify_reports_a_damaged_transcript(tmp_path: Path) -> None:
    played = run_cli(["play", "topper", "--bot", "random", "--target", "2"], tmp_path)
    assert played.returncode == 0, played.stderr
    row = json.loads(run_cli(["saved", "--json"], tmp_path).stdout.splitlines()[0])
    transcript = Path(row["path"]) / "transcript"
    data = bytearray(transcript.read_bytes())
    data[len(data) // 2] ^= 0xFF
    transcript.write_bytes(bytes(data))
    checked = run_cli(["verify", str(transcript)], tmp_path)
    assert checked.returncode == 1 and "FAILED" in checked.stdout


def test_verify_without_a_transcript_says_so(tmp_path: Path) -> None:
    checked = run_cli(["verify", str(tmp_path / "nothing")], tmp_path)
    assert checked.returncode == 2 and "no transcript" in checked.stderr


def test_unknown_game_is_refused_with_usage(tmp_path: Path) -> None:
    result = run_cli(["play", "poker"], tmp_path)
    assert result.returncode == 2 and "invalid choice" in result.stderr


@pytest.mark.slow
def test_saved_lists_only_your_own_tables_with_game_table_and_result(tmp_path: Path) -> None:
    played = run_cli(["play", "topper", "--bot", "random", "--target", "2", "--name", "Pia"],
                     tmp_path)
    assert played.returncode == 0, played.stderr
    listed = run_cli(["saved"], tmp_path)
    assert listed.returncode == 0
    lines = listed.stdout.splitlines()
    assert lines[0].split() == ["SESSION", "GAME", "TABLE", "SAVED", "STATUS"]
    # One table: your seat only, not the three bots' seats nor the host's relay
    # (those are named as what else its folder holds).
    assert len(lines) == 6 and sum(line[:1] != " " for line in lines) == 2
    assert "topper" in lines[1] and "Pia's table" in lines[1] and "over:" in lines[1]
    assert " won" in lines[1] and "players:" in lines[2] and "Pia" in lines[2]
    assert "record: " in lines[3] and "(yours; its session's folder also holds: " in lines[4]
    assert "check it: " in lines[5] and " verify " in lines[5]
    rows = [json.loads(line) for line in run_cli(["saved", "--json"], tmp_path).stdout.splitlines()]
    assert len(rows) == 1 and rows[0]["game"] == "topper" and rows[0]["in_play"] is False


@pytest.mark.slow
def test_resume_without_a_session_says_when_no_table_is_in_play(tmp_path: Path) -> None:
    run_cli(["play", "topper", "--bot", "random", "--target", "1"], tmp_path)
    result = run_cli(["resume"], tmp_path, timeout=30)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "no saved table of yours is in play" in result.stderr


@pytest.mark.parametrize("args, says", [
    (["host", "bluff", "--port", "99999"], "a port is a number from 0 to 65535, not 99999"),
    (["host", "bluff", "--port", "-5"], "a port is a number from 0 to 65535, not -5"),
    (["host", "topper", "--bots", "5"], "0, 1, 2 or 3 bots, not 5"),
    (["host", "topper", "--bots", "-1"], "0, 1, 2 or 3 bots, not -1"),
    (["play", "bluff", "--deadline", "0"], "the time must be a positive number of seconds, not 0"),
    (["play", "bluff", "--deadline", "-3"], "the time must be a positive number of seconds, not -3"),
    (["play", "bluff", "--reconnect-window", "nan"], "positive number of seconds, not nan"),
    (["play", "bluff", "--bot-kind", "smart"], "invalid choice: 'smart'"),
    (["play", "bluff", "--bots", "smart"], "invalid choice: 'smart'"),
    (["host", "bluff", "--bot-kind", "smart"], "invalid choice: 'smart'"),
])
def test_impossible_options_are_one_sentence_and_exit_2(tmp_path: Path, args: list[str], says: str) -> None:
    result = run_cli(args, tmp_path, timeout=30)
    assert result.returncode == 2
    assert says in result.stderr and "Traceback" not in result.stderr


def test_hosting_on_a_busy_port_says_so_without_a_traceback(tmp_path: Path) -> None:
    import socket
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run_cli(["host", "bluff", "--plain", "--no-advertise", "--bind", "127.0.0.1",
                          "--port", str(port)], tmp_path, timeout=30)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"cannot host on 127.0.0.1:{port}: that port is already in use" in result.stderr


def test_hosting_on_an_address_of_another_machine_says_so(tmp_path: Path) -> None:
    # Binding sends nothing: 192.0.2.1 (TEST-NET-1) is simply not an address of this machine.
    result = run_cli(["host", "bluff", "--plain", "--no-advertise", "--bind", "192.0.2.1"],
                     tmp_path, timeout=30)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "192.0.2.1 is not an address of this machine" in result.stderr


@pytest.mark.slow
def test_the_exit_hint_is_one_short_line_that_runs_as_printed(tmp_path: Path) -> None:
    played = run_cli(["play", "topper", "--bot", "random", "--target", "1"], tmp_path)
    line = next(line for line in played.stdout.splitlines() if "check it with: " in line)
    hint = line.split("check it with: ")[1].strip()
    # A session id's start, not a 64-hex folder, and no absolute path to the venv.
    assert len(line) < 100 and str(tmp_path) not in line and os.getcwd() not in line, line
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "XDG_STATE_HOME": str(tmp_path / "state"), "PATH": "/usr/bin:/bin"}
    checked = subprocess.run(shlex.split(hint), env=env, capture_output=True, text=True,
                             timeout=BOUND)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "OK: every signature, proof and rule checks." in checked.stdout


def test_a_resumed_solo_table_is_not_said_to_listen_on_a_port() -> None:
    from p2pcards.commands.resuming import resumed_line as _resumed_line
    solo = _resumed_line("Me's table", None)
    assert "None" not in solo and "port" not in solo and "against the bots" in solo
    assert "on port 4711" in _resumed_line("den", 4711)


@pytest.fixture(scope="module")
def finished_home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Path]:
    """A home holding one finished solo Topper match: (home, session id, your transcript)."""
    home = tmp_path_factory.mktemp("finished")
    played = run_cli(["play", "topper", "--bot", "random", "--target", "2", "--name", "Ona"], home)
    assert played.returncode == 0, played.stderr
    row = json.loads(run_cli(["saved", "--json"], home).stdout.splitlines()[0])
    return home, row["session"], Path(row["path"]) / "transcript"


def test_verify_names_seats_and_you_and_says_how_the_match_ended(finished_home: tuple[Path, str, Path]) -> None:
    home, _, transcript = finished_home
    checked = run_cli(["verify", str(transcript.parent)], home)
    assert checked.returncode == 0, checked.stdout
    lines = checked.stdout.splitlines()
    assert lines[0] == 'Topper at table "Ona\'s table", 4 players:'
    seats = [line for line in lines if line.startswith("  Seat ")]
    assert len(seats) == 4 and sum("(you" in line for line in seats) == 1
    assert any("Ona, key" in line and "(you)" in line for line in seats)
    over = [line for line in lines if line.startswith("Match over: ")]
    assert len(over) == 1 and "Termination" not in over[0] and " after " in over[0]
    # People never read a join-order index, nor a Python repr, unless they ask (-v).
    assert "join order" not in checked.stdout and "player 0" not in checked.stdout
    detailed = run_cli(["verify", "-v", str(transcript)], home).stdout
    assert detailed.count("in join order") == 4


def test_verify_json_gives_seats_join_order_and_the_outcome(finished_home: tuple[Path, str, Path]) -> None:
    home, _, transcript = finished_home
    report = json.loads(run_cli(["verify", "--json", str(transcript.parent)], home).stdout)
    assert report["ok"] is True and report["game"] == "topper" and report["verdict"] is None
    assert sorted(p["seat"] for p in report["players"]) == [0, 1, 2, 3]
    assert [p["player"] for p in report["players"]] == [0, 1, 2, 3]
    assert report["players"][report["you"]]["name"] == "Ona"
    assert report["outcome"]["termination"] in {"target-reached", "bidder-wins-tie", "deal-limit"}
    assert max(report["outcome"]["scores"]) >= 2


@pytest.mark.parametrize("content, says", [
    (b"", "is empty: the table never started"),
    (b"hello, not a transcript\n", "is not a p2pcards transcript"),
])
def test_verify_of_a_file_that_is_not_a_transcript_is_one_sentence(tmp_path: Path, content: bytes, says: str) -> None:
    path = tmp_path / "file.bin"
    path.write_bytes(content)
    checked = run_cli(["verify", str(path)], tmp_path, timeout=30)
    assert checked.returncode == 2 and says in checked.stderr
    assert "Traceback" not in checked.stderr and checked.stdout == ""


def test_resuming_a_finished_table_shows_how_it_ended_with_names_and_bots(
        finished_home: tuple[Path, str, Path]) -> None:
    home, session, _ = finished_home
    shown = run_cli(["resume", "--plain", session], home, timeout=60)
    assert shown.returncode == 0, shown.stderr
    text = shown.stdout
    assert text.startswith('Your table "Ona\'s table" is over')
    # A table of ``play`` has no clock, and the resumed seat says so as the lobby did.
    assert 'Table "Ona\'s table" (topper, no clock: anyone can stall it for ever): 4 players joined: Ona' in text
    assert text.count("(bot)") == 3 and "Seats drawn (Seat 0:" in text
    assert "Match over:" in text and "connecting" not in text.lower()


class _Found:
    """A table as discovery lists it (the fields ``join`` reads)."""

    def __init__(self, name: str, fp: str, free: int = 2, host_name: str = "Ann") -> None:
        self.name, self.fingerprint, self.free_seats, self.host_name = name, fp, free, host_name
        self.game, self.host, self.port, self.public_key = "bluff", "10.0.0.2", 4000, None
        self.spectators = 0


def test_join_picks_a_table_by_name_key_or_list_number_and_says_when_names_clash() -> None:
    from p2pcards.commands import UserError
    from p2pcards.commands.finding import pick_table as _pick_table
    one, two = _Found("dup", "bbbb-0000-0000"), _Found("dup", "aaaa-1111-1111", host_name="Bo")
    other = _Found("quiet", "cccc-2222-2222")
    found = [one, other, two]
    with pytest.raises(UserError) as clash:
        _pick_table(found, "dup")
    # Told apart by number (the order `tables` lists) and by host name and key.
    assert "1. \"dup\" (bluff, host Bo, key aaaa-1111-1111)" in str(clash.value)
    assert "2. \"dup\" (bluff, host Ann, key bbbb-0000-0000)" in str(clash.value)
    assert _pick_table(found, "bbbb") is one and _pick_table(found, "aaaa-1111-1111") is two
    assert _pick_table(found, "3") is other and _pick_table(found, "quiet") is other


def test_join_of_a_full_table_says_it_is_full() -> None:
    from p2pcards.commands import UserError
    from p2pcards.commands.finding import pick_table as _pick_table
    with pytest.raises(UserError, match='table "Friday" is full'):
        _pick_table([_Found("Friday", "aaaa-0000-0000", free=0)], "Friday")
    with pytest.raises(UserError, match='no table named "Nope" found'):
        _pick_table([_Found("Friday", "aaaa-0000-0000")], "Nope")


def _announced_host(home: Path, name: str, table: str, *extra: str) -> subprocess.Popen[str]:
    env = {**os.environ, "XDG_CONFIG_HOME": str(home / "config"),
           "XDG_STATE_HOME": str(home / "state")}
    return subprocess.Popen(
        [sys.executable, "-m", "p2pcards", "host", "bluff", "--plain", "--name", name,
         "--table", table, "--bind", "127.0.0.1", "--interface", "127.0.0.1", *extra],
        env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
def test_tables_and_join_over_loopback_name_hosts_addresses_clashes_and_full_tables(tmp_path: Path) -> None:
    """Real hosts announced on loopback: two tables named alike and a full one.
    `tables` lists them under headers with host names and addresses; `join` tells
    the twins apart by number and key and says the full one is full, by name and by
    the number the list gave it; each host printed the address to give a friend.
    (Names of this run's own: other tables on this machine are listed beside them.)"""
    import time
    loop, full = own_name("Loop den"), own_name("Full den")
    hosts = [_announced_host(tmp_path / "h1", "Hedda", loop),
             _announced_host(tmp_path / "h2", "Hugo", loop),
             _announced_host(tmp_path / "h3", "Hanna", full, "--bots", "3")]
    try:
        # Each host's "Hosting …" line (a host with bots may print its lobby first).
        firsts = [next(line for line in iter(present(host.stdout).readline, "") if "Hosting" in line)
                  for host in hosts]
        assert all("--connect 127.0.0.1:" in line for line in firsts), firsts
        assert f"Friends join with: p2pcards join '{loop}'" in firsts[0]
        ports = [line.split("--connect 127.0.0.1:")[1].split(")")[0] for line in firsts]
        lines: list[str] = []
        rows: dict[str, dict[str, str]] = {}
        for _ in range(10):  # bounded: announcements (and the full table's update) take a moment
            lines = run_cli(["tables", "--interface", "127.0.0.1", "--timeout", "1.5"],
                            tmp_path, timeout=30).stdout.splitlines()
            rows = {row["HOST"]: row for row in listing_rows(lines) if row["TABLE"] in (loop, full)}
            if len(rows) == 3 and rows.get("Hanna", {}).get("FREE") == "full":
                break
            time.sleep(0.2)
        assert lines[0].split() == ["#", "TABLE", "GAME", "FREE", "WATCH", "CLOCK", "HOST", "ADDRESS", "KEY"]
        assert rows.keys() == {"Hedda", "Hugo", "Hanna"}, lines
        assert all(row["CLOCK"] == "120s" for row in rows.values())  # host's default clock
        assert rows["Hanna"]["FREE"] == "full" and rows["Hanna"]["TABLE"] == full
        assert rows["Hedda"]["ADDRESS"] == f"127.0.0.1:{ports[0]}"
        assert rows["Hugo"]["ADDRESS"] == f"127.0.0.1:{ports[1]}"
        numbers = [int(row["#"]) for row in listing_rows(lines)]
        assert numbers == list(range(1, len(numbers) + 1))  # every row numbered, in order

        join = ["join", "--interface", "127.0.0.1", "--timeout", "1.5", "--plain"]
        for by in (rows["Hanna"]["#"], full):  # by the number the list gave it, and by name
            refused = run_cli([*join, by], tmp_path, timeout=30)
            assert refused.returncode == 2 and f'table "{full}" is full' in refused.stderr, (by, refused.stderr)
        clash = run_cli([*join, loop], tmp_path, timeout=30)
        assert clash.returncode == 2 and "Traceback" not in clash.stderr
        assert "2 open tables match; join one by its number or key" in clash.stderr
        assert "host Hedda" in clash.stderr and "host Hugo" in clash.stderr
        assert all(row["WATCH"] == "8" for row in rows.values())  # spectator places
        clash = run_cli(["watch", "--interface", "127.0.0.1", "--timeout", "1.5", "--plain",
                         loop], tmp_path, timeout=30)
        assert clash.returncode == 2 and "2 tables match; watch one by its number" in clash.stderr
    finally:
        for host in hosts:
            host.terminate()
        for host in hosts:
            host.communicate(timeout=30)  # waits, and closes its pipes


def test_closing_a_table_that_never_started_gives_no_grace_and_no_linger() -> None:
    import asyncio

    from p2pcards.commands.seated import close_hosted as _close_hosted

    class Hosted:
        class host:
            class relay:
                started = False
        tasks: list[object] = []
        linger = 125.0
        closed_with: dict[str, float] = {}

        async def close(self, **kwargs: float) -> None:
            self.closed_with = kwargs

    hosted = Hosted()
    asyncio.run(_close_hosted(None, hosted)())  # type: ignore[arg-type]
    assert hosted.closed_with == {"grace": 0, "linger": 0}


def test_a_seed_is_refused_outside_tests_because_it_makes_every_hand_known(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("P2PCARDS_INSECURE_SEED", raising=False)
    refused = run_cli(["host", "topper", "--seed", "3", "--no-advertise"], tmp_path)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "--seed makes every key and shuffle predictable" in refused.stderr
    assert "P2PCARDS_INSECURE_SEED=1" in refused.stderr


@pytest.mark.asyncio
@pytest.mark.slow
async def test_tables_and_join_say_which_table_has_no_clock_before_anyone_sits_down(
        capsys: pytest.CaptureFixture[str]) -> None:
    """Two tables announced on loopback, one with a 90 s clock and one with none:
    `tables` (plain and --json) shows each clock and warns of the unclocked one,
    and `join` says so, with the warning, before the joiner sits down; the timed
    table's host allows hints, and both say that too. (Names of this run's own:
    other tables on this machine are listed beside them, and never joined.)"""
    import asyncio

    from p2pcards.commands import UserError
    from p2pcards.commands.finding import NO_CLOCK_WARNING
    from p2pcards.commands.finding import cmd_tables as _cmd_tables
    from p2pcards.commands.finding import find_table as _find_table
    from p2pcards.commands.options import build_parser
    from p2pcards.net.connection import serve
    from p2pcards.net.discovery import TableAdvertiser
    from p2pcards.protocol.identity import Identity

    timed, slow = own_name("Timed den"), own_name("Slow den")
    hosts = {timed: (Identity.generate("Tess"), 90), slow: (Identity.generate("Sam"), 0)}
    servers = [await serve("127.0.0.1", 0, identity, lambda conn: conn.close())
               for identity, _ in hosts.values()]
    advertisers = [TableAdvertiser(table_name=name, game="bluff", port=server.port,
                                   fingerprint=identity.fingerprint, free_seats=2, version=1,
                                   interfaces=["127.0.0.1"], public_key=identity.public_key,
                                   host_name=identity.name, clock=clock, hints=bool(clock))
                   for (name, (identity, clock)), server in zip(hosts.items(), servers, strict=True)]
    browse = ["--interface", "127.0.0.1", "--timeout", "1.5"]
    try:
        for advertiser in advertisers:
            await advertiser.start()
        await asyncio.sleep(1.0)  # a just-announced record is not multicast again for 1 s
        rows: dict[str, dict[str, str]] = {}
        lines: list[str] = []
        for _ in range(5):  # bounded: each browse is one-shot
            await _cmd_tables(build_parser().parse_args(["tables", *browse]))
            lines = capsys.readouterr().out.splitlines()
            rows = {row["TABLE"]: row for row in listing_rows(lines)}
            if {timed, slow} <= rows.keys():
                break
        assert lines[0].split() == ["#", "TABLE", "GAME", "FREE", "WATCH", "CLOCK", "HOST", "ADDRESS", "KEY"]
        assert rows[timed]["CLOCK"] == "90s" and rows[slow]["CLOCK"] == "none", rows
        assert NO_CLOCK_WARNING in lines

        found: list[dict[str, object]] = []
        for _ in range(5):  # bounded, as above: beside other tables one browse can miss one
            await _cmd_tables(build_parser().parse_args(["tables", "--json", *browse]))
            found = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
            if {timed, slow} <= {t["name"] for t in found}:
                break
        assert {t["name"]: t["clock"] for t in found if t["name"] in hosts} == {timed: 90, slow: 0}
        assert {t["name"]: t["hints"] for t in found if t["name"] in hosts} == {timed: True, slow: False}

        for name, said in ((slow, "(bluff, no clock)"), (timed, "(bluff, 90 s per move, hints allowed)")):
            for attempt in range(3):  # bounded: a browse beside other tables can miss it
                try:
                    await _find_table(build_parser().parse_args(["join", *browse, name]))
                    break
                except UserError as missed:
                    assert "found on the LAN" in str(missed) and attempt < 2, missed
            joining = capsys.readouterr().out
            assert joining.startswith(f'Joining "{name}" {said} hosted by ')
            assert f"host key {hosts[name][0].fingerprint}" in joining
            assert (NO_CLOCK_WARNING in joining) == (name == slow)
    finally:
        for advertiser in advertisers:
            await advertiser.stop()
        for server in servers:
            server.close()
