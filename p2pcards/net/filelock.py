"""An exclusive, non-blocking lock on an open file, on POSIX and on Windows.

A saved table is played by one process at a time (two writers for one seat
would sign two messages for one position). The lock must go away by itself
when the process dies, or a crash would keep the player from resuming, so it
is the operating system's own lock on an open file: ``flock`` where
:mod:`fcntl` exists (Linux, macOS, the BSDs), ``msvcrt.locking`` on Windows.
Both are released when the descriptor is closed or the process ends.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

from p2pcards.net.storage import StorageError

__all__ = ["lock_exclusive", "unlock"]


def _module(name: str) -> ModuleType | None:
    try:
        return importlib.import_module(name)
    except ImportError:
        return None


def _backend() -> tuple[str, ModuleType]:
    """``("fcntl", module)`` or ``("msvcrt", module)``: what this platform locks with."""
    for name in ("fcntl", "msvcrt"):
        module = _module(name)
        if module is not None:
            return name, module
    raise StorageError("this platform has neither fcntl nor msvcrt: p2pcards cannot lock its files")


def lock_exclusive(fd: int) -> bool:
    """Take the lock on ``fd`` now (True), or say that another process or handle
    holds it (False); never waits."""
    name, module = _backend()
    if name == "fcntl":
        try:
            module.flock(fd, module.LOCK_EX | module.LOCK_NB)
        except BlockingIOError:
            return False
        return True
    # msvcrt locks a byte range from the file position: byte 0, which needs no
    # data in the file (Windows locks past the end of a file too).
    os.lseek(fd, 0, os.SEEK_SET)
    try:
        module.locking(fd, module.LK_NBLCK, 1)
    except OSError:  # EACCES or EDEADLOCK: another handle holds the range
        return False
    return True


def unlock(fd: int) -> None:
    """Give the lock on ``fd`` back before it is closed (closing releases it too)."""
    name, module = _backend()
    if name == "fcntl":
        module.flock(fd, module.LOCK_UN)
        return
    os.lseek(fd, 0, os.SEEK_SET)
    module.locking(fd, module.LK_UNLCK, 1)
