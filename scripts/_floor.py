"""The libsodium floor of a piece of work: the operations it needs, each timed here.

A floor says how fast the work could be if everything but libsodium cost
nothing: Python, msgpack, hashing and the rules engine are the gap between
it and the measured time. It is the count of each libsodium operation the
work makes, times that operation's cost in units: its median time over that of
one variable-base multiplication, both timed here back to back (ratios that
hold under load, where times do not); the floor in seconds is that many units
of the run's own unit (``scripts/_figures.py``), so it moves with the machine's
speed as the measured time does.

Counting: :data:`p2pcards.crypto.group.OPS` counts the group operations
(variable- and fixed-base multiplications, additions, point validations,
hash-to-curve); signatures made and checked are counted by wrapping the
``nacl.bindings`` functions ``nacl.signing`` calls, while the work runs.
A point is validated once per process (``VALID_POINTS``): the count is of
distinct points, as the construction needs.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import nacl.bindings as nb
import nacl.utils

from p2pcards.crypto import sodium
from p2pcards.crypto.group import OPS

#: The operations a floor counts, in the order reports list them.
OPERATIONS = ("scalarmult", "scalarmult_base", "add", "validate", "from_uniform",
              "sign", "sign_verify")


class Tally(dict[str, int]):
    """The operations counted by :func:`counted`: filled when its ``with`` body ends;
    :meth:`so_far` reads them while it runs (to split a piece of work by its parts)."""

    def __init__(self, signed: list[int]) -> None:
        super().__init__()
        self._signed = signed

    def so_far(self) -> dict[str, int]:
        return {**OPS.snapshot(), "sign": self._signed[0], "sign_verify": self._signed[1]}


@contextmanager
def counted() -> Iterator[Tally]:
    """Count the libsodium operations of the ``with`` body (this process only);
    the dict yielded is filled when the body ends."""
    signed = [0, 0]
    counts = Tally(signed)
    real_sign, real_open = nb.crypto_sign, nb.crypto_sign_open

    def sign(message: bytes, sk: bytes) -> bytes:
        signed[0] += 1
        return real_sign(message, sk)

    def sign_open(signed_message: bytes, pk: bytes) -> bytes:
        signed[1] += 1
        return real_open(signed_message, pk)

    OPS.reset()
    nb.crypto_sign, nb.crypto_sign_open = sign, sign_open
    try:
        yield counts
    finally:
        nb.crypto_sign, nb.crypto_sign_open = real_sign, real_open
        counts.update(counts.so_far())


def _median_time(call: Callable[[], object], count: int) -> float:
    times = []
    for _ in range(count):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def op_units(count: int = 101) -> dict[str, float]:
    """Each operation's cost in units: the median of ``count`` timed calls over the
    median of as many variable-base multiplications, timed in turn in this process."""
    scalar = nb.crypto_core_ed25519_scalar_reduce(nacl.utils.random(64))
    point = nb.crypto_scalarmult_ed25519_base_noclamp(scalar)
    other = nb.crypto_scalarmult_ed25519_base_noclamp(
        nb.crypto_core_ed25519_scalar_reduce(nacl.utils.random(64)))
    uniform = nacl.utils.random(32)
    public, secret = nb.crypto_sign_seed_keypair(nacl.utils.random(32))
    message = nacl.utils.random(200)  # about a game action's signed payload
    signed = nb.crypto_sign(message, secret)
    seconds = {
        "scalarmult": _median_time(lambda: sodium.scalarmult(scalar, point), count),
        "scalarmult_base": _median_time(lambda: sodium.scalarmult_base(scalar), count),
        "add": _median_time(lambda: sodium.add(point, other), count),
        "validate": _median_time(lambda: sodium.is_valid_point(point), count),
        "from_uniform": _median_time(lambda: nb.crypto_core_ed25519_from_uniform(uniform), count),
        "sign": _median_time(lambda: nb.crypto_sign(message, secret), count),
        "sign_verify": _median_time(lambda: nb.crypto_sign_open(signed, public), count),
    }
    # The unit again, last: its median over both samples, against load that drifts.
    again = _median_time(lambda: sodium.scalarmult(scalar, point), count)
    unit = (seconds["scalarmult"] + again) / 2
    return {op: 1.0 if op == "scalarmult" else seconds[op] / unit for op in OPERATIONS}


def floor_units(counts: dict[str, int], units: dict[str, float]) -> float:
    """The CPU of libsodium alone, in units: each operation's count times its cost."""
    return sum(counts.get(op, 0) * units[op] for op in OPERATIONS)


def describe(counts: dict[str, int], units: dict[str, float], unit_s: float) -> dict[str, Any]:
    """Counts, each operation's cost in units, and the CPU floor in seconds of this
    run's unit (``unit_s``), for a report."""
    return {"operations": {op: counts.get(op, 0) for op in OPERATIONS},
            "cost_units": {op: units[op] for op in OPERATIONS},
            "cpu_floor_s": floor_units(counts, units) * unit_s}


def operations_line(counts: dict[str, int]) -> str:
    """``25,420 var. mult., 4,120 fixed-base, ...`` for a human report."""
    names = {"scalarmult": "variable-base mult.", "scalarmult_base": "fixed-base mult.",
             "add": "additions", "validate": "point validations", "from_uniform": "hash-to-curve",
             "sign": "signatures made", "sign_verify": "signatures checked"}
    return ", ".join(f"{counts.get(op, 0):,} {names[op]}" for op in OPERATIONS if counts.get(op))
