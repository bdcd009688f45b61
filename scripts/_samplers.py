"""Samplers a benchmark polls while its processes run: TCP bytes (``ss``) and resident memory.

Each polls in a daemon thread at a fixed interval, started and stopped around
the work measured; nothing here asserts, it only records.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
import time
from typing import Any


class Poller:
    """Calls ``sample`` every ``interval`` seconds in a daemon thread until stopped."""

    def __init__(self, sample: Any, interval: float) -> None:
        self.sample = sample
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def _poll(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(self.interval)


class WireCounter:
    """TCP payload bytes through the host's port, read from the kernel (``ss -ti``).

    Polled while the match runs; each connection's counters only grow, so its
    last reading before it closes is kept (missing at most the final poll interval).
    Every half second, not more often: each ``ss`` costs a few milliseconds of
    CPU, which polled ten times a second measurably slowed the deals it measures.
    """

    def __init__(self, port: int, interval: float = 0.5) -> None:
        self.port = port
        self.interval = interval
        self.sockets: dict[str, tuple[int, int]] = {}
        self.available = shutil.which("ss") is not None
        self._poller = Poller(self.sample, interval)

    def start(self) -> WireCounter:
        if self.available:
            self._poller.start()
        return self

    def stop(self) -> None:
        self._poller.stop()

    def sample(self) -> None:
        try:
            query = ["ss", "-tinH", "state", "established", f"( sport = :{self.port} )"]
            out = subprocess.run(query, capture_output=True, text=True, timeout=5).stdout
        except (OSError, subprocess.TimeoutExpired):
            return
        peer = None
        for line in out.splitlines():
            fields = line.split()
            if not fields:
                continue
            if not line[0].isspace() and len(fields) >= 4:
                peer = fields[3]
                continue
            sent = _counter(fields, "bytes_sent:")
            received = _counter(fields, "bytes_received:")
            if peer is not None and sent is not None and received is not None:
                old = self.sockets.get(peer, (0, 0))
                self.sockets[peer] = (max(old[0], sent), max(old[1], received))

    @property
    def total(self) -> int | None:
        """Bytes both ways over every joiner's connection (None if ``ss`` is missing)."""
        if not self.available:
            return None
        return sum(sent + received for sent, received in self.sockets.values())


def _counter(fields: list[str], prefix: str) -> int | None:
    for field in fields:
        if field.startswith(prefix):
            return int(field[len(prefix):])
    return None



class RssSampler:
    """Every few tenths of a second, each process's resident size (``VmRSS``), so
    that growth early in a match can be set against growth late in it."""

    def __init__(self, interval: float = 0.2) -> None:
        self.interval = interval
        self.processes: list[Any] = []
        self.samples: list[tuple[float, list[int | None]]] = []
        self._poller = Poller(self.sample, interval)

    def add(self, process: Any) -> Any:
        self.processes.append(process)
        return process

    def start(self) -> RssSampler:
        self._poller.start()
        return self

    def stop(self) -> None:
        self._poller.stop()

    def sample(self) -> None:
        self.samples.append((time.time(), [p.rss_kib() for p in list(self.processes)]))

    def _at(self, when: float, index: int) -> int | None:
        """The last reading of process ``index`` at or before ``when`` (or its first
        reading, for a process that started just after)."""
        found = None
        for t, values in self.samples:
            if index >= len(values) or values[index] is None:
                continue
            if t > when:
                return values[index] if found is None else found
            found = values[index]
        return found

    def quarters(self, start: float | None, end: float | None) -> list[dict[str, Any]]:
        """Per process: KiB grown over the match's first and last quarters, and at its end."""
        if start is None or end is None or end <= start:
            return []
        quarter = (end - start) / 4
        out = []
        for index in range(len(self.processes)):
            marks = [self._at(t, index) for t in (start, start + quarter, end - quarter, end)]
            if None in marks:
                out.append({})
                continue
            out.append({"first_quarter_kib": marks[1] - marks[0],
                        "last_quarter_kib": marks[3] - marks[2], "end_kib": marks[3]})
        return out
