"""The full-screen table's ASCII look: every symbol written as one ASCII column.

The layout is computed for the symbols (each one column wide), so the look
is applied where the screen is written out: the output's ``write`` gets each
text with :data:`~p2pcards.ui.console.CELL`'s stand-ins (``Q♥`` as ``QH``,
``│`` as ``|``, ``▶`` as ``>``), and every cell stays where it was.
"""

from __future__ import annotations

from prompt_toolkit.application.current import get_app_session
from prompt_toolkit.output import Output

from p2pcards.ui import console

__all__ = ["table_output"]


def _in_ascii(output: Output) -> Output:
    write = output.write

    def write_cells(data: str) -> None:
        write(console.to_cells(data))

    # On the instance, so the output keeps its class (prompt_toolkit's Windows
    # mouse handling checks it) and only the text it is given changes.
    setattr(output, "write", write_cells)  # noqa: B010 - a method cannot be assigned directly
    return output


def table_output(output: Output | None = None) -> Output | None:
    """The output the table draws on: ``output`` (a test's), else the terminal's; in
    ASCII when chosen (``--ascii``), or, for the terminal, when it cannot encode the symbols."""
    if output is None:
        return _in_ascii(get_app_session().output) if console.ascii_look() else None
    return _in_ascii(output) if console.chosen_look() else output
