"""Console output that never crashes on an encoding, and the table's ASCII look.

A console or pipe in cp1252 (Git Bash, a redirected stdout, an IDE) or in
ASCII (``LANG=C`` without UTF-8) cannot encode ✓ → ♠ or box-drawing
characters, and Python's default for such a character is a
UnicodeEncodeError in the middle of a game. :func:`install` makes stdout and
stderr write a stand-in instead (``✓`` as ``+``, ``♥`` as ``H``, ``→`` as
``->``, an accent dropped, else ``?``), so every command works whatever the
console's encoding.

The full-screen table draws on a grid, where a stand-in must keep the
column: :data:`CELL` maps each of its symbols to one ASCII character. It is
used when the output cannot encode the symbols, or when asked (``--ascii``,
``P2PCARDS_ASCII=1``) for a terminal whose font cannot draw them.
"""

from __future__ import annotations

import codecs
import io
import os
import sys
import unicodedata

__all__ = ["CELL", "ERRORS", "TEXT", "ascii_look", "can_draw", "choose_look", "chosen_look", "install",
           "to_cells"]

#: Each symbol the table draws, as one ASCII column (the grid of the full-screen table).
CELL: dict[str, str] = {
    "♣": "C", "♦": "D", "♥": "H", "♠": "S",
    "✓": "+", "→": ">", "←": "<", "↑": "^", "↓": "v", "⇄": "=",
    "◆": "*", "▶": ">", "▼": "v", "★": "*", "☆": "+", "•": "o", "●": "o",
    "·": ".", "…": ".", "—": "-", "–": "-", "±": "+", "×": "x",
    "│": "|", "─": "-", "┌": "+", "┐": "+", "└": "+", "┘": "+", "├": "+", "┤": "+",
    "┬": "+", "┴": "+", "┼": "+", "║": "|", "═": "=", "╔": "+", "╗": "+", "╚": "+",
    "╝": "+", "█": "#", "▌": "|", "▐": "|", "░": ":", "▒": ":", "▓": "#",
    "‘": "'", "’": "'", "“": '"', "”": '"',
}
#: The same symbols in running text, where a stand-in may be longer.
TEXT: dict[str, str] = {**CELL, "→": "->", "←": "<-", "⇄": "<->", "…": "...", "—": "--",
                        "±": "+-"}
#: The codec error handler :func:`install` gives stdout and stderr.
ERRORS = "p2pcards-stand-in"
#: What the full-screen table must be able to encode to draw its own look.
SAMPLE = "✓→←♣♦♥♠◆▶▼★☆•●·…—│─┌┐└┘⇄"


def _stand_in(char: str, table: dict[str, str]) -> str:
    if char in table:
        return table[char]
    plain = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode("ascii")
    return plain if plain.isprintable() and plain else "?"


def _replace(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    bad = error.object[error.start:error.end]
    return "".join(_stand_in(char, TEXT) for char in bad), error.end


codecs.register_error(ERRORS, _replace)


def install() -> None:
    """Make stdout and stderr write stand-ins for what their encoding cannot show,
    and stdin read undecodable bytes as ``?`` (one call, first thing in ``main``)."""
    for stream, errors in ((sys.stdout, ERRORS), (sys.stderr, ERRORS), (sys.stdin, "replace")):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors=errors)


def can_draw(stream: object) -> bool:
    """Whether ``stream``'s encoding holds every symbol of the table."""
    encoding = getattr(stream, "encoding", None) or "ascii"
    try:
        SAMPLE.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


_chosen: bool | None = None


def choose_look(ascii: bool | None) -> None:
    """Set the look for this process: True ASCII, False the symbols, None detect."""
    global _chosen
    _chosen = ascii


def chosen_look() -> bool | None:
    """The look :func:`choose_look` set (None: none was chosen)."""
    return _chosen


def ascii_look(stream: object = None) -> bool:
    """Whether the full-screen table should draw in ASCII: as chosen (``--ascii``,
    ``P2PCARDS_ASCII=1``), else when ``stream`` (default stdout) cannot encode the symbols."""
    if _chosen is not None:
        return _chosen
    if os.environ.get("P2PCARDS_ASCII", "") not in ("", "0"):
        return True
    return not can_draw(sys.stdout if stream is None else stream)


def to_cells(text: str) -> str:
    """``text`` with each of the table's symbols as its one-column ASCII stand-in."""
    return text.translate(_CELL_TABLE) if not text.isascii() else text


_CELL_TABLE = str.maketrans(CELL)
