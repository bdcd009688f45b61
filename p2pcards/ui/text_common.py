"""What both games' text shares: card labels, names, safe strings, wrapping.

A person selects a card by a short *label* (its number in the sorted hand)
or by its face; the table printed and the command parsed must agree on the
labels, so both ask :func:`labelled_hand` here. Names and reasons may come
from other peers over the network, so they are cleaned of control
characters before they reach a terminal.
"""

from __future__ import annotations

import math
import re
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from p2pcards.cards import Card
from p2pcards.errors import P2PCardsError
from p2pcards.protocol.table_settings import PAUSE_SECONDS
from p2pcards.rules.contract import Engine, Termination
from p2pcards.rules.errors import MatchOver, NotYourTurn, RuleError, WrongPhase
from p2pcards.rules.games import UnknownGame, game_of
from p2pcards.untrusted_text import shown

#: The widest line :func:`render` produces.
WIDTH = 80
#: Seconds left on your clock at which you are warned (and the bell rings).
CLOCK_WARNINGS = (30, 10)
#: The longest display name shown (longer ones are cut).
NAME_WIDTH = 16

_INTEGER = re.compile(r"[0-9]{1,9}")


class CommandError(P2PCardsError, ValueError):
    """A typed command that cannot be played now; the message says why, for a person."""


@dataclass(frozen=True)
class HandCard:
    """One card of the viewer's hand as shown: its label, its deal slot, its face."""

    label: int
    slot: int
    card: Card | None
    #: Extra words shown after the face, e.g. "Big Jack".
    note: str = ""

    def text(self, symbols: bool = False) -> str:
        face = card_text(self.card, symbols)
        extra = f" ({self.note})" if self.note else ""
        return f"[{self.label}] {face}{extra}"


def card_text(card: Card | None, symbols: bool = False) -> str:
    """``QH`` (or ``Q♥`` with ``symbols``); ``??`` for a face this view does not hold."""
    if card is None:
        return "??"
    return str(card) if symbols else card.ascii


def cards_text(cards: Sequence[Card | None], symbols: bool = False) -> str:
    return " ".join(card_text(c, symbols) for c in cards)


#: Why a seat gets no coach (a LAN table): the plain and full-screen refusals say it.
HINTS_OFF = ("hints are off at this table: its host did not allow them (p2pcards host "
             "--hints does, and then every screen marks a seat that asked the coach); "
             "nothing was sent")

#: The commands of every moment, at the end of every list of choices.
ALWAYS = "help, table, history, quit"


def other_commands(pauses: int = 0) -> list[str]:
    """The last lines of a seat's choices: ``away`` while a pause is left to it (a table
    with a clock), then the commands of every moment."""
    lines = []
    if pauses > 0:
        lines.append(f"  away (pause)             {PAUSE_SECONDS // 60} more minutes on this move, "
                     f"for everyone's clock ({plural(pauses, 'pause')} left)")
    return lines + [f"  {ALWAYS}"]


def no_pause(deadline: float | None) -> str:
    """Why ``away`` cannot act on a turn with this ``deadline`` (None or infinite: no clock)."""
    if deadline is None or math.isinf(deadline):
        return "away: this table has no clock, so nobody is timing you and there is nothing to pause"
    return "away: no pause left at this table"


#: A card face written in ASCII (``QH``, ``10D``), not inside a longer word or number.
_ASCII_FACE = re.compile(r"(?<![0-9A-Za-z])(?:10|[2-9JQKA])[CDHS](?![0-9A-Za-z])")


def faces_as_symbols(text: str) -> str:
    """``text`` with every ASCII card face written as the board writes it (``JH`` as ``J♥``):
    the commands' refusals name cards as plain mode types them; the full screen draws suits."""
    return _ASCII_FACE.sub(lambda face: str(Card.parse(face.group())), text)


def clean(text: object, limit: int = 200) -> str:
    """``text`` without control or format characters (no escape sequences reach the terminal)."""
    return shown(text, limit)


def quoted(text: object, limit: int = 40) -> str:
    """A table name (or other peer text) in double quotes, the one way the program quotes."""
    return f'"{clean(text, limit)}"'


def known_name(names: Sequence[str], seat: int) -> str:
    """The display name of ``seat``, cleaned and cut to :data:`NAME_WIDTH`; "" if unknown."""
    if 0 <= seat < len(names):
        return clean(names[seat], NAME_WIDTH)
    return ""


def seat_name(names: Sequence[str], seat: int) -> str:
    """The display name of ``seat``, or ``Seat 2`` while names are unknown."""
    return known_name(names, seat) or f"Seat {seat}"


def who(names: Sequence[str], seat: int | None, me: int | None, start: bool = True) -> str:
    """``Seat 2 (Bob)``, or ``You (seat 0)`` for this peer's own seat."""
    if seat is None:
        return "Nobody" if start else "nobody"
    if seat == me:
        return f"{'You' if start else 'you'} (seat {seat})"
    label = f"{'Seat' if start else 'seat'} {seat}"
    name = known_name(names, seat)
    return f"{label} ({name})" if name else label


def wrap(items: Sequence[str], indent: str = "  ", width: int = WIDTH) -> list[str]:
    """Items two spaces apart, broken into lines no wider than ``width`` (never inside an item)."""
    lines: list[str] = []
    line = ""
    for item in items:
        candidate = f"{line}  {item}" if line else indent + item
        if line and len(candidate) > width:
            lines.append(line)
            candidate = indent + item
        line = candidate
    if line:
        lines.append(line)
    return lines


def fit(lines: Sequence[str], width: int = WIDTH) -> str:
    """Join ``lines``, wrapping any that is still too wide (a long name, a long reason)."""
    out: list[str] = []
    for line in lines:
        if len(line) <= width:
            out.append(line)
        else:
            out.extend(textwrap.wrap(line, width=width, subsequent_indent="    ",
                                     break_long_words=True))
    return "\n".join(out)


def parse_count(token: str, what: str) -> int:
    """A plain decimal number typed by a person (ASCII digits only)."""
    if not _INTEGER.fullmatch(token):
        raise CommandError(f"{what} must be a number, not {clean(token, 20)!r}")
    return int(token)


def find_card(token: str, hand: Sequence[HandCard]) -> HandCard:
    """The hand card a person named by its label (``3``) or its face (``QH``, ``10h``, ``Q♥``)."""
    if token.isascii() and token.isdigit():
        number = int(token) if len(token) <= 9 else -1
        for entry in hand:
            if entry.label == number:
                return entry
        top = f" (labels are 1 to {len(hand)})" if hand else ""
        raise CommandError(f"no card labelled {clean(token, 12)} in your hand{top}")
    try:
        card = Card.parse(token)
    except ValueError:
        raise CommandError(f"{clean(token, 20)!r} is neither a card label nor a card "
                           f"(write a number from your hand, or e.g. QH, 10D)") from None
    for entry in hand:
        if entry.card == card:
            return entry
    raise CommandError(f"you hold no {card.ascii}")


def viewing_seat(view: Engine) -> int:
    """The seat a view belongs to (a referee made by ``new`` answers for the seat to act)."""
    seat = view.viewer if view.viewer is not None else view.to_act
    return -1 if seat is None else seat


def require_turn(view: Engine, me: int) -> None:
    """Refuse a command when ``me`` is not the seat to act, saying why."""
    if view.outcome is not None:
        raise CommandError("the match is over")
    if view.awaiting_deal or view.to_act is None:
        raise CommandError("nobody acts now: a deal is awaited")
    if view.to_act != me:
        raise CommandError(f"it is not your turn: seat {view.to_act} is to act")


def explain_common(view: Engine, error: RuleError) -> str:
    """The wording of the refusals both games share (turn, match over, phase, the rest)."""
    if isinstance(error, NotYourTurn):
        return f"it is not your turn: seat {view.to_act} is to act"
    if isinstance(error, MatchOver):
        return "the match is over"
    if isinstance(error, WrongPhase):
        return f"not now: {error.detail}"
    return f"refused: {error.detail}"


def parses(parse: Callable[[str], object], word: str) -> bool:
    """Whether ``parse(word)`` succeeds (a rank, a suit, a card, a card in a hand)."""
    try:
        parse(word)
    except ValueError:  # CommandError and CardParseError are ValueErrors
        return False
    return True


def tokens_of(text: str) -> list[str]:
    """Words of a command: case-insensitive, any whitespace or commas between them."""
    return [t for t in re.split(r"[\s,;]+", text.strip().lower()) if t]


#: Why a match ended, as a person says it.
ENDINGS: dict[Termination, str] = {
    Termination.LAST_WITH_CHIPS: "one player has all the chips",
    Termination.DEAL_CAP: "deal cap reached",
    Termination.TARGET_REACHED: "target score reached",
    Termination.BIDDER_WINS_TIE: "a tie at the target goes to the bidder",
    Termination.DEAL_LIMIT: "deal limit reached",
}


def ending_words(termination: Termination) -> str:
    """``deal cap reached``: a match's end in words (never the enum's id)."""
    return ENDINGS.get(termination, "the match ended")


def game_name(thing: object) -> str | None:
    """The name of the game a view, outcome or event belongs to (its game object's
    name: how the front ends choose a game's drawing), or None for anything else."""
    try:
        return game_of(thing).name
    except UnknownGame:
        return None


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"
