"""A command line printed for a person to copy, in the quoting of the platform's shell.

POSIX shells take single quotes; cmd.exe does not, and PowerShell and cmd.exe
both take double quotes (a program's own argument parser then undoes a
backslash before a quote), so a table named ``Friday night`` is printed as
``'Friday night'`` on Linux and macOS and as ``"Friday night"`` on Windows.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable

__all__ = ["join", "quote"]

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
