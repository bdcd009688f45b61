"""The set-up behind scripts/play and scripts/test, on Linux, macOS and Windows alike.

It creates ``.venv/`` in the repository with the interpreter that runs it
(or ``$PYTHON``) and installs the project into it, with everything the tests
need, at the versions pinned in ``constraints.txt`` — again whenever a
packaging file changes (``P2PCARDS_NEWEST=1``: the newest versions
``setup.cfg`` allows instead). Every command then runs as
``<venv python> -m <module>``, so nothing depends on a venv's ``bin/`` (POSIX)
or ``Scripts\\`` (Windows) layout beyond the interpreter itself.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
VENV = REPO / ".venv"
MINIMUM = (3, 11)
PACKAGING = ("setup.cfg", "pyproject.toml", "constraints.txt")


def say(text: str) -> None:
    print(f"p2pcards: {text}", file=sys.stderr, flush=True)


def venv_python(venv: Path = VENV) -> Path:
    """The venv's interpreter: ``bin/python`` on POSIX, ``Scripts\\python.exe`` on Windows."""
    if os.name == "nt":
        return venv / "Scripts" / "python.exe"
    return venv / "bin" / "python"


def _base_python() -> str:
    """The interpreter that makes the venv: ``$PYTHON``, else the one running this script."""
    return os.environ.get("PYTHON") or sys.executable


def _wanted() -> str:
    """What the venv must have been installed from: a hash of the packaging files (as
    ``cat setup.cfg pyproject.toml constraints.txt | sha256sum`` would give) and the flag."""
    digest = hashlib.sha256(b"".join((REPO / name).read_bytes() for name in PACKAGING))
    return digest.hexdigest() + os.environ.get("P2PCARDS_NEWEST", "0")


def ensure() -> Path:
    """Create or reuse the venv and (re)install the project when needed; its interpreter."""
    if sys.version_info < MINIMUM and not os.environ.get("PYTHON"):
        sys.exit(f"p2pcards: Python {'.'.join(map(str, MINIMUM))} or newer is needed, this is "
                 f"{sys.version.split()[0]} ({sys.executable}); run this script with a newer one "
                 f"(e.g. python3.11 scripts/{Path(sys.argv[0]).name}, or py -3.11 on Windows)")
    python = venv_python()
    if not python.exists():
        say(f"creating {VENV}")
        made = subprocess.run([_base_python(), "-m", "venv", str(VENV)])
        if made.returncode != 0 or not python.exists():
            sys.exit(f"p2pcards: could not create {VENV} (on Debian and Ubuntu: apt install "
                     f"python3-venv)")
    stamp = VENV / ".p2pcards-installed"
    wanted = _wanted()
    if stamp.exists() and stamp.read_text(encoding="utf-8").strip() == wanted:
        return python
    if os.environ.get("P2PCARDS_NEWEST", "0") == "1":
        pins = ["--upgrade", "--upgrade-strategy", "eager"]
    else:
        pins = ["-c", str(REPO / "constraints.txt")]
    log = VENV / "install.log"
    say(f"installing into {VENV} (log: {log})")
    with open(log, "w", encoding="utf-8") as out:
        done = subprocess.run([str(python), "-m", "pip", "install", *pins, "-e", f"{REPO}[test]"],
                              stdout=out, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
        print("\n".join(lines[-40:]), file=sys.stderr)
        sys.exit(f"p2pcards: installation failed; see {log}")
    stamp.write_text(wanted + "\n", encoding="utf-8")
    return python


def run(argv: list[str]) -> None:
    """Run ``argv`` as the last step: this process becomes it where the OS allows (POSIX),
    else waits for it and exits with its code (Windows' exec does not replace a process)."""
    sys.stdout.flush()
    sys.stderr.flush()
    if os.name == "posix":
        os.execv(argv[0], argv)
    try:
        code = subprocess.call(argv)
    except KeyboardInterrupt:
        code = 130
    sys.exit(code)
