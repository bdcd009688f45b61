"""The full-screen terminal table (prompt_toolkit) of ``p2pcards play``, ``host`` and ``join``.

Modules, one idea each:

- :mod:`.screen` — :class:`TableScreen`, one person's seat: the application wired to
  the seat's agent and the session's events, and the seat's own keys;
- :mod:`.seatside` — :class:`~.seatside.SeatSide`, what a seat does on any screen (this
  one or the browser's, :mod:`p2pcards.ui.web`): the coach, away, talk, leaving, the end box;
- :mod:`.app` — :class:`~.app.TableApp`, the prompt_toolkit application, its overlays and
  question line (shared by a seat's screen and a replay);
- :mod:`.agent` — :class:`~.agent.SeatAgent`, a decision as a future the person's keys settle;
- :mod:`.sink` — :class:`~.sink.ScreenEvents`, the session's events and reads into the model;
- :mod:`.run` — :class:`~.run.TableRun`, one table's session to its end and the choice after it;
- :mod:`.clockwarn` — when to warn that the clock runs out;
- :mod:`.model` — what the screen knows, from events and this seat's own view;
- :mod:`.replay_screen` — :class:`~.replay_screen.ReplayScreen`, the same application stepping
  through a saved table;
- :mod:`.replay_model` — a saved table's model at any step (this replay's and the browser's);
- :mod:`.source` — what the screen may read from its own peer session;
- :mod:`.keymap` — keys to legal actions (through the text module's commands);
- :mod:`.picker` — the cursor and the selected cards;
- :mod:`.layout`, :mod:`.control`, :mod:`.bindings`, :mod:`.style` — the prompt_toolkit parts
  (:mod:`.drawn_screen`: what the layout reads of its screen; :mod:`.asciilook`: the same
  table in ASCII for a terminal that cannot draw its symbols; :mod:`.logcapture`: log
  records into the table's log while the screen owns the terminal);
- :mod:`.seats`, :mod:`.board`, :mod:`.hand`, :mod:`.bars`, :mod:`.logview`, :mod:`.dialogs`,
  :mod:`.helptext` — the panels, each drawn for the size it is given, with :mod:`.lines`
  (styled lines that fit a width).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from p2pcards.ui.tui.screen import TableScreen

__all__ = ["TableScreen"]


def __getattr__(name: str) -> object:
    """:class:`TableScreen` on first use: the screen's model, agent and event sink are
    also the browser table's (:mod:`p2pcards.ui.web`), which has no use for prompt_toolkit."""
    if name == "TableScreen":
        from p2pcards.ui.tui.screen import TableScreen
        return TableScreen
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
