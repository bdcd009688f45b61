"""A command loads only what it uses: ``--version`` no table, a table against bots on
this machine no discovery (zeroconf), no browser server (aiohttp), no interface listing.

Each check runs the real command in a fresh interpreter and reads its ``sys.modules``
at exit: an import added at the top of a module the start reaches shows up here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from p2pcards.bots import kinds, registry
from p2pcards.commands import options
from p2pcards.rules import games

ROOT = Path(__file__).resolve().parents[2]

#: Prints the loaded modules (one a line, after a marker) when the command exits.
_REPORT = """
import atexit, runpy, sys
atexit.register(lambda: print("MODULES", *sorted(sys.modules), sep="\\n", file=sys.stderr))
sys.argv = ["p2pcards", *sys.argv[1:]]
runpy.run_module("p2pcards", run_name="__main__")
"""

#: Never loaded by a table on this machine: the LAN's discovery, a browser table's
#: server, the interface listing only discovery and direct links need.
NOT_FOR_A_SOLO_TABLE = ("zeroconf", "aiohttp", "ifaddr", "p2pcards.net.discovery",
                        "p2pcards.net.direct_discovery")


def loaded_by(tmp_path: Path, *args: str) -> set[str]:
    env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "config"),
               XDG_STATE_HOME=str(tmp_path / "state"), PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", _REPORT, *args], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path, env=env, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr[-2000:]
    _, _, listed = done.stderr.partition("MODULES\n")
    return set(listed.split())


def _top(modules: set[str]) -> set[str]:
    return modules | {m.split(".")[0] for m in modules}


def test_version_loads_no_table_no_network_no_rules(tmp_path: Path) -> None:
    modules = _top(loaded_by(tmp_path, "--version"))
    for heavy in ("p2pcards.protocol.table", "p2pcards.net.peer", "p2pcards.rules.games",
                  "p2pcards.bots.registry", "p2pcards.app.front", "asyncio", *NOT_FOR_A_SOLO_TABLE):
        assert heavy not in modules, heavy


def test_a_table_against_bots_loads_no_discovery(tmp_path: Path) -> None:
    modules = _top(loaded_by(tmp_path, "play", "bluff", "--deals", "1", "--autoplay", "heuristic",
                             "--bot-kind", "heuristic", "--plain"))
    assert "p2pcards.protocol.table" in modules  # it played
    for unneeded in NOT_FOR_A_SOLO_TABLE:
        assert unneeded not in modules, unneeded


def test_the_parser_offers_every_game_and_bot_the_registries_know() -> None:
    assert tuple(games.GAMES) == options.GAMES
    assert (registry.KINDS, registry.LEVELS, registry.DEFAULT_LEVEL) == \
        (kinds.KINDS, kinds.LEVELS, kinds.DEFAULT_LEVEL)
    for game in options.GAMES:
        for kind in kinds.KINDS:
            assert registry.make_bot_factory(game, kind, kinds.DEFAULT_LEVEL) is not None
