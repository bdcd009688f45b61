"""What every benchmark prints: figures that are numbers, in a unit measured in the same run.

Why a unit: a time in seconds says as much about the machine and its load as
about the code. One variable-base scalar multiplication (libsodium's
``crypto_scalarmult_ed25519_noclamp``, the operation a deal is made of, called
as the group layer calls it: :mod:`p2pcards.crypto.sodium`),
timed in the benchmark's own process through the same run, turns seconds into
multiplications' worth ("units"), which compare across machines and loads.

Why the check: a figure that comes out as ``None`` (an event renamed, a phase
no longer traced) hides that the benchmark measures nothing. A benchmark
passes its report through :func:`finish`, which names every empty figure on
stderr and makes the run fail.
"""

from __future__ import annotations

import math
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import nacl.bindings as nb
import nacl.utils

from p2pcards.crypto import sodium

#: Keys whose values are counts, never times, even inside a figure named in seconds.
COUNT_KEYS = frozenset({"count", "runs", "samples", "cards", "seats", "deals", "workers"})
#: How a key names its time unit, and that unit's seconds.
TIME_SUFFIXES = (("_ms", 1e-3), ("_s", 1.0), ("_us", 1e-6))


class ScalarmultUnit:
    """The median time of one variable-base scalar multiplication in this process.

    Sampled more than once (before, during and after the work measured): on a
    shared machine the speed drifts, and the median of samples spread over
    the run is the unit that run was measured in."""

    def __init__(self) -> None:
        self._scalar = nb.crypto_core_ed25519_scalar_reduce(nacl.utils.random(64))
        self._point = nb.crypto_scalarmult_ed25519_base_noclamp(
            nb.crypto_core_ed25519_scalar_reduce(nacl.utils.random(64)))
        self.samples: list[float] = []
        self._lock = threading.Lock()

    def sample(self, count: int = 41) -> None:
        """Time ``count`` multiplications, one by one."""
        times = []
        for _ in range(count):
            start = time.perf_counter()
            sodium.scalarmult(self._scalar, self._point)
            times.append(time.perf_counter() - start)
        with self._lock:
            self.samples.extend(times)

    @contextmanager
    def sampling(self, interval: float = 1.0, count: int = 21) -> Iterator[ScalarmultUnit]:
        """Sample before, every ``interval`` seconds during, and after the ``with`` body
        (for work done by other processes, while this one waits)."""
        stop = threading.Event()

        def loop() -> None:
            while not stop.wait(interval):
                self.sample(count)

        self.sample()
        thread = threading.Thread(target=loop, daemon=True, name="scalarmult-unit")
        thread.start()
        try:
            yield self
        finally:
            stop.set()
            thread.join(timeout=10)
            self.sample()

    @property
    def seconds(self) -> float:
        if not self.samples:
            self.sample()
        with self._lock:
            return statistics.median(self.samples)

    def units(self, seconds: float) -> float:
        """``seconds`` as multiplications' worth."""
        return seconds / self.seconds

    def describe(self) -> dict[str, Any]:
        """The unit itself, for a report."""
        return {"scalarmult_us": self.seconds * 1e6, "samples": len(self.samples)}


def _time_scale(key: str) -> float | None:
    for suffix, scale in TIME_SUFFIXES:
        if key.endswith(suffix):
            return scale
    return None


def _in_units(value: Any, scale: float, unit_s: float) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return value * scale / unit_s
    if isinstance(value, list):
        return [_in_units(v, scale, unit_s) for v in value]
    if isinstance(value, dict):
        return {_units_key(k) if _time_scale(k) else k:
                v if k in COUNT_KEYS else _in_units(v, scale * (_time_scale(k) or 1.0), unit_s)
                for k, v in value.items()}
    return value


def _units_key(key: str) -> str:
    return key.rsplit("_", 1)[0] + "_units"


def with_units(report: Any, unit_s: float) -> Any:
    """``report`` with every time figure (a key ending ``_s``, ``_ms`` or ``_us``)
    followed by the same figure in units (its key ending ``_units``), at any depth."""
    if isinstance(report, list):
        return [with_units(v, unit_s) for v in report]
    if not isinstance(report, dict):
        return report
    out: dict[str, Any] = {}
    for key, value in report.items():
        out[key] = with_units(value, unit_s)
        scale = _time_scale(key)
        if scale is not None and key != "scalarmult_us":
            out[_units_key(key)] = _in_units(value, scale, unit_s)
    return out


def empty_figures(report: Any, path: str = "") -> list[str]:
    """The paths of every ``None`` or NaN in ``report`` (nested dicts and lists)."""
    if report is None or (isinstance(report, float) and math.isnan(report)):
        return [path or "(the report)"]
    if isinstance(report, dict):
        return [p for k, v in report.items() for p in empty_figures(v, f"{path}.{k}" if path else k)]
    if isinstance(report, list):
        return [p for i, v in enumerate(report) for p in empty_figures(v, f"{path}[{i}]")]
    return []


def finish(report: Any, name: str) -> int:
    """The exit status of a benchmark that printed ``report``: 1, naming them on
    stderr, if any figure is empty."""
    empty = empty_figures(report)
    if empty:
        print(f"{name}: {len(empty)} figure(s) came out empty (the benchmark measured nothing "
              f"there): {', '.join(empty[:20])}", file=sys.stderr)
        return 1
    return 0


def fmt(seconds: float, unit: ScalarmultUnit | float, digits: int = 3) -> str:
    """``0.512 s (5,505 u)``: a time and its units."""
    unit_s = unit if isinstance(unit, float) else unit.seconds
    return f"{seconds:.{digits}f} s ({seconds / unit_s:,.0f} u)"


def fmt_ms(milliseconds: float, unit: ScalarmultUnit | float) -> str:
    """``3.84 ms (41 u)``."""
    unit_s = unit if isinstance(unit, float) else unit.seconds
    return f"{milliseconds:.2f} ms ({milliseconds / 1000 / unit_s:,.1f} u)"


def unit_line(unit: ScalarmultUnit) -> str:
    """The sentence that says what a unit was in this run."""
    return (f"unit (u): one variable-base scalar multiplication, {unit.seconds * 1e6:.1f} µs "
            f"in this run (median of {len(unit.samples)} timed here)")
