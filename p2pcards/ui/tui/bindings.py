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

from typing import Any

from prompt_toolkit.filters import Condition
from prompt_toolkit.key_binding import KeyBindings
from prompt_toolkit.keys import Keys

#: Named keys answered with "does nothing here" (others, e.g. terminal reports, are ignored).
_NAMED = {Keys.Up, Keys.Down, Keys.Tab, Keys.BackTab, Keys.Delete, Keys.Backspace,
          Keys.Insert, Keys.F2, Keys.F3, Keys.F4, Keys.F5}


def key_name(key: Any) -> str:
    """A key press as the screen's ``press`` names it: a lower-case character or a key name."""
    if isinstance(key, str) and not isinstance(key, Keys):
        return key.lower() if len(key) == 1 else ""
    if key in _NAMED:
        return key.value
    return ""


def add_reading_keys(kb: KeyBindings, screen: Any) -> None:
    """The keys every table screen shares: the other keys at the table go to
    ``press``; the help box scrolls and closes; a summary or the history closes
    on any key; Esc cancels a question."""
    at_table = Condition(lambda: screen.overlay is None and screen.flow is None)
    in_help = Condition(lambda: screen.overlay == "help")
    reading = Condition(lambda: screen.overlay in ("summary", "history"))
    asking = Condition(lambda: screen.overlay is None and screen.flow is not None)

    @kb.add(Keys.Any, filter=at_table)
    def _other(event: Any) -> None:
        name = key_name(event.key_sequence[0].key)
        if name:
            screen.press(name)

    @kb.add("up", filter=in_help)
    def _help_up(event: Any) -> None:
        screen.scroll_help(-1)

    @kb.add("down", filter=in_help)
    def _help_down(event: Any) -> None:
        screen.scroll_help(1)

    @kb.add("pageup", filter=in_help)
    def _help_page_up(event: Any) -> None:
        screen.scroll_help(-10)

    @kb.add("pagedown", filter=in_help)
    def _help_page_down(event: Any) -> None:
        screen.scroll_help(10)

    @kb.add(Keys.Any, filter=in_help)
    @kb.add(Keys.Any, filter=reading)
    @kb.add("escape", filter=reading)
    @kb.add("enter", filter=reading)
    def _close(event: Any) -> None:
        screen.close_overlay()

    @kb.add("escape", filter=asking)
    def _cancel(event: Any) -> None:
        screen.cancel_flow()


def table_bindings(screen: Any) -> KeyBindings:
    """The key bindings of a seat's ``screen`` (a :class:`~p2pcards.ui.tui.screen.TableScreen`)."""
    kb = KeyBindings()
    at_table = Condition(lambda: screen.overlay is None and screen.flow is None)
    in_help = Condition(lambda: screen.overlay == "help")
    confirming = Condition(lambda: screen.overlay == "confirm")

    @kb.add("c-c", eager=True)
    def _leave_now(event: Any) -> None:
        screen.leave_now()

    @kb.add("left", filter=at_table)
    def _left(event: Any) -> None:
        screen.move(-1)

    @kb.add("right", filter=at_table)
    def _right(event: Any) -> None:
        screen.move(1)

    @kb.add("home", filter=at_table)
    def _home(event: Any) -> None:
        screen.move(-99)

    @kb.add("end", filter=at_table)
    def _end(event: Any) -> None:
        screen.move(99)

    @kb.add(" ", filter=at_table)
    def _select(event: Any) -> None:
        screen.toggle()

    @kb.add("enter", filter=at_table)
    def _enter(event: Any) -> None:
        screen.press("enter")

    @kb.add("escape", filter=at_table)
    def _escape(event: Any) -> None:
        screen.escape()

    @kb.add("f1", filter=~in_help)
    @kb.add("?", filter=at_table)
    def _help(event: Any) -> None:
        screen.show_help()

    @kb.add("q", filter=at_table)
    def _quit(event: Any) -> None:
        screen.ask_leave()

    @kb.add("a", filter=at_table)
    def _away(event: Any) -> None:
        screen.take_pause()

    @kb.add("r", filter=at_table)
    def _history(event: Any) -> None:
        screen.show_history()

    @kb.add("t", filter=at_table)
    def _talk(event: Any) -> None:
        screen.open_talk()

    @kb.add("w", filter=at_table)
    def _coach(event: Any) -> None:
        screen.ask_coach()

    @kb.add("v", filter=at_table)
    def _details(event: Any) -> None:
        screen.toggle_details()

    @kb.add("pageup", filter=at_table)
    def _log_back(event: Any) -> None:
        screen.scroll_log(5)

    @kb.add("pagedown", filter=at_table)
    def _log_forward(event: Any) -> None:
        screen.scroll_log(-5)

    @kb.add("y", filter=confirming)
    def _confirm(event: Any) -> None:
        screen.confirm_leave()

    @kb.add(Keys.Any, filter=confirming)
    def _stay(event: Any) -> None:
        screen.close_overlay()

    add_reading_keys(kb, screen)
    return kb
