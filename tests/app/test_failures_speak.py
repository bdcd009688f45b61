"""Failures that speak: a failure while a command sets up its seat, its listener,
its discovery or its storage — or inside a running table, a seat or a record that
fails — ends the real command within seconds with one sentence (what failed, what
to try) and a non-zero status, never a traceback and never a silent hang.

Each test runs the real command in a subprocess with a failure injected
(``tests/app/inject/sitecustomize.py`` on ``PYTHONPATH``: the NTH call of a
function raises), in a home of its own (``HOME`` and the XDG folders in the
test's temporary folder), on loopback only. The command must end within
``BOUND`` seconds: ``subprocess.run`` kills it after that, and the test fails
saying so (the hang these tests exist to catch).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from p2pcards.net.storage import load_or_create_identity, tables_dir

INJECT = Path(__file__).parent / "inject"
#: The issue's bound: a failing command ends within seconds, never hangs.
BOUND = 10.0
#: A host process that must come up (and print its port) for a joiner to fail at it.
HOST_UP = 60.0
#: A table against random bots, one deal: it starts at once and ends soon.
PLAY = ["play", "bluff", "--plain", "--bot", "random", "--deals", "1"]
#: A failed seat of ``play``, as its sentence starts: the host's own, or a bot's.
SEAT_FAILED = r'^p2pcards: (your seat|the bot seat "\w+") failed: '


def _env(home: Path, inject: str) -> dict[str, str]:
    return {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / "config"),
            "XDG_STATE_HOME": str(home / "state"), "P2PCARDS_INJECT": inject,
            "P2PCARDS_INJECT_LOG": str(home / "injected.log"),
            "PYTHONPATH": os.pathsep.join([str(INJECT), *filter(None, [os.environ.get("PYTHONPATH")])])}


def run_failing(args: list[str], home: Path, inject: str) -> subprocess.CompletedProcess[str]:
    """The command with ``inject`` in force; a test failure if it outlives ``BOUND``."""
    try:
        return subprocess.run([sys.executable, "-m", "p2pcards", *args], env=_env(home, inject),
                              capture_output=True, text=True, timeout=BOUND,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as hung:  # run() killed it
        pytest.fail(f"p2pcards {' '.join(args)} with {inject!r} still ran after {BOUND:g} s "
                    f"(killed); it said: {hung.stderr!r}")


def assert_spoke(done: subprocess.CompletedProcess[str], home: Path, says: str, *,
                 injected: bool = True) -> str:
    """The command failed (non-zero), its stderr is one ``p2pcards:`` sentence
    matching ``says`` (a regular expression) and no traceback, and (``injected``)
    the failure was really injected. The sentence."""
    assert done.returncode not in (0, None), (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and "[Errno" not in done.stderr, done.stderr
    said = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(said) == 1 and said[0].startswith("p2pcards: "), done.stderr
    assert re.search(says, said[0]), said[0]
    if injected:
        assert (home / "injected.log").read_text(encoding="utf-8").strip(), "nothing injected"
    return said[0]


# --- play: every part of a table in one process --------------------------------------------


@pytest.mark.parametrize("inject, says", [
    pytest.param("p2pcards.net.storage:write_atomically:1:fileerror-13",
                 r"^p2pcards: making or reading your identity file .*identity\.json failed: "
                 r"permission denied \(/injected/write_atomically\); make that folder writable",
                 id="identity"),
    pytest.param("p2pcards.net.journal:Journal.claim:1:storage",
                 r"^p2pcards: the table's record \(its relay\) failed: injected storage failure "
                 r"in Journal.claim; check the free space and permissions",
                 id="relay-record-lock"),
    pytest.param("p2pcards.net.journal:Journal.claim:3:storage",
                 SEAT_FAILED + r"injected storage failure in Journal.claim; .*The table "
                 r"stopped here, signing nothing$",
                 id="seat-record-lock"),
    # The third append is the first seat's own commit, saved before it goes out (the
    # relay's and that seat's genesis come first; it writes its small key messages on
    # the loop, before the other seats' records exist).
    pytest.param("p2pcards.net.journal:Journal.append:3:fileerror-28",
                 SEAT_FAILED + r"no space left on device \(/injected/Journal.append\); free "
                 r"some space on that disk",
                 id="journal-write"),
    pytest.param("p2pcards.crypto.keys:prove_key_share:2:runtime",
                 SEAT_FAILED + r"RuntimeError: injected failure in prove_key_share; run it "
                 r"again with -v to see where it failed",
                 id="key-setup"),
])
def test_play_ends_with_one_sentence_when_a_part_of_its_table_fails(
        tmp_path: Path, inject: str, says: str) -> None:
    assert_spoke(run_failing(PLAY, tmp_path, inject), tmp_path, says)


def test_a_bot_whose_seat_fails_in_the_middle_of_a_match_stops_the_table(tmp_path: Path) -> None:
    # Only the bots are paced: their first decision fails, the host's own seat's does not.
    done = run_failing([*PLAY, "--pace", "0.01"], tmp_path,
                       "p2pcards.bots.pace:PacedAgent.decide:1:runtime")
    assert_spoke(done, tmp_path, r'^p2pcards: the bot seat "\w+" failed: RuntimeError: '
                                 r"injected failure in PacedAgent.decide; .* The table stopped "
                                 r"here, signing nothing$")
    assert done.stdout.count("Match over") == 0


# --- host: its listener and its announcement ----------------------------------------------------

HOST = ["host", "bluff", "--plain", "--bot", "random", "--bind", "127.0.0.1"]


def test_a_host_whose_port_is_taken_says_so(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run_failing([*HOST, "--no-advertise", "--port", str(port)], tmp_path, "")
    assert_spoke(done, tmp_path, rf"^p2pcards: cannot host on 127\.0\.0\.1:{port}: that port is "
                                 r"already in use \(try another --port, or 0\)$", injected=False)
    assert done.returncode == 2


def test_a_host_refused_its_port_says_so(tmp_path: Path) -> None:
    done = run_failing([*HOST, "--no-advertise", "--port", "80"], tmp_path,
                       "p2pcards.net.sockets:listening_socket:1:oserror-13")
    assert_spoke(done, tmp_path, r"^p2pcards: cannot host on 127\.0\.0\.1:80: permission denied "
                                 r"\(ports below 1024 need privileges\)$")


def test_a_host_whose_announcement_fails_says_how_to_host_unannounced(tmp_path: Path) -> None:
    done = run_failing([*HOST, "--interface", "127.0.0.1"], tmp_path,
                       "p2pcards.net.discovery:open_mdns:1:runtime")
    assert_spoke(done, tmp_path, r"^p2pcards: announcing the table on the LAN \(mDNS\) failed: "
                                 r"RuntimeError: injected failure in open_mdns; host it with "
                                 r"--no-advertise, and friends join with --connect ADDRESS:PORT$")


# --- tables, join, watch: looking for tables ---------------------------------------------------


@pytest.mark.parametrize("args", [["tables"], ["join", "Friday"], ["watch"]],
                         ids=["tables", "join", "watch"])
def test_discovery_that_cannot_start_says_how_to_do_without(tmp_path: Path, args: list[str]) -> None:
    done = run_failing([*args, "--timeout", "0.5", "--interface", "127.0.0.1"], tmp_path,
                       "p2pcards.net.discovery:open_mdns:1:oserror-99")
    said = assert_spoke(done, tmp_path, r"^p2pcards: looking for tables on the LAN \(mDNS\) "
                                        r"failed: cannot assign requested address; --interface "
                                        r"ADDR looks on one interface only; ")
    assert "--connect HOST:PORT" in said


# --- join: a seat of its own at a host's table ----------------------------------------------


@pytest.fixture
def host_port(tmp_path: Path) -> Iterator[int]:
    """A host process on loopback (two bots, one seat free, unannounced); its port."""
    home = tmp_path / "host"
    process = subprocess.Popen(
        [sys.executable, "-m", "p2pcards", *HOST, "--bots", "2", "--no-advertise", "--trace",
         "--deals", "1", "--name", "Hal"], env=_env(home, ""), stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert process.stdout is not None
        for _ in range(50):  # bounded: among its first trace lines, where it listens
            line = json.loads(process.stdout.readline() or "{}")
            if "listening" in line or not line:
                break
        assert "listening" in line, "the host never said where it listens"
        yield int(line["listening"])
    finally:
        process.kill()
        process.communicate(timeout=HOST_UP)


@pytest.mark.parametrize("inject, direct, says", [
    pytest.param("p2pcards.net.journal:Journal.claim:1:storage", ["--no-direct"],
                 r"^p2pcards: your seat failed: injected storage failure in Journal.claim; ",
                 id="record-lock"),
    pytest.param("p2pcards.net.mesh:Mesh.listen:1:runtime", [],
                 r"^p2pcards: setting up your link to the host failed: RuntimeError: injected "
                 r"failure in Mesh.listen; run it again with -v to see where it failed$",
                 id="direct-listener"),
])
def test_a_joiner_whose_set_up_fails_says_what_failed(tmp_path: Path, host_port: int,
                                                      inject: str, direct: list[str],
                                                      says: str) -> None:
    done = run_failing(["join", "--connect", f"127.0.0.1:{host_port}", "--plain", "--bot", "random",
                        *direct], tmp_path / "joiner", inject)
    assert_spoke(done, tmp_path / "joiner", says)


@pytest.mark.parametrize("command", ["join", "watch"])
@pytest.mark.parametrize("inject, why", [
    ("oserror-113", "no route to that address from this network"),
    ("oserror-22", "the connection failed: invalid argument"),
    ("oserror-104", "the connection failed: connection reset by peer"),
])
def test_a_dial_that_fails_says_why_in_words(tmp_path: Path, command: str, inject: str,
                                             why: str) -> None:
    done = run_failing([command, "--connect", "127.0.0.1:9", "--plain"], tmp_path,
                       f"p2pcards.net.connection:connect:0:{inject}")
    assert_spoke(done, tmp_path, rf"^p2pcards: no table answered at 127\.0\.0\.1:9 \({why}\): "
                                 r"check the address and port the host's screen shows")


# --- resume: a table taken up again -----------------------------------------------------------


@pytest.fixture
def crashed_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home whose one saved table, hosted with three bots on loopback, is in play."""
    from tests.app.test_resume_unreached import _host_and_crash
    home = tmp_path / "home"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))
    identity = load_or_create_identity("Hana")
    root = tables_dir()
    root.mkdir(parents=True)
    asyncio.run(_host_and_crash(identity, root))
    return home


def test_a_resume_whose_record_cannot_be_locked_says_so(crashed_host: Path) -> None:
    done = run_failing(["resume", "--plain", "--bot", "random"], crashed_host,
                       "p2pcards.net.journal:Journal.claim:1:storage")
    assert_spoke(done, crashed_host, r"^p2pcards: taking your table up again failed: injected "
                                     r"storage failure in Journal.claim; check the free space")


def test_a_resumed_table_whose_bot_fails_stops_with_a_sentence(crashed_host: Path) -> None:
    done = run_failing(["resume", "--plain", "--bot", "random", "--pace", "0.01"], crashed_host,
                       "p2pcards.bots.pace:PacedAgent.decide:1:runtime")
    assert_spoke(done, crashed_host, r'^p2pcards: the bot seat "\w+" failed: RuntimeError: '
                                     r"injected failure in PacedAgent.decide; ")


@pytest.mark.slow  # a table played into its deal first, in process
def test_a_resume_whose_host_is_unreachable_names_it_in_words(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.app.test_resume_unreached import _free_port, _sit_and_crash
    home = tmp_path / "home"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))
    identity = load_or_create_identity("Ivo")
    root = tables_dir()
    root.mkdir(parents=True)
    port = _free_port()
    asyncio.run(_sit_and_crash(identity, port, root, tmp_path / "host"))
    done = run_failing(["resume", "--plain", "--bot", "random"], home,
                       "p2pcards.net.connection:connect:0:oserror-113")
    assert_spoke(done, home, rf'^p2pcards: could not reach the host of your table "table" '
                             rf"\(topper\), Me at 127\.0\.0\.1:{port} \(unreachable: no route to "
                             r"that address from this network\)\. Is the host's laptop on")


# --- the commands that only read -------------------------------------------------------------


@pytest.mark.parametrize("args", [["saved"], ["standings"], ["whoami"]])
def test_a_command_whose_identity_cannot_be_read_says_which_file(tmp_path: Path,
                                                                  args: list[str]) -> None:
    identity = tmp_path / "config" / "p2pcards" / "identity.json"
    identity.parent.mkdir(parents=True)
    identity.write_text("{}")  # there: read, not made
    done = run_failing(args, tmp_path, "p2pcards.net.storage:load_or_create_identity:1:fileerror-13")
    assert_spoke(done, tmp_path, r"^p2pcards: making or reading your identity file .*identity\.json "
                                 r"failed: permission denied \(/injected/load_or_create_identity\)")


@pytest.fixture
def played(tmp_path: Path) -> Path:
    """A home with one finished table (play against random bots, one deal)."""
    done = subprocess.run([sys.executable, "-m", "p2pcards", *PLAY], env=_env(tmp_path, ""),
                          capture_output=True, text=True, timeout=HOST_UP, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr
    return tmp_path


@pytest.mark.parametrize("args", [["verify"], ["replay", "--plain"]])
def test_a_record_the_system_will_not_read_is_said_in_words(played: Path, args: list[str]) -> None:
    (relay,) = (played / "state").rglob("relay")
    done = run_failing([*args, str(relay)], played, "p2pcards.net.journal:read_records:0:fileerror-5")
    assert_spoke(done, played, r"^p2pcards: cannot read /injected/read_records: input/output error$")


def test_standings_says_why_a_record_it_cannot_read_is_not_counted(played: Path) -> None:
    done = run_failing(["standings"], played, "p2pcards.net.journal:read_records:0:fileerror-5")
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
    assert "unreadable: input/output error (/injected/read_records)" in done.stdout, done.stdout
    assert "Errno" not in done.stdout
