"""The seats of one process check the same message one after another, other messages at once."""

from __future__ import annotations

import threading
import time

import pytest

from p2pcards.net.same_bytes import OneAtATime


def test_jobs_on_the_same_bytes_never_overlap_and_other_bytes_do() -> None:
    gate = OneAtATime()
    inside: dict[bytes, int] = {b"a": 0, b"b": 0}
    most = {b"a": 0, b"b": 0}
    lock = threading.Lock()
    b_started = threading.Event()

    def job(key: bytes) -> None:
        with lock:
            inside[key] += 1
            most[key] = max(most[key], inside[key])
        if key == b"b":
            b_started.set()
        else:
            b_started.wait(10)  # a job on other bytes gets in while this one runs
            time.sleep(0.01)
        with lock:
            inside[key] -= 1

    threads = [threading.Thread(target=gate.run, args=(key, lambda key=key: job(key)))
               for key in (b"a", b"a", b"a", b"b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert most == {b"a": 1, b"b": 1} and b_started.is_set()
    assert len(gate) == 0  # nothing kept once every job ended


def test_a_failed_job_lets_the_next_run_its_own() -> None:
    gate = OneAtATime()
    with pytest.raises(ValueError):
        gate.run(b"m", lambda: (_ for _ in ()).throw(ValueError("bad")))
    assert gate.run(b"m", lambda: 7) == 7 and len(gate) == 0
