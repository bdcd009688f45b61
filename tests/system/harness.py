"""Whole tables of real ``p2pcards`` processes, for system tests, benchmarks and soaks.

A :class:`Home` is one person's machine as far as p2pcards can tell: its own
``XDG_CONFIG_HOME`` (identity) and ``XDG_STATE_HOME`` (saved tables) under a
temporary directory. A :class:`PeerProcess` is one run of the command in a
home, with ``--trace`` JSON lines collected by a thread, so a test can wait
for an event without ever blocking on a pipe. Every wait is bounded.

Peak memory comes from the kernel's own account: a child is reaped with
``os.wait4``, whose ``ru_maxrss`` is the process's resident high-water mark.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

REPO_ROOT = Path(__file__).resolve().parents[2]
#: Bounds on waits for real processes, so a hung run fails instead of hanging. They
#: hold at a load of 8 runnable processes on two cores and beyond (measured at 18:
#: a start took up to 20 s, a short match of four processes up to 130 s).
MATCH_TIMEOUT = 300.0
STARTUP_TIMEOUT = 60.0
#: Bound on one ``p2pcards verify`` (every proof of a match checked, on a loaded machine).
VERIFY_TIMEOUT = 300.0


T = TypeVar("T")


class HarnessError(RuntimeError):
    """A process did not do what the scenario waits for, in time; the message says what."""


def p2pcards_argv(*args: str) -> list[str]:
    """The command line of ``p2pcards ARGS`` with this interpreter and this checkout."""
    return [sys.executable, "-m", "p2pcards", *args]


class Home:
    """One player's private directories: identity in ``config``, saved tables in ``state``."""

    def __init__(self, root: Path, label: str, *, package_root: Path | None = None) -> None:
        """``package_root``: a folder holding another ``p2pcards`` package (e.g. an older
        revision's, for a benchmark that compares), which this home's processes import
        instead of this checkout's."""
        self.label = label
        self.package_root = None if package_root is None else Path(package_root).resolve()
        self.root = Path(root) / label
        self.config = self.root / "config"
        self.state = self.root / "state"
        self.config.mkdir(parents=True, exist_ok=True)
        self.state.mkdir(parents=True, exist_ok=True)
        self._runs = 0

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update({
            "XDG_CONFIG_HOME": str(self.config), "XDG_STATE_HOME": str(self.state),
            "PYTHONPATH": os.pathsep.join(filter(None, [
                str(self.package_root) if self.package_root else None, str(REPO_ROOT),
                env.get("PYTHONPATH")])),
            "PYTHONUNBUFFERED": "1", "USER": self.label,
            "P2PCARDS_INSECURE_SEED": "1",  # seeded tables are reproducible (tests only)
        })
        return env

    # -- one-shot commands ----------------------------------------------------------

    def run(self, *args: str, timeout: float = STARTUP_TIMEOUT) -> subprocess.CompletedProcess[str]:
        """Run ``p2pcards ARGS`` in this home and wait for it."""
        return subprocess.run(p2pcards_argv(*args), capture_output=True, text=True, timeout=timeout,
                              cwd=self.cwd, env=self.env(), check=False)

    @property
    def cwd(self) -> Path:
        """Where this home's processes run. ``python -m`` puts its working folder first on
        ``sys.path``, ahead of ``PYTHONPATH``: with a ``package_root`` they run there, or this
        checkout's package would be the one imported."""
        return self.package_root or REPO_ROOT

    def imported_package(self) -> Path:
        """The folder of the ``p2pcards`` package this home's processes import (asked of a
        process started as they are), to check that a ``package_root`` really wins."""
        done = subprocess.run([sys.executable, "-c", "import p2pcards; print(p2pcards.__file__)"],
                              capture_output=True, text=True, timeout=STARTUP_TIMEOUT,
                              cwd=self.cwd, env=self.env(), check=False)
        if done.returncode != 0:
            raise HarnessError(f"{self.label}: cannot import p2pcards: {done.stderr.strip()[-400:]}")
        return Path(done.stdout.strip()).resolve().parent

    def create_identity(self, name: str) -> str:
        """Make (or rename) this home's identity; returns its fingerprint."""
        done = self.run("whoami", "--name", name)
        if done.returncode != 0:
            raise HarnessError(f"{self.label}: whoami failed: {done.stderr.strip()}")
        return done.stdout.split()[-1]

    def copy_identity_from(self, other: Home) -> None:
        """Give this home the same identity file as ``other`` (same key, same name)."""
        source = other.config / "p2pcards" / "identity.json"
        target = self.config / "p2pcards" / "identity.json"
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        shutil.copy2(source, target)

    def saved(self) -> list[dict[str, str]]:
        """This home's saved tables, as ``p2pcards saved --json`` lists them."""
        done = self.run("saved", "--json")
        if done.returncode != 0:
            raise HarnessError(f"{self.label}: saved failed: {done.stderr.strip()}")
        return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]

    def transcripts(self) -> list[Path]:
        """Every saved transcript in this home (a host's home also holds its relay's)."""
        return sorted((self.state / "p2pcards" / "tables").glob("*/*/transcript"))

    def verify(self, transcript: Path) -> Verification:
        """``p2pcards verify`` in words, then ``--json`` for the facts the tests compare."""
        done = self.run("verify", str(transcript), timeout=VERIFY_TIMEOUT)
        facts = self.run("verify", "--json", str(transcript), timeout=VERIFY_TIMEOUT)
        report = json.loads(facts.stdout) if facts.stdout.startswith("{") else {}
        return Verification(transcript, done.returncode, done.stdout, done.stderr, report)

    # -- long-running commands ------------------------------------------------------

    def spawn(self, *args: str, prefix: Sequence[str] = ()) -> PeerProcess:
        """Start ``p2pcards ARGS`` (inside ``prefix``, e.g. ``ip netns exec NS``)."""
        self._runs += 1
        stderr_path = self.root / f"stderr-{self._runs}.txt"
        return PeerProcess(self, [*prefix, *p2pcards_argv(*args)], stderr_path)


@dataclass
class Verification:
    """What ``p2pcards verify`` said about one transcript: its words and its JSON report."""

    transcript: Path
    returncode: int
    stdout: str
    stderr: str
    report: dict[str, Any]

    @property
    def ok(self) -> bool:
        return (self.returncode == 0 and "OK: every signature" in self.stdout
                and self.report.get("ok") is True)

    def line(self, prefix: str) -> str | None:
        for line in self.stdout.splitlines():
            if line.startswith(prefix):
                return line
        return None

    @property
    def outcome(self) -> str | None:
        """The match's outcome as a canonical string (the same from every seat's copy)."""
        outcome = self.report.get("outcome")
        return None if outcome is None else json.dumps(outcome, sort_keys=True)

    @property
    def verdict(self) -> dict[str, Any] | None:
        return self.report.get("verdict")


class PeerProcess:
    """One running ``p2pcards`` command whose stdout lines are collected as they come."""

    def __init__(self, home: Home, argv: list[str], stderr_path: Path, *,
                 stdin: bool = False) -> None:
        """``stdin``: a pipe the test writes a person's lines to (:meth:`type_line`)."""
        self.home = home
        self.argv = argv
        self.stderr_path = stderr_path
        #: A copy of every stdout line, beside the stderr file: a kept temp folder shows
        #: what each process said after the test is gone.
        self.stdout_path = stderr_path.with_name(stderr_path.name.replace("stderr", "stdout", 1)
                                                 if "stderr" in stderr_path.name
                                                 else f"{stderr_path.name}.stdout")
        self.started_at = time.time()
        self._stderr = open(stderr_path, "w")  # noqa: SIM115 - the child's stderr, closed in stop()
        self.popen = subprocess.Popen(argv, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                                      stdout=subprocess.PIPE, stderr=self._stderr, text=True,
                                      cwd=home.cwd, env=home.env())
        self.pid = self.popen.pid
        self.lines: list[str] = []
        self.peak_rss_kib: int | None = None
        #: CPU seconds (user + system) the process used, once reaped.
        self.cpu_s: float | None = None
        self.returncode: int | None = None
        self._changed = threading.Condition()
        self._eof = False
        self._reader = threading.Thread(target=self._read, daemon=True, name=f"read-{home.label}")
        self._reader.start()

    def __repr__(self) -> str:
        return f"PeerProcess({self.home.label}, pid={self.pid}, rc={self.returncode})"

    def _read(self) -> None:
        assert self.popen.stdout is not None
        # Both closed at the end, by the thread that reads and copies.
        with self.popen.stdout, open(self.stdout_path, "w") as copy:
            for line in self.popen.stdout:
                copy.write(line)
                copy.flush()
                with self._changed:
                    self.lines.append(line.rstrip("\n"))
                    self._changed.notify_all()
        with self._changed:
            self._eof = True
            self._changed.notify_all()

    # -- reading --------------------------------------------------------------------

    def events(self) -> list[dict[str, Any]]:
        """The ``--trace`` JSON lines printed so far (other lines skipped)."""
        out = []
        for line in list(self.lines):
            if line.startswith("{"):
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict):
                    out.append(record)
        return out

    def wait_for(self, predicate: Callable[[list[str]], T | None], timeout: float, what: str) -> T:
        """Wait until ``predicate(lines)`` is truthy and return it; raise if it is not in time."""
        end = time.monotonic() + timeout
        with self._changed:
            while True:
                found = predicate(list(self.lines))
                if found:
                    return found
                left = end - time.monotonic()
                if left <= 0 or self._eof:
                    break
                self._changed.wait(min(left, 0.5))
        raise HarnessError(f"{self.home.label}: no {what} within {timeout:.0f} s "
                           f"({'exited' if self._eof else 'still running'}); "
                           f"last lines: {self.lines[-3:]}; stderr: {self.stderr()[-400:]!r}")

    def wait_event(self, name: str, timeout: float, count: int = 1) -> dict[str, Any]:
        """Wait for the ``count``-th trace event called ``name``; return it."""
        def found(lines: list[str]) -> dict[str, Any] | None:
            hits = [e for e in self.events() if e.get("event") == name]
            return hits[count - 1] if len(hits) >= count else None
        return self.wait_for(found, timeout, f"{name} event #{count}")

    def count_events(self, name: str | None = None) -> int:
        return sum(1 for e in self.events() if name is None or e.get("event") == name)

    def rss_kib(self) -> int | None:
        """The resident memory right now (``VmRSS``), or None once the process is gone."""
        try:
            status = Path(f"/proc/{self.pid}/status").read_text()
        except OSError:
            return None
        for line in status.splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return None

    def stderr(self) -> str:
        try:
            return self.stderr_path.read_text(errors="replace")
        except OSError:
            return ""

    @property
    def summary(self) -> str | None:
        """The closing line: ``Match over: ...``, ``Table ended: ...`` or ``Table closed: ...``."""
        for line in reversed(self.lines):
            if line.startswith(("Match over:", "Table ended:", "Table closed:")):
                return line
        return None

    def table_ended(self) -> dict[str, Any] | None:
        """The ``TableEnded`` trace event (rule, blamed), if the table ended with a verdict."""
        hits = [e for e in self.events() if e.get("event") == "TableEnded"]
        return hits[-1] if hits else None

    # -- lifetime -------------------------------------------------------------------

    def poll(self) -> int | None:
        """Reap the process if it ended (recording its peak memory); its exit code or None."""
        if self.returncode is not None:
            return self.returncode
        try:
            pid, status, usage = os.wait4(self.pid, os.WNOHANG)
        except ChildProcessError:
            # Reaped elsewhere (by Popen itself): its exit code, without the memory figure.
            self.returncode = self.popen.wait(timeout=5)
            return self.returncode
        if pid == 0:
            return None
        self.returncode = os.waitstatus_to_exitcode(status)
        self.popen.returncode = self.returncode
        self.peak_rss_kib = usage.ru_maxrss
        self.cpu_s = usage.ru_utime + usage.ru_stime
        self._close_streams()
        return self.returncode

    def wait(self, timeout: float) -> int:
        """Wait for the process to end; raise (leaving it running) if it does not in time."""
        end = time.monotonic() + timeout
        while (code := self.poll()) is None:
            if time.monotonic() > end:
                raise HarnessError(f"{self.home.label}: still running after {timeout:.0f} s; "
                                   f"last lines: {self.lines[-3:]}; "
                                   f"stderr: {self.stderr()[-400:]!r}")
            time.sleep(0.02)
        self._reader.join(timeout=5)
        return code

    def type_line(self, line: str) -> None:
        """A person's line on the process's input (started with ``stdin``)."""
        assert self.popen.stdin is not None, "started without stdin"
        self.popen.stdin.write(line + "\n")
        self.popen.stdin.flush()

    def signal(self, number: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, number)

    def kill(self) -> None:
        """SIGKILL and reap (no goodbye, no flush: a crash)."""
        if self.poll() is None:
            os.kill(self.pid, signal.SIGKILL)
            self.wait(timeout=10)

    def stop(self) -> None:
        """End the process if it still runs (for cleanup)."""
        if self.poll() is None:
            try:
                os.kill(self.pid, signal.SIGCONT)
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            with contextlib.suppress(HarnessError):
                self.wait(timeout=10)
        self._close_streams()

    def _close_streams(self) -> None:
        if not self._stderr.closed:
            self._stderr.close()
        if self.popen.stdin is not None and not self.popen.stdin.closed:
            with contextlib.suppress(OSError):
                self.popen.stdin.close()


# -- a whole table ---------------------------------------------------------------------


@dataclass
class TablePlan:
    """What to start: a game, its short settings, and the seat options of every process."""

    game: str
    seed: int | None = 1
    deadline: float = 30.0
    reconnect_window: float | None = None
    settings: tuple[str, ...] = ()
    bot: str = "heuristic"
    bind: str = "127.0.0.1"
    extra_host: tuple[str, ...] = ()

    @classmethod
    def short(cls, game: str, **kwargs: Any) -> TablePlan:
        """A short match: one Bluff deal, or Topper to 3 points."""
        settings = ("--deals", "1") if game == "bluff" else ("--target", "3")
        return cls(game, settings=settings, **kwargs)

    def seat_args(self) -> list[str]:
        """Every seat's options (join and resume take no clock: the host's is kept)."""
        args = ["--bot", self.bot, "--trace"]
        if self.seed is not None:
            args += ["--seed", str(self.seed)]
        if self.reconnect_window is not None:
            args += ["--reconnect-window", str(self.reconnect_window)]
        return args

    def clock_args(self) -> list[str]:
        """The table clock, a setting of the host's alone."""
        return ["--deadline", str(self.deadline)]

    def host_args(self, port: int = 0) -> list[str]:
        return ["host", self.game, *self.settings, "--no-advertise", "--bind", self.bind,
                "--port", str(port), *self.extra_host, *self.seat_args(), *self.clock_args()]

    def join_args(self, address: str) -> list[str]:
        return ["join", "--connect", address, *self.seat_args()]

    def resume_args(self, session: str) -> list[str]:
        return ["resume", session, *self.seat_args()]


@dataclass
class ProcessTable:
    """Four processes at one table: ``processes[0]`` is the host."""

    plan: TablePlan
    homes: list[Home]
    processes: list[PeerProcess] = field(default_factory=list)
    port: int = 0
    history: list[PeerProcess] = field(default_factory=list)
    """Every process ever started for this table, restarts included (for cleanup)."""

    def start_host(self, prefix: Sequence[str] = (),
                   args: list[str] | None = None) -> PeerProcess:
        host = self.homes[0].spawn(*(args or self.plan.host_args()), prefix=prefix)
        self.history.append(host)
        line = host.wait_for(lambda lines: next((line for line in lines if '"listening"' in line), None),
                             STARTUP_TIMEOUT, "listening line")
        self.port = json.loads(line)["listening"]
        self.processes = [host]
        return host

    def add_joiner(self, index: int, args: list[str], prefix: Sequence[str] = ()) -> PeerProcess:
        """Start one joiner and wait until it is in the lobby (so the join order is fixed)."""
        joiner = self.homes[index].spawn(*args, prefix=prefix)
        self.history.append(joiner)
        self.processes.append(joiner)
        joiner.wait_event("LobbyUpdate", STARTUP_TIMEOUT)
        return joiner

    def start(self) -> ProcessTable:
        """Host, then the three joiners one at a time over loopback TCP."""
        self.start_host()
        for index in range(1, 4):
            self.add_joiner(index, self.plan.join_args(f"{self.plan.bind}:{self.port}"))
        return self

    def restart(self, index: int, args: list[str] | None = None) -> PeerProcess:
        """Replace process ``index`` (already ended) with ``p2pcards resume`` of its saved table."""
        home = self.homes[index]
        if args is None:
            sessions = sorted({s["session"] for s in home.saved()})  # a host's relay shares it
            if len(sessions) != 1:
                raise HarnessError(f"{home.label}: {len(sessions)} saved tables, expected one")
            args = self.plan.resume_args(sessions[0])
        process = home.spawn(*args)
        self.history.append(process)
        self.processes[index] = process
        return process

    def wait(self, timeout: float = MATCH_TIMEOUT) -> list[int]:
        """Wait for every current process to end; their exit codes."""
        end = time.monotonic() + timeout
        return [p.wait(max(0.1, end - time.monotonic())) for p in self.processes]

    def stop(self) -> None:
        for process in self.history:
            process.stop()

    def verify_all(self, indices: Sequence[int] | None = None) -> list[Verification]:
        """``p2pcards verify`` on every saved transcript of the given homes, in parallel."""
        chosen = range(len(self.homes)) if indices is None else indices
        jobs = [(self.homes[i], path) for i in chosen for path in self.homes[i].transcripts()]
        results: list[Verification | None] = [None] * len(jobs)

        def check(slot: int) -> None:
            home, path = jobs[slot]
            results[slot] = home.verify(path)

        threads = [threading.Thread(target=check, args=(slot,)) for slot in range(len(jobs))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=2 * VERIFY_TIMEOUT)
        return [r for r in results if r is not None]


def make_homes(root: Path, names: Sequence[str] = ("Hana", "Ivo", "Juno", "Kai"),
               identities: Sequence[Home] | None = None, tag: str = "",
               package_root: Path | None = None) -> list[Home]:
    """Homes for four players; with ``identities``, each gets a copy of that home's identity;
    with ``package_root``, their processes import the ``p2pcards`` found there (:class:`Home`)."""
    homes = [Home(root, f"{tag}{name.lower()}", package_root=package_root) for name in names]
    for index, (home, name) in enumerate(zip(homes, names, strict=False)):
        if identities is not None:
            home.copy_identity_from(identities[index])
        else:
            home.create_identity(name)
    return homes


def play_table(plan: TablePlan, homes: list[Home], timeout: float = MATCH_TIMEOUT) -> ProcessTable:
    """Start a table, wait for all four processes to finish, return it (stopped on failure)."""
    table = ProcessTable(plan, homes)
    try:
        table.start()
        table.wait(timeout)
    except BaseException:
        table.stop()
        raise
    return table
