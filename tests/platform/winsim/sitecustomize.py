"""Windows, simulated on Linux for a whole run of the real command (imported by ``site``
when this folder is on PYTHONPATH; see tests/platform/test_simulated_windows.py).

- The POSIX-only modules do not exist: importing fcntl, termios, tty, pwd, grp or
  resource raises ImportError, as on Windows.
- ``msvcrt.locking`` stands in for Windows' byte-range locks (built on this
  machine's own record locks, which behave alike between processes). Only
  p2pcards' file lock is given it: the standard library takes an importable
  msvcrt to mean Windows (subprocess would look for _winapi).
- Windows' file rules: a directory cannot be opened (``os.open`` raises
  PermissionError, so no directory fsync), and a rename over an existing file is
  refused once per file (PermissionError), as when an antivirus or an indexer holds
  it open for a moment.

Each refusal is counted in the file named by P2PCARDS_WINSIM_LOG, so the test
can tell that the simulation really ran.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys

POSIX_ONLY = frozenset({"fcntl", "termios", "tty", "pwd", "grp", "resource"})
_LOG = os.environ.get("P2PCARDS_WINSIM_LOG")


def _note(what: str) -> None:
    if _LOG:
        with open(_LOG, "a", encoding="utf-8") as log:
            log.write(what + "\n")


def _asked_by_the_file_lock() -> bool:
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_globals.get("__name__") == "p2pcards.net.filelock":
            return True
        frame = frame.f_back
    return False


class _MsvcrtLoader(importlib.abc.Loader):
    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.LK_UNLCK, module.LK_LOCK, module.LK_NBLCK = 0, 1, 2

        def locking(fd: int, mode: int, nbytes: int) -> None:
            if mode == module.LK_UNLCK:
                os.lockf(fd, os.F_ULOCK, nbytes)
                return
            try:
                os.lockf(fd, os.F_TLOCK, nbytes)
            except OSError as error:  # Windows says EACCES (or EDEADLOCK) for a held range
                raise OSError(13, "Permission denied") from error
            _note("msvcrt.locking")

        module.locking = locking


class _SimulatedWindows(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):
        if fullname in POSIX_ONLY:
            _note(f"import {fullname} refused")
            raise ImportError(f"No module named {fullname!r} (simulated Windows)", name=fullname)
        if fullname == "msvcrt" and _asked_by_the_file_lock():
            return importlib.machinery.ModuleSpec("msvcrt", _MsvcrtLoader())
        return None


for _name in POSIX_ONLY:
    sys.modules.pop(_name, None)
sys.meta_path.insert(0, _SimulatedWindows())

# --- Windows' file rules ---------------------------------------------------------------

_real_open, _real_replace, _real_rename = os.open, os.replace, os.rename
_held_once: set[str] = set()


def _open(path, flags, mode=0o777, *, dir_fd=None):
    if dir_fd is None and os.path.isdir(path):
        _note("directory open refused")
        raise PermissionError(13, "Permission denied", os.fspath(path))
    return _real_open(path, flags, mode, dir_fd=dir_fd)


def _refuse_once(target) -> None:
    key = os.path.abspath(os.fspath(target))
    if os.path.isfile(key) and key not in _held_once:
        _held_once.add(key)
        _note("rename over a held file refused")
        raise PermissionError(13, "Access is denied", key)


def _replace(source, target, **kwargs):
    _refuse_once(target)
    return _real_replace(source, target, **kwargs)


def _rename(source, target, **kwargs):
    _refuse_once(target)
    return _real_rename(source, target, **kwargs)


os.open, os.replace, os.rename = _open, _replace, _rename
