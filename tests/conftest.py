"""Suite-wide set-up: a folder of its own per run, the namespace fixtures, Hypothesis
profiles, a ``--basetemp`` that works.

``tests`` is one package (run from the repository root, as ``scripts/test``
does; subprocesses a test starts get the root on ``PYTHONPATH``), so every
helper is imported by its full name, e.g. ``from tests.support import until``.

Hypothesis: the ``ci`` profile (``HYPOTHESIS_PROFILE=ci``, as ``.ci/run`` sets, or
``--hypothesis-profile=ci``) is derandomised, so a failure in CI fails the same
way on any machine with the same command; every profile prints the
``@reproduce_failure`` blob of a failing example, which replays it exactly.

Each run has its own temporary root, ``--basetemp`` and home (HOME, XDG_*),
removed when it passes (``tests/support/run_root.py``): another run on the
machine can neither remove this one's files nor read its identity.

Ctrl-C reaches every process the suite starts, as at a terminal: a shell that
starts the suite in the background (``bash .ci/run &``, ``nohup``) hands it
SIGINT ignored, which every child would inherit (the Ctrl-C tests then saw no
KeyboardInterrupt, and a player sent SIGINT never left). The suite catches it
again, so the processes it starts get the default.

A ``--basetemp`` in a folder that does not exist yet still works:

pytest creates only the last folder of a ``--basetemp`` path, so pointing it
at its own first default on a fresh machine (``pytest-of-<user>/pytest-0``
in the system temporary directory, whose parent pytest has never made)
would fail every test that asks for ``tmp_path``.
"""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from hypothesis import settings

from tests.support import run_root
from tests.support.netns import require_netns, simulated_lan_factory  # noqa: F401  (fixtures)

settings.register_profile("dev", print_blob=True)
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


_RUN = pytest.StashKey[run_root.Run]()

#: pytest-timeout's bound on a slow test (whole tables of processes, several matches):
#: setup.cfg's 300 s, which bounds every other test, is a quiet machine's; at a load of
#: 8 runnable processes on two cores an evening of two matches alone takes minutes.
SLOW_TEST_TIMEOUT = 900


@pytest.hookimpl(tryfirst=True)  # before pytest reads --basetemp
def pytest_configure(config: pytest.Config) -> None:
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    worker = getattr(config, "workerinput", {}).get("workerid")
    run = run_root.begin(worker)
    config.stash[_RUN] = run
    run.point_home_here()
    basetemp = config.getoption("basetemp")
    if basetemp:
        Path(basetemp).expanduser().resolve().parent.mkdir(parents=True, exist_ok=True)
    elif worker is None:
        config.option.basetemp = str(run.root / "tmp")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("slow") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(SLOW_TEST_TIMEOUT))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if _RUN in session.config.stash:
        session.config.stash[_RUN].failed = exitstatus not in (0, pytest.ExitCode.NO_TESTS_COLLECTED)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int) -> None:
    run = terminalreporter.config.stash.get(_RUN, None)
    if run is not None and run.owner and exitstatus not in (0, pytest.ExitCode.NO_TESTS_COLLECTED):
        terminalreporter.write_line(f"this run's temporary files are kept in {run.root}")


@pytest.hookimpl(trylast=True)  # after pytest-xdist has stopped its workers
def pytest_unconfigure(config: pytest.Config) -> None:
    run = config.stash.get(_RUN, None)
    if run is not None:
        run.finish()
