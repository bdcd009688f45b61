"""The simulations' shared set-up: quiet logs."""

from __future__ import annotations

import logging

import pytest


@pytest.fixture(autouse=True)
def _quiet(caplog: pytest.LogCaptureFixture) -> None:
    """The peers log every frame they drop; thousands of runs need not keep them."""
    caplog.set_level(logging.ERROR)
