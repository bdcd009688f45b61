"""Fixtures for the network layer's tests."""

from __future__ import annotations

import pytest

from p2pcards.protocol.identity import Identity


@pytest.fixture
def alice() -> Identity:
    return Identity.generate("alice")


@pytest.fixture
def bob() -> Identity:
    return Identity.generate("bob")
