"""The messages of play, as each arrives: the game's actions, pauses and hints.

An action is decoded by the game, its revealed cards checked against their
decryption shares, and applied by the referee (an illegal one is the writer's
fault); ``away`` gives the writer more time, ``hint`` marks the move as coached.
Each function checks one message against the
:class:`~p2pcards.protocol.table.Table` it is applied to.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from p2pcards.cards import Card
from p2pcards.protocol.dealing import LateBadShare, owner_of
from p2pcards.protocol.envelope import SignedMessage
from p2pcards.protocol.errors import BadProof, HintNotAllowed, NoPauseLeft, RuleViolation
from p2pcards.protocol.events import (
    ActionApplied,
    CardsRevealed,
    ClockPaused,
    HintTaken,
    MatchCompleted,
    TableEvent,
)
from p2pcards.protocol.schema import validate
from p2pcards.protocol.table_records import (
    AWAY_SHAPE,
    HINT,
    HINT_SHAPE,
    Stage,
)
from p2pcards.protocol.table_settings import PAUSE_SECONDS
from p2pcards.rules.errors import RuleError

if TYPE_CHECKING:
    from p2pcards.protocol.table import Table


def on_play(table: Table, msg: SignedMessage, trusted: bool) -> list[TableEvent]:
    """A game action: its revealed cards checked against their shares, then applied by the referee
    (a new deck follows a deal the referee closes)."""
    match = table.match
    seat = table.seat_of(msg.player)
    body = table.game.validate_body(msg.type, msg.body)
    slots = table.game.reveal_slots(match.engine, msg.type, body)
    for slot in slots:
        if owner_of(slot) != seat:
            raise RuleViolation(f"slot {slot} was not dealt to seat {seat}",
                                game_rule="card.not-held")
    codes: list[int] = []
    if slots:
        if trusted:
            codes = [table.hand[s].code for s in slots]
        else:
            try:
                codes = match.deal.check_reveal(seat, slots, body.get("shares", []))
            except LateBadShare as late:
                maker = table._shares_messages[late.seat]
                raise BadProof(late.detail, player=maker.player,
                               position=maker.position) from None
    faces = [Card.from_code(c) for c in codes]
    action = table.game.decode(seat, msg.type, body, faces)
    try:
        results = tuple(match.engine.apply(action))
    except RuleError as error:
        raise RuleViolation(str(error), game_rule=error.rule) from None
    events: list[TableEvent] = []
    if slots:
        match.deal.record_reveal(slots, codes)
        events.append(CardsRevealed(seat, tuple(zip(slots, faces, strict=False))))
    events.append(ActionApplied(seat, action, results, msg.position))
    if match.engine.outcome is not None:
        table.stage = Stage.OVER
        events.append(MatchCompleted(match.engine.outcome))
    elif match.engine.awaiting_deal:
        match.deal = table._new_deck(match.deal.number + 1, match.joint_key, match.player_at_seat)
        table.stage = Stage.SHUFFLE
    return events


def on_away(table: Table, msg: SignedMessage) -> list[TableEvent]:
    """A pause: the writer stays the writer, with more time (see ``PAUSES``)."""
    validate(AWAY_SHAPE, msg.body, "away")
    left = table.pauses_left[msg.player]
    if left <= 0:
        raise NoPauseLeft(f"player {msg.player} wrote 'away' with no pause left "
                          f"(the table allows {table.pauses} per player)")
    table.pauses_left[msg.player] = left - 1
    return [ClockPaused(msg.player, left - 1, PAUSE_SECONDS)]


def on_hint(table: Table, msg: SignedMessage) -> list[TableEvent]:
    """A hint: the writer stays the writer, marked as coached (see ``HINTS``)."""
    validate(HINT_SHAPE, msg.body, "hint")
    if not table.hints:
        raise HintNotAllowed(f"player {msg.player} wrote 'hint' at a table whose "
                             f"host did not allow hints")
    if table.messages[-1].type == HINT:
        raise HintNotAllowed(f"player {msg.player} wrote 'hint' right after a 'hint' "
                             f"(one per move)")
    table.hints_used[msg.player] += 1
    return [HintTaken(msg.player, table.hints_used[msg.player])]
