"""The messages of play, as each arrives: the game's actions, pauses and hints.

An action is decoded by the game, its revealed cards checked against their
decryption shares, and applied by the referee (an illegal one is the writer's
fault); ``away`` gives the writer more time, ``hint`` marks the move as
coached. Each check raises the rule the message breaks, before anything
changes.
"""

from __future__ import annotations

from collections.abc import Mapping

from p2pcards.cards import Card
from p2pcards.protocol.dealing import owner_of
from p2pcards.protocol.envelope import SignedMessage
from p2pcards.protocol.errors import HintNotAllowed, NoPauseLeft, RuleViolation
from p2pcards.protocol.events import ActionApplied, CardsRevealed, TableEvent
from p2pcards.protocol.game_wire import GameRules
from p2pcards.protocol.schema import validate
from p2pcards.protocol.table_deck import DeckInFlight
from p2pcards.protocol.table_records import AWAY_SHAPE, HINT_SHAPE
from p2pcards.rules.contract import Engine
from p2pcards.rules.errors import RuleError


def play(game: GameRules, engine: Engine, decks: DeckInFlight, hand: Mapping[int, Card],
         msg: SignedMessage, seat: int, trusted: bool) -> list[TableEvent]:
    """A game action by ``seat``: its revealed cards checked against their shares
    (this peer's own, ``trusted``, are read from its ``hand``), then applied by
    the referee."""
    body = game.validate_body(msg.type, msg.body)
    slots = game.reveal_slots(engine, msg.type, body)
    for slot in slots:
        if owner_of(slot) != seat:
            raise RuleViolation(f"slot {slot} was not dealt to seat {seat}",
                                game_rule="card.not-held")
    codes: list[int] = []
    if slots:
        codes = ([hand[s].code for s in slots] if trusted
                 else decks.check_reveal(seat, slots, body.get("shares", [])))
    faces = [Card.from_code(c) for c in codes]
    action = game.decode(seat, msg.type, body, faces)
    try:
        results = tuple(engine.apply(action))
    except RuleError as error:
        raise RuleViolation(str(error), game_rule=error.rule) from None
    events: list[TableEvent] = []
    if slots:
        decks.record_reveal(slots, codes)
        events.append(CardsRevealed(seat, tuple(zip(slots, faces, strict=False))))
    events.append(ActionApplied(seat, action, results, msg.position))
    return events


def check_away(msg: SignedMessage, left: int, allowed: int) -> None:
    """A pause (the writer stays the writer, with more time) by a player with
    ``left`` of the table's ``allowed`` pauses."""
    validate(AWAY_SHAPE, msg.body, "away")
    if left <= 0:
        raise NoPauseLeft(f"player {msg.player} wrote 'away' with no pause left "
                          f"(the table allows {allowed} per player)")


def check_hint(msg: SignedMessage, allowed: bool, hinted: bool) -> None:
    """A hint (the writer stays the writer, marked as coached) at a table that
    ``allowed`` them; one per move (``hinted``: the last message was a hint)."""
    validate(HINT_SHAPE, msg.body, "hint")
    if not allowed:
        raise HintNotAllowed(f"player {msg.player} wrote 'hint' at a table whose "
                             f"host did not allow hints")
    if hinted:
        raise HintNotAllowed(f"player {msg.player} wrote 'hint' right after a 'hint' "
                             f"(one per move)")
