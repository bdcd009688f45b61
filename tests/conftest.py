"""Suite-wide set-up: a ``--basetemp`` in a folder that does not exist yet still works.

pytest creates only the last folder of a ``--basetemp`` path, so pointing it
at its own first default on a fresh machine (``pytest-of-<user>/pytest-0``
in the system temporary directory, whose parent pytest has never made)
would fail every test that asks for ``tmp_path``.
"""

from __future__ import annotations

from pathlib import Path

import pytest


def pytest_configure(config: pytest.Config) -> None:
    basetemp = config.getoption("basetemp")
    if basetemp:
        Path(basetemp).expanduser().resolve().parent.mkdir(parents=True, exist_ok=True)
