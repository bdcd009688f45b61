"""A LAN table of real processes over loopback TCP where one seat is a browser: the host plays
in Chromium (``p2pcards host topper --web``, two of its seats bots), a friend joins in the
terminal's line mode (``p2pcards join --plain``) and types. The match is played to its
end; every seat's saved transcript verifies and all are byte for byte the same.

The browser seat is played by clicks on what its page offers (a pass while bidding, the
first suit, the first card it may play); the terminal seat by typing commands until one
is accepted, as a person reading the list of choices would.
"""

from __future__ import annotations

import asyncio
import subprocess
import threading
import time
from pathlib import Path

import pytest

from p2pcards.ui.text_common import ALWAYS
from tests.support.browser import Page, chromium
from tests.system.harness import Home, p2pcards_argv
from tests.web.test_browser_match import CHROMIUM, needs_a_browser

#: What the terminal's player types at a decision, each after the one before was refused.
TRIES = ("pass", "trump spades", *(f"play {label}" for label in range(1, 7)))
#: Seconds a whole short LAN match may take on a loaded machine.
MATCH = 150.0


class Terminal:
    """A ``p2pcards`` process whose input a test types and whose output it reads."""

    def __init__(self, home: Home, *args: str) -> None:
        self.home = home
        self.popen = subprocess.Popen(p2pcards_argv(*args), stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                      env=home.env(), bufsize=1)
        self.lines: list[str] = []
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.popen.stdout is not None
        with self.popen.stdout:  # closed at its end, by the thread that reads it
            for line in self.popen.stdout:
                with self._changed:
                    self.lines.append(line.rstrip("\n"))
                    self._changed.notify_all()

    def wait_for(self, needle: str, timeout: float = 60.0) -> str:
        end = time.monotonic() + timeout
        with self._changed:
            while True:
                hits = [line for line in self.lines if needle in line]
                if hits:
                    return hits[0]
                if time.monotonic() > end or self.popen.poll() is not None:
                    raise AssertionError(f"{self.home.label}: no {needle!r}; last lines "
                                         f"{self.lines[-8:]}")
                self._changed.wait(0.5)

    def type(self, line: str) -> None:
        assert self.popen.stdin is not None
        try:
            self.popen.stdin.write(line + "\n")
            self.popen.stdin.flush()
        except (BrokenPipeError, ValueError):
            pass  # the process ended meanwhile

    def typist(self, stop: threading.Event) -> threading.Thread:
        """Answer each decision: the first try, then the next after each refusal."""
        def run() -> None:
            seen, tries = 0, list[str]()
            while not stop.is_set() and self.popen.poll() is None:
                with self._changed:
                    self._changed.wait(0.2)
                    fresh, seen = self.lines[seen:], len(self.lines)
                for line in fresh:
                    if line.strip() == ALWAYS:
                        tries = list(TRIES)
                        self.type(tries.pop(0))
                    elif line.startswith("Not accepted") and tries:
                        self.type(tries.pop(0))
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        return thread

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
        self.popen.wait(10)
        if self.popen.stdin is not None:
            self.popen.stdin.close()
        self._reader.join(5)


async def play_the_browser_seat(page: Page) -> int:
    """Click what the page offers until its end box: how many choices were made."""
    made = 0
    deadline = time.monotonic() + MATCH
    while time.monotonic() < deadline:
        state = await page.evaluate("""(() => {
          if (document.querySelector('#end-box[open] [data-key="q"]')) return 'end';
          if (document.getElementById('summary-box').open) return 'summary';
          if (!document.body.dataset.decision) return 'wait';
          if (document.querySelector('#controls [data-key="p"]')) return 'pass';
          if (document.querySelector('#controls [data-key="c"]')) return 'trump';
          if (document.querySelector('#hand .card.can')) return 'play';
          return 'wait';
        })()""")
        if state == "end":
            return made
        decision = await page.evaluate("document.body.dataset.decision")
        if state == "summary":
            await page.click("#summary-close")
        elif state == "pass":
            await page.click('#controls [data-key="p"]')
        elif state == "trump":
            await page.click('#controls [data-key="s"]')
        elif state == "play":
            await page.click("#hand .card.can")
        if state in ("pass", "trump", "play"):
            made += 1
            await page.wait_for(f"document.body.dataset.decision !== '{decision}'",
                                "the choice taken", 30)
        else:
            await asyncio.sleep(0.1)
    raise AssertionError("the browser seat's match did not end")


@pytest.mark.slow
@needs_a_browser
def test_a_lan_table_of_a_browser_a_terminal_and_bots_keeps_one_transcript(tmp_path: Path) -> None:
    host_home, friend_home = Home(tmp_path, "ann"), Home(tmp_path, "cal")
    host_home.create_identity("Ann")
    friend_home.create_identity("Cal")
    host = Terminal(host_home, "host", "topper", "--web", "--no-browser", "--bots", "2",
                    "--bot-kind", "heuristic", "--target", "1", "--seed", "21", "--pace", "0",
                    "--deadline", "60", "--no-advertise", "--bind", "127.0.0.1", "--table", "LAN")
    friend: Terminal | None = None
    stop = threading.Event()
    try:
        port = host.wait_for("on port").split("on port ")[1].split()[0].rstrip(".")
        address = host.wait_for("http://127.0.0.1:")
        address = address[address.index("http://"):].split()[0]
        friend = Terminal(friend_home, "join", "--connect", f"127.0.0.1:{port}", "--plain",
                          "--no-direct", "--again", "0", "--seed", "22")
        friend.typist(stop)

        async def browse() -> int:
            async with chromium(CHROMIUM) as browser:
                page = await browser.new_page()
                await page.goto(address)
                await page.wait_for("document.body.dataset.connected === 'yes'", "the page")
                made = await play_the_browser_seat(page)
                box = await page.evaluate("document.getElementById('end-box').innerText")
                assert "MATCH OVER" in box and "Cal" in box
                await page.click('#end-box [data-key="q"]')
                assert page.errors == []
                return made
        made = asyncio.run(browse())
        assert made >= 2
        assert host.popen.wait(60) == 0 and friend.popen.wait(60) == 0
        assert any(line.startswith("Match over:") for line in host.lines)
        assert any(line.startswith("Match over:") for line in friend.lines)
    finally:
        stop.set()
        host.stop()
        if friend is not None:
            friend.stop()
    mine, theirs = host_home.transcripts(), friend_home.transcripts()
    seats = [path for path in mine if path.parent.name != "relay"]
    assert len(theirs) == 1 and seats, (mine, theirs)
    for path in [*mine, *theirs]:
        assert path.read_bytes() == theirs[0].read_bytes(), path
    checked = host_home.verify(seats[0])
    assert checked.ok, checked.stdout + checked.stderr
    assert friend_home.verify(theirs[0]).outcome == checked.outcome
