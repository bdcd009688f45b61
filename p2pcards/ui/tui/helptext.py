"""The help screen: the rules in a few lines and every key of the full-screen table."""

from __future__ import annotations

from collections.abc import Sequence

from p2pcards.ui import text_bluff, text_topper

#: Rows of (key, what it does).
KeyRows = Sequence[tuple[str, str]]

COMMON_KEYS = (
    ("← →  Home End", "move the cursor in your hand"),
    ("Space", "select or unselect the card under the cursor (or click a card)"),
    ("Esc", "clear the selection, or cancel a question"),
    ("PgUp PgDn", "scroll the log (or the mouse wheel)"),
    ("r", "the scoreboard and this deal's record (cards shown, tricks played)"),
    ("v", "the log with every single cryptographic check, or one line per stage"),
    ("F1  ?", "this help (↑ ↓ scroll it, any other key closes it)"),
    ("q", "leave the table (asks first; the other players are told)"),
    ("Ctrl-C", "leave at once (the other players are told)"),
    ("a", "away: in your turn, 5 more minutes on every clock (a few per table)"),
    ("t", "talk to the table (Enter sends, Esc cancels; 1-6: a reaction)"),
    ("w", "the coach, in your turn: what the normal bot would do and why (at a table "
          "against bots, or where the host allowed hints: every screen then marks you)"),
)

BLUFF_KEYS = (
    ("d  Enter", "discard the selected cards (1 to 4), then type the rank when you "
                 "lead and the stake (Enter takes the least)"),
    ("p", "pass: pay the pass price into the safe box"),
    ("b", "call \"Bluff!\" on the last discard"),
)

TOPPER_KEYS = (
    ("p", "pass in the bidding"),
    ("1 … 6", "bid that many tricks"),
    ("c d h s", "name trump: clubs, diamonds, hearts, spades"),
    ("Enter", "play the selected card (or the one under the cursor)"),
)

END_KEYS = (
    ("n", "after a match of `p2pcards play`: a new table against bots; of `host` or "
          "`join`: again, a rematch with the same players (seats rotated)"),
    ("b", "hosting, after n, while a player who left has freed a seat: a bot takes it"),
    ("q", "when the table is over: leave"),
)


GAME_KEYS = {"bluff": BLUFF_KEYS, "topper": TOPPER_KEYS}


#: Columns before a key's description in the help.
KEY_COLUMN = 17


def help_text(game: str | None, replay_keys: KeyRows | None = None) -> list[str]:
    """The keys, then the rules summary of ``game`` (both games when unknown).

    One entry per paragraph or key row; "" separates sections. The rules
    come as one paragraph each, for the screen to wrap to its width.
    ``replay_keys`` (a replay's screen) replace the keys of a seat at the table.
    """
    rules = {"bluff": text_bluff.rules_summary(), "topper": text_topper.rules_summary()}
    games = [game] if game in GAME_KEYS else list(GAME_KEYS)
    sections: list[tuple[str, Sequence[tuple[str, str]]]] = [
        (f"{name.capitalize()} keys", GAME_KEYS[name]) for name in games]
    sections += [("Keys", COMMON_KEYS), ("At the end", END_KEYS)]
    if replay_keys is not None:
        sections = [("Replay keys", replay_keys)]
    lines: list[str] = []
    for heading, keys in sections:
        lines.append(heading + ":")
        lines.extend(f"  {key:<{KEY_COLUMN - 3}} {what}" for key, what in keys)
    for name in games:
        lines.append("")
        lines.append(" ".join(rules[name].split("\n")))
    return lines
