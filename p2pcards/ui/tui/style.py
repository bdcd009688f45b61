"""The colours of the full-screen table, in one place.

Cards are white with red or black suits; the seat to act is highlighted; the
log colours each kind of line (cryptographic checks green, results gold,
verdicts red). The screen reads the same without colour: every state also
has a word or a mark (▶, ▼, ★, ●).
"""

from __future__ import annotations

from prompt_toolkit.styles import Style

TABLE_STYLE = Style.from_dict({
    "title": "bg:#005f87 #ffffff bold",
    "title.ok": "bg:#005f87 #87ff87 bold",
    "title.bad": "bg:#005f87 #ffaf00 bold",
    "dim": "#8a8a8a",
    "label": "#8a8a8a",
    "value": "bold",
    "rank": "bold #ffd700",
    "good": "bold #5fd75f",
    "bad": "bold #ff5f5f",
    "fp": "#5f87af",
    "seat.name": "bold",
    "seat.me": "#87d7ff",
    "seat.acting": "reverse",
    "seat.bot": "#8a8a8a",
    "seat.out": "#ff5f5f",
    "turn": "bold #ffd700",
    "working": "#8a8a8a",
    "countdown": "#ffaf00",
    "countdown.low": "bold #ff0000",
    "link.ok": "#5fd75f",
    "link.bad": "bold #ffaf00",
    "board.title": "bold",
    "progress": "#5fd7ff",
    "result": "bold #ffd700",
    "card.black": "bg:#ffffff #000000 bold",
    "card.red": "bg:#ffffff #d70000 bold",
    "card.unknown": "bg:#8a8a8a #000000",
    "card.unplayable": "bg:#808080",
    "card.selected": "bg:#ffd700",
    "card.cursor": "underline bg:#87d7ff",
    "card.mark": "bold #ffd700",
    "card.label": "#8a8a8a",
    "card.label.cursor": "reverse bold",
    "bar": "bg:#303030 #d0d0d0",
    "bar.key": "bg:#ffd700 #000000 bold",
    "bar.label": "bg:#303030 #ffffff",
    "bar.idle": "bg:#303030 #8a8a8a",
    "bar.dim": "bg:#303030 #8a8a8a",
    "status.turn": "bold",
    "status.error": "bold #ff5f5f",
    "status.info": "#87d7ff",
    "prompt": "bold #ffd700",
    "prompt.input": "bg:#303030 #ffffff",
    "log.event": "",
    "log.crypto": "#5faf5f",
    "log.result": "bold #ffd700",
    "log.verdict": "bold #ffffff bg:#af0000",
    "log.warn": "#ff8700",
    "log.info": "#87d7ff",
    "log.more": "reverse",
    "dialog": "bg:#1c1c1c #ffffff",
    "dialog frame.label": "bold",
    "dialog.verdict": "bg:#870000 #ffffff",
    "dialog.result": "bg:#005f00 #ffffff",
    "dialog.key": "bg:#ffd700 #000000 bold",
})
