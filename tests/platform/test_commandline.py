"""Printed commands in the platform's quoting, and the platform's user name as the first name."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from p2pcards.commands import printed as commandline


@pytest.mark.parametrize("arg", ["Friday", "Friday night", "it's", 'say "hi"', "a$b", "50%",
                                 r"C:\Users\Ann Lee\AppData\Local\p2pcards\tables\ab\transcript",
                                 "end\\", ""])
def test_posix_quoting_reads_back_as_one_word(arg: str) -> None:
    assert shlex.split(commandline.quote(arg, windows=False)) == [arg]


def windows_split(line: str) -> list[str]:
    """How a Windows program's C runtime splits its command line into arguments."""
    words: list[str] = []
    word, quoted, backslashes, started = [], False, 0, False
    for char in line + " ":
        if char == "\\":
            backslashes += 1
            started = True
            continue
        if char == '"':
            word.append("\\" * (backslashes // 2))
            if backslashes % 2:
                word.append('"')
            else:
                quoted = not quoted
            backslashes, started = 0, True
            continue
        word.append("\\" * backslashes)
        backslashes = 0
        if char == " " and not quoted:
            if started:
                words.append("".join(word))
            word, started = [], False
            continue
        word.append(char)
        started = True
    return words


@pytest.mark.parametrize("arg", ["Friday", "Friday night", "it's", 'say "hi"', "a$b", "50%",
                                 r"C:\Users\Ann Lee\AppData\Local\p2pcards\tables\ab\transcript",
                                 "end\\ x\\", ""])
def test_windows_quoting_uses_double_quotes_and_reads_back(arg: str) -> None:
    quoted = commandline.quote(arg, windows=True)
    assert not quoted.startswith("'")
    assert windows_split(quoted) == [arg]


def test_plain_words_and_windows_paths_without_spaces_stay_bare() -> None:
    assert commandline.quote("Friday", windows=True) == "Friday"
    assert commandline.quote(r"C:\p2pcards\transcript", windows=True) == r"C:\p2pcards\transcript"
    assert commandline.join(["join", "Friday night"], windows=True) == 'join "Friday night"'
    assert commandline.join(["join", "Friday night"], windows=False) == "join 'Friday night'"


def test_the_first_name_comes_from_username_where_user_is_not_set(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("USER", "LOGNAME", "LNAME")}
    env.update(USERNAME="Zoe", XDG_CONFIG_HOME=str(tmp_path / "c"), XDG_STATE_HOME=str(tmp_path / "s"))
    shown = subprocess.run([sys.executable, "-m", "p2pcards", "whoami"], env=env,
                           capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.split()[0] == "Zoe"
