"""Narrowing in tests: a value a test expects to be set, as its type (mypy --strict on tests/).

``present(x)`` is ``assert x is not None`` usable inside an expression: a test that
reads an optional field it expects filled fails there, naming what was missing,
rather than on an attribute of ``None`` further on.
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def present(value: T | None, what: str = "a value the test expects set") -> T:
    """``value`` itself, which must not be ``None`` (an ``AssertionError`` naming ``what`` if it is)."""
    assert value is not None, f"missing: {what}"
    return value
