"""Text that came from another peer (names, table names, reasons): one place decides
what may reach a person's terminal.

Another peer chooses this text, so it may hold terminal escape sequences,
control characters, or bidirectional overrides (U+202E and its kin) that make
a name read as something else. The wire refuses control characters and
bidirectional controls in every string a message carries
(:func:`unsafe_character`); whatever is shown to a person is also cleaned
(:func:`shown`), which blanks every control and format character.
"""

from __future__ import annotations

import unicodedata

#: Bidirectional formatting characters: embeddings, overrides, isolates and marks.
BIDI_CONTROLS = frozenset(
    chr(code) for code in (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)))


def unsafe_character(text: str) -> str | None:
    """The first character a message's string may not hold (a C0 or C1 control, or a
    bidirectional control), or None. Other format characters, such as the zero
    width joiner inside an emoji, are allowed on the wire and blanked on screen."""
    for ch in text:
        code = ord(ch)
        if code < 0x20 or 0x7F <= code < 0xA0 or ch in BIDI_CONTROLS:
            return ch
    return None


def shown(text: object, limit: int = 200) -> str:
    """``text`` as a terminal may show it: every control and format character
    (Unicode category C) blanked, runs of spaces folded, at most ``limit``
    characters (a longer text ends in "…")."""
    out = "".join(" " if unicodedata.category(ch)[0] == "C" else ch for ch in str(text))
    out = " ".join(out.split())
    return out if len(out) <= limit else out[:limit - 1] + "…"
