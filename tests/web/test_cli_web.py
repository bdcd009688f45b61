"""``--web`` on the command line: which commands take it, what it does not go with, and
that a table in the terminal never pays for the browser table's library."""

from __future__ import annotations

import subprocess
import sys

import pytest

from p2pcards.cli import main
from p2pcards.commands.options import build_parser
from p2pcards.commands.settings import front_options


@pytest.mark.parametrize("argv", [
    ["play", "bluff", "--web"], ["host", "topper", "--web", "--no-browser"], ["join", "--web"],
    ["watch", "--web"], ["replay", "saved.msgpack", "--web"], ["resume", "--web"],
])
def test_every_command_that_shows_a_table_takes_web(argv: list[str]) -> None:
    args = build_parser().parse_args(argv)
    assert args.web is True
    if argv[0] != "replay":
        options = front_options(args)
        assert options.web and options.browser == ("--no-browser" not in argv)


@pytest.mark.parametrize("other", [["--plain"], ["--trace"], ["--autoplay", "random"]])
def test_web_does_not_go_with_another_look_or_a_bot(other: list[str],
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "bluff", "--web", *other]) == 2
    error = capsys.readouterr().err
    assert error.startswith("p2pcards: --web shows the table in your browser")
    assert other[0] in error


def test_no_browser_needs_web(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "bluff", "--no-browser"]) == 2
    assert "--no-browser goes with --web" in capsys.readouterr().err


def test_a_table_in_the_terminal_does_not_import_the_web_library() -> None:
    """aiohttp is imported only for --web: a solo terminal table starts without it."""
    probe = ("import sys\n"
             "from p2pcards import cli\nfrom p2pcards.app import front, hosted\n"
             "from p2pcards.commands import hosting\n"
             "from p2pcards.app.front import FrontEnd, FrontOptions\n"
             "FrontEnd(FrontOptions(plain=True), 'bluff', again=True)\n"
             "print(sorted(m for m in sys.modules if m.split('.')[0] == 'aiohttp'"
             " or m.startswith('p2pcards.ui.web')))\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.strip() == "[]"
