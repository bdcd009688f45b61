"""Table talk on the full-screen table (headless): others' lines in the log, cleaned;
``t`` opens a one-line prompt whose Enter sends through the session, Esc cancels, a
lone digit sends a quick reaction; a refusal keeps the prompt open."""

from __future__ import annotations

from typing import Any

from p2pcards.protocol.talk import REACTIONS, TalkLine, TalkRefused
from p2pcards.ui.tui import TableScreen
from tests.support.typed import present
from tests.ui.test_tui_harness import ENTER, drawn, headless, shows, wait_until
from tests.ui.test_tui_screen import deciding, run, seat_everyone
from tests.ui.ui_scenes import NAMES, bluff_respond


class TalkingSession:
    """Stands for a peer session's talk: records what is said and, as the real one
    does, tells the screen its own line as an event."""

    def __init__(self, screen_box: list[TableScreen | None], refuse: str = "") -> None:
        self.table = None
        self.spectator = False
        self.replaying = None
        self.talk = object()  # the table is known: talk is possible
        self.said: list[str] = []
        self.refuse = refuse
        self._screen_box = screen_box

    def say(self, text: str) -> TalkLine:
        if self.refuse:
            raise TalkRefused(self.refuse)
        self.said.append(text)
        line = TalkLine(1, text, own=True)
        present(self._screen_box[0]).on_event(line)
        return line


def test_another_players_line_is_in_the_log_with_controls_and_bidi_stripped() -> None:
    async def scene() -> str:
        async with headless() as (screen, keys, term):
            seat_everyone(screen, 1)
            screen.on_event(TalkLine(2, "gg\u202e\x1b[2J  \u2066well\x07 played"))
            await shows(term, f"Seat 2 ({NAMES[2]}):")
            return term.text
    text = run(scene())
    assert f"Seat 2 ({NAMES[2]}): gg [2J well played" in text
    assert "\u202e" not in text and "\x1b" not in text and "\u2066" not in text


def test_t_opens_the_prompt_and_enter_sends_the_line_without_touching_the_decision() -> None:
    async def scene() -> tuple[list[str], str, bool, Any]:
        box: list[TableScreen | None] = [None]
        session = TalkingSession(box)
        async with headless(session=lambda: session) as (screen, keys, term):
            box[0] = screen
            seat_everyone(screen, 1)
            task = await deciding(screen, bluff_respond().view(1), term)
            keys.send_text("t")
            await shows(term, "Say to the table:")
            assert "1 gg" in term.text  # the quick reactions are offered
            keys.send_text("good game, all" + ENTER)
            await wait_until(lambda: screen.flow is None, "the prompt closed", term, timeout=5)
            await shows(term, "You (seat 1): good game, all")
            keys.send_text("t")
            await shows(term, "Say to the table:")
            keys.send_text("2" + ENTER)  # a quick reaction
            await shows(term, f"You (seat 1): {REACTIONS[1]}")
            await drawn(screen, term)
            done = task.done()
            task.cancel()
            return session.said, term.text, done, screen.pending
    said, text, done, pending = run(scene())
    assert said == ["good game, all", REACTIONS[1]]
    assert not done  # talking is no move: the decision is still open
    assert "Say to the table:" not in text


def test_escape_cancels_the_prompt_and_nothing_is_said() -> None:
    async def scene() -> tuple[list[str], str]:
        box: list[TableScreen | None] = [None]
        session = TalkingSession(box)
        async with headless(session=lambda: session) as (screen, keys, term):
            box[0] = screen
            seat_everyone(screen, 1)
            await drawn(screen, term)
            keys.send_text("t")
            await shows(term, "Say to the table:")
            keys.send_text("oops")
            await shows(term, "oops")  # typed into the prompt before Escape
            keys.send_text("\x1b")
            await wait_until(lambda: screen.flow is None, "the prompt closed", term, timeout=5)
            await shows(term, "Nothing said.")
            return session.said, term.text
    said, text = run(scene())
    assert said == []
    assert "You (seat 1): oops" not in text


def test_a_refused_line_says_why_and_keeps_the_prompt_open() -> None:
    async def scene() -> tuple[str, Any]:
        box: list[TableScreen | None] = [None]
        session = TalkingSession(box, refuse="at most 5 lines in 10 seconds; wait a moment")
        async with headless(session=lambda: session) as (screen, keys, term):
            box[0] = screen
            seat_everyone(screen, 1)
            await drawn(screen, term)
            keys.send_text("t")
            await shows(term, "Say to the table:")
            keys.send_text("hello" + ENTER)
            await shows(term, "Not accepted: at most 5 lines")
            return term.text, screen.flow
    text, flow = run(scene())
    assert flow is not None and "Say to the table:" in text
