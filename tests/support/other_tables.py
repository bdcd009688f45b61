"""Other tables being played on the same machine and LAN: a LAN party, for tests and scripts.

``OtherTables(count, root)`` keeps ``count`` tables of four real ``p2pcards``
processes going until it is stopped: at each, a host (``host --autoplay``,
announced with zeroconf) and three joiners that find it by name (``join NAME``,
so they browse while the other tables announce), all bots, playing evenings
of ``matches`` matches (``--again``); when an evening ends another begins at
that table, with a new announcement, as the next evening of a real party
would. Every process has a home of its own under ``root`` (identity and saved
tables), its output in a log file there, and its stdin closed.

Where they play: ``interface`` is what each command announces and browses on
(``127.0.0.1``: loopback only, the default, so nothing reaches a real LAN);
``prefix(table, seat)`` wraps a command, e.g. in ``ip netns exec NS`` to seat
it on a simulated LAN (``tests.support.netns``), with ``interface=None``.

``python scripts/tables.py`` runs it from the command line; a system test
starts it around a table of its own (``tests/system/test_many_tables_lan.py``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
SEATS = 4
#: How long a joiner may look for its table before it tries again.
FIND_SECONDS = 5.0
#: Tries a joiner gets to find its table in one evening.
FIND_TRIES = 4
#: Bound on one evening (its host's whole run); a hung one is ended and counted.
EVENING_SECONDS = 600.0
#: How long the host may take to print that it hosts (a loaded machine starts a
#: process slowly: over 60 s with two copies of the suite and four tables beside).
START_SECONDS = 180.0

Prefix = Callable[[int, int], Sequence[str]]


def _no_prefix(table: int, seat: int) -> Sequence[str]:
    return ()


@dataclass
class Seat:
    """One player of one table: a home (XDG directories) and the command it runs."""

    root: Path
    name: str
    process: subprocess.Popen[bytes] | None = None
    runs: int = 0

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update({"XDG_CONFIG_HOME": str(self.root / "config"),
                    "XDG_STATE_HOME": str(self.root / "state"),
                    "XDG_DATA_HOME": str(self.root / "data"),
                    "XDG_CACHE_HOME": str(self.root / "cache"),
                    "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")])),
                    "PYTHONUNBUFFERED": "1"})
        return env

    def start(self, argv: Sequence[str]) -> None:
        self.runs += 1
        with open(self.root / f"run-{self.runs}.log", "wb") as out:
            self.process = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=out,
                                            stderr=subprocess.STDOUT, cwd=REPO_ROOT, env=self.env(),
                                            start_new_session=True)

    def output(self, run: int | None = None) -> str:
        """What this seat's command printed (``run``: that run's, default the last)."""
        number = self.runs if run is None else run
        try:
            return (self.root / f"run-{number}.log").read_text(errors="replace") if number else ""
        except OSError:
            return ""

    def matches_finished(self) -> int:
        """Matches this seat saw end, over all its runs: each end box it chose again at,
        and each last match (``Match over``)."""
        said = [self.output(run) for run in range(1, self.runs + 1)]
        return sum(text.count("End box: you chose again") + text.count("Match over:") for text in said)

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        """End this seat's command (SIGTERM, then SIGKILL after 5 s) and reap it."""
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process.pid, signal.SIGKILL)
                process.wait(timeout=10)


@dataclass
class Tally:
    """What the other tables did: evenings begun and ended well, matches played, problems."""

    evenings: int = 0
    evenings_ended_well: int = 0
    matches: int = 0
    """Matches finished, counted from the hosts' words when the tables stop."""
    problems: list[str] = field(default_factory=list)


class OtherTables:
    """``count`` tables of four bot processes, kept playing until :meth:`stop`."""

    def __init__(self, count: int, root: Path, *, game: str = "topper", matches: int = 3,
                 interface: str | None = "127.0.0.1", prefix: Prefix = _no_prefix,
                 label: str = "Other", settings: Sequence[str] | None = None) -> None:
        if count < 0:
            raise ValueError("count is 0 or more")
        self.count = count
        self.root = Path(root)
        self.game = game
        self.matches = matches
        self.interface = interface
        self.prefix = prefix
        self.settings = list(settings) if settings is not None else (
            ["--target", "5"] if game == "topper" else ["--deals", "2"])
        self.names = [f"{label} {number + 1} {os.getpid()}" for number in range(count)]
        self.seats = [[Seat(self.root / f"table{number + 1}" / f"seat{seat}", f"{label}{number + 1}{'abcd'[seat]}")
                       for seat in range(SEATS)] for number in range(count)]
        self.tally = Tally()
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    # -- set-up ----------------------------------------------------------------------

    def _argv(self, *args: str) -> list[str]:
        where = ["--interface", self.interface] if self.interface else []
        return [sys.executable, "-m", "p2pcards", *args, *where]

    def _make_identities(self) -> None:
        """``whoami --name`` in every seat's home, a few at a time."""
        made: list[tuple[Seat, subprocess.Popen[bytes]]] = []
        for table in self.seats:
            for seat in table:
                for folder in ("config", "state", "data", "cache"):
                    (seat.root / folder).mkdir(parents=True, exist_ok=True)
                made.append((seat, subprocess.Popen(
                    [sys.executable, "-m", "p2pcards", "whoami", "--name", seat.name],
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                    cwd=REPO_ROOT, env=seat.env())))
        for seat, process in made:
            _, err = process.communicate(timeout=120)
            if process.returncode != 0:
                raise RuntimeError(f"whoami failed for {seat.name}: {err.decode(errors='replace')}")

    def start(self) -> OtherTables:
        """Make the identities, then start every table's first evening; returns at once."""
        self._make_identities()
        for number in range(self.count):
            thread = threading.Thread(target=self._keep_playing, args=(number,), daemon=True,
                                      name=f"other-table-{number + 1}")
            self._threads.append(thread)
            thread.start()
        return self

    # -- one table's evenings ---------------------------------------------------------

    def _host_argv(self, number: int) -> list[str]:
        return [*self.prefix(number, 0), *self._argv(
            "host", self.game, "--table", self.names[number], "--autoplay", "heuristic", "--plain",
            "--again", str(self.matches - 1), "--deadline", "60", *self.settings)]

    def _join_argv(self, number: int, seat: int) -> list[str]:
        return [*self.prefix(number, seat), *self._argv(
            "join", self.names[number], "--timeout", str(FIND_SECONDS), "--autoplay", "heuristic",
            "--plain", "--again", str(self.matches - 1))]

    def _wait(self, seconds: float, done: Callable[[], bool]) -> bool:
        """Wait until ``done()`` or ``seconds`` pass or we are stopping; whether ``done()``."""
        end = time.monotonic() + seconds
        while not self._stopping.is_set() and time.monotonic() < end:
            if done():
                return True
            time.sleep(0.2)
        return done()

    def _note(self, text: str) -> None:
        with self._lock:
            self.tally.problems.append(text)

    def _keep_playing(self, number: int) -> None:
        while not self._stopping.is_set():
            self._evening(number)

    def _sit_down(self, number: int, seat: int, joiner: Seat) -> bool:
        """``join NAME`` until it finds the table (a few tries); whether it did."""
        for _ in range(FIND_TRIES):
            joiner.start(self._join_argv(number, seat))
            found = self._wait(FIND_SECONDS + START_SECONDS,
                               lambda: "Joining " in joiner.output() or not joiner.running())
            if (found and joiner.running()) or self._stopping.is_set():
                return True
        return False

    def _evening(self, number: int) -> None:
        host, joiners = self.seats[number][0], self.seats[number][1:]
        with self._lock:
            self.tally.evenings += 1
        host.start(self._host_argv(number))
        try:
            if not self._wait(START_SECONDS, lambda: "Hosting " in host.output() or not host.running()):
                if not self._stopping.is_set():
                    self._note(f"table {number + 1}: the host did not start in {START_SECONDS:g} s")
                return
            if not host.running():
                self._note(f"table {number + 1}: the host ended at once: {host.output()[-300:]!r}")
                self._wait(5, lambda: False)
                return
            for index, joiner in enumerate(joiners, start=1):
                if not self._sit_down(number, index, joiner) and not self._stopping.is_set():
                    self._note(f"table {number + 1}: seat {index} did not find its table "
                               f"in {FIND_TRIES} tries: {joiner.output()[-300:]!r}")
            ended = self._wait(EVENING_SECONDS, lambda: not host.running())
            if self._stopping.is_set():
                return
            said = host.output()
            code = host.process.returncode if ended and host.process is not None else None
            with self._lock:
                if code == 0:
                    self.tally.evenings_ended_well += 1
                else:
                    how = "hung" if code is None else f"exit {code}"
                    self.tally.problems.append(f"table {number + 1}: an evening ended badly ({how}): "
                                               f"{said.strip().splitlines()[-1:]!r}")
            self._wait(10, lambda: not any(j.running() for j in joiners))
        finally:
            for player in (host, *joiners):
                player.stop()

    # -- lifetime -----------------------------------------------------------------------

    def playing(self) -> int:
        """How many tables have all four seats taken right now (a host and three
        joiners running, each joiner past finding its table)."""
        return sum(all(seat.running() for seat in table)
                   and all("Joining " in seat.output() for seat in table[1:]) for table in self.seats)

    def stop(self) -> Tally:
        """Stop every table (the processes too) and say what they did."""
        self._stopping.set()
        for thread in self._threads:
            thread.join(timeout=60)
        for table in self.seats:
            for seat in table:
                seat.stop()
        self.tally.matches = self.matches_finished()
        return self.tally

    def matches_finished(self) -> int:
        """Matches the tables have finished so far (their hosts' words)."""
        return sum(table[0].matches_finished() for table in self.seats)

    def __enter__(self) -> OtherTables:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
