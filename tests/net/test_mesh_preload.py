"""A player who will announce its direct links loads zeroconf while the lobby waits.

Why: imported at the genesis, zeroconf's import (tens of milliseconds on every
joiner at once) lay on the first deal's path. A mesh that never announces
(``--no-direct``, a host's own seats) still never loads it. Each case runs in a
fresh interpreter, where nothing else has imported zeroconf before.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Listens on loopback with ``announce`` as given, no table known yet; prints whether
#: zeroconf and the announcer's module are loaded.
_LISTEN = """
import asyncio, sys
from p2pcards.net.mesh import Mesh
from p2pcards.protocol.identity import Identity

async def main(announce):
    async def deliver(player, data):
        pass
    mesh = Mesh(Identity.generate("p"), deliver, lambda: {}, announce=announce)
    try:
        await mesh.listen("127.0.0.1", mine=[])
        print("table", mesh.session is not None)
        print("loaded", "zeroconf" in sys.modules, "p2pcards.net.direct_discovery" in sys.modules)
    finally:
        await mesh.close()

asyncio.run(main(sys.argv[1] == "announce"))
"""


def listen_and_report(announce: bool) -> list[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", _LISTEN, "announce" if announce else "quiet"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT, env=env,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.splitlines()


@pytest.mark.parametrize("announce", [True, False])
def test_zeroconf_is_loaded_at_listening_exactly_when_the_player_will_announce(announce: bool) -> None:
    lines = listen_and_report(announce)
    assert lines[0] == "table False"  # no genesis yet: this is the lobby
    assert lines[1] == f"loaded {announce} {announce}"
