"""The ``p2pcards`` commands the program prints for a person to type (``verify``
after a table, ``resume`` in ``saved``, ``join`` for the host's friends): written so
they run as printed, in the quoting of the platform's shell.

POSIX shells take single quotes; cmd.exe does not, and PowerShell and cmd.exe
both take double quotes (a program's own argument parser then undoes a
backslash before a quote), so a table named ``Friday night`` is printed as
``'Friday night'`` on Linux and macOS and as ``"Friday night"`` on Windows.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import sys
import sysconfig
from collections.abc import Iterable
from pathlib import Path

#: What needs no quotes in cmd.exe or PowerShell (``%`` and ``$`` would be expanded).
_WINDOWS_SAFE = re.compile(r"[A-Za-z0-9_@+=:,./\\-]+")


def _windows_quote(arg: str) -> str:
    if _WINDOWS_SAFE.fullmatch(arg):
        return arg
    out, backslashes = [], 0
    for char in arg:
        if char == "\\":
            backslashes += 1
            continue
        if char == '"':  # backslashes before a quote are doubled, and the quote escaped
            out.append("\\" * (2 * backslashes + 1) + '"')
        else:
            out.append("\\" * backslashes + char)
        backslashes = 0
    out.append("\\" * (2 * backslashes))  # before the closing quote
    return '"' + "".join(out) + '"'


def quote(arg: str, windows: bool | None = None) -> str:
    """``arg`` as the platform's shell reads it back as one word (``windows``: as on
    Windows; None: this platform)."""
    if os.name == "nt" if windows is None else windows:
        return _windows_quote(arg)
    return shlex.quote(arg)


def join(args: Iterable[str], windows: bool | None = None) -> str:
    """The words ``args`` as one command line, each quoted as :func:`quote` does."""
    return " ".join(quote(arg, windows) for arg in args)


def command_line(*args: str) -> str:
    """A short ``p2pcards`` command line that runs as printed from where it was
    printed: the plain name when it is on PATH, else this installation's own script
    (relative to the current folder when it lies below it, as after ``scripts/play``
    the command lives only in the repo's venv), else the interpreter with ``-m``."""
    # The venv's scripts folder: bin/p2pcards, or Scripts\p2pcards.exe on Windows.
    script = Path(sysconfig.get_path("scripts")) / ("p2pcards.exe" if os.name == "nt" else "p2pcards")
    on_path = shutil.which("p2pcards")
    if on_path and script.exists() and Path(on_path).resolve() == script.resolve():
        head = "p2pcards"
    elif script.exists():
        head = quote(_below_here(script))
    else:
        head = f"{quote(sys.executable)} -m p2pcards"
    return " ".join([head, *(quote(a) for a in args)])


def _below_here(path: Path) -> str:
    """``path`` relative to the current folder when it lies below it, else whole."""
    with contextlib.suppress(ValueError, OSError):
        relative = path.resolve().relative_to(Path.cwd().resolve())
        # A bare name would be looked up on PATH: ./p2pcards names this one.
        return str(relative) if len(relative.parts) > 1 else os.path.join(os.curdir, relative)
    return str(path)
