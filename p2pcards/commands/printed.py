"""The ``p2pcards`` commands the program prints for a person to type (``verify``
after a table, ``resume`` in ``saved``): written so they run as printed."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import sysconfig
from pathlib import Path

from p2pcards.ui import commandline


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
        head = commandline.quote(_below_here(script))
    else:
        head = f"{commandline.quote(sys.executable)} -m p2pcards"
    return " ".join([head, *(commandline.quote(a) for a in args)])


def _below_here(path: Path) -> str:
    """``path`` relative to the current folder when it lies below it, else whole."""
    with contextlib.suppress(ValueError, OSError):
        relative = path.resolve().relative_to(Path.cwd().resolve())
        # A bare name would be looked up on PATH: ./p2pcards names this one.
        return str(relative) if len(relative.parts) > 1 else os.path.join(os.curdir, relative)
    return str(path)
