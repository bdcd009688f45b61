"""The table as text, for any front end: render a view, list and parse commands, describe events.

Pure functions, no I/O: the line-based front end (:mod:`.plain`) and a
full-screen one draw the same words. Each function hands the view to its
game's text module, chosen by the game object (``Game.is_view``).
Everything shown comes from a seat's view or from events, which hold only
what that seat may know.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from p2pcards.rules.bluff import BluffState
from p2pcards.rules.contract import Engine
from p2pcards.rules.games import BLUFF, TOPPER, UnknownGame
from p2pcards.rules.topper import TopperState
from p2pcards.ui import text_bluff, text_topper
from p2pcards.ui.text_common import CommandError, HandCard, card_text, clean
from p2pcards.ui.text_events import describe

__all__ = ["CommandError", "HandCard", "render", "options_help", "parse_command", "describe",
           "rules_summary", "labelled_hand", "turn_line", "card_text", "clean", "UnknownGame"]


V = TypeVar("V", contravariant=True)


class GameText(Protocol[V]):
    """What each game's text module (:mod:`.text_bluff`, :mod:`.text_topper`) provides
    for a view ``V`` of its game: the one shape this module dispatches to."""

    def render(self, view: V, names: Sequence[str], me: int | None, symbols: bool = False) -> str: ...

    def options_help(self, view: V, pauses: int = 0) -> str: ...

    def parse_command(self, text: str, view: V) -> object: ...

    def rules_summary(self) -> str: ...

    def labelled_hand(self, view: V, me: int) -> list[HandCard]: ...

    def turn_line(self, view: V, names: Sequence[str], me: int | None) -> str: ...


#: One game's view (invariant: the text and the view it is given are of one game).
G = TypeVar("G")


@dataclass(frozen=True)
class _Text(Generic[G]):
    """A game's text module together with a view of that game, so each call
    hands the view to the module that reads it."""

    text: GameText[G]
    view: G

    def render(self, names: Sequence[str], me: int | None, symbols: bool) -> str:
        return self.text.render(self.view, names, me, symbols)

    def options_help(self, pauses: int) -> str:
        return self.text.options_help(self.view, pauses)

    def parse_command(self, text: str) -> object:
        return self.text.parse_command(text, self.view)

    def rules_summary(self) -> str:
        return self.text.rules_summary()

    def labelled_hand(self, me: int) -> list[HandCard]:
        return self.text.labelled_hand(self.view, me)

    def turn_line(self, names: Sequence[str], me: int | None) -> str:
        return self.text.turn_line(self.view, names, me)


def _game(view: object) -> _Text[BluffState] | _Text[TopperState]:
    """The text module of the view's game, with the view; :class:`UnknownGame` (the
    rules' one) for a view of neither game, a programming error."""
    if BLUFF.is_view(view):
        return _Text(text_bluff, view)
    if TOPPER.is_view(view):
        return _Text(text_topper, view)
    raise UnknownGame(f"{type(view).__name__} belongs to no game")


def render(view: Engine, names: Sequence[str], me: int | None, symbols: bool = False) -> str:
    """The table as seat ``me`` sees it: seats, public state, ``me``'s labelled hand, the turn.

    Plain text, at most 80 columns, no colour. ``symbols`` writes suits as
    ♣♦♥♠ instead of C D H S.
    """
    return _game(view).render(names, me, symbols)


def options_help(view: Engine, pauses: int = 0) -> str:
    """The commands the viewer may type now (only the legal kinds), with their syntax;
    ``away`` among them while ``pauses`` are left to the viewer."""
    return _game(view).options_help(pauses)


def parse_command(text: str, view: Engine) -> object:
    """The legal action ``text`` asks for in ``view``; :class:`CommandError` for anything else.

    The action has passed the referee's ``check``: a returned action is legal.
    """
    return _game(view).parse_command(str(text))


def rules_summary(view: Engine) -> str:
    """The game's rules in a few lines, for ``help``."""
    return _game(view).rules_summary()


def labelled_hand(view: Engine, me: int) -> list[HandCard]:
    """``me``'s hand in the order shown, with the labels commands select cards by."""
    return _game(view).labelled_hand(me)


def turn_line(view: Engine, names: Sequence[str], me: int | None) -> str:
    """One line saying whose turn it is (or how the match ended)."""
    return _game(view).turn_line(names, me)
