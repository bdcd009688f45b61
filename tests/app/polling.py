"""Waiting in tests for something a running table will do, always bounded."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any


async def until(predicate: Callable[[], Any], timeout: float = 30.0) -> None:
    """Poll ``predicate`` until it holds; ``asyncio.TimeoutError`` after ``timeout``."""
    async def wait() -> None:
        while not predicate():
            await asyncio.sleep(0.01)
    await asyncio.wait_for(wait(), timeout)
