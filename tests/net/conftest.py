"""Fixtures for the network layer's tests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

_TESTS_DIR = str(Path(__file__).resolve().parents[1])
if _TESTS_DIR not in sys.path:
    sys.path.insert(0, _TESTS_DIR)

from netns import require_netns, simulated_lan_factory  # noqa: E402,F401  (fixtures for these tests)

from p2pcards.protocol.identity import Identity  # noqa: E402


@pytest.fixture
def alice() -> Identity:
    return Identity.generate("alice")


@pytest.fixture
def bob() -> Identity:
    return Identity.generate("bob")
