"""Suite-wide set-up: the namespace fixtures, Hypothesis profiles, a ``--basetemp`` that works.

``tests`` is one package (run from the repository root, as ``scripts/test``
does; subprocesses a test starts get the root on ``PYTHONPATH``), so every
helper is imported by its full name, e.g. ``from tests.support import until``.

Hypothesis: the ``ci`` profile (``HYPOTHESIS_PROFILE=ci``, as ``.ci/run`` sets, or
``--hypothesis-profile=ci``) is derandomised, so a failure in CI fails the same
way on any machine with the same command; every profile prints the
``@reproduce_failure`` blob of a failing example, which replays it exactly.

A ``--basetemp`` in a folder that does not exist yet still works:

pytest creates only the last folder of a ``--basetemp`` path, so pointing it
at its own first default on a fresh machine (``pytest-of-<user>/pytest-0``
in the system temporary directory, whose parent pytest has never made)
would fail every test that asks for ``tmp_path``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

from tests.support.netns import require_netns, simulated_lan_factory  # noqa: F401  (fixtures)

settings.register_profile("dev", print_blob=True)
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def pytest_configure(config: pytest.Config) -> None:
    basetemp = config.getoption("basetemp")
    if basetemp:
        Path(basetemp).expanduser().resolve().parent.mkdir(parents=True, exist_ok=True)
