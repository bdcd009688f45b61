"""The keys of the full-screen table, by what is on the screen.

At the table the arrows, Space and Home/End move in the hand and select,
the game's letters and digits act (through the screen's ``press``), and
any other key is answered with why it does nothing. The help box scrolls
and closes; the "leave?" box takes ``y`` or anything else; the rank and
stake question, and the talk prompt (``t``), are an editable line (Enter
answers, Esc cancels). Ctrl-C
always leaves at once.
"""

from __future__ import annotations

from typing import Protocol

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys

#: Named keys answered with "does nothing here" (others, e.g. terminal reports, are ignored).
_NAMED = {Keys.Up, Keys.Down, Keys.Tab, Keys.BackTab, Keys.Delete, Keys.Backspace,
          Keys.Insert, Keys.F2, Keys.F3, Keys.F4, Keys.F5}


class ReadingScreen(Protocol):
    """What the shared keys need of a screen (a table's or a replay's): which box or
    question is up, and the moves they make."""

    overlay: str | None

    @property
    def flow(self) -> object | None: ...

    def press(self, key: str) -> None: ...

    def scroll_help(self, delta: int) -> None: ...

    def close_overlay(self) -> None: ...

    def cancel_flow(self) -> None: ...


class KeyedScreen(ReadingScreen, Protocol):
    """What a seat's keys need of its screen besides :class:`ReadingScreen`'s."""

    def leave_now(self) -> None: ...

    def move(self, delta: int) -> None: ...

    def toggle(self) -> None: ...

    def escape(self) -> None: ...

    def show_help(self) -> None: ...

    def ask_leave(self) -> None: ...

    def take_pause(self) -> None: ...

    def show_history(self) -> None: ...

    def open_talk(self) -> None: ...

    def ask_coach(self) -> None: ...

    def toggle_details(self) -> None: ...

    def scroll_log(self, delta: int) -> None: ...

    def confirm_leave(self) -> None: ...


def key_name(key: str | Keys) -> str:
    """A key press as the screen's ``press`` names it: a lower-case character or a key name."""
    if isinstance(key, str) and not isinstance(key, Keys):
        return key.lower() if len(key) == 1 else ""
    if key in _NAMED:
        return str(key.value)
    return ""


def add_reading_keys(kb: KeyBindings, screen: ReadingScreen) -> None:
    """The keys every table screen shares: the other keys at the table go to
    ``press``; the help box scrolls and closes; a summary or the history closes
    on any key; Esc cancels a question."""
    at_table = Condition(lambda: screen.overlay is None and screen.flow is None)
    in_help = Condition(lambda: screen.overlay == "help")
    reading = Condition(lambda: screen.overlay in ("summary", "history"))
    asking = Condition(lambda: screen.overlay is None and screen.flow is not None)

    @kb.add(Keys.Any, filter=at_table)
    def _other(event: KeyPressEvent) -> None:
        name = key_name(event.key_sequence[0].key)
        if name:
            screen.press(name)

    @kb.add("up", filter=in_help)
    def _help_up(event: KeyPressEvent) -> None:
        screen.scroll_help(-1)

    @kb.add("down", filter=in_help)
    def _help_down(event: KeyPressEvent) -> None:
        screen.scroll_help(1)

    @kb.add("pageup", filter=in_help)
    def _help_page_up(event: KeyPressEvent) -> None:
        screen.scroll_help(-10)

    @kb.add("pagedown", filter=in_help)
    def _help_page_down(event: KeyPressEvent) -> None:
        screen.scroll_help(10)

    @kb.add(Keys.Any, filter=in_help)
    @kb.add(Keys.Any, filter=reading)
    @kb.add("escape", filter=reading)
    @kb.add("enter", filter=reading)
    def _close(event: KeyPressEvent) -> None:
        screen.close_overlay()

    @kb.add("escape", filter=asking)
    def _cancel(event: KeyPressEvent) -> None:
        screen.cancel_flow()


def table_bindings(screen: KeyedScreen) -> KeyBindings:
    """The key bindings of a seat's ``screen`` (a :class:`~p2pcards.ui.tui.screen.TableScreen`)."""
    kb = KeyBindings()
    at_table = Condition(lambda: screen.overlay is None and screen.flow is None)
    in_help = Condition(lambda: screen.overlay == "help")
    confirming = Condition(lambda: screen.overlay == "confirm")

    @kb.add("c-c", eager=True)
    def _leave_now(event: KeyPressEvent) -> None:
        screen.leave_now()

    @kb.add("left", filter=at_table)
    def _left(event: KeyPressEvent) -> None:
        screen.move(-1)

    @kb.add("right", filter=at_table)
    def _right(event: KeyPressEvent) -> None:
        screen.move(1)

    @kb.add("home", filter=at_table)
    def _home(event: KeyPressEvent) -> None:
        screen.move(-99)

    @kb.add("end", filter=at_table)
    def _end(event: KeyPressEvent) -> None:
        screen.move(99)

    @kb.add(" ", filter=at_table)
    def _select(event: KeyPressEvent) -> None:
        screen.toggle()

    @kb.add("enter", filter=at_table)
    def _enter(event: KeyPressEvent) -> None:
        screen.press("enter")

    @kb.add("escape", filter=at_table)
    def _escape(event: KeyPressEvent) -> None:
        screen.escape()

    @kb.add("f1", filter=~in_help)
    @kb.add("?", filter=at_table)
    def _help(event: KeyPressEvent) -> None:
        screen.show_help()

    @kb.add("q", filter=at_table)
    def _quit(event: KeyPressEvent) -> None:
        screen.ask_leave()

    @kb.add("a", filter=at_table)
    def _away(event: KeyPressEvent) -> None:
        screen.take_pause()

    @kb.add("r", filter=at_table)
    def _history(event: KeyPressEvent) -> None:
        screen.show_history()

    @kb.add("t", filter=at_table)
    def _talk(event: KeyPressEvent) -> None:
        screen.open_talk()

    @kb.add("w", filter=at_table)
    def _coach(event: KeyPressEvent) -> None:
        screen.ask_coach()

    @kb.add("v", filter=at_table)
    def _details(event: KeyPressEvent) -> None:
        screen.toggle_details()

    @kb.add("pageup", filter=at_table)
    def _log_back(event: KeyPressEvent) -> None:
        screen.scroll_log(5)

    @kb.add("pagedown", filter=at_table)
    def _log_forward(event: KeyPressEvent) -> None:
        screen.scroll_log(-5)

    @kb.add("y", filter=confirming)
    def _confirm(event: KeyPressEvent) -> None:
        screen.confirm_leave()

    @kb.add(Keys.Any, filter=confirming)
    def _stay(event: KeyPressEvent) -> None:
        screen.close_overlay()

    add_reading_keys(kb, screen)
    return kb
