"""The full-screen terminal table (prompt_toolkit) of ``p2pcards play``, ``host`` and ``join``.

Modules, one idea each:

- :mod:`.screen` — :class:`TableScreen`, the seat's agent, event sink and application;
- :mod:`.model` — what the screen knows, from events and this seat's own view;
- :mod:`.replay` — :class:`~.replay.ReplayScreen`, the same screen stepping through a saved table;
- :mod:`.source` — what the screen may read from its own peer session;
- :mod:`.keymap` — keys to legal actions (through the text module's commands);
- :mod:`.picker` — the cursor and the selected cards;
- :mod:`.layout`, :mod:`.control`, :mod:`.bindings`, :mod:`.style` — the prompt_toolkit parts;
- :mod:`.seats`, :mod:`.board`, :mod:`.hand`, :mod:`.bars`, :mod:`.logview`, :mod:`.dialogs`,
  :mod:`.helptext`, :mod:`.draw` — the panels, each drawn for the size it is given.
"""

from p2pcards.ui.tui.screen import TableScreen

__all__ = ["TableScreen"]
