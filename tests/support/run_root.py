"""One folder per test run for everything a run writes: its temporary files and a home.

Why: runs of the suite share a machine (a second copy of it, other people's
tables, other projects). pytest's default temporary root is shared by every
run of a user (``pytest-of-<user>``, the oldest numbered folders removed by
whichever run starts next), and a command run without ``XDG_*`` variables
reads and writes the real identity and saved tables of whoever runs the
suite. So each run (``tests/conftest.py``):

- makes its own root, ``p2pcards-tests-XXXXXXXX`` in the system temporary
  folder, and gives it to its worker processes (pytest-xdist) in
  ``P2PCARDS_TEST_ROOT``;
- takes ``<root>/tmp`` as pytest's ``--basetemp`` unless one is given (each
  xdist worker gets a folder inside it from pytest-xdist);
- points ``HOME`` and the ``XDG_*`` folders (and Windows' ``APPDATA``,
  ``LOCALAPPDATA``, ``USERPROFILE``) at ``<root>/home`` (``home-gwN`` for
  a worker), so a command a test runs without its own finds an empty home;
- removes the root when the run passed, and keeps it (the last line of the
  run says where) when a test failed, for a look at what it left.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

__all__ = ["ROOT_VARIABLE", "HOME_VARIABLES", "Run", "begin"]

ROOT_VARIABLE = "P2PCARDS_TEST_ROOT"
#: Where a command looks for a person's files, on each platform.
HOME_VARIABLES = {
    "HOME": "", "USERPROFILE": "",
    "XDG_CONFIG_HOME": ".config", "XDG_STATE_HOME": ".local/state",
    "XDG_DATA_HOME": ".local/share", "XDG_CACHE_HOME": ".cache",
    "APPDATA": "AppData/Roaming", "LOCALAPPDATA": "AppData/Local",
}


class Run:
    """This process's share of the run's root: ``owner`` is the process that made it."""

    def __init__(self, root: Path, owner: bool, home: Path) -> None:
        self.root = root
        self.owner = owner
        self.home = home
        self.failed = False

    def point_home_here(self) -> None:
        """Set ``HOME``, ``XDG_*`` (and Windows' equivalents) to this process's home."""
        for variable, below in HOME_VARIABLES.items():
            folder = self.home / below if below else self.home
            folder.mkdir(parents=True, exist_ok=True)
            os.environ[variable] = str(folder)

    def finish(self) -> str | None:
        """Remove the root if the run passed (only the process that made it does);
        what to tell people otherwise."""
        if not self.owner:
            return None
        if self.failed:
            return f"this run's temporary files are kept in {self.root}"
        shutil.rmtree(self.root, ignore_errors=True)
        os.environ.pop(ROOT_VARIABLE, None)
        return None


def begin(worker: str | None) -> Run:
    """This process's part of the run: a new root for the main process, the inherited
    one (and a home of its own) for an xdist ``worker``."""
    inherited = os.environ.get(ROOT_VARIABLE)
    if worker is not None and inherited:
        root = Path(inherited)
        return Run(root, owner=False, home=root / f"home-{worker}")
    root = Path(tempfile.mkdtemp(prefix="p2pcards-tests-"))
    os.environ[ROOT_VARIABLE] = str(root)
    return Run(root, owner=True, home=root / "home")
